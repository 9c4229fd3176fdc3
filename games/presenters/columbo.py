"""The Columbo table: every player's grid, the stock and the discard pile, the card actions, slaps and results.

Columbo is a memory game: the view knows every face its seat has seen (perfect memory), but the table shows a
seat's known cards face-down, like the real cards, after a short flash. A player may opt in to "show what I
know" (a UI selection). Flashes last FLASH_SECONDS: keep_ui carries each one across the updates that follow,
with the time it has left, and the stylesheet turns the face back over when that time is up.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

from ..bots.columbo import COURTESY_SECONDS, SLAP_GRACE_SECONDS
from ..engines.base import card_name, is_int, rank_of
from ..engines.columbo import TAP_LIMIT, TAP_PENALTY, card_points, slot_name
from . import NO_TIMING, Timing, card, send, send_ui

FLASH_SECONDS = 4.0
FLASH_STEPS = 8  # flash classes flash-1 .. flash-8: half seconds left
GRID = 4
SOLO_TIME_BONUS_SECONDS = 100  # the time bonus max(0, 100000 - 1000 * seconds) is gone after 100 s

ACTION_PROMPTS = {
    "look_other": "look at another player's card",
    "look_own": "look at one of your own cards",
    "exchange": "swap any two cards on the table without looking",
    "look_exchange": "look at any card, then swap any two cards",
}
ACTION_OTHERS = {
    "look_other": "look at another player's card",
    "look_own": "look at one of their own cards",
    "exchange": "swap two cards on the table",
    "look_exchange": "look at a card, then swap two cards",
}


def _pos(value: Any) -> tuple[int, int] | None:
    """A [seat, slot] pair from a UI selection."""
    if isinstance(value, list | tuple) and len(value) == 2 and all(is_int(v) for v in value):
        return (value[0], value[1])
    return None


def _slot_card(view: dict[str, Any], seat: int, slot: int) -> str | None:
    """The face the view shows at a position (None: unknown, empty or no such slot)."""
    hands = view.get("hands") or []
    if not 0 <= seat < len(hands):
        return None
    slots = hands[seat]["slots"]
    if not 0 <= slot < len(slots):
        return None
    return slots[slot]["card"]


# ---------------------------------------------------------------------------------------------------------
# The socket's selection
# ---------------------------------------------------------------------------------------------------------


def clean_ui(view: dict[str, Any], seat: int | None, raw: dict[str, Any]) -> dict[str, Any]:
    """Keep what still makes sense: the "show what I know" switch, a first peek, a first card to exchange."""
    legal = view.get("legal") or []
    out: dict[str, Any] = {}
    if raw.get("known") is True:
        out["known"] = True
    peek = raw.get("peek")
    if is_int(peek) and any(a["type"] == "peek" and peek in a["slots"] for a in legal):
        out["peek"] = peek
    pick = _pos(raw.get("pick"))
    if pick is not None and any(a["type"] == "exchange" and list(pick) in (a["a"], a["b"]) for a in legal):
        out["pick"] = list(pick)
    return out


def _reveals(view: dict[str, Any], seat: int | None) -> list[tuple[int, int, str]]:
    """(seat, slot, card) of the faces the last action showed this viewer at a place in a hand."""
    last = view.get("last") or {}
    kind = None if last.get("round_over") else last.get("type")  # places of a finished round mean nothing now
    found: list[tuple[int, int, str]] = []
    if kind == "peek" and last.get("seat") == seat and last.get("cards"):
        found = [(last["seat"], slot, code) for slot, code in zip(last["slots"], last["cards"], strict=False)]
    elif kind == "look" and last.get("seat") == seat and last.get("card"):
        found = [(last["target"][0], last["target"][1], last["card"])]
    elif kind == "swap" and last.get("card"):
        found = [(last["seat"], last["slot"], last["card"])]
    elif kind == "slap" and not last.get("match") and last.get("card"):
        found = [(last["target"][0], last["target"][1], last["card"])]
    return [(t, k, code) for t, k, code in found if _slot_card(view, t, k) == code]


def keep_ui(view: dict[str, Any], seat: int | None, ui: dict[str, Any]) -> dict[str, Any]:
    """The selection carried into a new view: what still makes sense, plus the flashes still running."""
    kept = clean_ui(view, seat, ui)
    now = time.monotonic()
    # The event count identifies a reveal (the page's view may carry only the log's tail: see page_view).
    key = view.get("log_total", len(view.get("log") or []))
    flashes = [f for f in ui.get("flash", []) if f["until"] > now]
    seen = {(f["key"], f["at"][0], f["at"][1]) for f in ui.get("flash", [])}
    for t, k, code in _reveals(view, seat):
        if (key, t, k) not in seen:
            flashes.append({"key": key, "at": [t, k], "card": code, "until": now + FLASH_SECONDS})
    if flashes:
        kept["flash"] = flashes
    return kept


def _flashing(view: dict[str, Any], seat: int | None, ui: dict[str, Any]) -> dict[tuple[int, int], int]:
    """(seat, slot) -> half seconds its face has left to show (only faces the view still shows there)."""
    now = time.monotonic()
    out: dict[tuple[int, int], int] = {}
    carried = ui.get("flash")
    if carried is None:  # no socket memory (a page load, a click, a spectator): the last action's reveals
        carried = [{"at": [t, k], "card": code, "until": now + FLASH_SECONDS} for t, k, code in _reveals(view, seat)]
    for f in carried:
        t, k = f["at"]
        left = f["until"] - now
        if left > 0 and _slot_card(view, t, k) == f["card"]:
            out[(t, k)] = max(out.get((t, k), 0), min(FLASH_STEPS, math.ceil(left * 2)))
    return out


# ---------------------------------------------------------------------------------------------------------
# Presenting a view
# ---------------------------------------------------------------------------------------------------------


class _Words:
    """Names as the viewer reads them: "You"/"your" for themselves (`seat`: the viewer's own seat, or None)."""

    def __init__(self, names: list[str], seat: int | None) -> None:
        self.names = names
        self.seat = seat

    def name(self, s: int | None, start: bool = True) -> str:
        """The seat's name; the viewer is "You" at the start of a sentence, "you" within one."""
        if s is None:
            return ""
        if s == self.seat:
            return "You" if start else "you"
        return self.names[s] if s < len(self.names) else f"Seat {s + 1}"

    def whose(self, s: int) -> str:
        return "your" if s == self.seat else f"{self.name(s)}'s"

    def card_at(self, s: int, slot: int) -> str:
        return f"{self.whose(s)} {slot_name(slot)} card"


@dataclass
class _Table:
    """What every part of a Columbo table reads from the view, the seat and its selection, worked out once."""

    view: dict[str, Any]
    seat: int | None
    ui: dict[str, Any]
    words: _Words
    legal: list[dict[str, Any]]
    players: int
    phase: str
    over: bool
    playing: bool
    show_known: bool
    flashing: dict[tuple[int, int], int]
    window: dict[str, Any] | None
    top: str | None
    action: dict[str, Any] | None
    my_action: dict[str, Any] | None
    drawn: dict[str, Any] | None
    drawn_name: str | None
    last_kind: str | None  # the last action's type, unless it ended a round (its places mean nothing now)
    touched: dict[tuple[int, int], str]  # the slots the last action touched, and how
    looked_now: tuple[int, int] | None  # the slot the player's card action just showed them
    # What each control of a card sends, from the legal actions only.
    slaps: dict[tuple[int, int], dict[str, Any]]
    swaps: dict[int, dict[str, Any]]
    looks: dict[tuple[int, int], dict[str, Any]]
    exchanges: list[dict[str, Any]]
    exchange_targets: set[tuple[int, int]]
    peeks: list[dict[str, Any]]
    peek_first: int | None
    pick: tuple[int, int] | None

    def with_ui(self, **changes: Any) -> str:
        """A control that changes the selection (the "show what I know" switch is kept)."""
        base = {"known": True} if self.ui.get("known") else {}
        return send_ui({**base, **{k: v for k, v in changes.items() if v is not None}})

    def legal_of(self, kind: str, **fields: Any) -> dict[str, Any] | None:
        return next((a for a in self.legal if a["type"] == kind and all(a.get(k) == v for k, v in fields.items())),
                    None)


def _table(view: dict[str, Any], seat: int | None, ui: dict[str, Any], names: list[str], you: int | None) -> _Table:
    legal = view.get("legal") or []
    over = bool(view.get("over"))
    action = view.get("action")
    last = view.get("last") or {}
    kind = None if last.get("round_over") else last.get("type")
    touched: dict[tuple[int, int], str] = {}
    if kind == "swap":
        touched[(last["seat"], last["slot"])] = "swapped"
    elif kind == "look":
        touched[_at(last["target"])] = "looked"
    elif kind == "exchange":
        touched[_at(last["a"])] = touched[_at(last["b"])] = "exchanged"
    elif kind == "slap":
        touched[_at(last["target"])] = "slapped"
        for s, k in last.get("dealt") or []:
            touched[(s, k)] = "dealt"
    my_action = action if action is not None and action["seat"] == seat else None
    drawn = view.get("drawn")
    exchanges = [a for a in legal if a["type"] == "exchange"]
    peeks = [a for a in legal if a["type"] == "peek"]
    return _Table(
        view=view, seat=seat, ui=ui, words=_Words(names, you), legal=legal,
        players=view["players"], phase=view["phase"], over=over, playing=view["phase"] == "play" and not over,
        show_known=seat is None or over or bool(ui.get("known")),
        flashing=_flashing(view, seat, ui),
        window=view.get("window") or None,
        top=(view.get("discard") or {}).get("top"),
        action=action, my_action=my_action, drawn=drawn,
        drawn_name=card_name(drawn["card"]) if drawn and drawn.get("card") else None,
        last_kind=kind, touched=touched,
        looked_now=_at(my_action["looked"]) if my_action and my_action.get("looked") else None,
        slaps={(a["seat"], a["slot"]): a for a in legal if a["type"] == "slap"},
        swaps={a["slot"]: a for a in legal if a["type"] == "swap"},
        looks={(a["seat"], a["slot"]): a for a in legal if a["type"] == "look"},
        exchanges=exchanges,
        exchange_targets={_at(a["a"]) for a in exchanges} | {_at(a["b"]) for a in exchanges},
        peeks=peeks,
        peek_first=ui.get("peek") if peeks else None,
        pick=_pos(ui.get("pick")) if exchanges else None,
    )


def _at(value: list[int]) -> tuple[int, int]:
    return (value[0], value[1])


def present(view: dict[str, Any], seat: int | None, ui: dict[str, Any], names: list[str],
            timing: Timing = NO_TIMING, *, own: bool = True) -> dict[str, Any]:
    """A seat's (or a spectator's) Columbo table: the grids, the piles and buttons, the pending card action,
    the slap window, the tap and the results, as plain data for templates/jinja2/games/tables/columbo.html (`own`:
    see games.presenters)."""
    t = _table(view, seat, ui, names, seat if own else None)
    hands = _hands(t)
    mine = hands[0] if seat is not None else None
    others = hands[1:] if seat is not None else hands
    _mark_keyboard_stops(t, mine, others)
    window_info = _window_info(t)
    draw_discard = t.legal_of("draw", **{"from": "discard"})
    draw_stock = t.legal_of("draw", **{"from": "stock"})
    # The prompt in the status line (shown on the seat's turn).
    tap_pending = view.get("tap") is None and any(a["type"] == "tap" for a in t.legal)
    prompt = _prompt(view, seat, t.words, t.peek_first, t.drawn_name, t.top, bool(draw_discard), tap_pending)
    if prompt and window_info and window_info["can"] and t.top is not None:
        prompt = f"Slap now: the {card_name(t.top)} is on the discard pile. Or: {prompt[0].lower()}{prompt[1:]}"
    known = bool(ui.get("known"))
    return {
        # What the last move was, for the page's sound cue (static/js/site.js): a slap.
        "cue": "slap" if t.last_kind == "slap" else "",
        "solo": t.players == 1,
        "phase": t.phase,
        "current": view.get("current"),
        "current_name": t.words.name(view.get("current"), start=False) if view.get("current") is not None else "",
        "countdown": _countdown(_wait(t, window_info), timing),
        "over": t.over,
        "round": view["round"],
        "rounds": view["rounds"],
        "dealer": t.words.name(view.get("dealer")) if t.players > 1 else "",
        "stock": view["stock"],
        "discard_top": card(t.top),
        "discard_count": (view.get("discard") or {}).get("count", 0),
        "stock_button": {"send": send(draw_stock), "label": "Draw from the stock"} if draw_stock else None,
        "discard_button": {"send": send(draw_discard), "label": f"Take the {card_name(t.top)} from the discard pile"}
        if draw_discard and t.top is not None else None,
        "buttons": _buttons(t),
        "drawn": _drawn_info(t),
        "hands": hands,
        "mine": mine,
        "others": others,
        "window": window_info,
        "slap_news": _slap_news(t),
        "action": _action_info(t),
        "tap": _tap_info(t),
        "prompt": prompt,
        "show_known": known,
        "known_toggle": send_ui({**({} if known else {"known": True}),
                                 **({"peek": t.peek_first} if t.peek_first is not None else {}),
                                 **({"pick": list(t.pick)} if t.pick is not None else {})}),
        "my_points": view.get("my_points") if known and seat is not None and not t.over else None,
        "results": _results(view, t.words),
        "solo_info": _solo(view, timing) if t.players == 1 else None,
    }


def _hands(t: _Table) -> list[dict[str, Any]]:
    """Every player's grid, the viewer's first, each slot in its column."""
    view, seat = t.view, t.seat
    order = list(range(t.players)) if seat is None else [(seat + i) % t.players for i in range(t.players)]
    hands = []
    for s in order:
        hand = view["hands"][s]
        columns = [[_slot(t, s, k, hand["slots"][k]) if k is not None else None for k in column]
                   for column in _column_indices(len(hand["slots"]))]
        hands.append({
            "seat": s,
            "name": t.words.name(s),
            "me": s == seat,
            "you": s == t.words.seat,
            "columns": columns,
            "cards": hand["cards"],
            "tapped": hand["tapped"],
            "current": t.playing and view.get("current") == s,
            "peeking": t.phase == "peek" and hand["peeked"] is None,
            "total": view["totals"][s] if t.players > 1 else None,
            "dealer": view.get("dealer") == s and t.players > 1,
            "holding": bool(t.drawn and t.drawn["seat"] == s),
        })
    return hands


def _slot(t: _Table, s: int, k: int, slot: dict[str, Any]) -> dict[str, Any]:
    """One card of a grid: its face if the viewer may see it now, what happened to it, who has seen it, its
    accessible name, and the control it offers (at most one) with its slap."""
    words = t.words
    where = words.card_at(s, k)
    label = f"{where[0].upper()}{where[1:]}"
    # The id stays the same from one update to the next: the page's keyboard focus comes back to it.
    entry: dict[str, Any] = {"seat": s, "slot": k, "where": where, "empty": slot["empty"], "id": f"cb-card-{s}-{k}"}
    if slot["empty"]:
        entry["label"] = f"{label}: empty"
        return entry
    code = slot["card"]
    flash = t.flashing.get((s, k))
    looked = t.looked_now == (s, k)
    shown = code is not None and (t.show_known or flash is not None or looked)
    entry.update(
        face=card(code) if shown else None,
        flash=flash if code is not None and not (t.show_known or looked) else None,
        remembered=code is not None and shown and not t.over and t.seat is not None and flash is None and not looked,
        known=code is not None,
        mark=t.touched.get((s, k), ""),
    )
    entry["seen_by"] = _seen_by(t, s, slot["seen_by"])
    steady = shown and entry["flash"] is None  # a flashing face names itself until it turns over
    entry["label"] = f"{label}: {card_name(code)}" if steady else f"{label}: face-down card"
    if entry["seen_by"]:
        entry["label"] += ", seen by everyone" if entry["seen_by"] == "all" else f", seen by {entry['seen_by']}"
    if t.over or t.seat is None:
        return entry
    control = _control(t, s, k)
    if control is not None:
        entry["control"] = control
    if (s, k) in t.slaps and t.top is not None:
        entry["slap"] = {"send": send(t.slaps[(s, k)]), "label": f"Slap {where} onto the {card_name(t.top)}"}
    return entry


def _seen_by(t: _Table, owner: int, seen: list[int]) -> str:
    """Who else has seen a card (public); the owner's own knowledge is the usual case and goes unsaid."""
    if t.over or (t.seat is None and len(seen) == t.players):
        return ""
    if len(seen) == t.players and t.players > 1:
        return "all"
    return ", ".join(t.words.name(v) for v in seen if v != owner)


def _control(t: _Table, s: int, k: int) -> dict[str, Any] | None:
    """What clicking a card does now: peek, swap in the drawn card, look, or pick it for an exchange."""
    words = t.words
    if t.peeks and s == t.seat:
        if t.peek_first is None:
            return {"ui": t.with_ui(peek=k), "label": f"Peek at your {slot_name(k)} card", "kind": "peek"}
        if t.peek_first == k:
            return {"ui": t.with_ui(), "label": f"Don't peek at your {slot_name(k)} card", "kind": "peek",
                    "selected": True}
        return {"send": send({"type": "peek", "slots": sorted([t.peek_first, k])}),
                "label": f"Peek at your {slot_name(k)} card too", "kind": "peek"}
    if s == t.seat and k in t.swaps:
        what = f"the {t.drawn_name}" if t.drawn_name else "the drawn card"
        return {"send": send(t.swaps[k]), "label": f"Swap {what} with your {slot_name(k)} card", "kind": "swap"}
    if (s, k) in t.looks:
        return {"send": send(t.looks[(s, k)]), "label": f"Look at {words.card_at(s, k)}", "kind": "look"}
    if (s, k) not in t.exchange_targets:
        return None
    if t.pick is None:
        return {"ui": t.with_ui(pick=[s, k]), "label": f"Swap {words.card_at(s, k)} with…", "kind": "exchange"}
    if t.pick == (s, k):
        return {"ui": t.with_ui(), "label": f"Don't swap {words.card_at(s, k)}", "kind": "exchange",
                "selected": True}
    pair = {t.pick, (s, k)}
    chosen = next((a for a in t.exchanges if {_at(a["a"]), _at(a["b"])} == pair), None)
    if chosen is None:
        return None
    return {"send": send(chosen), "kind": "exchange",
            "label": f"Swap {words.card_at(*t.pick)} with {words.card_at(s, k)}"}


def _mark_keyboard_stops(t: _Table, mine: dict[str, Any] | None, others: list[dict[str, Any]]) -> None:
    """The player's own cards, and another player's when one of them is a card action's target, are one Tab
    stop each (the arrow keys move between them). Once a card is drawn, or a card action of the player's
    begins, the focus moves to the first card it may go to (not while choosing the second card)."""
    targets_now = t.playing and (t.view.get("step") == "place" or (t.my_action is not None and t.pick is None))
    first_target = None
    for hand in [*others, *([mine] if mine else [])]:
        slots = [slot for column in hand["columns"] for slot in column if slot is not None]
        hand["roving"] = hand["me"] or any(slot.get("control") for slot in slots)
        if targets_now and first_target is None:
            first_target = next((slot for slot in slots if slot.get("control")), None)
    if first_target is not None:
        first_target["focus_next"] = True


def _buttons(t: _Table) -> list[dict[str, Any]]:
    """The turn's buttons besides the piles: tap, and discard the drawn card."""
    buttons: list[dict[str, Any]] = []
    if t.legal_of("tap") is not None:
        buttons.append({"send": send({"type": "tap"}), "label": "Tap", "kind": "tap",
                        "hint": "end the round: everyone else gets one more turn" if t.players > 1
                        else "end the game and score your hand"})
    discard = t.legal_of("discard")
    if discard is not None:
        buttons.append({"send": send(discard), "label": f"Discard the {t.drawn_name}" if t.drawn_name else "Discard",
                        "kind": "discard"})
    return buttons


def _drawn_info(t: _Table) -> dict[str, Any] | None:
    """The card in someone's hand between drawing and placing it (its face only if the viewer may see it)."""
    if t.drawn is None:
        return None
    return {
        "face": card(t.drawn["card"]) if t.drawn.get("card") else None,
        "who": t.words.name(t.drawn["seat"]),
        "mine": t.drawn["seat"] == t.words.seat,
        "from": t.drawn["from"],
    }


def _action_info(t: _Table) -> dict[str, Any] | None:
    """The pending card action (7 to Q): what the player may do and until when, or what another player may."""
    action, my_action, view, words = t.action, t.my_action, t.view, t.words
    if action is None or not t.playing:
        return None
    next_name = words.name(view.get("current"), start=False)
    if not my_action or words.seat is None:  # another's action, or a replay of another's seat (no "you")
        return {
            "mine": False,
            "card": card(action["card"]),
            "text": f"{words.name(action['seat'])} may {ACTION_OTHERS[action['kind']]} "
                    f"({card_name(action['card'])}) until {next_name} {'draw' if next_name == 'you' else 'draws'}.",
        }
    if my_action["stage"] == "exchange" and t.pick is not None:
        what = f"now choose the card to swap with {words.card_at(*t.pick)}."
    elif my_action["stage"] == "exchange":
        what = "choose the first of the two cards to swap." if my_action["kind"] == "exchange" else (
            "now choose two cards to swap (or skip).")
    elif my_action["kind"] == "look_own":
        what = "choose one of your cards to look at."
    elif my_action["kind"] == "look_other":
        what = "choose another player's card to look at."
    else:
        what = "choose any card to look at."
    until = "you draw" if view.get("current") == t.words.seat else f"{next_name} draws"
    skip = t.legal_of("skip")
    return {
        "mine": True,
        "card": card(my_action["card"]),
        "text": f"Your {card_name(my_action['card'])} lets you {ACTION_PROMPTS[my_action['kind']]} "
                f"until {until}: {what}",
        "skip": {"send": send(skip), "label": "Skip the card action"} if skip else None,
        "cancel": t.with_ui() if t.pick is not None else None,
    }


def _window_info(t: _Table) -> dict[str, Any] | None:
    """The slap window on the top discard: open (and whether this viewer may slap), or who won it."""
    window, top = t.window, t.top
    if window is None or top is None or window["seq"] != (t.view.get("discard") or {}).get("seq"):
        return None
    if window["open"] and window.get("won_by") is None:
        can = bool(window.get("can_slap"))
        text = (f"Slap now: the {card_name(top)} is on the discard pile. Slap a face-down card of rank "
                f"{rank_of(top)} onto it." if can else f"The {card_name(top)} may be slapped.")
        if not can and t.words.seat is not None and t.words.seat in window["attempted"]:
            text = f"You have slapped once on the {card_name(top)}; the others may still slap."
        return {"open": True, "can": can, "text": text}
    if window.get("won_by") is not None:
        return {"open": False, "can": False,
                "text": f"{t.words.name(window['won_by'])} slapped first on the {card_name(window['card'])}."}
    return None


def _slap_news(t: _Table) -> dict[str, Any] | None:
    """The last action, if it was a slap: whose card went onto what, and whether it matched."""
    if t.last_kind != "slap":
        return None
    last, words = t.view["last"], t.words
    seat = words.seat  # who the words call "you"
    target, k = last["target"]
    dealt = len(last.get("dealt") or [])
    slapper = words.name(last["seat"])
    slapper_within = words.name(last["seat"], start=False)
    whose = "their own" if target == last["seat"] and target != seat else words.whose(target)
    text = (f"{slapper} slapped {whose} {slot_name(k)} card, the {card_name(last['card'])}, "
            f"onto the {card_name(last['onto'])}: ")
    if last["match"]:
        text += "a match!" if target == last["seat"] else (
            f"a match! {words.name(target)} {'take' if target == seat else 'takes'} {_cards(dealt)} from the stock.")
    else:
        text += (f"no match. It goes back, and {slapper_within} {'take' if last['seat'] == seat else 'takes'} "
                 f"{_cards(dealt)}.")
    return {"text": text, "match": last["match"]}


def _tap_info(t: _Table) -> str | None:
    """After a tap: who has one more turn."""
    tap = t.view.get("tap")
    if tap is None or not t.playing:
        return None
    left = [t.words.name(s, start=False) for s in tap["final_turns"]]
    tapper = t.words.name(tap["seat"])
    listed = ", ".join(left[:-1]) + " and " + left[-1] if len(left) > 1 else "".join(left)
    verb = " have" if len(left) > 1 or left == ["you"] else " has"
    return f"{tapper} tapped: " + (f"{listed}{verb} one more turn." if left else "the round is ending.")


def _countdown(wait: float | None, timing: Timing) -> int | None:
    """The whole seconds left of a bot's wait (see _wait) at this update; None when nothing counts down."""
    if wait is None or timing.turn_age is None:
        return None
    left = math.ceil(wait - timing.turn_age)
    return left if left > 0 else None


def _bot_delay() -> float:
    """The site's pause before a bot acts (settings.GAMES_BOT_DELAY), read only when a live table is drawn: the
    kits, and the post-match analysis through them, import this presenter where Django is not set up."""
    from django.conf import settings

    delay: float = settings.GAMES_BOT_DELAY
    return delay


def _wait(t: _Table, window_info: dict[str, Any] | None) -> float | None:
    """How long a bot about to draw waits for the card action or the slaps (games.bots.columbo.patience): the
    board counts it down when the drawer is a bot (its template knows who is); the server stays the judge."""
    if not t.playing or t.view.get("step") == "place" or t.view.get("current") is None:
        return None
    if t.action is not None and t.action["seat"] != t.view["current"]:
        return max(COURTESY_SECONDS, _bot_delay())
    if window_info and window_info["open"]:
        return max(SLAP_GRACE_SECONDS, _bot_delay())
    return None


def _column_indices(count: int) -> list[list[int | None]]:
    """The slot numbers of each column of two: 0/2, 1/3, then 4/5, 6/7, ... (None: no slot there)."""
    columns: list[list[int | None]] = [[0, 2], [1, 3]]
    for first in range(GRID, count, 2):
        columns.append([first, first + 1 if first + 1 < count else None])
    return columns


def _cards(n: int) -> str:
    return ("no card", "one card", "two cards")[n] if 0 <= n <= 2 else f"{n} cards"


def _prompt(view: dict[str, Any], seat: int | None, words: _Words, peek_first: int | None, drawn_name: str | None,
            top: str | None, can_take: bool, can_tap: bool) -> str:
    """The status line's instruction on the seat's turn."""
    if seat is None or view.get("over"):
        return ""
    if view["phase"] == "peek":
        if view["hands"][seat]["peeked"] is not None:
            return "Remember your two cards: play starts when everyone has peeked."
        if peek_first is not None:
            return f"Peeking at your {slot_name(peek_first)} card: choose the second card to peek at."
        return "Peek at two of your cards: choose them in your grid. Remember them!"
    if view.get("current") != seat:
        return ""
    if view.get("step") == "place":
        drawn = view.get("drawn") or {}
        if drawn.get("from") == "discard":
            return f"Swap the {drawn_name} with one of your cards: choose which."
        return f"You drew the {drawn_name}: swap it with one of your cards, or discard it."
    tap = view.get("tap")
    options = ["draw from the stock"]
    if can_take and top is not None:
        options.append(f"take the {card_name(top)}")
    if can_tap:
        options.append("tap")
    text = (", ".join(options[:-1]) + " or " + options[-1]) if len(options) > 1 else options[0]
    text = text[0].upper() + text[1:] + "."
    if tap is not None:
        text = f"Your last turn ({words.name(tap['seat'])} tapped): " + text[0].lower() + text[1:]
    return text


def _results(view: dict[str, Any], words: _Words) -> dict[str, Any] | None:
    """The last finished round with every hand open, and the running totals by round."""
    last = view.get("last_round")
    if not last:
        return None
    players = view["players"]
    rows = []
    for s in range(players):
        hand = last["hands"][s]
        columns = [[{"face": card(hand[k]), "points": card_points(hand[k])} if k is not None and hand[k] is not None
                    else ({"empty": True} if k is not None else None) for k in col]
                   for col in _column_indices(len(hand))]
        rows.append({
            "seat": s,
            "name": words.name(s),
            "columns": columns,
            "points": last["points"][s],
            "penalty": last["penalties"][s] if players > 1 else 0,  # solo scores the hand its own way
            "score": last["scores"][s],
            "total": last["totals"][s],
            "tapper": last["tapper"] == s,
            "me": s == words.seat,
        })
    low = min(last["totals"])
    for row in rows:
        row["leading"] = players > 1 and row["total"] == low
    ended = {"tap": f"{words.name(last['tapper'], start=False)} tapped" if last.get("tapper") is not None else "a tap",
             "stock": "nothing was left to draw"}.get(last["ended_by"], last["ended_by"])
    history = [{"round": r["round"], "scores": r["scores"]} for r in view.get("rounds_played") or []]
    fresh = view.get("over") or (view["phase"] == "peek" and last["round"] == view["round"] - 1)
    return {
        "round": last["round"],
        "rows": rows,
        "ended": ended,
        "history": history if players > 1 else [],
        "totals": view["totals"],
        "names": [words.name(s) for s in range(players)],
        "fresh": bool(fresh),
        "final": bool(view.get("over")),
        "tap_limit": TAP_LIMIT,
        "tap_penalty": TAP_PENALTY,
    }


def _solo(view: dict[str, Any], timing: Timing) -> dict[str, Any]:
    """Turns, the time so far and the seconds the time bonus has left, and once over the score with its parts:
    (4 - points) * 5000, the turn and the time bonuses."""
    solo = view.get("solo") or {}
    info: dict[str, Any] = {"turns": solo.get("turns", view.get("turns", 0)), "elapsed": timing.elapsed,
                            "bonus_left": None if timing.elapsed is None else SOLO_TIME_BONUS_SECONDS - timing.elapsed}
    if solo.get("score") is not None:
        points = solo.get("points")
        seconds = solo.get("seconds") or 0
        turns = solo["turns"]
        info["score"] = solo["score"]
        info["points"] = points
        info["seconds"] = seconds
        info["clock"] = f"{seconds // 60}:{seconds % 60:02d}"
        if points is not None and points < TAP_LIMIT:
            info["parts"] = [
                ("Hand", f"({TAP_LIMIT} − {points}) × 5,000", (TAP_LIMIT - points) * 5000),
                ("Turns", f"100,000 − 1,000 × {turns}", max(0, 100_000 - 1000 * turns)),
                ("Time", f"100,000 − 1,000 × {seconds}", max(0, 100_000 - 1000 * seconds)),
            ]
        else:
            info["parts"] = []
    return info
