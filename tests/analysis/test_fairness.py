"""Fair information: the analysis of a seat's decision depends on what that seat could know, never on the
hidden cards. Two deals that differ only in a card the analysed seat never sees (one the opponent holds,
swapped with one at the bottom of its draw pile or the stock) give that seat the same views throughout, and
must give the same analysis of its decisions. (A sampler made to deal the true opponent hand fails these.)"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

import pytest
from analysis_helpers import SMALL

from games.analysis import analyse
from games.analysis.selfplay import bots_of, play_match
from games.engines import IllegalAction, get_engine
from games.engines.base import standard_deck
from games.engines.rummy import full_deck

Actions = list[tuple[int, dict[str, Any]]]


OPTIONS: dict[str, dict[str, Any] | None] = {"gomori": None, "rummy": None, "columbo": {"rounds": 1}}


def _replay(game: str, deal: dict[str, Any], actions: Actions) -> list[Any]:
    engine = get_engine(game)
    states = [engine.new_game(2, seed=7, deal=deal, options=OPTIONS[game])]
    for seat, action in actions:
        states.append(engine.apply(states[-1], seat, action))
    return states


def _views(game: str, states: list[Any], seat: int) -> list[str]:
    engine = get_engine(game)
    return [json.dumps(engine.view(state, seat), sort_keys=True) for state in states]


def _twin(game: str, deal: dict[str, Any], actions: Actions, swaps: Callable[[Any], list[dict[str, Any]]],
          ) -> tuple[dict[str, Any], int]:
    """A second deal, and the ply of a seat-0 decision, such that seat 0 sees the same as in `deal` up to that
    ply while the opponent holds a different card."""
    engine = get_engine(game)
    states = _replay(game, deal, actions)
    for k in range(len(actions) // 3, len(actions)):
        if actions[k][0] != 0 or len(engine.legal_actions(states[k], 0)) < 2:
            continue
        for other in swaps(states[k]):
            try:
                twins = _replay(game, other, actions[:k])
            except IllegalAction:
                continue
            if _views(game, twins, 0) == _views(game, states[:k + 1], 0) and \
                    list(twins[-1].hands[1]) != list(states[k].hands[1]):
                return other, k
    raise AssertionError("no twin deal found")


def _same_analysis(game: str, deal: dict[str, Any], other: dict[str, Any], actions: Actions) -> None:
    first = analyse(game, 2, 7, OPTIONS[game], actions, deal=deal, seats=[0], budget=SMALL, analysis_seed=3)
    second = analyse(game, 2, 7, OPTIONS[game], actions, deal=other, seats=[0], budget=SMALL, analysis_seed=3)
    assert first.decisions and first.decisions[-1].ply == len(actions) - 1
    assert first.to_json() == second.to_json()


@pytest.mark.parametrize("seed", [1, 2])
def test_gomori_analysis_never_reads_the_opponents_hand(seed: int) -> None:
    engine = get_engine("gomori")
    start = engine.new_game(2, seed=seed)
    deal = {"black": [*start.hands[0], *start.piles[0]], "red": [*start.hands[1], *start.piles[1]]}
    strongest = list(bots_of("gomori").values())[-1]
    actions, _ = play_match("gomori", [strongest, strongest], seed, deal=deal)

    def swaps(state: Any) -> list[dict[str, Any]]:
        out = []
        for card in state.hands[1]:  # a card red holds, swapped with the last card of red's pile
            red = list(deal["red"])
            i, j = red.index(card), len(red) - 1
            if red[j] not in state.hands[1] and state.piles[1] and red[j] == state.piles[1][-1]:
                red[i], red[j] = red[j], red[i]
                out.append({"black": deal["black"], "red": red})
        return out

    other, k = _twin("gomori", deal, actions, swaps)
    _same_analysis("gomori", deal, other, actions[:k + 1])


@pytest.mark.parametrize("seed", [1, 2])
def test_rummy_analysis_never_reads_the_opponents_hand(seed: int) -> None:
    deck = full_deck()
    random.Random(seed).shuffle(deck)
    deal = {"deck": deck}
    strongest = list(bots_of("rummy").values())[-1]
    actions, _ = play_match("rummy", [strongest, strongest], seed, deal=deal)

    def swaps(state: Any) -> list[dict[str, Any]]:
        out = []
        for i in range(1, 26, 2):  # a card dealt to seat 1, swapped with the bottom of the stock
            if deck[i] in state.hands[1] and deck[i] != deck[-1]:
                other = list(deck)
                other[i], other[-1] = other[-1], other[i]
                out.append({"deck": other})
        return out

    other, k = _twin("rummy", deal, actions, swaps)
    _same_analysis("rummy", deal, other, actions[:k + 1])


@pytest.mark.parametrize("seed", [1, 2])
def test_columbo_analysis_never_reads_an_unseen_card(seed: int) -> None:
    deck = standard_deck()
    random.Random(seed).shuffle(deck)
    deal = {"deck": deck}
    strongest = list(bots_of("columbo").values())[-1]
    actions, _ = play_match("columbo", [strongest, strongest], seed, options=OPTIONS["columbo"], deal=deal)
    engine = get_engine("columbo")

    def swaps(state: Any) -> list[dict[str, Any]]:
        out = []
        view = engine.view(state, 0)
        for slot, card in enumerate(state.hands[1]):  # a card of seat 1 that seat 0 has not seen ...
            if card is None or view["hands"][1]["slots"][slot]["card"] is not None or card not in deck[4:8]:
                continue
            if deck[-1] not in state.stock:  # ... swapped with the stock's last card, still in the stock
                continue
            other = list(deck)
            i = other.index(card)
            other[i], other[-1] = other[-1], other[i]
            out.append({"deck": other})
        return out

    other, k = _twin("columbo", deal, actions, swaps)
    _same_analysis("columbo", deal, other, actions[:k + 1])
