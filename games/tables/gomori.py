"""The Gomori table: the field as a grid over the playable window, the hand, the piles."""

from __future__ import annotations

from typing import Any

from ..engines.base import card_name
from . import card, send, send_ui

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


def present(view: dict[str, Any], seat: int | None, ui: dict[str, Any], names: list[str]) -> dict[str, Any]:
    legal = view.get("legal") or []
    version = None  # the board's form carries the version the page shows (templates/jinja2/games/tables/gomori.html)
    selected = ui.get("card")
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
                targets[at] = {"send": send(action, version)}
    king_targets: dict[tuple[int, int], str] = {}
    if selected and king_at is not None:
        for action in legal:
            if action["card"] == selected and tuple(action["at"]) == king_at and action.get("king_target"):
                king_targets[tuple(action["king_target"])] = send(action, version)

    def rows() -> list[list[dict[str, Any]]]:
        return _rows(view, stacks, (r0, r1, c0, c1), selected, targets, king_at, king_targets)

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
    if king_at is not None:
        prompt = f"Choose the face-up card the {card_name(selected)} turns face-down (its own stack too)."
    elif selected:
        prompt = f"Choose where the {card_name(selected)} goes: the highlighted cells."
    elif view.get("chain"):
        prompt = "You stacked a card: play another one."
    else:
        prompt = "Choose a card from your hand."
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
    return {
        # Called by the template only when the board is drawn: a board shared by its viewers is drawn once.
        "rows": _once(rows),
        "columns": c1 - c0 + 1,
        "hand": hand,
        "prompt": prompt,
        "sides": sides,
        "selected": card(selected) if selected else None,
        "choosing_king": king_at is not None,
        "my_color": colors[seat] if seat is not None else None,
        "cancel": send_ui({}) if selected else None,
    }


def _once(make: Any) -> Any:
    """A no-argument callable (a template calls it when it reads it) that makes its value once."""
    made: list[Any] = []

    def value() -> Any:
        if not made:
            made.append(make())
        return made[0]

    return value


def _rows(
    view: dict[str, Any], stacks: dict[tuple[int, int], Any], window: tuple[int, int, int, int], selected: Any,
    targets: dict[tuple[int, int], dict[str, Any]], king_at: tuple[int, int] | None,
    king_targets: dict[tuple[int, int], str],
) -> list[list[dict[str, Any]]]:
    """The field's cells over the window, each with what the board template draws."""
    r0, r1, c0, c1 = window
    last = view.get("last") or {}
    plays = last.get("plays") or []
    last_cells = {tuple(p["at"]) for p in plays}
    flipped_cells = {tuple(f["at"]) for p in plays for f in p.get("flipped", [])}
    gathered_cells = {tuple(c) for p in plays for c in p.get("gathered_cells", [])}

    rows = []
    for r in range(r0, r1 + 1):
        cells = []
        for c in range(c0, c1 + 1):
            stack = stacks.get((r, c))
            entry: dict[str, Any] = {"at": [r, c], "label": f"row {r - r0 + 1}, column {c - c0 + 1}"}
            if stack:
                codes = stack["stack"]
                entry.update(
                    top=card(codes[-1]),
                    face_up=stack["face_up"],
                    height=len(codes),
                    beneath=", ".join(card_name(code) for code in reversed(codes[:-1])),
                    top_name=card_name(codes[-1]),
                )
            classes = ["gomori-cell"]
            target = targets.get((r, c))
            where = entry["label"]
            if stack:
                where += f", on the {entry['top_name'] if stack['face_up'] else 'face-down card'}"
            if target and "send" in target:
                entry.update(hx=target["send"], aria=f"Play the {card_name(selected)} here ({where})")
                classes.append("target")
            elif target:
                entry.update(
                    hx=target["ui"], aria=f"Play the {card_name(selected)} here ({where}), then choose its target"
                )
                classes.append("target")
            elif (r, c) in king_targets:
                entry.update(hx=king_targets[(r, c)], aria=f"Turn the {entry['top_name']} face-down ({entry['label']})")
                classes.append("king-target")
            for flag, name in (
                (king_at == (r, c), "king-cell"),
                ((r, c) in last_cells, "last-play"),
                ((r, c) in flipped_cells, "flipped"),
                ((r, c) in gathered_cells, "gathered"),
            ):
                if flag:
                    classes.append(name)
            entry["classes"] = " ".join(classes)
            cells.append(entry)
        rows.append(cells)
    return rows
