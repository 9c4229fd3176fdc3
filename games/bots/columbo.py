"""Columbo bots: they see only their seat's view and legal actions.

- random (Rookie): keeps a drawn card only for a known higher one (or an unseen one when very low), learns its
  own cards with 9s and 10s, plays no other card action, never slaps, taps with a known hand under 4 or late;
- reference (Regular): the rules file's strategy: remembers what its view shows, exchanges high cards for lower known
  ones, uses 9/10 on its own cards and 7/8 on others', slaps known matches, taps when its known hand is low;
- strong (Shark): also counts the unseen cards, discards or swaps so that it can slap its own matching card right
  after, takes cards from others with Jacks and Queens, and taps when it is clearly ahead of the table.
"""

from __future__ import annotations

import random

from games.engines.base import Action, Bot, View, card_name, rank_of, standard_deck
from games.engines.columbo import ACTION_KINDS, POINTS, TAP_LIMIT, TAP_PENALTY, hand_points, slot_name

# Seconds a bot of each level waits before an optional move, like a person's reaction (the live service
# applies it). That covers its slaps and also its own 7-Q card action, which lapses as soon as the next player
# draws: the next seat waits settings.GAMES_BOT_DELAY (0.8 s) and wins ties, so every delay stays below it,
# or the Regular bot (once 1.2 s) let every 9, 10 and Jack lapse against a bot or a quick person.
REACTION_DELAY: dict[str, float] = {"random": 0.75, "reference": 0.6, "strong": 0.5}
# A drawn 7-Q's action lapses when the next player draws; a bot that is next leaves a person time to use it.
COURTESY_SECONDS = 6.0


# A discard opens a slap window that the next draw closes; a bot that is next leaves people a moment to slap.
SLAP_GRACE_SECONDS = 2.5


def patience(view: View) -> float:
    """Seconds a bot waits before its own turn while others may still use a card action or slap."""
    action = view.get("action")
    if action and action.get("seat") != view.get("seat"):
        return COURTESY_SECONDS
    window = view.get("window")
    if window and window.get("open") and window.get("won_by") is None:
        return SLAP_GRACE_SECONDS
    return 0.0

DECK_MEAN = sum(POINTS.values()) / 52  # about 6.7: the value of a card nobody has seen
RANDOM_SLAP_CHANCE = 0.04
LONG_ROUND = 25  # turns per player after which a bot taps with a middling hand, so rounds end
VERY_LONG_ROUND = 40  # ... and after which it taps whatever it holds

Pos = tuple[int, int]


# ---------------------------------------------------------------------------------------------------------
# Reading the view
# ---------------------------------------------------------------------------------------------------------

def _by_type(legal: list[Action]) -> dict[str, list[Action]]:
    """The legal actions grouped by type."""
    out: dict[str, list[Action]] = {}
    for a in legal:
        out.setdefault(a["type"], []).append(a)
    return out


def _cards(view: View, seat: int) -> list[tuple[int, str | None]]:
    """(slot, face or None) for every card in that seat's hand."""
    return [(k, s["card"]) for k, s in enumerate(view["hands"][seat]["slots"]) if not s["empty"]]


def _where(view: View, owner: int, slot: int) -> str:
    """'its top-left card' or "seat 2's top-right card" for a reason line."""
    return f"its {slot_name(slot)} card" if owner == view["seat"] else f"seat {owner}'s {slot_name(slot)} card"


def _drawn(view: View) -> str:
    """The drawn card as a reason may name it: its face only if everyone saw it (taken from the discard pile).

    A reason is shown to spectators: a card drawn from the stock and swapped into a hand is face down there.
    """
    drawn = view["drawn"]
    if drawn is not None and drawn["from"] == "discard" and drawn["card"] is not None:
        return f"the {card_name(drawn['card'])}"
    return "the drawn card"


def _exchange_reason(view: View, a: Action) -> str:
    """ "uses the J♣ to swap its top-left card with seat 1's bottom-right card": the swapped faces stay hidden."""
    return (f"uses the {card_name(view['action']['card'])} to swap {_where(view, a['a'][0], a['a'][1])} "
            f"with {_where(view, a['b'][0], a['b'][1])}")


def _turns_each(view: View) -> int:
    """How many turns each player has had this round, roughly."""
    return view["turns"] // max(1, view["players"])


def _opponents(view: View) -> list[int]:
    """Every other seat."""
    return [s for s in range(view["players"]) if s != view["seat"]]


def _slap_known(view: View, by_type: dict[str, list[Action]], *, own_k_hearts: bool) -> tuple[Action | None, str]:
    """A sure slap: a known card of the window's rank, own first (one card fewer), else an opponent's."""
    slaps = by_type.get("slap")
    w = view["window"]
    if not slaps or w is None:
        return None, ""
    rank = rank_of(w["card"])
    me = view["seat"]
    legal = {(a["seat"], a["slot"]) for a in slaps}
    order = [me, *_opponents(view)]
    for owner in order:
        for k, c in _cards(view, owner):
            if c is None or rank_of(c) != rank or (owner, k) not in legal:
                continue
            if owner == me and c == "KH" and not own_k_hearts:
                continue  # the K♥ is worth -1: keep it
            what = f"its {card_name(c)}" if owner == me else f"seat {owner}'s {card_name(c)}"
            return ({"type": "slap", "seat": owner, "slot": k, "seq": w["seq"]},
                    f"slaps {what} onto the {card_name(w['card'])}")
    return None, ""


def _waits_or_slaps(view: View, legal: list[Action]) -> tuple[Action | None, str] | None:
    """What the Regular and the Shark do before anything else: wait when nothing is legal, and slap a known
    match (before the next draw closes the window); None when neither applies."""
    if not legal:
        return None, "waits"
    slap, why = _slap_known(view, _by_type(legal), own_k_hearts=False)
    return None if slap is None else (slap, why)


def _unknown_own(view: View) -> list[int]:
    """The slots of the seat's own cards whose faces it doesn't know."""
    return [k for k, c in _cards(view, view["seat"]) if c is None]


def _known_own(view: View) -> list[tuple[int, str]]:
    """(slot, face) of the seat's own cards whose faces it knows."""
    return [(k, c) for k, c in _cards(view, view["seat"]) if c is not None]


def _pick_legal(by_type: dict[str, list[Action]], kind: str, want: Action) -> Action | None:
    """The legal action equal to `want` (exchanges in either order), or None."""
    for a in by_type.get(kind, []):
        if a == want:
            return a
        if kind == "exchange" and a["a"] == want["b"] and a["b"] == want["a"]:
            return a
    return None


# ---------------------------------------------------------------------------------------------------------
# Random
# ---------------------------------------------------------------------------------------------------------

def random_bot(view: View, legal: list[Action], rng: random.Random) -> tuple[Action | None, str]:
    """The Rookie: keeps a drawn card only in place of a known higher one (or of an unseen card when it is
    very low), learns its own cards with 9s and 10s but plays no other card action, never slaps, and taps
    only with a whole known hand under 4 or when the round drags on."""
    if not legal:
        return None, "waits"
    by_type = _by_type(legal)
    if "peek" in by_type:
        a = rng.choice(by_type["peek"])
        return a, f"peeks at its {slot_name(a['slots'][0])} and {slot_name(a['slots'][1])} cards"
    if "skip" in by_type:
        act = view["action"]
        if act["kind"] == "look_own":
            own = [a for a in by_type.get("look", [])
                   if a["seat"] == view["seat"] and view["hands"][a["seat"]]["slots"][a["slot"]]["card"] is None]
            if own:
                where = _where(view, own[0]["seat"], own[0]["slot"])
                return own[0], f"uses the {card_name(act['card'])} to look at {where}"
        return {"type": "skip"}, f"lets the {card_name(act['card'])}'s action go"
    if "swap" in by_type or "discard" in by_type:
        return _reference_place(view, by_type, low=2)  # only the lowest cards go into unseen slots
    if "draw" in by_type or "tap" in by_type:
        known = _known_own(view)
        unknown = _unknown_own(view)
        total = hand_points([c for _, c in known])
        taps = by_type.get("tap")
        if taps:
            if not unknown and total < TAP_LIMIT:
                return taps[0], "taps: its whole hand is known and low"
            if _turns_each(view) >= LONG_ROUND:
                return taps[0], "taps: the round has gone on long enough"
        stock = [a for a in by_type.get("draw", []) if a["from"] == "stock"]
        if stock:
            return stock[0], "draws from the stock"
        take = [a for a in by_type.get("draw", []) if a["from"] == "discard"]
        if take:
            return take[0], f"takes the {card_name(view['discard']['top'])}: the stock is empty"
        return (taps or legal)[0], "has no other move"
    return None, "waits"


# ---------------------------------------------------------------------------------------------------------
# Reference
# ---------------------------------------------------------------------------------------------------------

def reference_bot(view: View, legal: list[Action], rng: random.Random) -> tuple[Action | None, str]:
    """The rules file's strategy, on exactly what the view shows."""
    first = _waits_or_slaps(view, legal)
    if first is not None:
        return first
    by_type = _by_type(legal)
    if "peek" in by_type:
        a = rng.choice(by_type["peek"])
        return a, f"peeks at its {slot_name(a['slots'][0])} and {slot_name(a['slots'][1])} cards"
    if "skip" in by_type:
        return _reference_card_action(view, by_type)
    if "swap" in by_type or "discard" in by_type:
        return _reference_place(view, by_type)
    if "draw" in by_type or "tap" in by_type:
        return _reference_draw(view, by_type)
    return None, "waits"


def _reference_card_action(view: View, by_type: dict[str, list[Action]]) -> tuple[Action, str]:
    """9/10: learn an own card; 7/8 (and the Queen's look): learn another's; J/Q: give a high card for a low."""
    me = view["seat"]
    act = view["action"]
    if act["stage"] == "look":
        looks = by_type.get("look", [])
        own = [a for a in looks if a["seat"] == me and view["hands"][me]["slots"][a["slot"]]["card"] is None]
        other = [a for a in looks if a["seat"] != me and view["hands"][a["seat"]]["slots"][a["slot"]]["card"] is None]
        choice = own[0] if own and act["kind"] != "look_other" else other[0] if other else None
        if choice is not None:
            where = _where(view, choice["seat"], choice["slot"])
            return choice, f"uses the {card_name(act['card'])} to look at {where}"
        return {"type": "skip"}, "has nothing new to look at"
    known = _known_own(view)
    if known:
        k_high, high = max(known, key=lambda kc: POINTS[kc[1]])
        best: tuple[int, int, str] | None = None
        for s in _opponents(view):
            if view["hands"][s]["tapped"]:
                continue
            for k, c in _cards(view, s):
                if c is not None and POINTS[c] < POINTS[high] and (best is None or POINTS[c] < POINTS[best[2]]):
                    best = (s, k, c)
        if best is not None:
            a = _pick_legal(by_type, "exchange", {"type": "exchange", "a": [me, k_high], "b": [best[0], best[1]]})
            if a is not None:
                return a, _exchange_reason(view, a)
    return {"type": "skip"}, "sees no swap that helps"


def _reference_place(view: View, by_type: dict[str, list[Action]], low: int = 5) -> tuple[Action, str]:
    """Swap the drawn card for the highest known card above it, else into an unknown slot if worth at most
    `low`, else discard."""
    card = view["drawn"]["card"]
    value = POINTS[card]
    drawn = _drawn(view)
    known = _known_own(view)
    higher = [(k, c) for k, c in known if POINTS[c] > value]
    if higher:
        k, c = max(higher, key=lambda kc: POINTS[kc[1]])
        return {"type": "swap", "slot": k}, f"swaps {drawn} in for its {card_name(c)}"
    unknown = _unknown_own(view)
    if unknown and (value <= low or "discard" not in by_type):
        return ({"type": "swap", "slot": unknown[0]},
                f"puts {drawn} in place of its unseen {slot_name(unknown[0])} card")
    if "discard" in by_type:
        return {"type": "discard"}, f"discards the {card_name(card)}"
    k, c = max(known, key=lambda kc: POINTS[kc[1]])
    return {"type": "swap", "slot": k}, f"has to swap {drawn} for its {card_name(c)}"


def _reference_draw(view: View, by_type: dict[str, list[Action]]) -> tuple[Action, str]:
    """Tap with a fully known hand under 4 (or when the round drags on), else draw a low discard or the stock."""
    known = _known_own(view)
    unknown = _unknown_own(view)
    total = hand_points([c for _, c in known])
    taps = by_type.get("tap")
    if taps:
        each = _turns_each(view)
        if (not unknown and total < TAP_LIMIT) or each >= VERY_LONG_ROUND:
            if not unknown and total < TAP_LIMIT:
                return taps[0], "taps: its whole hand is known and low"
            return taps[0], "taps: the round has gone on long enough"
    top = view["discard"]["top"]
    take = [a for a in by_type.get("draw", []) if a["from"] == "discard"]
    if top is not None and take:
        worst = max((POINTS[c] for _, c in known), default=None)
        if POINTS[top] <= 3 or (worst is not None and POINTS[top] < worst - 2):
            return take[0], f"takes the {card_name(top)} from the discard pile"
    stock = [a for a in by_type.get("draw", []) if a["from"] == "stock"]
    if stock:
        return stock[0], "draws from the stock"
    if take:
        return take[0], f"takes the {card_name(top)}: the stock is empty"
    return taps[0] if taps else by_type["draw"][0], "has no other move"


# ---------------------------------------------------------------------------------------------------------
# Strong
# ---------------------------------------------------------------------------------------------------------

def _unseen_values(view: View) -> list[int]:
    """Point values of every card whose face this seat can't see now (the stock and unknown hand cards)."""
    seen: set[str] = set(view["discard"]["cards"])
    for hand in view["hands"]:
        seen.update(s["card"] for s in hand["slots"] if s["card"] is not None)
    if view["drawn"] is not None and view["drawn"]["card"] is not None:
        seen.add(view["drawn"]["card"])
    values = [POINTS[c] for c in standard_deck() if c not in seen]
    return values or [round(DECK_MEAN)]


def _estimate(view: View, seat: int, mean: float) -> float:
    """The hand's value as far as this seat knows: known faces plus the mean for the others."""
    return sum(POINTS[c] if c is not None else mean for _, c in _cards(view, seat))


def _own_slap_gain(view: View, rank: str, exclude: int | None, extra: tuple[int, str] | None = None) -> float:
    """Points this seat could shed by slapping its own known card of that rank onto a discard."""
    best = 0.0
    cards = [(k, c) for k, c in _known_own(view) if k != exclude]
    if extra is not None:
        cards.append(extra)
    for _, c in cards:
        if rank_of(c) == rank and POINTS[c] > best:
            best = POINTS[c]
    return best * 0.9  # someone may slap first


UNKNOWN_COST = 4.0  # an unknown card in hand also blocks a safe tap
ACTION_VALUE = {"look_other": 0.8, "look_own": 1.5, "exchange": 2.0, "look_exchange": 2.5}


def _place_options(view: View, card: str, mean: float, can_discard: bool,
                   trigger_swaps: bool) -> list[tuple[float, Action, str]]:
    """Every way to place the drawn card, with the points it should save."""
    out: list[tuple[float, Action, str]] = []
    rank = rank_of(card)
    drawn = _drawn(view)
    if can_discard:
        gain = _own_slap_gain(view, rank, None) + ACTION_VALUE.get(ACTION_KINDS.get(rank, ""), 0.0)
        out.append((gain, {"type": "discard"}, f"discards the {card_name(card)}"))
    for k, c in _cards(view, view["seat"]):
        old_value = POINTS[c] if c is not None else mean + UNKNOWN_COST
        gain = old_value - POINTS[card]
        if c is not None:
            gain += _own_slap_gain(view, rank_of(c), k, (k, card))
            if trigger_swaps:
                gain += ACTION_VALUE.get(ACTION_KINDS.get(rank_of(c), ""), 0.0)
            why = f"swaps {drawn} in for its {card_name(c)}"
        else:
            why = f"puts {drawn} in place of its unseen {slot_name(k)} card"
        out.append((gain, {"type": "swap", "slot": k}, why))
    return out


def strong_bot(view: View, legal: list[Action], rng: random.Random) -> tuple[Action | None, str]:
    """Card counting, slap combos, Jack and Queen raids, and taps timed against the table."""
    first = _waits_or_slaps(view, legal)
    if first is not None:
        return first
    by_type = _by_type(legal)
    if "peek" in by_type:
        return {"type": "peek", "slots": [2, 3]}, "peeks at its bottom row"
    if "skip" in by_type:
        return _strong_card_action(view, by_type)
    values = _unseen_values(view)
    mean = sum(values) / len(values)
    trigger_swaps = view["options"]["action_trigger"] == "any_discard"
    if "swap" in by_type or "discard" in by_type:
        card = view["drawn"]["card"]
        options = _place_options(view, card, mean, "discard" in by_type, trigger_swaps)
        _, action, why = max(options, key=lambda o: o[0])
        return action, why
    if "draw" in by_type or "tap" in by_type:
        return _strong_draw(view, by_type, values, mean, trigger_swaps)
    return None, "waits"


def _strong_draw(view: View, by_type: dict[str, list[Action]], values: list[int], mean: float,
                 trigger_swaps: bool) -> tuple[Action, str]:
    """Tap when clearly ahead; else take the discard if it beats the stock's expected gain."""
    me = view["seat"]
    mine = _estimate(view, me, mean)
    unknown = _unknown_own(view)
    taps = by_type.get("tap")
    if taps:
        if view["players"] == 1:
            if not unknown and mine < TAP_LIMIT:
                return taps[0], "taps: its whole hand is known and low"
        elif not unknown and mine < TAP_LIMIT:
            return taps[0], "taps: its whole hand is known and low"
        else:
            others = min(_estimate(view, s, mean) for s in _opponents(view))
            if mine + TAP_PENALTY + 5.0 < others:
                return taps[0], "taps: it reckons it is ahead of the table"
        each = _turns_each(view)
        if (each >= LONG_ROUND and mine <= 12) or each >= VERY_LONG_ROUND:
            return taps[0], "taps: the round has gone on long enough"
    draws = {a["from"]: a for a in by_type.get("draw", [])}
    top = view["discard"]["top"]
    if "discard" in draws and top is not None:
        take_gain, _, _ = max(_place_options(view, top, mean, False, trigger_swaps), key=lambda o: o[0])
        stock_gain = 0.0
        if "stock" in draws:
            sample = values if len(values) <= 20 else values[:: max(1, len(values) // 20)]
            stock_gain = sum(max(o[0] for o in _place_options(view, _code_of(v), mean, True, trigger_swaps))
                             for v in sample) / len(sample)
        if take_gain > stock_gain + 0.5:
            return draws["discard"], f"takes the {card_name(top)} from the discard pile"
    if "stock" in draws:
        return draws["stock"], "draws from the stock"
    if "discard" in draws:
        return draws["discard"], f"takes the {card_name(top)}: the stock is empty"
    return (taps or by_type.get("draw", []))[0], "has no other move"


def _code_of(value: int) -> str:
    """A stand-in card of that value (clubs, or the K♥ for -1) for expected-gain sums."""
    if value == -1:
        return "KH"
    rank = {1: "A", 11: "J", 12: "Q", 13: "K"}.get(value, str(value))
    return rank + "C"


def _strong_card_action(view: View, by_type: dict[str, list[Action]]) -> tuple[Action, str]:
    """Look where it teaches most; with J/Q give the worst own card for the best card it knows elsewhere."""
    me = view["seat"]
    act = view["action"]
    values = _unseen_values(view)
    mean = sum(values) / len(values)
    if act["stage"] == "look":
        looks = by_type.get("look", [])
        unknown = [a for a in looks if view["hands"][a["seat"]]["slots"][a["slot"]]["card"] is None]
        own = [a for a in unknown if a["seat"] == me]
        others = [a for a in unknown if a["seat"] != me]
        if act["kind"] == "look_exchange" and others:
            # Look where a low card is likely: one its owner has seen and kept.
            others.sort(key=lambda a: (view["hands"][a["seat"]]["tapped"],
                                       a["seat"] not in view["hands"][a["seat"]]["slots"][a["slot"]]["seen_by"]))
            choice = others[0]
        elif own and act["kind"] != "look_other":
            choice = own[0]
        elif others:
            leader = min(_opponents(view), key=lambda s: view["totals"][s]) if _opponents(view) else me
            others.sort(key=lambda a: a["seat"] != leader)
            choice = others[0]
        else:
            return {"type": "skip"}, "has nothing new to look at"
        return choice, f"uses the {card_name(act['card'])} to look at {_where(view, choice['seat'], choice['slot'])}"
    mine = _cards(view, me)
    if not mine:
        return {"type": "skip"}, "has no card to trade"
    k_high, high = max(mine, key=lambda kc: POINTS[kc[1]] if kc[1] is not None else mean)
    high_value = POINTS[high] if high is not None else mean
    best: tuple[float, int, int, str | None] | None = None
    for s in _opponents(view):
        if view["hands"][s]["tapped"]:
            continue
        for k, c in _cards(view, s):
            if c is None and high_value < 12:
                continue  # an unknown card in return only pays for a Queen or a King
            value = POINTS[c] if c is not None else mean
            if best is None or value < best[0]:
                best = (value, s, k, c)
    if best is not None and best[0] < high_value - 1.5:
        a = _pick_legal(by_type, "exchange", {"type": "exchange", "a": [me, k_high], "b": [best[1], best[2]]})
        if a is not None:
            return a, _exchange_reason(view, a)
    return {"type": "skip"}, "sees no swap that helps"


LEVEL_BLURBS: dict[str, str] = {
    "random": "Keeps low cards and learns its own with 9s and 10s, but never slaps, never touches other hands and "
              "is slow to tap.",
    "reference": "Remembers everything it sees, trades high cards for lower ones, uses its card actions and slaps "
                 "the matches it knows.",
    "strong": "Also counts the cards still unseen, sets up slaps of its own cards, raids other hands with Jacks and "
              "Queens and taps as soon as it is ahead.",
}

BOTS: dict[str, Bot] = {"random": random_bot, "reference": reference_bot, "strong": strong_bot}

__all__ = ["BOTS", "REACTION_DELAY", "random_bot", "reference_bot", "strong_bot"]
