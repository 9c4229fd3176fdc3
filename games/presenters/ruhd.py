"""The Ruhd table: the board of square tiles, the shared open hand, placing and covering, and the score pad.

Each tile is drawn as four triangles, one per side, in the side's colour with its number and a shape per colour
(green ●, yellow ▲, blue ■, red ◆), so no side depends on telling colours apart. A turn is two steps: choose a
tile (from the open hand, or a face-down tile on the board), turn it (buttons or the R key) and place it on a
highlighted cell, whose badge tells what it would score; then choose a hand tile and the face-up tile it covers.
The last placement's score is explained rule by rule beside the board, its scoring sides ringed on the board.

The socket's selection: {"tile": id, "rotation": r} while placing, {"tile": id} while covering.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from . import NO_TIMING, Timing, send, send_ui

DIRECTIONS = ("up", "right", "down", "left")
COLOURS = {"G": "green", "Y": "yellow", "B": "blue", "R": "red"}
MARKS = {"G": "●", "Y": "▲", "B": "■", "R": "◆"}
ROTATION_WORDS = ("as printed", "turned a quarter clockwise", "turned half round", "turned a quarter anticlockwise")
ROTATION_DEGREES = ("0°", "90°", "180°", "270°")
OUTCOMES = {
    "different colours": "different colours: the difference",
    "same colour and number": "same colour and number: that number",
    "same colour, different numbers": "same colour, different numbers: nothing",
}

# Drawing a tile in a 100 x 100 box: per facing direction its triangle, a smaller copy inside it (the ring that
# marks a scoring side), where its number goes and where its colour's shape goes.
_AREAS = ("0,0 100,0 50,50", "100,0 100,100 50,50", "0,100 100,100 50,50", "0,0 0,100 50,50")
_RINGS = ("9.7,4 90.3,4 50,44.3", "96,9.7 96,90.3 55.7,50", "90.3,96 9.7,96 50,55.7", "4,90.3 4,9.7 44.3,50")
_NUMBERS = ((41, 31), (83, 53), (41, 89), (17, 53))
_MARK_AT = ((62, 21), (83, 67), (62, 79), (17, 67))


def _mark(colour: str, cx: float, cy: float) -> str:
    """The points of the colour's shape centred on (cx, cy): yellow a triangle, blue a square, red a diamond
    ("" for green: a circle there)."""
    if colour == "G":
        return ""
    shape: tuple[tuple[float, float], ...]
    if colour == "Y":
        shape = ((0, -7.5), (7.5, 5.5), (-7.5, 5.5))
    elif colour == "B":
        shape = ((-5.5, -5.5), (5.5, -5.5), (5.5, 5.5), (-5.5, 5.5))
    else:
        shape = ((0, -7.5), (7.5, 0), (0, 7.5), (-7.5, 0))
    return " ".join(f"{cx + x:g},{cy + y:g}" for x, y in shape)


def _side_shape(code: str, d: int) -> tuple[str, str, float, float, str, float, float, str]:
    """What the tile macro draws of one side ("G4") facing direction d: its colour and triangle, where its number
    goes and the number, and its colour's shape (the circle's centre, or the polygon's points). A tuple, which
    the macro unpacks: a tile is drawn for every viewer after every move."""
    colour, number = code[0], code[1:]
    nx, ny = _NUMBERS[d]
    mx, my = _MARK_AT[d]
    return (COLOURS[colour], _AREAS[d], nx, ny, number, mx, my, _mark(colour, mx, my))


# Worked out once: the 16 sides in the 4 directions (a tile is then four lookups; boards are redrawn for every
# viewer after every move).
_SIDES = {(f"{c}{n}", d): _side_shape(f"{c}{n}", d) for c in COLOURS for n in range(1, 5) for d in range(4)}


def side_words(code: str) -> str:
    """A side in words with its shape: "G4" -> "green 4 ●"."""
    return f"{COLOURS[code[0]]} {code[1:]} {MARKS[code[0]]}"


def facing(printed: list[str], rotation: int) -> list[str]:
    """The sides facing up, right, down and left of a tile turned `rotation` quarter turns clockwise."""
    return [printed[(d - rotation) % 4] for d in range(4)]


def tile_label(tile: str, sides: list[str]) -> str:
    """A tile for screen readers and tooltips: "T05: up green 2 ●, right green 1 ●, ..."."""
    return f"{tile}: " + ", ".join(f"{DIRECTIONS[d]} {side_words(sides[d])}" for d in range(4))


def drawn(tile: str, sides: list[str], rings: list[dict[str, str]] | None = None, *,
          decorative: bool = False) -> dict[str, Any]:
    """A tile as the tile macro (games/tables/ruhd.html) draws it: its four sides facing up, right, down and left,
    the rings that mark what scored, and its words. Decorative when a button around it says what it is."""
    return {"id": tile, "label": tile_label(tile, sides), "rings": rings or [], "decorative": decorative,
            "sides": [_SIDES[(sides[d], d)] for d in range(4)]}


def _cell(value: Any) -> tuple[int, int] | None:
    if isinstance(value, list | tuple) and len(value) == 2 and all(
        isinstance(v, int) and not isinstance(v, bool) for v in value
    ):
        return (value[0], value[1])
    return None


def _rotation(value: Any) -> int:
    return value % 4 if isinstance(value, int) and not isinstance(value, bool) else 0


def _acting(view: dict[str, Any]) -> bool:
    """Whether this view's seat has something to do now (a replay's views carry no legal actions)."""
    return bool(view.get("legal")) and not view.get("over")


def clean_ui(view: dict[str, Any], seat: int | None, raw: dict[str, Any]) -> dict[str, Any]:
    """Keep a selection that still makes sense: a placeable tile and its turn, or a hand tile to cover with."""
    if seat is None or not _acting(view):
        return {}
    tile = raw.get("tile")
    if not isinstance(tile, str):
        return {}
    if view.get("phase") == "place":
        if tile not in (view.get("legal_cells") or {}):
            return {}
        return {"tile": tile, "rotation": _rotation(raw.get("rotation"))}
    if view.get("phase") == "cover" and tile in (view.get("hand") or []):
        return {"tile": tile}
    return {}


def _selection(view: dict[str, Any], ui: dict[str, Any], acting: bool) -> tuple[str | None, int]:
    """The tile in hand (validated again: the view may have moved on) and its rotation."""
    if not acting:
        return None, 0
    chosen = clean_ui(view, view.get("seat"), ui) if view.get("seat") is not None else {}
    tile = chosen.get("tile")
    if tile is None and view.get("phase") == "cover" and len(view.get("hand") or []) == 1:
        tile = view["hand"][0]  # only one tile can cover: it is chosen already
    return tile, chosen.get("rotation", 0)


Rings = dict[tuple[int, int], list[dict[str, str]]]


def _rule_label(item: dict[str, Any], ring: Callable[[list[int], str, str], None]) -> str:
    """One rule that fired, in words with the colours' shapes; rings the sides it involves (those that scored)."""
    kind = item["rule"]
    if kind == "one_side":
        return "One side: it touches exactly one tile"
    if kind == "side":
        direction = item["direction"]
        if item["points"]:
            ring(item["at"], direction, "side")
            ring(item["neighbour"], DIRECTIONS[(DIRECTIONS.index(direction) + 2) % 4], "side")
        return (f"{direction.capitalize()} side: {side_words(item['side'])} against {side_words(item['against'])}, "
                f"{OUTCOMES.get(item['outcome'], item['outcome'])}")
    if kind == "pattern":
        value = str(item["value"])
        what = f"{COLOURS[value]}s {MARKS[value]}" if item["kind"] == "colour" else f"{value}s"
        for at in item["cells"]:
            ring(at, item["facing"], "pattern")
        return f"Pattern created: {what} facing {item['facing']}, {item['length']} in a row"
    return str(item["text"])


def _pad(view: dict[str, Any], seat: int | None, names: list[str]) -> tuple[dict[str, Any] | None, Rings]:
    """The last placement's score pad, and the rings it puts on the board: cell -> scoring sides."""
    last = view.get("last_placement")
    if not last:
        return None, {}
    rings: Rings = {}

    def ring(at: list[int], direction: str, kind: str) -> None:
        d = DIRECTIONS.index(direction)
        cell = (at[0], at[1])
        if not any(r["points"] == _RINGS[d] for r in rings.get(cell, [])):
            rings.setdefault(cell, []).append({"points": _RINGS[d], "kind": kind})

    rules = []
    for item in last.get("breakdown") or []:
        kind = item.get("rule")
        try:
            label = _rule_label(item, ring)
        except (KeyError, ValueError, TypeError, IndexError):  # a record this table doesn't know: the engine's words
            label = str(item.get("text", kind or ""))
        rules.append({"label": label, "points": item.get("points", 0), "kind": kind or "other"})
    who = last.get("seat")
    origin = "from the open hand"
    if last.get("from") == "board":
        origin = "taken back from the board"
        if last.get("uncovered"):
            origin += f", uncovering {last['uncovered']}"
    pad = {
        "points": last.get("points", 0),
        "who": "You" if who == seat else (names[who] if isinstance(who, int) and who < len(names) else "Someone"),
        "tile": last.get("tile", ""),
        "rotation": ROTATION_WORDS[_rotation(last.get("rotation"))],
        "origin": origin,
        "rules": rules,
        "at": tuple(last["at"]) if _cell(last.get("at")) else None,
    }
    return pad, rings


@dataclass
class _Table:
    """What every part of a Ruhd table reads from the view, the seat and its selection, worked out once."""

    view: dict[str, Any]
    seat: int | None
    phase: str  # place, cover or over
    acting: bool
    placing: bool
    covering: bool
    tiles: dict[str, list[str]]  # every tile's printed sides
    hand: list[str]
    selected: str | None
    rotation: int
    targets: dict[tuple[int, int], int | None]  # where the selected tile may go, and what it would score there
    best_by_rotation: list[int]  # the selected tile's best score in each rotation
    cover_cells: set[tuple[int, int]]  # the face-up tiles the selected tile may cover
    takeable: dict[tuple[int, int], str]  # face-down tiles that may be taken back to place
    selected_sides: list[str] | None


def _table(view: dict[str, Any], seat: int | None, ui: dict[str, Any]) -> _Table:
    acting = _acting(view) and seat is not None
    phase = "over" if view.get("over") else view.get("phase", "place")
    tiles: dict[str, list[str]] = view.get("tiles") or {}
    selected, rotation = _selection(view, ui, acting)
    placing = acting and phase == "place"
    covering = acting and phase == "cover"
    targets: dict[tuple[int, int], int | None] = {}
    best_by_rotation: list[int] = []
    if placing and selected:
        cells = (view.get("legal_cells") or {}).get(selected, [])
        points = (view.get("cell_points") or {}).get(selected, [])
        for i, at in enumerate(cells):
            targets[(at[0], at[1])] = points[i][rotation] if i < len(points) else None
        if points:
            best_by_rotation = [max(p[r] for p in points) for r in range(4)]
    return _Table(
        view=view, seat=seat, phase=phase, acting=acting, placing=placing, covering=covering, tiles=tiles,
        hand=view.get("hand") or [], selected=selected, rotation=rotation, targets=targets,
        best_by_rotation=best_by_rotation,
        cover_cells={(at[0], at[1]) for at in view.get("cover_cells") or []} if covering else set(),
        takeable={(t["at"][0], t["at"][1]): t["tile"] for t in view.get("takeable") or []},
        selected_sides=facing(tiles[selected], rotation) if selected and selected in tiles else None,
    )


def present(view: dict[str, Any], seat: int | None, ui: dict[str, Any], names: list[str],
            timing: Timing = NO_TIMING, *, own: bool = True) -> dict[str, Any]:
    """The board grid, the open hand, the selection's controls, the prompt and the score pad for one viewer (`own`:
    see games.presenters)."""
    you = seat if own else None
    t = _table(view, seat, ui)
    pad, rings = _pad(view, you, names)
    rows, columns = _board(t, pad, rings)
    return {
        "hand_label": "The open hand",
        "roving": True,  # the board and the hand are one Tab stop each (not in the rules' examples)
        "rows": rows,
        "columns": columns,
        "hand": _hand(t),
        "deck": view.get("deck", 0),
        "set_aside": view.get("set_aside", 0),
        "phase": t.phase,
        "acting": t.acting,
        "placing": t.placing,
        "covering": t.covering,
        "selected": t.selected,
        "turner": _turner(t),
        "cancel": send_ui({}) if t.acting and t.selected and not (t.covering and len(t.hand) == 1) else None,
        "pad": pad,
        "turn_text": _turn_text(view, you, names),
        "prompt": _prompt(t),
        "legend": [{"colour": COLOURS[c], "mark": MARKS[c]} for c in COLOURS],
    }


def _board(t: _Table, pad: dict[str, Any] | None, rings: Rings) -> tuple[list[list[dict[str, Any]]], int]:
    """The grid's rows and its number of columns: the board and one cell around it (every legal cell is next
    to a tile), so it never jumps while the game goes on; the final board has no margin."""
    by_cell = {(entry["at"][0], entry["at"][1]): entry for entry in t.view.get("board") or []}
    margin = 0 if t.phase == "over" else 1
    rows_at = [at[0] for at in by_cell] or [0]
    cols_at = [at[1] for at in by_cell] or [0]
    r0, r1 = min(rows_at) - margin, max(rows_at) + margin
    c0, c1 = min(cols_at) - margin, max(cols_at) + margin
    ghost = (drawn(t.selected, t.selected_sides, decorative=True)
             if t.placing and t.selected and t.selected_sides else None)
    best_here = max((p for p in t.targets.values() if p is not None), default=None)
    rows = []
    first = True  # the first cell the chosen tile may go to (or cover): where the focus moves once it is chosen
    for r in range(r0, r1 + 1):
        cells = []
        for c in range(c0, c1 + 1):
            where = f"row {r - r0 + 1}, column {c - c0 + 1}"
            entry = by_cell.get((r, c))
            # A control's id stays the same from one update to the next, so the keyboard focus can stay on it.
            cell: dict[str, Any] = {"where": where, "classes": ["ruhd-cell"], "id": f"ruhd-at-{r}_{c}"}
            if entry is not None and entry["face_up"]:
                _face_up_cell(t, cell, entry, (r, c), pad, rings)
            elif entry is not None:
                _face_down_cell(t, cell, entry, (r, c))
            else:
                _empty_cell(t, cell, (r, c), ghost, best_here)
            if first and "hx" in cell and t.selected and (r, c) in (t.targets if t.placing else t.cover_cells):
                cell["first"] = True
                first = False
            cell["classes"] = " ".join(cell["classes"])
            cells.append(cell)
        rows.append(cells)
    return rows, c1 - c0 + 1


def _face_up_cell(t: _Table, cell: dict[str, Any], entry: dict[str, Any], at: tuple[int, int],
                  pad: dict[str, Any] | None, rings: Rings) -> None:
    """A face-up tile: its rings, the last placement's score, and the control to cover it."""
    cell["kind"] = "up"
    cell["tile"] = drawn(entry["tile"], entry["sides"], rings.get(at),
                         decorative=at in t.cover_cells and bool(t.selected))
    if pad and pad["at"] == at:
        cell["classes"].append("placed")
        cell["score"] = pad["points"]
    if at in t.cover_cells and t.selected:
        cell["classes"].append("coverable")
        cell["hx"] = send({"type": "cover", "tile": t.selected, "at": list(at)})
        cell["aria"] = f"Cover {entry['tile']} ({cell['where']}) with {t.selected}, face-down"


def _face_down_cell(t: _Table, cell: dict[str, Any], entry: dict[str, Any], at: tuple[int, int]) -> None:
    """A face-down tile: the tile that covers it, the one beneath, and whether it may be taken back."""
    cover = entry["cover"]
    where = cell["where"]
    cell["kind"] = "down"
    cell["tile"] = drawn(cover, facing(t.tiles[cover], 0), decorative=True) if cover in t.tiles else None
    cell["beneath"] = entry["tile"]
    cell["title"] = f"Face-down {cover} ({where}); {entry['tile']} lies beneath"
    recent = t.view.get("recent_face_down")
    if recent and at == tuple(recent["at"]):
        cell["classes"].append("recent")
        cell["recent"] = True
        cell["title"] += "; covered most recently, so it can't be taken back yet"
    if t.placing and at in t.takeable:
        cell["classes"].append("takeable")
        cell["hx"] = send_ui({"tile": cover, "rotation": 0})
        cell["aria"] = f"Take back the face-down {cover} ({where}) to place it"
        if t.selected == cover:
            cell["classes"].append("selected")
            cell["pressed"] = True


def _empty_cell(t: _Table, cell: dict[str, Any], at: tuple[int, int], ghost: dict[str, Any] | None,
                best_here: int | None) -> None:
    """An empty cell: a target for the selected tile, with what it would score there."""
    cell["kind"] = "empty"
    if at not in t.targets:
        return
    got = t.targets[at]
    cell["classes"].append("target")
    if got is not None and got == best_here:
        cell["classes"].append("best")
    cell["points"] = got
    cell["ghost"] = ghost
    cell["hx"] = send({"type": "place", "tile": t.selected, "at": list(at), "rotation": t.rotation})
    cell["aria"] = f"Place {t.selected} here ({cell['where']})" + (
        f": {got} point{'' if got == 1 else 's'}" if got is not None else "")


def _hand(t: _Table) -> list[dict[str, Any]]:
    """The open hand's tiles, each a control to choose it (with its best score when placing)."""
    items = []
    for tile in t.hand:
        item: dict[str, Any] = {"id": tile, "key": f"ruhd-pick-{tile}", "selected": tile == t.selected,
                                "tile": drawn(tile, facing(t.tiles[tile], 0), decorative=t.placing or t.covering)}
        if t.placing:
            item["hx"] = send_ui({"tile": tile, "rotation": 0})
            item["aria"] = f"Choose {tile} to place"
            cells = (t.view.get("cell_points") or {}).get(tile)
            if cells:
                item["best"] = max(max(p) for p in cells)
        elif t.covering:
            item["hx"] = send_ui({"tile": tile})
            item["aria"] = f"Cover with {tile}"
        items.append(item)
    if t.covering and not t.selected and items:
        items[0]["focus_next"] = True  # placed: the focus moves on to the tiles to cover with
    return items


def _turner(t: _Table) -> dict[str, Any] | None:
    """The selected tile as it will be placed, with the buttons that turn it and each rotation's best score."""
    if not (t.placing and t.selected and t.selected_sides):
        return None
    selected, rotation = t.selected, t.rotation
    return {
        "tile": drawn(selected, t.selected_sides),
        "id": selected,
        "from_board": selected not in t.hand,
        "rotation": ROTATION_WORDS[rotation],
        "clockwise": send_ui({"tile": selected, "rotation": (rotation + 1) % 4}),
        "anticlockwise": send_ui({"tile": selected, "rotation": (rotation - 1) % 4}),
        "choices": [
            {
                "degrees": ROTATION_DEGREES[r],
                "best": t.best_by_rotation[r] if t.best_by_rotation else None,
                "current": r == rotation,
                "hx": send_ui({"tile": selected, "rotation": r}),
            }
            for r in range(4)
        ],
    }


def _turn_text(view: dict[str, Any], seat: int | None, names: list[str]) -> str | None:
    turn = view.get("turn")
    if not isinstance(turn, int):
        return None
    whose = names[turn] if turn < len(names) else f"Seat {turn + 1}"
    return "Your turn" if turn == seat else f"{whose}’s turn"


def _prompt(t: _Table) -> str:
    """What this step asks of the player, in words."""
    if t.phase == "cover":
        return (f"Now cover a face-up tile: choose the one {t.selected} goes face-down on." if t.selected
                else "Now cover a face-up tile: choose a tile from the open hand to cover it with.")
    if t.selected:
        return (f"Turn {t.selected} (the buttons, or the R key), then place it on a highlighted cell: "
                "each shows what it would score.")
    if t.takeable:
        return "Choose a tile (from the open hand, or a face-down one on the board), then a highlighted cell."
    return "Choose a tile from the open hand, then a highlighted cell."
