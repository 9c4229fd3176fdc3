"""A hand-worked Gomori position: two lines of clubs meet on an empty cell, and black holds the club that
gathers both (6 cards). Playing elsewhere is a blunder whose better move is the gather; the gather itself is
not marked (analysis_helpers.LINE_DEAL explains the position)."""

from __future__ import annotations

from analysis_helpers import ELSEWHERE, GATHERS, LINE_DEAL, LINE_OPENING

from games.analysis import Budget, analyse
from games.engines import get_engine

BUDGET = Budget(candidates=4, screen=4, samples=32)


def test_the_position_is_what_the_comment_says() -> None:
    engine = get_engine("gomori")
    state = engine.new_game(2, seed=0, deal=LINE_DEAL)
    for seat, action in LINE_OPENING:
        state = engine.apply(state, seat, action)
    assert engine.to_act(state) == [0]
    assert sorted(state.hands[0]) == ["10S", "8C", "8S", "9C", "9S"]
    after = engine.apply(state, 0, GATHERS[0])
    assert len(after.gathered[0]) == 6
    after = engine.apply(state, 0, ELSEWHERE)
    assert after.gathered[0] == () and engine.to_act(after) == [1]


def test_playing_elsewhere_is_a_blunder_and_the_gather_is_the_better_move() -> None:
    result = analyse("gomori", 2, 0, None, [*LINE_OPENING, (0, ELSEWHERE)], deal=LINE_DEAL, seats=[0],
                     budget=BUDGET)
    decision = result.decisions[-1]
    assert decision.ply == len(LINE_OPENING)
    assert decision.mark == "blunder", decision.to_json()
    assert decision.better in GATHERS
    assert decision.value_best - decision.value_played == decision.cost >= result.thresholds.blunder


def test_the_gather_is_not_marked() -> None:
    result = analyse("gomori", 2, 0, None, [*LINE_OPENING, (0, GATHERS[0])], deal=LINE_DEAL, seats=[0],
                     budget=BUDGET)
    decision = result.decisions[-1]
    assert decision.played == GATHERS[0]
    assert decision.mark is None, decision.to_json()
    assert decision.better is None
    assert decision.cost < result.thresholds.inaccuracy
