"""A memory-perfect Columbo heuristic (the strategy the original Columbo app's players are taught): it
remembers every card it has seen (the view keeps them for it), swaps a card for a lower one, taps once its
whole hand is known and below 4 points, and slaps whenever it knows a match.

Details the description leaves open, each taken the plain way: an own card it has not seen counts as the
average card it has not seen yet; it peeks at two cards at random; it uses 9/10 to learn an own unknown card
and 7/8 (and a Queen's look) to learn an unknown card of someone else, and makes no blind exchanges with a
Jack or Queen; it takes the discard when that card is lower than its worst card; after 30 turns each in a
round it taps (rounds must end).
"""

from __future__ import annotations

import random

from games.engines.base import Action, View, rank_of, standard_deck
from games.engines.columbo import POINTS, TAP_LIMIT

LONG_ROUND = 30


def _unseen_mean(view: View) -> float:
    seen: set[str] = set(view["discard"]["cards"])
    for hand in view["hands"]:
        seen.update(s["card"] for s in hand["slots"] if s["card"] is not None)
    values = [POINTS[c] for c in standard_deck() if c not in seen]
    return sum(values) / len(values) if values else 6.5


def _worst(view: View, mean: float) -> tuple[int, float] | None:
    """(slot, value) of its highest card, an unseen one counting as the mean."""
    best: tuple[int, float] | None = None
    for k, s in enumerate(view["hands"][view["seat"]]["slots"]):
        if s["empty"]:
            continue
        value = POINTS[s["card"]] if s["card"] is not None else mean
        if best is None or value > best[1]:
            best = (k, value)
    return best


def memory(view: View, legal: list[Action], rng: random.Random) -> tuple[Action | None, str]:
    if not legal:
        return None, "waits"
    me = view["seat"]
    kinds: dict[str, list[Action]] = {}
    for action in legal:
        kinds.setdefault(action["type"], []).append(action)
    window = view["window"]
    if "slap" in kinds and window is not None:
        rank = rank_of(window["card"])
        allowed = {(a["seat"], a["slot"]) for a in kinds["slap"]}
        for owner in [me, *(s for s in range(view["players"]) if s != me)]:
            for k, s in enumerate(view["hands"][owner]["slots"]):
                if s["card"] is not None and rank_of(s["card"]) == rank and (owner, k) in allowed:
                    return {"type": "slap", "seat": owner, "slot": k, "seq": window["seq"]}, "slaps a known match"
    if "peek" in kinds:
        return rng.choice(kinds["peek"]), "peeks"
    if "skip" in kinds:
        act = view["action"]
        if act["stage"] == "look":
            own_wanted = act["kind"] in ("look_own", "look_exchange")
            for a in sorted(kinds.get("look", []), key=lambda a: (a["seat"] == me) != own_wanted):
                if view["hands"][a["seat"]]["slots"][a["slot"]]["card"] is None:
                    return a, "looks at an unknown card"
        return {"type": "skip"}, "skips"
    mean = _unseen_mean(view)
    worst = _worst(view, mean)
    if "swap" in kinds or "discard" in kinds:
        value = POINTS[view["drawn"]["card"]]
        if worst is not None and worst[1] > value and {"type": "swap", "slot": worst[0]} in kinds.get("swap", []):
            return {"type": "swap", "slot": worst[0]}, "swaps for a lower card"
        if "discard" in kinds:
            return {"type": "discard"}, "discards"
        return kinds["swap"][0] if worst is None else {"type": "swap", "slot": worst[0]}, "must swap"
    slots = [s for s in view["hands"][me]["slots"] if not s["empty"]]
    taps = kinds.get("tap")
    if taps:
        known = all(s["card"] is not None for s in slots)
        if known and sum(POINTS[s["card"]] for s in slots) < TAP_LIMIT:
            return taps[0], "taps below 4"
        if view["turns"] // max(1, view["players"]) >= LONG_ROUND:
            return taps[0], "taps: the round is long"
    draws = {a["from"]: a for a in kinds.get("draw", [])}
    top = view["discard"]["top"]
    if "discard" in draws and top is not None and worst is not None and POINTS[top] < worst[1]:
        return draws["discard"], "takes the lower discard"
    if "stock" in draws:
        return draws["stock"], "draws"
    if "discard" in draws:
        return draws["discard"], "takes the discard"
    if taps:
        return taps[0], "has no other move"
    return None, "waits"  # only slaps are on offer, and it knows no match


OPPONENT = memory
