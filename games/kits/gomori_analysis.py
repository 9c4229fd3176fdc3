"""Gomori's part of the post-match analysis (games/kits/analysis_spec.py): every play is a decision, ordered for
the screening by the greedy bot's measure, and a state is sampled by dealing each colour's unseen cards.

The opponent's hand and both draw piles are hidden; the field is open, covered cards included.
"""

from __future__ import annotations

import random
from typing import Any

from ..bots import gomori as bots
from ..engines.base import Action, View, json_copy
from ..engines.gomori import DECKS
from ..engines.gomori import ENGINE as GOMORI
from .analysis_spec import AnalysisSpec, Budget, Knowledge, Option, Thresholds, check, fresh_seed


def sample(view: View, knowledge: Knowledge, rng: random.Random) -> Any:
    """Deal the unseen cards of each colour: the seat's own into its draw pile (whose order it does not know
    either), the opponent's into its hand and draw pile."""
    seat: int = view["seat"]
    opp = 1 - seat
    seen: set[str] = set(view["hand"])
    for entry in view["field"]:
        seen.update(entry["stack"])
    for pile in view["gathered"]:
        seen.update(pile)
    own = [c for c in DECKS[seat] if c not in seen]
    other = [c for c in DECKS[opp] if c not in seen]
    hand_n = view["hand_counts"][opp]
    check(len(own) == view["pile_counts"][seat], "gomori", "own unseen cards != own draw pile")
    check(len(other) == hand_n + view["pile_counts"][opp], "gomori", "opponent's unseen cards != hand + pile")
    rng.shuffle(own)
    rng.shuffle(other)
    hands: list[list[str]] = [[], []]
    piles: list[list[str]] = [[], []]
    hands[seat], piles[seat] = list(view["hand"]), own
    hands[opp], piles[opp] = other[:hand_n], other[hand_n:]
    return GOMORI.load({
        "seed": fresh_seed(rng),
        "hands": hands,
        "piles": piles,
        "field": json_copy(view["field"]),
        "gathered": json_copy(view["gathered"]),
        "turn": view["turn"],
        "chain": view["chain"],
        "passes": view["passes"],
        "over": False,
        "end_reason": None,
        "log": [],
        "last": None,
    })


def classify(view: View, legal: list[Action], action: Action) -> tuple[str | None, list[Option]]:
    return ("chain" if view["chain"] else "play"), list(legal)


def rank(view: View, options: list[Option], rng: random.Random) -> list[Option]:
    """The greedy bot's order: 2 x cards gathered + 1 if stacked (ties at random)."""
    board = bots.board_from_view(view)
    scored: list[tuple[float, float, Option]] = []
    for option in options:
        assert option is not None
        score = 0.0
        if board:
            target = tuple(option["king_target"]) if "king_target" in option else None
            _, gain, stacked = bots.play_on_board(board, option["card"], (option["at"][0], option["at"][1]), target)
            score = 2 * gain + (1 if stacked else 0)
        scored.append((-score, rng.random(), option))
    scored.sort(key=lambda item: (item[0], item[1]))
    return [item[2] for item in scored]


# lichess's 10/20/30 win-chance points: single decisions swing a game of Gomori.
SPEC = AnalysisSpec("gomori", GOMORI, bots, lower_wins=False, scale=2.0, sampler=sample, classify=classify,
                    rank=rank, budget=Budget(candidates=8, screen=16, samples=96),
                    thresholds=Thresholds(0.10, 0.20, 0.30))
