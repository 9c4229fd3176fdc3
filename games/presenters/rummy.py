"""The Rummy table: the opponent's hand as backs, the stock and the discard pile, the numbered packs on the table,
your hand in the order you like, packs built from it with their running value, adding cards, discarding.

The socket's UI selection holds the hand's display order, the selected cards (positions in that order) and the
packs under construction: {"sort": "suit"|"rank"|"custom", "order": [codes], "selected": [positions],
"building": [[codes], ...]}. Every control sends the whole selection back with one small operation ("op"), and
clean_ui applies it, so the JavaScript for dragging (static/js/rummy.js) needs no rules of its own. Packs under
construction are checked with the engine's own pack helpers to show their value; the engine still judges every
action, and the lay-down button appears only for a lay-down the view's legal actions hold.
"""

from __future__ import annotations

import json
from collections import Counter
from itertools import permutations
from typing import Any

from ..engines.base import SUIT_NAMES, IllegalAction, card_name, is_int
from ..engines.rummy import (
    JOKER_SUITS,
    MAX_RUN,
    POS_RANK,
    RANK,
    RANK_POS,
    SUIT,
    SUIT_INDEX,
    Pack,
    add_card,
    add_placements,
    card_key,
    card_places,
    is_code,
    new_pack,
)
from . import NO_TIMING, Timing, card, send, send_ui

SORTS = ("suit", "rank", "custom")
MAX_BUILD = 4  # 13 cards make at most 4 packs, one card kept
MAX_HAND = 16  # a hand never holds more than 14 cards; room for a stale frame
RANK_WORDS = {
    "A": "aces", "2": "twos", "3": "threes", "4": "fours", "5": "fives", "6": "sixes", "7": "sevens",
    "8": "eights", "9": "nines", "10": "tens", "J": "jacks", "Q": "queens", "K": "kings",
}
HOTKEYS = {"stock": "s", "take": "t", "discard": "d", "make": "m", "lay": "l"}


# ---------------------------------------------------------------------------------------------------------
# Packs from a selection
# ---------------------------------------------------------------------------------------------------------


def rank_key(code: str) -> tuple[int, int, int]:
    """Sort key for a hand by rank: aces to kings, suits in order within a rank; jokers last."""
    if code in JOKER_SUITS:
        return (1, 0 if code == "XR" else 1, 0)
    return (0, RANK_POS[RANK[code]], SUIT_INDEX[SUIT[code]])


SORT_KEYS = {"suit": card_key, "rank": rank_key}


def _pack_or_none(cards: list[str]) -> Pack | None:
    try:
        return new_pack(list(cards), 0)
    except IllegalAction:
        return None


def arrangements(cards: list[str]) -> list[tuple[list[str], int]]:
    """Every way these cards can be laid as one new pack, most valuable first: a set in suit order, or a run in
    ascending order with each joker in a place it can stand for (4♥ 5♥ joker is 4-5-6 or 3-4-5)."""
    if len(cards) < 3 or len(cards) > MAX_RUN:
        return []
    naturals = [c for c in cards if c not in JOKER_SUITS]
    jokers = [c for c in cards if c in JOKER_SUITS]
    if not naturals:
        return []
    if len({RANK[c] for c in naturals}) == 1:
        pack = _pack_or_none(sorted(cards, key=card_key))
        return [] if pack is None else [(pack.cards, pack.value)]
    if len({SUIT[c] for c in naturals}) != 1:
        return []
    size = len(cards)
    found: dict[tuple[str, ...], int] = {}
    for low in range(1, MAX_RUN - size + 2):
        window = range(low, low + size)
        placed: dict[int, str] = {}
        for code in naturals:
            places = [p for p in card_places(code) if p in window and p not in placed]
            if not places:
                break
            placed[places[0]] = code
        else:
            free = [p for p in window if p not in placed]
            for order in set(permutations(jokers)):
                fill = dict(zip(free, order, strict=True))
                laid = [placed.get(p) or fill[p] for p in window]
                pack = _pack_or_none(laid)
                if pack is not None:
                    found.setdefault(tuple(pack.cards), pack.value)
    return sorted(((list(c), v) for c, v in found.items()), key=lambda item: -item[1])


def why_not_pack(cards: list[str]) -> str:
    """Why the selected cards are not a pack, in the engine's words where it has them."""
    if len(cards) < 3:
        return "A pack has at least 3 cards."
    try:
        new_pack(sorted(cards, key=card_key), 0)
    except IllegalAction as error:
        return str(error)
    return "These cards can't be laid as one pack."


def _may_grow(cards: list[str]) -> bool:
    """Whether a few more cards could make these a pack: one rank in different suits, or one suit."""
    naturals = [c for c in cards if c not in JOKER_SUITS]
    if len(naturals) < 2:
        return True
    if len({RANK[c] for c in naturals}) == 1:
        return len({SUIT[c] for c in naturals}) == len(naturals)
    return len({SUIT[c] for c in naturals}) == 1 and len(set(naturals)) == len(naturals)


def describe_pack(kind: str, cards: list[str], low: int = 0) -> str:
    """"Set of kings", "Run of hearts, 4 to 8"."""
    naturals = [c for c in cards if c not in JOKER_SUITS]
    if kind == "set":
        rank = RANK[naturals[0]]
        return f"Set of {RANK_WORDS[rank]}"
    suit = SUIT[naturals[0]]
    if not low:
        pack = _pack_or_none(cards)
        low = pack.low if pack is not None else 1
    return f"Run of {SUIT_NAMES[suit]}, {POS_RANK[low]} to {POS_RANK[low + len(cards) - 1]}"


def _kind(cards: list[str]) -> str:
    naturals = [c for c in cards if c not in JOKER_SUITS]
    return "set" if len({RANK[c] for c in naturals}) == 1 else "run"


def _meld_key(packs: list[list[str]]) -> tuple[tuple[str, ...], ...]:
    return tuple(sorted(tuple(p) for p in packs))


# ---------------------------------------------------------------------------------------------------------
# The socket's selection
# ---------------------------------------------------------------------------------------------------------


def _codes(value: Any, limit: int) -> list[str] | None:
    if not isinstance(value, list) or len(value) > limit or not all(is_code(c) for c in value):
        return None
    return list(value)


def _resort(state: dict[str, Any]) -> None:
    """Sort the order by the chosen sort (if not custom), carrying the selection along."""
    key = SORT_KEYS.get(state["sort"])
    if key is None:
        return
    order = state["order"]
    perm = sorted(range(len(order)), key=lambda i: key(order[i]))
    moved = {old: new for new, old in enumerate(perm)}
    state["order"] = [order[i] for i in perm]
    state["selected"] = sorted(moved[i] for i in state["selected"])


def materialise(hand: list[str], raw: dict[str, Any]) -> dict[str, Any]:
    """The selection made to fit the hand: packs under construction the hand still holds, the order of the
    other cards (cards new to the hand on the right, or in their sorted places), selected positions."""
    sort = raw.get("sort") if raw.get("sort") in SORTS else "suit"
    pool = Counter(hand)
    building: list[list[str]] = []
    raw_building = raw.get("building")
    if isinstance(raw_building, list):
        for raw_pack in raw_building[:MAX_BUILD]:
            cards = _codes(raw_pack, MAX_RUN)
            if cards is None or Counter(cards) - pool or _pack_or_none(cards) is None:
                continue
            if tuple(cards) not in {tuple(c) for c, _ in arrangements(cards)}:
                continue
            pool.subtract(cards)
            building.append(cards)
    order: list[str] = []
    moved: dict[int, int] = {}
    for i, code in enumerate(_codes(raw.get("order"), MAX_HAND) or []):
        if pool[code] > 0:
            pool[code] -= 1
            moved[i] = len(order)
            order.append(code)
    order.extend(sorted(pool.elements(), key=card_key))
    raw_selected = raw.get("selected")
    selected = set()
    if isinstance(raw_selected, list) and len(raw_selected) <= MAX_HAND:
        selected = {moved[i] for i in raw_selected if is_int(i) and i in moved}
    state = {"sort": sort, "order": order, "selected": sorted(selected), "building": building}
    _resort(state)
    return state


def _shift(state: dict[str, Any], step: int) -> None:
    """Move the selected cards one place left (-1) or right (+1), together; a card at the edge stays."""
    order, selected = state["order"], set(state["selected"])
    for pos in sorted(selected, reverse=step > 0):
        to = pos + step
        if 0 <= to < len(order) and to not in selected:
            order[pos], order[to] = order[to], order[pos]
            selected.remove(pos)
            selected.add(to)
    state["selected"] = sorted(selected)
    state["sort"] = "custom"


def _move(state: dict[str, Any], start: int, to: int) -> None:
    """Move one card to another place (a drag and drop)."""
    order = state["order"]
    if not (0 <= start < len(order) and 0 <= to < len(order)) or start == to:
        return
    index = list(range(len(order)))
    index.insert(to, index.pop(start))
    moved = {old: new for new, old in enumerate(index)}
    state["order"] = [order[i] for i in index]
    state["selected"] = sorted(moved[i] for i in state["selected"])
    state["sort"] = "custom"


def _take_back(state: dict[str, Any], which: list[int]) -> None:
    for index in sorted(which, reverse=True):
        state["order"].extend(state["building"].pop(index))
    _resort(state)


def apply_op(state: dict[str, Any], raw: dict[str, Any]) -> None:
    """One operation of a control: select, shift, move, sort, make a pack, take one back, flip its joker."""
    op = raw.get("op")
    order, selected, building = state["order"], state["selected"], state["building"]
    at = raw.get("at")
    if op == "select" and is_int(at) and 0 <= at < len(order):
        state["selected"] = sorted(set(selected) ^ {at})
    elif op == "clear":
        state["selected"] = []
    elif op == "shift" and raw.get("by") in (-1, 1):
        _shift(state, raw["by"])
    elif op == "move" and is_int(raw.get("from")) and is_int(raw.get("to")):
        _move(state, raw["from"], raw["to"])
    elif op == "sort" and raw.get("by") in ("suit", "rank"):
        state["sort"] = raw["by"]
        _resort(state)
    elif op == "make" and len(building) < MAX_BUILD:
        cards = [order[i] for i in selected]
        options = arrangements(cards)
        if options:
            building.append(options[0][0])
            chosen = set(selected)
            state["order"] = [c for i, c in enumerate(order) if i not in chosen]
            state["selected"] = []
    elif op == "unmake" and is_int(at) and 0 <= at < len(building):
        _take_back(state, [at])
    elif op == "reset":
        state["selected"] = []
        _take_back(state, list(range(len(building))))
    elif op == "flip" and is_int(at) and 0 <= at < len(building):
        layouts = [cards for cards, _ in arrangements(building[at])]
        if len(layouts) > 1:
            now = layouts.index(building[at]) if building[at] in layouts else -1
            building[at] = layouts[(now + 1) % len(layouts)]


def _playing(view: dict[str, Any], seat: int | None) -> bool:
    return seat is not None and view.get("hand") is not None and not view.get("over")


def clean_ui(view: dict[str, Any], seat: int | None, raw: dict[str, Any]) -> dict[str, Any]:
    """The selection fitted to the hand, with the control's operation applied."""
    if not _playing(view, seat):
        return {}
    state = materialise(view["hand"], raw)
    apply_op(state, raw)
    return state


def keep_ui(view: dict[str, Any], seat: int | None, ui: dict[str, Any]) -> dict[str, Any]:
    """The selection carried into a new view: the order always; the packs under construction unless this seat
    just laid down; the selected cards unless this seat just laid down, added or discarded."""
    if not _playing(view, seat) or not ui:
        return {}
    carried = dict(ui)
    last = view.get("last") or {}
    actions = last.get("actions") or []
    if last.get("seat") == seat and actions:
        kinds = {a["type"] for a in actions}
        if actions[-1]["type"] == "meld":
            carried["building"] = []
        if kinds & {"meld", "add", "discard"}:
            carried["selected"] = []
    return materialise(view["hand"], carried)


def _ui_send(state: dict[str, Any], **op: Any) -> str:
    return send_ui({**state, **op})


# ---------------------------------------------------------------------------------------------------------
# The table
# ---------------------------------------------------------------------------------------------------------


def _fresh(view: dict[str, Any], seat: int | None) -> list[str]:
    """Cards that just came into this seat's hand this turn: the drawn card, jokers freed from packs."""
    last = view.get("last") or {}
    if seat is None or last.get("seat") != seat or last.get("ended"):
        return []
    out = []
    for action in last.get("actions") or []:
        if action["type"] == "draw" and action.get("card"):
            out.append(action["card"])
        elif action["type"] == "add" and action.get("freed"):
            out.append(action["freed"])
    return out


def _joker_captions(pack: dict[str, Any]) -> dict[int, str]:
    captions = {}
    for joker in pack.get("jokers") or []:
        names = [card_name(joker["rank"] + suit) for suit in joker["suits"]]
        captions[joker["at"]] = "as " + " or ".join(names)
    return captions


def _pack_object(pack: dict[str, Any]) -> Pack:
    return Pack(pack["kind"], list(pack["cards"]), pack["owner"], pack.get("low_place") or 0)


def _add_targets(view: dict[str, Any], code: str) -> dict[int, list[dict[str, str]]]:
    """For one card in hand: pack id -> the add buttons (one, or one per end), from the legal actions."""
    packs = {p["id"]: p for p in view["packs"]}
    out: dict[int, list[dict[str, str]]] = {}
    for action in view.get("legal") or []:
        if action["type"] != "add" or action["card"] != code or action["pack"] not in packs:
            continue
        pack = packs[action["pack"]]
        number = pack["id"] + 1
        end = action.get("end")
        label = f"Add the {card_name(code)} to pack {number}"
        text = f"Add the {card_name(code)}"
        obj = _pack_object(pack)
        placements = [p for p in add_placements(obj, code) if p[0] == end]
        if placements:
            place = placements[0][1]
            if end is not None:
                stands = card_name(POS_RANK[place] + pack["suit"])
                where = f"at the {end} end"
                if code in JOKER_SUITS:
                    where += f", as {stands}"
                label += f" {where}"
                text = f"{'Low' if end == 'low' else 'High'} end" + (f" (as {stands})" if code in JOKER_SUITS else "")
            _, freed = add_card(obj, code, place)
            if freed is not None:
                label += f" and take back the {card_name(freed)}"
                text += f", take the {card_name(freed)}"
        out.setdefault(pack["id"], []).append({"send": send(action), "label": label, "text": text})
    return out


def _packs(view: dict[str, Any], targets: dict[int, list[dict[str, str]]], names: list[str],
           seat: int | None) -> list[dict[str, Any]]:
    last = view.get("last") or {}
    new_ids: set[int] = set()
    added: dict[int, list[str]] = {}
    for action in last.get("actions") or []:
        if action["type"] == "meld":
            new_ids.update(action["packs"])
        elif action["type"] == "add":
            added.setdefault(action["pack"], []).append(action["card"])
    out = []
    for pack in view["packs"]:
        captions = _joker_captions(pack)
        marks = list(added.get(pack["id"], []))
        cards = []
        for at, code in enumerate(pack["cards"]):
            marked = code in marks
            if marked:
                marks.remove(code)
            cards.append({**card(code), "caption": captions.get(at, ""), "added": marked})
        owner = pack["owner"]
        low = pack.get("low_place") or 0
        out.append({
            "id": pack["id"],
            "number": pack["id"] + 1,
            "title": describe_pack(pack["kind"], pack["cards"], low),
            "value": pack["value"],
            "full": pack["full"],
            "owner": "you" if owner == seat else (names[owner] if owner < len(names) else f"Seat {owner + 1}"),
            "mine": owner == seat,
            "cards": cards,
            "new": pack["id"] in new_ids,
            "changed": pack["id"] in added,
            "targets": targets.get(pack["id"], []),
            "names": " ".join(card_name(c) for c in pack["cards"]),
        })
    return out


def _seat_name(names: list[str], index: int) -> str:
    return names[index] if index < len(names) else f"Seat {index + 1}"


def _sides(view: dict[str, Any], seat: int | None, names: list[str]) -> list[dict[str, Any]]:
    """The hands shown as backs: the opponent's for a player, both for a spectator (seat 1 on top)."""
    order = [1 - seat] if seat is not None else [1, 0]
    minimum = view["options"]["min_first_meld"]
    out = []
    for index in order:
        count = view["hand_counts"][index]
        out.append({
            "seat": index,
            "name": _seat_name(names, index),
            "count": count,
            "backs": range(count),
            "laid": view["laid_down"][index],
            "current": index in view.get("must_act", []),
            "minimum": minimum,
            "few": count <= 2,
        })
    return out


def _final(view: dict[str, Any], seat: int | None, names: list[str]) -> list[dict[str, Any]]:
    hands = view.get("final_hands")
    result = view.get("result") or {}
    if not hands:
        return []
    scores = result.get("scores") or [0, 0]
    winners = result.get("winners") or []
    out = []
    for index, hand in enumerate(hands):
        out.append({
            "name": "You" if index == seat else _seat_name(names, index),
            "cards": [card(c) for c in hand],
            "points": scores[index],
            "won": index in winners,
            "me": index == seat,
        })
    return out


def _selection(view: dict[str, Any], seat: int | None, state: dict[str, Any], my_turn: bool) -> dict[str, Any]:
    """What the selected cards can do: make a pack, be laid down at once, be added to a pack, be discarded."""
    legal = view.get("legal") or []
    cards = [state["order"][i] for i in state["selected"]]
    out: dict[str, Any] = {"cards": cards, "names": ", ".join(card_name(c) for c in cards)}
    if not cards:
        return out
    options = arrangements(cards)
    if options:
        laid, value = options[0]
        out["pack"] = {"title": describe_pack(_kind(laid), laid), "value": value}
        if len(state["building"]) < MAX_BUILD:
            out["make"] = _ui_send(state, op="make")
        melds = {_meld_key(a["packs"]) for a in legal if a["type"] == "meld"}
        if not state["building"] and _meld_key([laid]) in melds:
            out["lay"] = {"send": send({"type": "meld", "packs": [laid]}), "value": value}
    elif len(cards) >= 3:
        out["problem"] = why_not_pack(cards)
    elif len(cards) == 2:
        if _may_grow(cards):
            out["more"] = "select a third card to make a pack."
        else:
            out["problem"] = "these two can't be in one pack: a set is one rank in different suits, a run one suit."
    if len(cards) == 1:
        code = cards[0]
        discard = {"type": "discard", "card": code}
        if discard in legal:
            out["discard"] = {"send": send(discard), "label": f"Discard the {card_name(code)}"}
    return out


def _building(view: dict[str, Any], seat: int | None, state: dict[str, Any], my_turn: bool,
              extra: int) -> dict[str, Any] | None:
    """The packs under construction, their running value against the first lay-down's minimum, the button."""
    building = state["building"]
    laid = view["laid_down"][seat] if seat is not None else False
    minimum = 0 if laid else view["options"]["min_first_meld"]
    if not building:
        return None
    packs: list[dict[str, Any]] = []
    for index, cards in enumerate(building):
        options = arrangements(cards)
        value = next((v for c, v in options if c == cards), 0)
        flip = None
        if len(options) > 1:
            other = options[(([c for c, _ in options].index(cards)) + 1) % len(options)][0]
            flip = {
                "send": _ui_send(state, op="flip", at=index),
                "label": "Lay it as " + " ".join(card_name(c) for c in other),
            }
        packs.append({
            "index": index,
            "title": describe_pack(_kind(cards), cards),
            "value": value,
            "cards": [card(c) for c in cards],
            "unmake": _ui_send(state, op="unmake", at=index),
            "flip": flip,
        })
    total = sum(p["value"] for p in packs)
    out: dict[str, Any] = {
        "packs": packs,
        "total": total,
        "minimum": minimum,
        "with_selection": total + extra if extra else None,
        "reset": _ui_send(state, op="reset"),
        "meter_max": max(minimum, total, 1),
    }
    legal = view.get("legal") or []
    melds = {_meld_key(a["packs"]) for a in legal if a["type"] == "meld"}
    if _meld_key(building) in melds:
        out["lay"] = send({"type": "meld", "packs": building})
    else:
        cards = sum(len(p) for p in building)
        if not my_turn:
            out["why"] = "You can lay them down on your turn."
        elif view["phase"] == "draw":
            out["why"] = "Draw a card first."
        elif view["turns"][seat] < 2:
            out["why"] = "You may lay down from your second turn on."
        elif cards >= len(view["hand"]):
            out["why"] = "Keep a card to discard: take a pack back or leave a card out."
        elif total < minimum:
            out["why"] = f"Your first lay-down must be worth at least {minimum}: {minimum - total} more to go."
        else:
            out["why"] = "These packs can't be laid down together."
    return out


def _hand(view: dict[str, Any], seat: int | None, state: dict[str, Any], my_turn: bool) -> dict[str, Any]:
    order, selected = state["order"], set(state["selected"])
    fresh_codes = _fresh(view, seat)
    fresh: set[int] = set()
    for code in fresh_codes:
        spots = [i for i, c in enumerate(order) if c == code and i not in fresh]
        if spots:
            fresh.add(spots[-1])
    cards = []
    for i, code in enumerate(order):
        face = card(code)
        chosen = i in selected
        cards.append({
            **face,
            "pos": i,
            "selected": chosen,
            "fresh": i in fresh,
            "select": _ui_send(state, op="select", at=i),  # a toggle named by the card's words (aria-pressed)
        })
    can_left = any(i > 0 and (i - 1) not in selected for i in selected)
    can_right = any(i < len(order) - 1 and (i + 1) not in selected for i in selected)
    return {
        "cards": cards,
        "count": len(view["hand"]),
        "sort": state["sort"],
        "sorts": [
            {"by": by, "text": text, "send": _ui_send(state, op="sort", by=by), "pressed": state["sort"] == by}
            for by, text in (("suit", "By suit"), ("rank", "By rank"))
        ],
        "left": _ui_send(state, op="shift", by=-1) if can_left else None,
        "right": _ui_send(state, op="shift", by=1) if can_right else None,
        "clear": _ui_send(state, op="clear") if selected else None,
        "base": json.dumps(state, separators=(",", ":")),
        "fresh_names": [card_name(c) for c in fresh_codes],
    }


def _prompt(view: dict[str, Any], seat: int | None, selection: dict[str, Any], targets: dict[int, Any],
            building: dict[str, Any] | None) -> str:
    if seat is None or seat not in view.get("must_act", []):
        return ""
    legal = view.get("legal") or []
    if view["phase"] == "draw":
        top = view.get("discard_top")
        if any(a.get("from") == "discard" for a in legal) and top:
            return f"Draw a card from the stock, or take the {card_name(top)} from the discard pile."
        return "Draw a card from the stock."
    cards = selection.get("cards") or []
    if building and building.get("lay"):
        return "Lay down your packs, or build more."
    if len(cards) == 1 and targets:
        return f"Add the {card_name(cards[0])} to a highlighted pack, or discard it."
    if len(cards) == 1 and selection.get("discard"):
        return f"Discard the {card_name(cards[0])} to end your turn, or select more cards to build a pack."
    if selection.get("pack"):
        return "Make a pack of the selected cards, then lay your packs down."
    laid = view["laid_down"][seat]
    if view["turns"][seat] < 2:
        return "Select a card to discard. You may lay down from your second turn on."
    if not laid:
        minimum = view["options"]["min_first_meld"]
        return f"Build packs worth {minimum} or more to lay down, or select a card to discard."
    return "Lay down packs, add cards to the packs on the table, or select a card to discard."


def present(view: dict[str, Any], seat: int | None, ui: dict[str, Any], names: list[str],
            timing: Timing = NO_TIMING, *, own: bool = True) -> dict[str, Any]:
    """A seat's (or a spectator's) Rummy table: the hand in the chosen order, the packs being built for a lay-down,
    the table's packs with what may be added, the piles and the turn's buttons, and the prompt (`own`: see
    games.presenters)."""
    you = seat if own else None
    legal = view.get("legal") or []
    my_turn = seat is not None and seat in view.get("must_act", [])
    playing = _playing(view, seat)
    state = materialise(view["hand"], ui) if playing else None
    selection: dict[str, Any] = {}
    targets: dict[int, list[dict[str, str]]] = {}
    building = None
    hand = None
    if state is not None:
        selection = _selection(view, seat, state, my_turn)
        if len(selection["cards"]) == 1:
            targets = _add_targets(view, selection["cards"][0])
        extra = selection["pack"]["value"] if selection.get("pack") else 0
        building = _building(view, seat, state, my_turn, extra)
        hand = _hand(view, seat, state, my_turn)
    stock = None
    take = None
    for action in legal:
        if action == {"type": "draw", "from": "stock"}:
            stock = send(action)
        elif action == {"type": "draw", "from": "discard"}:
            take = send(action)
    top = view.get("discard_top")
    minimum = view["options"]["min_first_meld"]
    take_hint = ""
    if my_turn and you is not None and view["phase"] == "draw" and top and take is None and not view["laid_down"][seat]:
        take_hint = "You may take from the discard pile once you have laid down."
    freed = []
    last = view.get("last") or {}
    for action in last.get("actions") or []:
        if action["type"] == "add" and action.get("freed"):
            who = "You" if last.get("seat") == you else _seat_name(names, last["seat"])
            freed.append(f"{who} took the {card_name(action['freed'])} back from pack {action['pack'] + 1}.")
    actions = last.get("actions") or []
    return {
        # What the last move was, for the page's sound cue (static/js/site.js): a lay-down.
        "cue": "meld" if actions and actions[-1]["type"] == "meld" else "",
        "sides": _sides(view, seat, names),
        "stock": {"count": view["stock_count"], "send": stock},
        "discard": {"top": card(top), "count": view["discard_count"], "send": take, "hint": take_hint},
        "minimum": minimum,
        "minimum_matters": not all(view["laid_down"]),
        "packs": _packs(view, targets, names, you),
        "over": view.get("over"),
        "final": _final(view, you, names),
        # Whose hand it is: "Your hand", or (a replay of another's seat) the player's, shown without the tools.
        "hand_title": f"{_seat_name(names, seat)}’s hand" if you is None and seat is not None else "Your hand",
        "own_hand": you is not None,
        "freed": freed,
        "hand": hand,
        "selection": selection,
        "building": building,
        "choosing_pack": bool(targets),
        "prompt": _prompt(view, seat, selection, targets, building),
        "my_turn": my_turn,
        "laid": view["laid_down"][seat] if seat is not None else False,
        "hotkeys": HOTKEYS,
    }
