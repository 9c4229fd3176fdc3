"""Rummy's part of the post-match analysis (games/kits/analysis_spec.py): draws and plays are decisions, ordered
for the screening as a Rummy turn goes; the opponent's hand and the stock are hidden, and a seat remembers the
discard pile its view no longer shows (``Memory``)."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from ..bots import rummy as bots
from ..engines.base import Action, View
from ..engines.rummy import ENGINE as RUMMY
from ..engines.rummy import JOKER_SUITS, card_penalty, full_deck, new_pack
from .analysis_spec import AnalysisSpec, Budget, Knowledge, Option, Thresholds, Tracker, check, fresh_seed


class Memory(Tracker):
    """Rummy's view shows the discard pile's top and count only; a player who watched the game knows the
    whole pile (every discard is public), which cards each opponent took from it and still holds, and the
    jokers they freed from packs. The table count at the last full round feeds the stalemate rule."""

    needs_view = True

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.discard: list[str] = []
        self.holds: list[Counter[str]] = [Counter(), Counter()]  # cards each seat is known to hold
        self.table_mark = 0

    def observe(self, actor: int, action: Action, view: View | None) -> None:
        assert view is not None
        kind = action["type"]
        held = self.holds[actor]
        if kind == "draw" and action["from"] == "discard":
            held[self.discard.pop()] += 1
        elif kind == "meld":
            for pack in action["packs"]:
                for card in pack:
                    if held[card]:
                        held[card] -= 1
        elif kind == "add":
            if held[action["card"]]:
                held[action["card"]] -= 1
            entries = [e for e in (view.get("last") or {}).get("actions", []) if e.get("type") == "add"]
            if entries and entries[-1].get("freed"):  # this add freed a joker: it went to the adder's hand
                held[entries[-1]["freed"]] += 1
        elif kind == "discard":
            card = action["card"]
            if held[card]:
                held[card] -= 1
            self.discard.append(card)
            if actor == 1 and not view["over"] and view["table_count"] > self.table_mark:
                self.table_mark = view["table_count"]  # the engine's check after each full round
        if view["discard_count"] < len(self.discard):  # the stock ran out: the pile but its top was shuffled in
            self.discard = self.discard[-1:]
        check(view["discard_count"] == len(self.discard) and (view["discard_top"] is None
                                                             or view["discard_top"] == self.discard[-1]),
              "rummy", "the remembered discard pile drifted from the view")

    def knowledge(self) -> Knowledge:
        return {
            "discard": list(self.discard),
            "holds": [sorted(held.elements()) for held in self.holds],
            "table_mark": self.table_mark,
        }


def sample(view: View, knowledge: Knowledge, rng: random.Random) -> Any:
    """The opponent holds the cards it is known to hold (taken from the discard pile, freed jokers) plus cards
    dealt at random from the unseen ones; the rest of the unseen cards are the stock, in random order."""
    seat: int = view["seat"]
    opp = 1 - seat
    unseen = Counter(full_deck())
    unseen.subtract(view["hand"])
    for pack in view["packs"]:
        unseen.subtract(pack["cards"])
    unseen.subtract(knowledge["discard"])
    known = list(knowledge["holds"][opp])
    unseen.subtract(known)
    check(all(n >= 0 for n in unseen.values()), "rummy",
          f"more copies seen than the decks hold: {sorted(c for c, n in unseen.items() if n < 0)}")
    pool = sorted(unseen.elements())
    free = view["hand_counts"][opp] - len(known)
    check(free >= 0 and len(pool) == free + view["stock_count"], "rummy", "unseen cards != opponent hand + stock")
    rng.shuffle(pool)
    hands: list[list[str]] = [[], []]
    hands[seat] = list(view["hand"])
    hands[opp] = sorted([*known, *pool[:free]])
    phase = view["phase"]
    current = view["current"]
    last = None
    if phase == "play":  # a turn under way: the engine records its actions in `last`
        last = {"seat": current, "turn": view["turns"][current], "actions": [], "ended": False}
    return RUMMY.load({
        "seed": fresh_seed(rng),
        "min_first_meld": view["options"]["min_first_meld"],
        "hands": hands,
        "stock": pool[free:],
        "discard": list(knowledge["discard"]),
        "packs": [{"kind": p["kind"], "cards": list(p["cards"]), "owner": p["owner"], "low": p.get("low_place", 0)}
                  for p in view["packs"]],
        "laid": list(view["laid_down"]),
        "current": current,
        "phase": phase,
        "turns": list(view["turns"]),
        "reshuffles": 0,
        "idle_rounds": view["idle_rounds"],
        "table_mark": knowledge["table_mark"],
        "outcome": None,
        "winner": None,
        "final_scores": [0, 0],
        "final_hands": None,
        "log": [],
        "last": last,
    })


def classify(view: View, legal: list[Action], action: Action) -> tuple[str | None, list[Option]]:
    return ("draw" if view["phase"] == "draw" else "play"), list(legal)


def rank(view: View, options: list[Option], rng: random.Random) -> list[Option]:
    """Draws as listed; then the most valuable lay-down, the additions, and the discards from the highest card
    down (jokers last): the classic order of a Rummy turn."""
    melds: list[tuple[int, Option]] = []
    adds: list[Option] = []
    discards: list[tuple[int, float, Option]] = []
    draws: list[Option] = []
    for option in options:
        assert option is not None
        kind = option["type"]
        if kind == "meld":
            value = sum(new_pack(list(p), 0).value for p in option["packs"])
            melds.append((value, option))
        elif kind == "add":
            adds.append(option)
        elif kind == "discard":
            card = option["card"]
            joker = card in JOKER_SUITS
            discards.append((1 if joker else 0, -card_penalty(card) + rng.random() * 0.1, option))
        else:
            draws.append(option)
    melds.sort(key=lambda item: -item[0])
    discards.sort(key=lambda item: (item[0], item[1]))
    return [*draws, *(m[1] for m in melds[:1]), *adds, *(d[2] for d in discards), *(m[1] for m in melds[1:])]


# Half lichess's win-chance points: luck dominates and one decision moves little, so that marks still pick out
# the few percent of worst moves.
SPEC = AnalysisSpec("rummy", RUMMY, bots, lower_wins=True, scale=10.0, sampler=sample, classify=classify, rank=rank,
                    budget=Budget(candidates=8, screen=16, samples=128), thresholds=Thresholds(0.05, 0.10, 0.20),
                    tracker=Memory)
