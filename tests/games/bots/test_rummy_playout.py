"""Rummy's determinized play-outs (games/bots/rummy_playout.py): the fast play-out plays the original app's
game as the engine does, and a decision's samples agree with the seat's view."""

from __future__ import annotations

import random

from bench.opponents.rummy import romme
from games.bots import rummy_playout
from games.engines import get_engine

ENGINE = get_engine("rummy")


def test_a_play_out_plays_the_original_apps_game_as_the_engine_does() -> None:
    """Both seats the original app from the same deal: the play-out ends with the engine's winner and hands
    (seeds 1-6 end before the stock runs out, which a play-out does not reshuffle)."""
    for seed in range(1, 7):
        state = ENGINE.new_game(2, seed=seed)
        table = rummy_playout.Table([list(h) for h in state.hands], list(state.stock), None, [], [False, False],
                                    [0, 0], 40)
        outcome = rummy_playout.finish(table, 0)
        rngs = [random.Random(0), random.Random(1)]
        while not ENGINE.is_over(state):
            seat = state.current
            action, _ = romme(ENGINE.view(state, seat), ENGINE.legal_actions(state, seat), rngs[seat])
            state = ENGINE.apply(state, seat, action)
        assert state.winner is not None
        assert outcome == (1.0 if state.winner == 0 else 0.0), seed
        assert sorted(table.hands[1 - state.winner]) == sorted(state.hands[1 - state.winner]), seed


def test_a_sample_holds_the_unseen_cards_only() -> None:
    """The opponent's hand and the stock drawn for a decision are exactly the cards the seat has not seen."""
    state = ENGINE.new_game(2, seed=3)
    rngs = [random.Random(0), random.Random(1)]
    for _ in range(12):
        seat = state.current
        action, _ = romme(ENGINE.view(state, seat), ENGINE.legal_actions(state, seat), rngs[seat])
        state = ENGINE.apply(state, seat, action)
    view = ENGINE.view(state, state.current)
    reading = rummy_playout.read(view)
    found = rummy_playout.determinize(view, reading, random.Random(5))
    assert found is not None
    hand, stock = found
    assert len(hand) == view["hand_counts"][1 - view["seat"]]
    assert sorted(hand + stock) == sorted(reading.unseen.elements())
    assert sorted(hand + stock) == sorted(state.hands[1 - view["seat"]] + state.stock)
