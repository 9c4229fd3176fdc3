"""The Gomori table: the field as a grid over the playable window, the hand, the piles."""

from __future__ import annotations

from typing import Any

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
        # Made when the board is drawn: a board its viewers share is drawn once an update.
        "rows": Deferred(lambda: _rows(view, stacks, (r0, r1, c0, c1), selected, targets, king_at, king_targets)),
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
    first = True  # the first cell a play may go to: where the focus moves once a card is chosen
    for r in range(r0, r1 + 1):
        cells = []
        for c in range(c0, c1 + 1):
            stack = stacks.get((r, c))
            # The id names the field's own cell, which keeps it while the window moves: the page puts the
            # keyboard focus back on it after an update.
            entry: dict[str, Any] = {"at": [r, c], "label": f"row {r - r0 + 1}, column {c - c0 + 1}",
                                     "id": f"gc{r}_{c}"}
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
            entry["arrive"] = (r, c) in last_cells
            for flag, name in (
                (king_at == (r, c), "king-cell"),
                ((r, c) in last_cells, "last-play"),
                ((r, c) in flipped_cells, "flipped"),
                ((r, c) in gathered_cells, "gathered"),
            ):
                if flag:
                    classes.append(name)
            if "hx" in entry and first:
                entry["first"] = True
                first = False
            entry["name"] = _cell_name(entry, stack, (r, c) in last_cells, (r, c) in flipped_cells,
                                       (r, c) in gathered_cells)
            entry["classes"] = " ".join(classes)
            cells.append(entry)
        rows.append(cells)
    return rows


def _cell_name(entry: dict[str, Any], stack: Any, played: bool, flipped: bool, gathered: bool) -> str:
    """What a screen reader says of a cell that is no button: its place, its top card, what the last move did."""
    if not stack:
        text = f"{entry['label']}: empty"
    else:
        top = spoken_name(stack["stack"][-1])
        text = f"{entry['label']}: {top if stack['face_up'] else f'face-down card ({top})'}"
        if entry["height"] > 1:
            text += f", {entry['height']} cards"
    news = [word for flag, word in ((played, "just played"), (flipped, "just turned face-down"),
                                    (gathered, "just gathered")) if flag]
    return text + (f" ({', '.join(news)})" if news else "")
