"""The Columbo table: every player's grid, the stock and the discard pile, the card actions, slaps and results.

Columbo is a memory game: the view knows every face its seat has seen (perfect memory), but the table shows a
seat's known cards face-down, like the real cards, after a short flash. A player may opt in to "show what I
know" (a UI selection). Flashes last FLASH_SECONDS: keep_ui carries each one across the updates that follow,
with the time it has left, and the stylesheet turns the face back over when that time is up.
"""

from __future__ import annotations

import math
import time
from typing import Any

from django.conf import settings

from ..bots.columbo import COURTESY_SECONDS, SLAP_GRACE_SECONDS
from ..engines.base import card_name, rank_of
from ..engines.columbo import TAP_LIMIT, TAP_PENALTY, card_points, slot_name
from . import card, send, send_ui

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


def _int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _pos(value: Any) -> tuple[int, int] | None:
    """A [seat, slot] pair from a UI selection."""
    if isinstance(value, list | tuple) and len(value) == 2 and all(_int(v) for v in value):
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
    if _int(peek) and any(a["type"] == "peek" and peek in a["slots"] for a in legal):
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
    """Names as the viewer reads them: "You"/"your" for themselves."""

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


def present(view: dict[str, Any], seat: int | None, ui: dict[str, Any], names: list[str]) -> dict[str, Any]:
    words = _Words(names, seat)
    legal = view.get("legal") or []
    players = view["players"]
    phase = view["phase"]
    over = bool(view.get("over"))
    playing = phase == "play" and not over
    me = seat
    show_known = seat is None or over or bool(ui.get("known"))
    flashing = _flashing(view, seat, ui)
    window = view.get("window") or None
    window_open = bool(window and window["open"])
    top = (view.get("discard") or {}).get("top")
    action = view.get("action")
    my_action = action if action is not None and action["seat"] == me else None
    last = view.get("last") or {}
    drawn = view.get("drawn")

    # What each control of a card sends, from the legal actions only.
    slaps = {(a["seat"], a["slot"]): a for a in legal if a["type"] == "slap"}
    swaps = {a["slot"]: a for a in legal if a["type"] == "swap"}
    looks = {(a["seat"], a["slot"]): a for a in legal if a["type"] == "look"}
    exchanges = [a for a in legal if a["type"] == "exchange"]
    exchange_targets = {tuple(a["a"]) for a in exchanges} | {tuple(a["b"]) for a in exchanges}
    peeks = [a for a in legal if a["type"] == "peek"]
    peek_first = ui.get("peek") if peeks else None
    pick = _pos(ui.get("pick")) if exchanges else None
    base_ui: dict[str, Any] = {"known": True} if ui.get("known") else {}

    def with_ui(**changes: Any) -> str:
        selection = {**base_ui, **{k: v for k, v in changes.items() if v is not None}}
        return send_ui(selection)

    # What the last action touched, to point at it.
    touched: dict[tuple[int, int], str] = {}
    kind = None if last.get("round_over") else last.get("type")  # a finished round's places mean nothing now
    if kind == "swap":
        touched[(last["seat"], last["slot"])] = "swapped"
    elif kind == "look":
        touched[tuple(last["target"])] = "looked"  # type: ignore[index]
    elif kind == "exchange":
        touched[tuple(last["a"])] = touched[tuple(last["b"])] = "exchanged"  # type: ignore[index]
    elif kind == "slap":
        touched[tuple(last["target"])] = "slapped"  # type: ignore[index]
        for s, k in last.get("dealt") or []:
            touched[(s, k)] = "dealt"
    looked_now = tuple(my_action["looked"]) if my_action and my_action.get("looked") else None

    drawn_name = card_name(drawn["card"]) if drawn and drawn.get("card") else None

    def present_slot(s: int, k: int, slot: dict[str, Any]) -> dict[str, Any]:
        # The id stays the same from one update to the next: the page's keyboard focus comes back to it.
        entry: dict[str, Any] = {"seat": s, "slot": k, "where": words.card_at(s, k), "empty": slot["empty"],
                                 "id": f"cb-card-{s}-{k}"}
        if slot["empty"]:
            entry["label"] = f"{words.card_at(s, k)[0].upper()}{words.card_at(s, k)[1:]}: empty"
            return entry
        code = slot["card"]
        flash = flashing.get((s, k))
        shown = code is not None and (show_known or flash is not None or looked_now == (s, k))
        entry.update(
            face=card(code) if shown else None,
            flash=flash if code is not None and not (show_known or looked_now == (s, k)) else None,
            remembered=code is not None and shown and not over and seat is not None and flash is None
            and looked_now != (s, k),
            known=code is not None,
            mark=touched.get((s, k), ""),
        )
        # Who else has seen the card is public; the owner's own knowledge is the usual case and goes unsaid.
        seen = slot["seen_by"]
        if over or (seat is None and len(seen) == players):
            entry["seen_by"] = ""
        elif len(seen) == players and players > 1:
            entry["seen_by"] = "all"
        else:
            entry["seen_by"] = ", ".join(words.name(v) for v in seen if v != s)
        label = f"{words.card_at(s, k)[0].upper()}{words.card_at(s, k)[1:]}"
        steady = shown and entry["flash"] is None  # a flashing face names itself until it turns over
        entry["label"] = f"{label}: {card_name(code)}" if steady else f"{label}: face-down card"
        if entry["seen_by"]:
            entry["label"] += ", seen by everyone" if entry["seen_by"] == "all" else f", seen by {entry['seen_by']}"
        if over or seat is None:
            return entry
        # The card's own control (at most one), then its slap.
        if peeks and s == me:
            if peek_first is None:
                entry["control"] = {"ui": with_ui(peek=k), "label": f"Peek at your {slot_name(k)} card",
                                    "kind": "peek"}
            elif peek_first == k:
                entry["control"] = {"ui": with_ui(), "label": f"Don't peek at your {slot_name(k)} card",
                                    "kind": "peek", "selected": True}
            else:
                entry["control"] = {"send": send({"type": "peek", "slots": sorted([peek_first, k])}),
                                    "label": f"Peek at your {slot_name(k)} card too", "kind": "peek"}
        elif s == me and k in swaps:
            what = f"the {drawn_name}" if drawn_name else "the drawn card"
            entry["control"] = {"send": send(swaps[k]), "label": f"Swap {what} with your {slot_name(k)} card",
                                "kind": "swap"}
        elif (s, k) in looks:
            entry["control"] = {"send": send(looks[(s, k)]), "label": f"Look at {words.card_at(s, k)}",
                                "kind": "look"}
        elif (s, k) in exchange_targets:
            if pick is None:
                entry["control"] = {"ui": with_ui(pick=[s, k]), "label": f"Swap {words.card_at(s, k)} with…",
                                    "kind": "exchange"}
            elif pick == (s, k):
                entry["control"] = {"ui": with_ui(), "label": f"Don't swap {words.card_at(s, k)}",
                                    "kind": "exchange", "selected": True}
            else:
                chosen = next((a for a in exchanges if {tuple(a["a"]), tuple(a["b"])} == {pick, (s, k)}), None)
                if chosen is not None:
                    entry["control"] = {"send": send(chosen), "kind": "exchange",
                                        "label": f"Swap {words.card_at(*pick)} with {words.card_at(s, k)}"}
        if (s, k) in slaps and top is not None:
            entry["slap"] = {"send": send(slaps[(s, k)]),
                             "label": f"Slap {words.card_at(s, k)} onto the {card_name(top)}"}
        return entry

    hands = []
    order = list(range(players)) if seat is None else [(seat + i) % players for i in range(players)]
    for s in order:
        hand = view["hands"][s]
        columns = []
        for col in _column_indices(len(hand["slots"])):
            columns.append([present_slot(s, k, hand["slots"][k]) if k is not None else None for k in col])
        hands.append({
            "seat": s,
            "name": words.name(s),
            "me": s == seat,
            "columns": columns,
            "cards": hand["cards"],
            "tapped": hand["tapped"],
            "current": playing and view.get("current") == s,
            "peeking": phase == "peek" and hand["peeked"] is None,
            "total": view["totals"][s] if players > 1 else None,
            "dealer": view.get("dealer") == s and players > 1,
            "holding": bool(drawn and drawn["seat"] == s),
        })
    mine = hands[0] if seat is not None else None
    others = hands[1:] if seat is not None else hands
    # The keyboard: the player's own cards, and another player's when one of them is a card action's target, are
    # one Tab stop each (the arrow keys move between them). Once a card is drawn, or a card action of the
    # player's begins, the focus moves to the first card it may go to (not while choosing the second card).
    targets_now = playing and (view.get("step") == "place" or (my_action is not None and pick is None))
    first_target = None
    for hand in [*others, *([mine] if mine else [])]:
        slots = [slot for column in hand["columns"] for slot in column if slot is not None]
        hand["roving"] = hand["me"] or any(slot.get("control") for slot in slots)
        if targets_now and first_target is None:
            first_target = next((slot for slot in slots if slot.get("control")), None)
    if first_target is not None:
        first_target["focus_next"] = True

    # The piles and the turn's buttons.
    buttons: list[dict[str, Any]] = []
    draw_stock = next((a for a in legal if a["type"] == "draw" and a["from"] == "stock"), None)
    draw_discard = next((a for a in legal if a["type"] == "draw" and a["from"] == "discard"), None)
    stock_button = {"send": send(draw_stock), "label": "Draw from the stock"} if draw_stock else None
    discard_button = None
    if draw_discard and top is not None:
        discard_button = {"send": send(draw_discard), "label": f"Take the {card_name(top)} from the discard pile"}
    tap = next((a for a in legal if a["type"] == "tap"), None)
    if tap is not None:
        buttons.append({"send": send({"type": "tap"}), "label": "Tap", "kind": "tap",
                        "hint": "end the round: everyone else gets one more turn" if players > 1
                        else "end the game and score your hand"})
    discard = next((a for a in legal if a["type"] == "discard"), None)
    if discard is not None:
        buttons.append({"send": send(discard), "label": f"Discard the {drawn_name}" if drawn_name else "Discard",
                        "kind": "discard"})
    skip = next((a for a in legal if a["type"] == "skip"), None)

    drawn_info = None
    if drawn is not None:
        drawn_info = {
            "face": card(drawn["card"]) if drawn.get("card") else None,
            "who": words.name(drawn["seat"]),
            "mine": drawn["seat"] == seat,
            "from": drawn["from"],
        }

    # The pending card action.
    action_info = None
    if action is not None and playing:
        next_name = words.name(view.get("current"), start=False)
        if my_action:
            if my_action["stage"] == "exchange" and pick is not None:
                what = f"now choose the card to swap with {words.card_at(*pick)}."
            elif my_action["stage"] == "exchange":
                what = "choose the first of the two cards to swap." if my_action["kind"] == "exchange" else (
                    "now choose two cards to swap (or skip).")
            elif my_action["kind"] == "look_own":
                what = "choose one of your cards to look at."
            elif my_action["kind"] == "look_other":
                what = "choose another player's card to look at."
            else:
                what = "choose any card to look at."
            until = "you draw" if view.get("current") == seat else f"{next_name} draws"
            action_info = {
                "mine": True,
                "card": card(my_action["card"]),
                "text": f"Your {card_name(my_action['card'])} lets you {ACTION_PROMPTS[my_action['kind']]} "
                        f"until {until}: {what}",
                "skip": {"send": send(skip), "label": "Skip the card action"} if skip else None,
                "cancel": with_ui() if pick is not None else None,
            }
        else:
            action_info = {
                "mine": False,
                "card": card(action["card"]),
                "text": f"{words.name(action['seat'])} may {ACTION_OTHERS[action['kind']]} "
                        f"({card_name(action['card'])}) until {next_name} {'draw' if next_name == 'you' else 'draws'}.",
            }

    # The slap window and the last slap.
    window_info = None
    if window is not None and top is not None and window["seq"] == (view.get("discard") or {}).get("seq"):
        can = bool(window.get("can_slap"))
        if window_open and window.get("won_by") is None:
            text = (f"Slap now: the {card_name(top)} is on the discard pile. Slap a face-down card of rank "
                    f"{rank_of(top)} onto it." if can else f"The {card_name(top)} may be slapped.")
            if not can and seat is not None and seat in window["attempted"]:
                text = f"You have slapped once on the {card_name(top)}; the others may still slap."
            window_info = {"open": True, "can": can, "text": text}
        elif window.get("won_by") is not None:
            window_info = {"open": False, "can": False,
                           "text": f"{words.name(window['won_by'])} slapped first on the {card_name(window['card'])}."}
    slap_news = None
    if kind == "slap":
        t, k = last["target"]
        dealt = len(last.get("dealt") or [])
        slapper = words.name(last["seat"])
        slapper_within = words.name(last["seat"], start=False)
        target = "their own" if t == last["seat"] and t != seat else words.whose(t)
        text = (f"{slapper} slapped {target} {slot_name(k)} card, the {card_name(last['card'])}, "
                f"onto the {card_name(last['onto'])}: ")
        if last["match"]:
            text += "a match!" if t == last["seat"] else (
                f"a match! {words.name(t)} {'take' if t == seat else 'takes'} {_cards(dealt)} from the stock.")
        else:
            text += (f"no match. It goes back, and {slapper_within} {'take' if last['seat'] == seat else 'takes'} "
                     f"{_cards(dealt)}.")
        slap_news = {"text": text, "match": last["match"]}

    tap = view.get("tap")
    tap_info = None
    if tap is not None and playing:
        left = [words.name(s, start=False) for s in tap["final_turns"]]
        tapper = words.name(tap["seat"])
        listed = ", ".join(left[:-1]) + " and " + left[-1] if len(left) > 1 else "".join(left)
        verb = " have" if len(left) > 1 or left == ["you"] else " has"
        tap_info = f"{tapper} tapped: " + (f"{listed}{verb} one more turn." if left else "the round is ending.")

    # How long a bot about to draw waits for the card action or the slaps (games.bots.columbo.patience): the
    # board counts it down when the drawer is a bot (its template knows who is); the server stays the judge.
    wait = None
    if playing and view.get("step") != "place" and view.get("current") is not None:
        if action is not None and action["seat"] != view["current"]:
            wait = max(COURTESY_SECONDS, settings.GAMES_BOT_DELAY)
        elif window_info and window_info["open"]:
            wait = max(SLAP_GRACE_SECONDS, settings.GAMES_BOT_DELAY)

    # The prompt in the status line (shown on the seat's turn).
    prompt = _prompt(view, seat, words, peek_first, drawn_name, top, bool(draw_discard), tap is None
                     and any(a["type"] == "tap" for a in legal))
    if prompt and window_info and window_info["can"]:
        prompt = f"Slap now: the {card_name(top)} is on the discard pile. Or: {prompt[0].lower()}{prompt[1:]}"

    return {
        # What the last move was, for the page's sound cue (static/js/site.js): a slap.
        "cue": "slap" if kind == "slap" else "",
        "solo": players == 1,
        "phase": phase,
        "current": view.get("current"),
        "current_name": words.name(view.get("current"), start=False) if view.get("current") is not None else "",
        "wait": wait,
        "over": over,
        "round": view["round"],
        "rounds": view["rounds"],
        "dealer": words.name(view.get("dealer")) if players > 1 else "",
        "stock": view["stock"],
        "discard_top": card(top),
        "discard_count": (view.get("discard") or {}).get("count", 0),
        "stock_button": stock_button,
        "discard_button": discard_button,
        "buttons": buttons,
        "drawn": drawn_info,
        "hands": hands,
        "mine": mine,
        "others": others,
        "window": window_info,
        "slap_news": slap_news,
        "action": action_info,
        "tap": tap_info,
        "prompt": prompt,
        "show_known": bool(ui.get("known")),
        "known_toggle": send_ui({**({} if ui.get("known") else {"known": True}),
                                 **({"peek": peek_first} if peek_first is not None else {}),
                                 **({"pick": list(pick)} if pick is not None else {})}),
        "my_points": view.get("my_points") if ui.get("known") and seat is not None and not over else None,
        "results": _results(view, words),
        "solo_info": _solo(view) if players == 1 else None,
    }


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


def _solo(view: dict[str, Any]) -> dict[str, Any]:
    """Turns, and once over the score with its parts: (4 - points) * 5000, the turn and the time bonuses."""
    solo = view.get("solo") or {}
    info: dict[str, Any] = {"turns": solo.get("turns", view.get("turns", 0)), "bonus_seconds": SOLO_TIME_BONUS_SECONDS}
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
