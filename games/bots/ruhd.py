"""Ruhd bots: they see only a seat's view and legal actions (plus the public tile table and scoring rule).

- random (Rookie): any placement worth at least half the best one on offer; a cover at random.
- reference (Regular): greedy placement (the most points now); then it covers the face-up tile that feeds the next
  player's best reply most, with the hand tile that reply would use when it is a hand tile.
- search (Shark): looks one reply ahead. Among the best placements now it keeps the one with the most points minus
  the next player's best reply after its best cover; the cover (hand tile and cell) is the one leaving the
  next player the lowest best reply.
"""

from __future__ import annotations

import random
from math import comb
from typing import Any

from games.engines.base import Action, Bot, Cell, View
from games.engines.ruhd import (
    COLOUR_NAMES,
    DELTAS,
    FACING,
    TILE_IDS,
    TILE_INDEX,
    CellTable,
    Sides,
    cell_table,
    cell_text,
    facing_sides,
    in_reach,
    score_placement,
    table_points,
)

# How many of the best placements the search bot looks ahead from.
SEARCH_WIDTH = 6
BUDGET_SCALE = 1.0  # the width is multiplied by this (bench/bots.py --budget-scale), at least 2


def _sides(codes: list[str]) -> Sides:
    """Facing sides from the view's codes ["G4", "B1", "G3", "R1"]."""
    s = [(code[0], int(code[1:])) for code in codes]
    return (s[0], s[1], s[2], s[3])


def _cell(value: list[int]) -> Cell:
    """A view cell [r, c] as a tuple."""
    return (value[0], value[1])


class _Position:
    """A public position read from a view (or simulated from one): board, open hand and deck count."""

    def __init__(self, view: View) -> None:
        self.up: dict[Cell, Sides] = {}
        self.bases: dict[Cell, Sides] = {}
        self.covers: dict[Cell, str] = {}
        for entry in view["board"]:
            cell = _cell(entry["at"])
            sides = _sides(entry["sides"])
            self.bases[cell] = sides
            if entry["face_up"]:
                self.up[cell] = sides
            else:
                self.covers[cell] = entry["cover"]
        recent = view["recent_face_down"]
        self.recent: Cell | None = None if recent is None else _cell(recent["at"])
        self.hand: list[str] = list(view["hand"])
        self.deck: int = view["deck"]
        self.unseen = [t for t in TILE_IDS if t not in view["tiles"]]

    def after_place(self, tile: str, cell: Cell, rotation: int) -> _Position:
        """The cover-phase position after placing a tile (from the hand, or taken back from the board)."""
        new = object.__new__(_Position)
        new.up = dict(self.up)
        new.bases = dict(self.bases)
        new.covers = dict(self.covers)
        new.recent = self.recent
        new.hand = list(self.hand)
        new.deck = self.deck
        new.unseen = self.unseen
        source = next((c for c, t in self.covers.items() if t == tile), None)
        if source is None:
            new.hand.remove(tile)
        else:
            del new.covers[source]
            new.up[source] = self.bases[source]
        sides = facing_sides(tile, rotation)
        new.up[cell] = sides
        new.bases[cell] = sides
        return new

    def cells_of(self, up: dict[Cell, Sides]) -> set[Cell]:
        """The empty cells next to a face-up tile of `up`."""
        return {(r + dr, c + dc) for r, c in up for dr, dc in DELTAS} - self.bases.keys()

    def options(self, takeable: list[Cell]) -> list[tuple[str, Cell | None]]:
        """What the next player may place: each distinct hand tile, and the face-down tiles on `takeable`."""
        return [(t, None) for t in dict.fromkeys(self.hand)] + [(self.covers[c], c) for c in takeable]

    def unknown_hand_reply(self) -> float:
        """The expected best score of a hand refilled with 4 unseen tiles (drawn from all unseen tiles)."""
        tables = _Tables(self)
        cells = sorted(self.cells_of(self.up))
        values = sorted(max((tables.best(x, None, None, t) for x in cells), default=0) for t in self.unseen)
        n = len(values)
        draw = min(4, n)
        if not draw:
            return 0.0
        # P(the i-th smallest is the largest of `draw` drawn) = C(i, draw - 1) / C(n, draw).
        return sum(v * comb(i, draw - 1) for i, v in enumerate(values)) / comb(n, draw)


class _Tables:
    """Cell tables of a position and of its variants (one face-up cell covered, one face-down tile taken back).

    A table is shared between variants whenever the change is out of the cell's reach.
    """

    def __init__(self, pos: _Position) -> None:
        self.pos = pos
        self.tables: dict[tuple[Cell, Cell | None, Cell | None], CellTable] = {}
        self.ups: dict[tuple[Cell | None, Cell | None], dict[Cell, Sides]] = {(None, None): pos.up}

    def up(self, covered: Cell | None, source: Cell | None) -> dict[Cell, Sides]:
        """The face-up tiles once `covered` is covered and the tile on `source` taken back."""
        up = self.ups.get((covered, source))
        if up is None:
            up = dict(self.pos.up)
            if covered is not None:
                del up[covered]
            if source is not None:
                up[source] = self.pos.bases[source]
            self.ups[(covered, source)] = up
        return up

    def table(self, cell: Cell, covered: Cell | None, source: Cell | None) -> CellTable:
        """A cell's table in a variant (shared with the plainer variant when the change is out of reach)."""
        if covered is not None and not in_reach(covered, cell):
            covered = None
        if source is not None and not in_reach(source, cell):
            source = None
        key = (cell, covered, source)
        table = self.tables.get(key)
        if table is None:
            table = self.tables[key] = cell_table(self.up(covered, source), cell)
        return table

    def best(self, cell: Cell, covered: Cell | None, source: Cell | None, tile: str) -> int:
        """The best points of a tile on a cell over its four rotations, in that variant."""
        table = self.table(cell, covered, source)
        facing = FACING[TILE_INDEX[tile]]
        return max(table_points(table, facing[0]), table_points(table, facing[1]), table_points(table, facing[2]),
                   table_points(table, facing[3]))


def cover_search(pos: _Position) -> list[tuple[float, float, str, Cell]]:
    """Every cover (hand tile, face-up cell) with the next player's best reply and two best, lowest first.

    After the cover every face-down tile already on the board may be taken (the new one is the most recent).
    Each option is scored once on the uncovered board; a cover only changes cells within its reach.
    """
    tables = _Tables(pos)
    options = pos.options(list(pos.covers))
    scored_options: list[list[tuple[int, Cell]]] = []
    for tile, source in options:
        cells = pos.cells_of(tables.up(None, source))
        scored_options.append(sorted(((tables.best(x, None, source, tile), x) for x in cells), reverse=True))
    hand_tiles = list(dict.fromkeys(pos.hand))
    unknown: float | None = None
    out: list[tuple[float, float, str, Cell]] = []
    for covered in sorted(pos.up):
        best: list[int] = []
        legal_by_source: dict[Cell | None, set[Cell]] = {}
        for (tile, source), scored in zip(options, scored_options, strict=True):
            top = next((m for m, x in scored if not in_reach(covered, x)), 0)
            legal = legal_by_source.get(source)
            if legal is None:
                legal = legal_by_source[source] = pos.cells_of(tables.up(covered, source))
            for _, x in scored:
                if x in legal and in_reach(covered, x):
                    top = max(top, tables.best(x, covered, source, tile))
            best.append(top)
        hand_best = dict(zip(hand_tiles, best[:len(hand_tiles)], strict=True))
        free = max(best[len(hand_tiles):], default=0)
        for tile in hand_tiles:
            rest: list[float] = [hand_best[t] for t in pos.hand if t != tile]
            if not rest and not pos.deck:
                out.append((0, 0, tile, covered))  # the game ends with this turn
                continue
            if not rest:
                if unknown is None:
                    unknown = pos.unknown_hand_reply()
                rest = [unknown]  # the hand is refilled with tiles nobody has seen yet
            replies = sorted([*rest, free], reverse=True)
            out.append((replies[0], replies[0] + replies[1], tile, covered))
    out.sort(key=lambda item: (item[0], item[1]))
    return out


def _explain(view: View, action: Action) -> tuple[int, str]:
    """The points of a placement and a short description of the rules that fire."""
    pos = _Position(view)
    up = pos.up
    source = next((_cell(e["at"]) for e in view["takeable"] if e["tile"] == action["tile"]), None)
    if source is not None:
        up = dict(up)
        up[source] = pos.bases[source]
    detail: list[dict[str, Any]] = []
    cell = _cell(action["at"])
    points = score_placement(up, cell, facing_sides(action["tile"], action["rotation"]), detail)
    parts: list[str] = []
    sides = [d for d in detail if d["rule"] == "side" and d["points"]]
    if sides:
        parts.append(f"{len(sides)} side{'s' if len(sides) > 1 else ''}")
    if any(d["rule"] == "one_side" for d in detail):
        parts.append("the one-side point")
    for d in detail:
        if d["rule"] == "pattern":
            value = COLOUR_NAMES[d["value"]] if d["kind"] == "colour" else f"{d['value']}s"
            parts.append(f"a {value} pattern facing {d['facing']}")
    taken = f" (taken back from {cell_text(source)})" if source is not None else ""
    return points, (f"places {action['tile']}{taken} at {cell_text(cell)} rotation {action['rotation']} "
                    f"for {points}" + (": " + ", ".join(parts) if parts else ""))


def _placements(view: View, rng: random.Random) -> list[tuple[int, float, Action]]:
    """Every placement with its points (from the view's hints), best first, ties in random order."""
    out: list[tuple[int, float, Action]] = []
    for tile, cells in view["legal_cells"].items():
        for cell, points in zip(cells, view["cell_points"][tile], strict=True):
            for rotation, p in enumerate(points):
                out.append((p, rng.random(), {"type": "place", "tile": tile, "at": list(cell), "rotation": rotation}))
    out.sort(key=lambda item: (-item[0], item[1]))
    return out


def random_bot(view: View, legal: list[Action], rng: random.Random) -> tuple[Action | None, str]:
    """The Rookie: any placement worth at least half the best one on offer, and a cover at random."""
    if not legal:
        return None, "has nothing to do"
    if view["phase"] == "place":
        placements = _placements(view, rng)
        if placements:
            top = placements[0][0]
            fair = [item for item in placements if 2 * item[0] >= top]
            action = rng.choice(fair)[2]
            return action, _explain(view, action)[1]
    action = rng.choice(legal)
    if action["type"] == "place":
        return action, f"places {action['tile']} at {cell_text(_cell(action['at']))} at random"
    return action, f"covers {cell_text(_cell(action['at']))} with {action['tile']} at random"


def _feeders(up: dict[Cell, Sides], cell: Cell, sides: Sides) -> dict[Cell, int]:
    """How many points each neighbouring or pattern tile gives a placement: cell -> points it feeds."""
    detail: list[dict[str, Any]] = []
    score_placement(up, cell, sides, detail)
    one_side = 1 if any(d["rule"] == "one_side" for d in detail) else 0
    weight: dict[Cell, int] = {}
    for d in detail:
        if d["rule"] == "side":
            n = _cell(d["neighbour"])
            weight[n] = weight.get(n, 0) + d["points"] + one_side
        elif d["rule"] == "pattern":
            for rc in d["cells"]:
                if _cell(rc) != cell:
                    weight[_cell(rc)] = weight.get(_cell(rc), 0) + 2
    return weight


def _reference_cover(view: View, legal: list[Action], rng: random.Random) -> tuple[Action, str]:
    """Cover the face-up tile feeding the next player's best replies most."""
    pos = _Position(view)
    takeable = [_cell(e["at"]) for e in view["takeable"]]
    if pos.recent is not None:
        takeable.append(pos.recent)  # once we cover, the current most recent face-down tile is free
    replies: list[tuple[int, float, str, Cell, int, dict[Cell, Sides]]] = []
    tables = _Tables(pos)
    for tile, source in pos.options(takeable):
        up = tables.up(None, source)
        facing = FACING[TILE_INDEX[tile]]
        for x in pos.cells_of(up):
            if tables.best(x, None, source, tile):
                for r in range(4):
                    points = table_points(tables.table(x, None, source), facing[r])
                    if points:
                        replies.append((points, rng.random(), tile, x, r, up))
    replies.sort(key=lambda item: (-item[0], item[1]))
    for points, _, tile, cell, rotation, up in replies:
        weight = _feeders(up, cell, facing_sides(tile, rotation))
        coverable = {c: w for c, w in weight.items() if c in pos.up and w > 0}
        if not coverable:
            continue
        target = max(sorted(coverable), key=lambda c: coverable[c])
        cover_tile = tile if tile in pos.hand else rng.choice(pos.hand)
        return ({"type": "cover", "tile": cover_tile, "at": [target[0], target[1]]},
                f"covers {cell_text(target)} with {cover_tile}: it would give the next player {points} "
                f"with {tile} at {cell_text(cell)}")
    action = rng.choice(legal)
    return action, f"covers {cell_text(_cell(action['at']))} with {action['tile']}: no reply to spoil"


def reference_bot(view: View, legal: list[Action], rng: random.Random) -> tuple[Action | None, str]:
    """Greedy placement; cover the tile feeding the next player's best reply, with that reply's hand tile."""
    if not legal:
        return None, "has nothing to do"
    if view["phase"] == "cover":
        return _reference_cover(view, legal, rng)
    placements = _placements(view, rng)
    if not placements:
        action = rng.choice(legal)
        return action, "places at random"
    action = placements[0][2]
    return action, _explain(view, action)[1]


def _search_place(view: View, legal: list[Action], rng: random.Random) -> tuple[Action, str]:
    """Among the best few placements now, the one with the most points minus the next player's best reply."""
    placements = _placements(view, rng)
    if not placements:
        action = rng.choice(legal)
        return action, "places at random"
    pos = _Position(view)
    best: tuple[float, Action, float | None] | None = None
    for points, _, action in placements[:max(2, round(SEARCH_WIDTH * BUDGET_SCALE))]:
        after = pos.after_place(action["tile"], _cell(action["at"]), action["rotation"])
        reply: float | None
        if after.hand:
            reply = cover_search(after)[0][0]
        elif after.deck:
            # The hand is refilled with unseen tiles before the cover: expect the best of 3 of them.
            reply = after.unknown_hand_reply()
        else:
            reply = None  # this placement ends the game
        value = points - (reply or 0)
        if best is None or value > best[0]:
            best = (value, action, reply)
    assert best is not None
    _, action, reply = best
    why = _explain(view, action)[1]
    if reply is None:
        return action, why + ", the last placement of the game"
    return action, why + f", leaving the next player {reply:.0f} at best"


def _search_cover(view: View, legal: list[Action], rng: random.Random) -> tuple[Action, str]:
    """Try every cover (hand tile, face-up cell); keep the one leaving the lowest best reply."""
    ranked = cover_search(_Position(view))
    if not ranked:
        action = rng.choice(legal)
        return action, "covers at random"
    low = ranked[0][:2]
    reply, _, tile, cell = rng.choice([item for item in ranked if item[:2] == low])
    return ({"type": "cover", "tile": tile, "at": [cell[0], cell[1]]},
            f"covers {cell_text(cell)} with {tile}: the next player's best reply is then {reply:.0f}")


def search_bot(view: View, legal: list[Action], rng: random.Random) -> tuple[Action | None, str]:
    """One reply ahead: placement net of the next player's best reply; the cover minimising that reply."""
    if not legal:
        return None, "has nothing to do"
    if view["phase"] == "place":
        return _search_place(view, legal, rng)
    return _search_cover(view, legal, rng)


LEVEL_BLURBS: dict[str, str] = {
    "random": "Places any tile worth at least half the best score on offer, and covers a tile at random.",
    "reference": "Always places for the most points, then covers the tile that would feed your best reply.",
    "search": "Weighs each placement against your best reply, and covers so as to leave you the least.",
}

BOTS: dict[str, Bot] = {"random": random_bot, "reference": reference_bot, "search": search_bot}
