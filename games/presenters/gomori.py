"""The Gomori table: the field as a grid over the playable window, the hand, the piles."""

from __future__ import annotations

from typing import Any, NamedTuple

from markupsafe import Markup

from ..core.memo import Memo
from ..engines.base import card_name
from . import NO_TIMING, Deferred, Timing, card, send, send_ui, spoken_name

# The board shows only what both players and spectators know (every field card was seen face-up) and,
# with nothing selected, nothing that depends on the viewer: one rendering serves them all.
BOARD_IS_PUBLIC = True


def _cell(value: Any) -> tuple[int, int] | None:
    if isinstance(value, list) and len(value) == 2 and all(type(v) is int for v in value):
        return (value[0], value[1])
    return None


def clean_ui(view: dict[str, Any], seat: int | None, raw: dict[str, Any]) -> dict[str, Any]:
    """Keep only a selection that still makes sense: a card in hand with a play, and a king's chosen cell."""
    legal = view.get("legal") or []
    chosen = raw.get("card")
    if not any(a["card"] == chosen for a in legal):
        return {}
    at = _cell(raw.get("at"))
    if at is not None and any(a["card"] == chosen and tuple(a["at"]) == at and a.get("king_target") for a in legal):
        return {"card": chosen, "at": list(at)}
    return {"card": chosen}


def present(view: dict[str, Any], seat: int | None, ui: dict[str, Any], names: list[str],
            timing: Timing = NO_TIMING, *, own: bool = True) -> dict[str, Any]:
    """A seat's (or a spectator's) Gomori table: the field's rows (made when the board is drawn), the hand with
    its choices, the targets of the chosen card and a king's face-up targets, both sides' counts, and the prompt."""
    legal = view.get("legal") or []
    selected: str | None = ui.get("card")
    king_at = tuple(ui["at"]) if ui.get("at") else None
    stacks = {tuple(f["at"]): f for f in view["field"]}

    # The grid spans the cells a card may go to (the 4x4 window around what lies on the field).
    if view.get("playable"):
        r0, r1 = view["playable"]["rows"]
        c0, c1 = view["playable"]["cols"]
    else:
        r0 = r1 = c0 = c1 = 0

    targets: dict[tuple[int, int], dict[str, Any]] = {}
    if selected and king_at is None:
        for action in legal:
            if action["card"] != selected:
                continue
            at = tuple(action["at"])
            if action.get("king_target"):
                targets[at] = {"ui": send_ui({"card": selected, "at": list(at)})}
            else:
                targets[at] = {"send": send(action)}
    king_targets: dict[tuple[int, int], str] = {}
    if selected and king_at is not None:
        for action in legal:
            if action["card"] == selected and tuple(action["at"]) == king_at and action.get("king_target"):
                king_targets[tuple(action["king_target"])] = send(action)

    def keys() -> list[list[CellKey]]:
        return _cell_keys(view, stacks, (r0, r1, c0, c1), selected, targets, king_at, king_targets)

    playable_cards = {a["card"] for a in legal}
    hand = [
        {
            **card(code),
            "playable": code in playable_cards,
            "selected": code == selected,
            "select": send_ui({"card": code}),
        }
        for code in (view.get("hand") or [])
    ]
    if view.get("chain") and not selected:
        # After a stacking play the same player goes on: the focus moves to a card that can be played.
        for entry in hand:
            if entry["playable"]:
                entry["focus_next"] = True
                break
    if king_at is not None and selected:
        prompt = (f"Choose a highlighted face-up card for the {card_name(selected)} to turn face-down "
                  "(a card of its own stack counts too).")
    elif selected:
        prompt = f"Now a highlighted cell for the {card_name(selected)} (Escape chooses another card)."
    elif view.get("chain"):
        prompt = "You stacked a card, so you play again: choose a card, then a highlighted cell."
    else:
        prompt = "Choose a card, then a highlighted cell."
    colors = view.get("colors", ["black", "red"])
    sides = [
        {
            "seat": i,
            "name": names[i] if i < len(names) else colors[i].title(),
            "color": colors[i],
            "hand": view["hand_counts"][i],
            "pile": view["pile_counts"][i],
            "gathered": len(view["gathered"][i]),
        }
        for i in range(2)
    ]
    plays = (view.get("last") or {}).get("plays") or []
    return {
        # What the last move was, for the page's sound cue (static/js/site.js): cards gathered.
        "cue": "gather" if any(p.get("gathered_cells") for p in plays) else "",
        # Made when the board is drawn: a board its viewers share is drawn once an update. The board draws each
        # cell's HTML (remembered by its key); the rules' examples read the cells' entries.
        "rows": Deferred(lambda: [[_cell_entry(key) for key in row] for row in keys()]),
        "cells_html": Deferred(lambda: [[_cell_html(key) for key in row] for row in keys()]),
        "columns": c1 - c0 + 1,
        "hand": hand,
        "prompt": prompt,
        "sides": sides,
        "selected": card(selected) if selected else None,
        "choosing_king": king_at is not None,
        "my_color": colors[seat] if seat is not None else None,
        # Whose hand it is, in words: "Your", or (a replay of another's seat) the player's name.
        "hand_owner": "Your" if own or seat is None else f"{sides[seat]['name']}’s",
        "cancel": send_ui({}) if selected else None,
    }


class CellKey(NamedTuple):
    """All a field cell's drawing depends on: its cell's entry (and so its HTML) is made from these alone, so equal
    keys draw the same HTML, whoever looks and in whichever match."""

    r: int
    c: int
    r0: int  # the window's top left cell, which the label counts from
    c0: int
    codes: tuple[str, ...]  # its stack, bottom first (empty: no card)
    face_up: bool
    play: str | None  # the play's hx-vals, when the selected card may go here
    choose: str | None  # the selection's hx-vals, when it may go here and then needs a king's target
    king_target: str | None  # the king's play turning this cell's card face-down
    selected: str  # the selected card (its name is in a target's words), else ""
    king_cell: bool
    played: bool  # what the last move did here
    flipped: bool
    gathered: bool
    first: bool  # the first cell a play may go to: where the focus moves once a card is chosen


def _cell_keys(
    view: dict[str, Any], stacks: dict[tuple[int, int], Any], window: tuple[int, int, int, int], selected: Any,
    targets: dict[tuple[int, int], dict[str, Any]], king_at: tuple[int, int] | None,
    king_targets: dict[tuple[int, int], str],
) -> list[list[CellKey]]:
    """The field's cells over the window, each as what its drawing depends on."""
    r0, r1, c0, c1 = window
    last = view.get("last") or {}
    plays = last.get("plays") or []
    last_cells = {tuple(p["at"]) for p in plays}
    flipped_cells = {tuple(f["at"]) for p in plays for f in p.get("flipped", [])}
    gathered_cells = {tuple(c) for p in plays for c in p.get("gathered_cells", [])}

    rows = []
    first = True
    for r in range(r0, r1 + 1):
        cells = []
        for c in range(c0, c1 + 1):
            stack = stacks.get((r, c))
            target = targets.get((r, c)) or {}
            king_target = None if target else king_targets.get((r, c))
            acts = bool(target) or king_target is not None
            cells.append(CellKey(
                r, c, r0, c0, tuple(stack["stack"]) if stack else (), bool(stack and stack["face_up"]),
                target.get("send"), target.get("ui"), king_target, selected if target else "",
                king_at == (r, c), (r, c) in last_cells, (r, c) in flipped_cells, (r, c) in gathered_cells,
                acts and first,
            ))
            first = first and not acts
        rows.append(cells)
    return rows


def _cell_entry(key: CellKey) -> dict[str, Any]:
    """A cell's entry, with what the board template draws (the macro games/tables/gomori.html#cell)."""
    r, c, r0, c0 = key.r, key.c, key.r0, key.c0
    # The id names the field's own cell, which keeps it while the window moves: the page puts the
    # keyboard focus back on it after an update.
    entry: dict[str, Any] = {"at": [r, c], "label": f"row {r - r0 + 1}, column {c - c0 + 1}", "id": f"gc{r}_{c}"}
    codes = key.codes
    if codes:
        entry.update(
            top=card(codes[-1]),
            face_up=key.face_up,
            height=len(codes),
            beneath=", ".join(card_name(code) for code in reversed(codes[:-1])),
            top_name=card_name(codes[-1]),
        )
    classes = ["gomori-cell"]
    where = entry["label"]
    if codes:
        where += f", on the {entry['top_name'] if key.face_up else 'face-down card'}"
    if key.play is not None:
        entry.update(hx=key.play, aria=f"Play the {card_name(key.selected)} here ({where})")
        classes.append("target")
    elif key.choose is not None:
        entry.update(hx=key.choose, aria=f"Play the {card_name(key.selected)} here ({where}), then choose its target")
        classes.append("target")
    elif key.king_target is not None:
        entry.update(hx=key.king_target, aria=f"Turn the {entry['top_name']} face-down ({entry['label']})")
        classes.append("king-target")
    entry["arrive"] = key.played
    for flag, name in (
        (key.king_cell, "king-cell"),
        (key.played, "last-play"),
        (key.flipped, "flipped"),
        (key.gathered, "gathered"),
    ):
        if flag:
            classes.append(name)
    if key.first:
        entry["first"] = True
    entry["name"] = _cell_name(entry, codes, key.face_up, key.played, key.flipped, key.gathered)
    entry["classes"] = " ".join(classes)
    return entry


# Each cell's HTML by its key: most of a board's cells are as they were a move before, and the key is a few values
# where the cell's entry is some twenty (with its card's), which was most of a board's cost (bench/README.md, issue
# 47). A hundred live boards of some twenty cells, each changing a few a move, stay well within it.
_CELL_HTML: Memo[Markup] = Memo(16384)
CELL_MACRO = "games/tables/gomori.html#cell"


def _cell_html(key: CellKey) -> Markup:
    return _CELL_HTML.get(key, lambda: _draw_cell(key))


def _draw_cell(key: CellKey) -> Markup:
    # Imported here: the deciders import the presenters (through the catalog) and must load no Django
    # (tests/games/play/test_purity.py); the templates are only reached when a board is drawn.
    from ..core.jinja import draw_piece

    return draw_piece(CELL_MACRO, cell=_cell_entry(key))


def _cell_name(entry: dict[str, Any], codes: tuple[str, ...], face_up: bool, played: bool, flipped: bool,
               gathered: bool) -> str:
    """What a screen reader says of a cell that is no button: its place, its top card, what the last move did."""
    if not codes:
        text = f"{entry['label']}: empty"
    else:
        top = spoken_name(codes[-1])
        text = f"{entry['label']}: {top if face_up else f'face-down card ({top})'}"
        if entry["height"] > 1:
            text += f", {entry['height']} cards"
    news = [word for flag, word in ((played, "just played"), (flipped, "just turned face-down"),
                                    (gathered, "just gathered")) if flag]
    return text + (f" ({', '.join(news)})" if news else "")
