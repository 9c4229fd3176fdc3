"""Determinization: full engine states consistent with what one seat knows, one sampler per game.

A sampler gets the seat's view (``engine.view(state, seat)``), the seat's ``Knowledge`` (what a seat with perfect
memory learned from public events that the current view no longer shows: only Rummy needs any) and a random
generator, and returns a complete engine state in which every card or tile the seat cannot see is dealt at random
among the places the seat cannot see into. Nothing here ever reads a true state: the analysis builds its states
from views alone, so it cannot leak a hidden card (tests/analysis/test_fairness.py checks it).

Every sampled state also gets a fresh random ``seed``: the engines draw later randomness (Rummy's and Columbo's
reshuffles, Columbo's later deals) from the match seed, which no player knows.

The states are built with ``engine.load()`` from a constructed dump, which is exact (the same code path as crash
recovery) and cheap. Logs start empty: the rollout bots read only the board, hands and counts.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from typing import Any

from games.engines import get_engine
from games.engines.base import Action, View, json_copy, standard_deck
from games.engines.gomori import DECKS
from games.engines.ruhd import TILE_IDS
from games.engines.rummy import full_deck

Knowledge = dict[str, Any]
Sampler = Callable[[View, Knowledge, random.Random], Any]


class SampleError(RuntimeError):
    """A view whose counts do not add up (an engine and a sampler that disagree): a bug, never bad luck."""


def _seed(rng: random.Random) -> int:
    return rng.randrange(2**31)


def _check(condition: bool, game: str, what: str) -> None:
    if not condition:
        raise SampleError(f"{game}: {what}")


# ---------------------------------------------------------------------------------------------------------
# Knowledge beyond the current view
# ---------------------------------------------------------------------------------------------------------

class Tracker:
    """What one seat remembers of the public events that its current view no longer shows.

    ``observe`` is called after every recorded action with the acting seat, the action (public in every game
    here: the engines' actions never name a hidden card) and this seat's view after it. The base class
    remembers nothing: Gomori, Ruhd and Columbo views already carry all a seat may know.
    """

    needs_view = False

    def observe(self, actor: int, action: Action, view: View | None) -> None:
        """Take in one recorded action (the view is None when needs_view is False)."""

    def knowledge(self) -> Knowledge:
        """A copy of what is known now, for the sampler."""
        return {}


class RummyTracker(Tracker):
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
        _check(view["discard_count"] == len(self.discard) and (view["discard_top"] is None
                                                              or view["discard_top"] == self.discard[-1]),
               "rummy", "the remembered discard pile drifted from the view")

    def knowledge(self) -> Knowledge:
        return {
            "discard": list(self.discard),
            "holds": [sorted(held.elements()) for held in self.holds],
            "table_mark": self.table_mark,
        }


def new_tracker(game: str, seat: int) -> Tracker:
    """The tracker of one seat in a game."""
    return RummyTracker(seat) if game == "rummy" else Tracker()


# ---------------------------------------------------------------------------------------------------------
# Gomori: the opponent's hand and both draw piles are hidden (the field is open, covered cards included)
# ---------------------------------------------------------------------------------------------------------

def sample_gomori(view: View, knowledge: Knowledge, rng: random.Random) -> Any:
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
    _check(len(own) == view["pile_counts"][seat], "gomori", "own unseen cards != own draw pile")
    _check(len(other) == hand_n + view["pile_counts"][opp], "gomori", "opponent's unseen cards != hand + pile")
    rng.shuffle(own)
    rng.shuffle(other)
    hands: list[list[str]] = [[], []]
    piles: list[list[str]] = [[], []]
    hands[seat], piles[seat] = list(view["hand"]), own
    hands[opp], piles[opp] = other[:hand_n], other[hand_n:]
    return get_engine("gomori").load({
        "seed": _seed(rng),
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


# ---------------------------------------------------------------------------------------------------------
# Ruhd: only the deck's order is hidden (and which tiles were set aside)
# ---------------------------------------------------------------------------------------------------------

def sample_ruhd(view: View, knowledge: Knowledge, rng: random.Random) -> Any:
    """Shuffle the tiles nobody has seen into the deck and the set-aside heap."""
    unseen = [t for t in TILE_IDS if t not in view["tiles"]]
    _check(len(unseen) == view["deck"] + view["set_aside"], "ruhd", "unseen tiles != deck + set aside")
    rng.shuffle(unseen)
    recent = view["recent_face_down"]
    return get_engine("ruhd").load({
        "players": view["players"],
        "seed": _seed(rng),
        "board": [[e["at"][0], e["at"][1], e["tile"], e["rotation"], e["cover"]] for e in view["board"]],
        "hand": list(view["hand"]),
        "deck": unseen[:view["deck"]],
        "set_aside": unseen[view["deck"]:],
        "scores": list(view["scores"]),
        "turn": view["turn"],
        "phase": view["phase"],
        "recent": None if recent is None else list(recent["at"]),
        "log": [],
        "last": None,
        "last_placement": None,
    })


# ---------------------------------------------------------------------------------------------------------
# Rummy: the opponent's hand and the stock are hidden
# ---------------------------------------------------------------------------------------------------------

def sample_rummy(view: View, knowledge: Knowledge, rng: random.Random) -> Any:
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
    _check(all(n >= 0 for n in unseen.values()), "rummy",
           f"more copies seen than the decks hold: {sorted(c for c, n in unseen.items() if n < 0)}")
    pool = sorted(unseen.elements())
    free = view["hand_counts"][opp] - len(known)
    _check(free >= 0 and len(pool) == free + view["stock_count"], "rummy", "unseen cards != opponent hand + stock")
    rng.shuffle(pool)
    hands: list[list[str]] = [[], []]
    hands[seat] = list(view["hand"])
    hands[opp] = sorted([*known, *pool[:free]])
    phase = view["phase"]
    current = view["current"]
    last = None
    if phase == "play":  # a turn under way: the engine records its actions in `last`
        last = {"seat": current, "turn": view["turns"][current], "actions": [], "ended": False}
    return get_engine("rummy").load({
        "seed": _seed(rng),
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


# ---------------------------------------------------------------------------------------------------------
# Columbo: every face-down card the seat has not seen, in any hand, and the stock
# ---------------------------------------------------------------------------------------------------------

PUBLIC = 1 << 8  # games.engines.columbo.PUBLIC: a face everyone has seen


def sample_columbo(view: View, knowledge: Knowledge, rng: random.Random, *,
                   extra_attempt: int | None = None) -> Any:
    """Deal the cards the seat has not seen into the face-down slots it does not know (its own and others'),
    the card another player drew from the stock, and the stock. Which seats know each card (``seen_by``) is
    public, so a dealt card is known to exactly the seats that know the real one.

    ``extra_attempt``: a seat recorded as having already tried to slap the open discard (the analysis of a
    slap compares slapping with letting this discard go)."""
    players: int = view["players"]
    everyone = list(range(players))
    seen: set[str] = set(view["discard"]["cards"])
    for hand in view["hands"]:
        seen.update(s["card"] for s in hand["slots"] if s["card"] is not None)
    drawn = view["drawn"]
    if drawn is not None and drawn["card"] is not None:
        seen.add(drawn["card"])
    pool = [c for c in standard_deck() if c not in seen]
    holes = sum(1 for hand in view["hands"] for s in hand["slots"] if not s["empty"] and s["card"] is None)
    hidden_drawn = drawn is not None and drawn["card"] is None
    _check(len(pool) == holes + int(hidden_drawn) + view["stock"], "columbo",
           "unseen cards != unknown slots + hidden drawn card + stock")
    rng.shuffle(pool)
    deal = iter(pool)

    def mask(seen_by: list[int]) -> int:
        if seen_by == everyone:
            return PUBLIC
        return sum(1 << s for s in seen_by)

    hands: list[list[str | None]] = []
    known: dict[str, int] = {}
    for hand in view["hands"]:
        cards: list[str | None] = []
        for slot in hand["slots"]:
            if slot["empty"]:
                cards.append(None)
                continue
            card = slot["card"] if slot["card"] is not None else next(deal)
            cards.append(card)
            known[card] = mask(slot["seen_by"])
        hands.append(cards)
    drawn_card = None
    drawn_from = None
    if drawn is not None:
        drawn_card = drawn["card"] if drawn["card"] is not None else next(deal)
        drawn_from = drawn["from"]
        known[drawn_card] = PUBLIC if drawn_from == "discard" else 1 << drawn["seat"]
    stock = list(deal)
    window = None
    w = view["window"]
    if w is not None:
        attempted = list(w["attempted"])
        if extra_attempt is not None and extra_attempt not in attempted:
            attempted.append(extra_attempt)
        window = {"seq": w["seq"], "card": w["card"], "open": w["open"], "attempted": attempted,
                  "winner": w["won_by"], "round": view["round"]}
    action = view["action"]
    tap = view["tap"]
    return get_engine("columbo").load({
        "players": players, "seed": _seed(rng), "rounds": view["rounds"],
        "trigger": view["options"]["action_trigger"], "rng": 0, "round": view["round"], "dealer": view["dealer"],
        "phase": view["phase"], "hands": hands, "stock": stock, "discard": list(view["discard"]["cards"]),
        "known": known, "peeked": [None if h["peeked"] is None else list(h["peeked"]) for h in view["hands"]],
        "current": view["current"], "step": view["step"], "drawn": drawn_card, "drawn_from": drawn_from,
        "seq": view["discard"]["seq"] or 0, "window": window,
        "action": None if action is None else json_copy(action),
        "tapper": None if tap is None else tap["seat"], "final_turns": [] if tap is None else list(tap["final_turns"]),
        "turns": view["turns"], "seconds": None, "totals": list(view["totals"]), "history": [], "slapped": {},
        "log": [], "last": None, "solo": None,
    })


SAMPLERS: dict[str, Sampler] = {
    "gomori": sample_gomori,
    "ruhd": sample_ruhd,
    "rummy": sample_rummy,
    "columbo": sample_columbo,
}

__all__ = [
    "SAMPLERS",
    "Knowledge",
    "RummyTracker",
    "SampleError",
    "Sampler",
    "Tracker",
    "new_tracker",
    "sample_columbo",
    "sample_gomori",
    "sample_ruhd",
    "sample_rummy",
]
