"""Columbo's part of the post-match analysis (games/kits/analysis_spec.py): a turn's steps and the slaps are
decisions, a play-out stops at the end of the decision's round, and a state is sampled by dealing every face-down
card the seat has not seen, in any hand, and the stock."""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any

from ..bots import columbo as bots
from ..engines.base import Action, View, json_copy, standard_deck
from ..engines.columbo import ENGINE as COLUMBO
from ..engines.columbo import PUBLIC
from .analysis_spec import AnalysisSpec, Budget, Knowledge, Option, Thresholds, check, fresh_seed, shuffled, sigmoid


def sample(view: View, knowledge: Knowledge, rng: random.Random, *, extra_attempt: int | None = None) -> Any:
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
    check(len(pool) == holes + int(hidden_drawn) + view["stock"], "columbo",
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
    return COLUMBO.load({
        "players": players, "seed": fresh_seed(rng), "rounds": view["rounds"],
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


TURN_GROUPS: dict[str, tuple[str, ...]] = {
    "draw": ("draw", "tap"),
    "place": ("swap", "discard"),
    "card_action": ("look", "exchange", "skip"),
}
GROUP_OF: dict[str, str] = {kind: group for group, kinds in TURN_GROUPS.items() for kind in kinds}


def classify(view: View, legal: list[Action], action: Action) -> tuple[str | None, list[Option]]:
    """The turn's steps (draw or tap; keep or discard; the 7-Q card action) are decisions among the options of
    that step. A slap is a decision between slapping (any card) and letting this discard go. The peek is not
    analysed: before it every card is unseen, so all six choices are alike."""
    kind = action["type"]
    if kind == "peek":
        return None, []
    if kind == "slap":
        return "slap", [None, *(a for a in legal if a["type"] == "slap")]
    group = GROUP_OF[kind]
    return group, [a for a in legal if GROUP_OF.get(a["type"]) == group]


def rank(view: View, options: list[Option], rng: random.Random) -> list[Option]:
    """Letting a discard go first among slaps; the rest at random (a turn step has few options)."""
    rest: list[Option] = [o for o in options if o is not None]
    first: list[Option] = [None] if None in options else []
    return first + shuffled(rest, rng)


class ColumboSpec(AnalysisSpec):
    """Columbo's play-outs stop at the end of the decision's round: rounds are dealt afresh, so a decision
    changes only its own round's score, and playing three more rounds would mostly add noise (and cost). The
    margin is the match total after that round; the rounds still to come widen the soft-win scale by
    sqrt(1 + rounds left), as independent rounds add up."""

    def stop(self, view: View) -> Callable[[Any], bool]:
        start = view["round"]
        return lambda state: bool(state.round != start)

    def let_go(self, state: Any, seat: int) -> Any:
        """The seat counts as having tried its one slap on this discard: it can no longer slap it."""
        engine = self.engine
        data = engine.dump(state)
        window = data["window"]
        if window is not None and seat not in window["attempted"]:
            window["attempted"].append(seat)
        return engine.load(data)

    def let_go_text(self, seat: int) -> str:
        return f"{{s{seat}}} lets the discard go (no slap)"

    def soft_win(self, scores: list[int], seat: int, view: View) -> float:
        others = [s for i, s in enumerate(scores) if i != seat]
        if not others:
            return 0.5
        left = view["rounds"] - view["round"]
        margin = min(others) - scores[seat]
        return sigmoid(margin / (self.scale * math.sqrt(1 + left)))


# Half lichess's win-chance points: luck dominates and one decision moves little, so that marks still pick out
# the few percent of worst moves.
SPEC = ColumboSpec("columbo", COLUMBO, bots, lower_wins=True, scale=5.0, sampler=sample, classify=classify,
                   rank=rank, budget=Budget(candidates=6, screen=12, samples=64),
                   thresholds=Thresholds(0.05, 0.10, 0.20),
                   note="Columbo’s analysis is the least sure of the four: one move’s play-outs see little of a round.")
