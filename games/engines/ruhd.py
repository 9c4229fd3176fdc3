"""Ruhd: a tile-laying scoring game for 2 to 4 players (rules: shared/rules/ruhd.md).

Players share one open hand; a turn places a tile face-up next to the board, scores how its sides
meet (one side, touching sides, patterns), then covers a face-up tile with a hand tile, face-down.
Standard library only. The scoring helpers at module level are pure and are reused by the bots.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from games.engines.base import Action, Cell, Engine, IllegalAction, View, check_fields, json_copy, parse_cell

# The 48 tiles as printed: id, then the Up, Right, Down and Left sides (rotation 0).
_TILE_TABLE = """
T00 G4 B2 Y2 G1   T12 Y4 R2 B2 Y1   T24 B4 G2 R2 B1   T36 R4 Y2 G2 R1
T01 G3 R1 Y4 G3   T13 Y3 G1 B4 Y3   T25 B3 Y1 R4 B3   T37 R3 B1 G4 R3
T02 G2 Y3 R1 G3   T14 Y2 B3 G1 Y3   T26 B2 R3 Y1 B3   T38 R2 G3 B1 R3
T03 G3 Y2 B2 G4   T15 Y3 B2 R2 Y4   T27 B3 R2 G2 B4   T39 R3 G2 Y2 R4
T04 G4 R1 B3 G1   T16 Y4 G1 R3 Y1   T28 B4 Y1 G3 B1   T40 R4 B1 Y3 R1
T05 G1 B4 R4 G2   T17 Y1 R4 G4 Y2   T29 B1 G4 Y4 B2   T41 R1 Y4 B4 R2
T06 G2 B1 G3 Y2   T18 Y2 R1 Y3 B2   T30 B2 G1 B3 R2   T42 R2 Y1 R3 G2
T07 G1 R3 G4 Y4   T19 Y1 G3 Y4 B4   T31 B1 Y3 B4 R4   T43 R1 B3 R4 G4
T08 G3 Y3 G2 R1   T20 Y3 B3 Y2 G1   T32 B3 R3 B2 Y1   T44 R3 G3 R2 B1
T09 G2 Y4 G3 B2   T21 Y2 B4 Y3 R2   T33 B2 R4 B3 G2   T45 R2 G4 R3 Y2
T10 G1 R4 G2 B4   T22 Y1 G4 Y2 R4   T34 B1 Y4 B2 G4   T46 R1 B4 R2 Y4
T11 G4 B1 G3 R1   T23 Y4 R1 Y3 G1   T35 B4 G1 B3 Y1   T47 R4 Y1 R3 B1
"""


def _parse_tiles() -> dict[str, tuple[str, str, str, str]]:
    """The tile table as id -> printed sides (Up, Right, Down, Left)."""
    words = _TILE_TABLE.split()
    tiles = {words[i]: (words[i + 1], words[i + 2], words[i + 3], words[i + 4]) for i in range(0, len(words), 5)}
    return dict(sorted(tiles.items()))


TILES: dict[str, tuple[str, str, str, str]] = _parse_tiles()
TILE_IDS: tuple[str, ...] = tuple(TILES)
TILE_INDEX: dict[str, int] = {tile: i for i, tile in enumerate(TILE_IDS)}
COLOUR_NAMES: dict[str, str] = {"G": "green", "Y": "yellow", "B": "blue", "R": "red"}
DIRECTIONS: tuple[str, ...] = ("up", "right", "down", "left")
DELTAS: tuple[Cell, ...] = ((-1, 0), (0, 1), (1, 0), (0, -1))
START_CELLS: tuple[Cell, ...] = ((0, 0), (0, 1), (1, 0), (1, 1))
HAND_SIZE = 4
DECK_PER_PLAYER = 5

Side = tuple[str, int]
Sides = tuple[Side, Side, Side, Side]
# One board cell: (tile index, rotation, index of the face-down tile on top or -1).
Stack = tuple[int, int, int]


def _rotated(printed: tuple[str, str, str, str], rotation: int) -> Sides:
    """The sides facing up, right, down, left of a tile turned `rotation` quarter turns clockwise."""
    sides = [(printed[(d - rotation) % 4][0], int(printed[(d - rotation) % 4][1])) for d in range(4)]
    return (sides[0], sides[1], sides[2], sides[3])


# FACING[tile index][rotation] = the four facing sides.
FACING: tuple[tuple[Sides, ...], ...] = tuple(
    tuple(_rotated(TILES[tile], r) for r in range(4)) for tile in TILE_IDS
)


def facing_sides(tile: str, rotation: int) -> Sides:
    """The sides of a tile (by id) facing up, right, down and left at a rotation."""
    return FACING[TILE_INDEX[tile]][rotation]


def side_code(side: Side) -> str:
    """A side as printed: ("R", 1) -> "R1"."""
    return f"{side[0]}{side[1]}"


def side_words(side: Side) -> str:
    """A side in words: ("R", 1) -> "red 1"."""
    return f"{COLOUR_NAMES[side[0]]} {side[1]}"


def cell_text(cell: Cell) -> str:
    """A cell as written in texts: [2,0]."""
    return f"[{cell[0]},{cell[1]}]"


def _plural_value(kind: str, value: str | int) -> str:
    """A pattern's value in words: "reds", "1s"."""
    return f"{COLOUR_NAMES[str(value)]}s" if kind == "colour" else f"{value}s"


def score_placement(up: Mapping[Cell, Sides], cell: Cell, sides: Sides,
                    detail: list[dict[str, Any]] | None = None) -> int:
    """Points for placing a tile with these facing sides on `cell`, given the face-up tiles `up`.

    `up` maps cells to the facing sides of the face-up tiles only (face-down cells are absent: they are
    empty for scoring). When `detail` is a list, one JSON-ready record per rule that fired is appended.
    """
    row, col = cell
    points = 0
    touching = 0
    side_records: list[dict[str, Any]] = []
    for d in range(4):
        dr, dc = DELTAS[d]
        other = up.get((row + dr, col + dc))
        if other is None:
            continue
        touching += 1
        mine = sides[d]
        theirs = other[(d + 2) % 4]
        if mine[0] != theirs[0]:
            got = abs(mine[1] - theirs[1])
            outcome = "different colours"
        elif mine[1] == theirs[1]:
            got = mine[1]
            outcome = "same colour and number"
        else:
            got = 0
            outcome = "same colour, different numbers"
        points += got
        if detail is not None:
            side_records.append({
                "rule": "side", "direction": DIRECTIONS[d], "at": [row, col],
                "neighbour": [row + dr, col + dc], "side": side_code(mine), "against": side_code(theirs),
                "outcome": outcome, "points": got,
                "text": f"{DIRECTIONS[d].capitalize()} side: {side_words(mine)} against {side_words(theirs)}, "
                        f"{outcome}: {got} point{'' if got == 1 else 's'}",
            })
    if touching == 1:
        points += 1
        if detail is not None:
            detail.append({"rule": "one_side", "points": 1, "text": "One side: it touches exactly one tile: 1 point"})
    if detail is not None:
        detail.extend(side_records)
    # Patterns, axis by axis: (name, backward direction, forward direction); the facings along the
    # axis are those same two directions.
    for axis, back, fwd in (("horizontal", 3, 1), ("vertical", 0, 2)):
        br, bc = DELTAS[back]
        fr, fc = DELTAS[fwd]
        if (row + br, col + bc) not in up and (row + fr, col + fc) not in up:
            continue
        for facing in (back, fwd):
            for attr in (0, 1):
                value = sides[facing][attr]
                n_back = 0
                while n_back < 3:
                    other = up.get((row + br * (n_back + 1), col + bc * (n_back + 1)))
                    if other is None or other[facing][attr] != value:
                        break
                    n_back += 1
                n_fwd = 0
                while n_fwd < 3:
                    other = up.get((row + fr * (n_fwd + 1), col + fc * (n_fwd + 1)))
                    if other is None or other[facing][attr] != value:
                        break
                    n_fwd += 1
                if n_back + n_fwd < 2 or n_back >= 3 or n_fwd >= 3:
                    continue
                points += 2
                if detail is not None:
                    kind = "colour" if attr == 0 else "number"
                    cells = [[row + br * k, col + bc * k] for k in range(n_back, 0, -1)]
                    cells.append([row, col])
                    cells += [[row + fr * k, col + fc * k] for k in range(1, n_fwd + 1)]
                    detail.append({
                        "rule": "pattern", "axis": axis, "facing": DIRECTIONS[facing], "kind": kind,
                        "value": value, "cells": cells, "length": len(cells), "points": 2,
                        "text": f"A pattern of {_plural_value(kind, value)} facing {DIRECTIONS[facing]} "
                                f"is created ({len(cells)} in a row): 2 points",
                    })
    return points


ALL_SIDES: tuple[Side, ...] = tuple((colour, number) for colour in "GYBR" for number in range(1, 5))
# A cell's scoring, side by side: (one-side bonus, per direction d a table side -> points that side earns
# facing d: its touching-side points plus the patterns created along d's facing). The tables are shared
# and must not be changed.
CellTable = tuple[int, tuple[Mapping[Side, int], Mapping[Side, int], Mapping[Side, int], Mapping[Side, int]]]


def _side_points(mine: Side, theirs: Side) -> int:
    """The touching-side rule for one pair of facing sides."""
    if mine[0] != theirs[0]:
        return abs(mine[1] - theirs[1])
    return mine[1] if mine[1] == theirs[1] else 0


_NO_POINTS: Mapping[Side, int] = dict.fromkeys(ALL_SIDES, 0)
# AGAINST[their side] = placed side -> touching-side points.
_AGAINST: dict[Side, Mapping[Side, int]] = {
    theirs: {mine: _side_points(mine, theirs) for mine in ALL_SIDES} for theirs in ALL_SIDES
}


def cell_table(up: Mapping[Cell, Sides], cell: Cell) -> CellTable:
    """The scoring of a cell for any tile, precomputed: the score splits into one part per facing side.

    A touching side depends only on the placed side facing it, and a pattern facing d only on the placed
    side facing d (facings left/right belong to the horizontal axis, up/down to the vertical one), so
    score_placement(up, cell, sides) == table_points(cell_table(up, cell), sides).
    """
    row, col = cell
    neighbours = [up.get((row + dr, col + dc)) for dr, dc in DELTAS]
    tables: list[Mapping[Side, int]] = []
    for d in range(4):
        other = neighbours[d]
        table = _NO_POINTS if other is None else _AGAINST[other[(d + 2) % 4]]
        back = 3 if d & 1 else 0
        fwd = back ^ 2
        first_back = neighbours[back]
        first_fwd = neighbours[fwd]
        if first_back is not None or first_fwd is not None:
            runs: list[list[Side]] = []
            for way, first in ((back, first_back), (fwd, first_fwd)):
                run: list[Side] = []
                if first is not None:
                    run.append(first[d])
                    wr, wc = DELTAS[way]
                    for k in (2, 3):
                        further = up.get((row + wr * k, col + wc * k))
                        if further is None:
                            break
                        run.append(further[d])
                runs.append(run)
            created: list[tuple[int, str | int]] = []
            for attr in (0, 1):
                for value in {run[0][attr] for run in runs if run}:
                    counts = []
                    for run in runs:
                        n = 0
                        while n < len(run) and run[n][attr] == value:
                            n += 1
                        counts.append(n)
                    if counts[0] + counts[1] >= 2 and counts[0] < 3 and counts[1] < 3:
                        created.append((attr, value))
            if created:
                table = dict(table)
                for attr, value in created:
                    for side in ALL_SIDES:
                        if side[attr] == value:
                            table[side] += 2
        tables.append(table)
    touching = 4 - neighbours.count(None)
    return (1 if touching == 1 else 0, (tables[0], tables[1], tables[2], tables[3]))


def in_reach(a: Cell, b: Cell) -> bool:
    """Whether what lies on `a` can change the scoring of cell `b`: same row or column, 3 cells apart at most."""
    return (a[0] == b[0] and abs(a[1] - b[1]) <= 3) or (a[1] == b[1] and abs(a[0] - b[0]) <= 3)


def table_points(table: CellTable, sides: Sides) -> int:
    """The points of a placement from its cell's table (same as score_placement)."""
    t = table[1]
    return table[0] + t[0][sides[0]] + t[1][sides[1]] + t[2][sides[2]] + t[3][sides[3]]


def face_up_map(board: Mapping[Cell, Stack]) -> dict[Cell, Sides]:
    """Cell -> facing sides of every face-up tile of a board."""
    return {cell: FACING[t][r] for cell, (t, r, cover) in board.items() if cover < 0}


def frontier(board: Mapping[Cell, Stack]) -> set[Cell]:
    """The empty cells orthogonally next to at least one face-up tile."""
    cells: set[Cell] = set()
    for (row, col), stack in board.items():
        if stack[2] < 0:
            for dr, dc in DELTAS:
                cell = (row + dr, col + dc)
                if cell not in board:
                    cells.add(cell)
    return cells


def empty_neighbours(board: Mapping[Cell, Stack], cell: Cell) -> set[Cell]:
    """The empty cells orthogonally next to `cell`."""
    return {(cell[0] + dr, cell[1] + dc) for dr, dc in DELTAS if (cell[0] + dr, cell[1] + dc) not in board}


@dataclass(frozen=True)
class RuhdState:
    """A whole game. Treated as immutable: apply builds a new one."""

    players: int
    seed: int | str
    board: dict[Cell, Stack]
    hand: tuple[int, ...]
    deck: tuple[int, ...]
    set_aside: tuple[int, ...]
    scores: tuple[int, ...]
    turn: int
    phase: str  # "place", "cover" or "over"
    recent: Cell | None  # the cell of the tile placed face-down most recently
    log: tuple[dict[str, Any], ...]
    last: dict[str, Any] | None
    last_placement: dict[str, Any] | None


def _ids(tiles: tuple[int, ...] | list[int]) -> list[str]:
    """Tile indices -> ids."""
    return [TILE_IDS[t] for t in tiles]


def _id_list_text(tiles: list[str]) -> str:
    """"T01, T02 and T03"."""
    if len(tiles) <= 1:
        return "".join(tiles)
    return ", ".join(tiles[:-1]) + " and " + tiles[-1]


def _points_text(points: int) -> str:
    """"1 point", "7 points"."""
    return f"{points} point{'' if points == 1 else 's'}"


class RuhdEngine:
    """The Ruhd rules behind the engine contract (shared/design/ENGINES.md)."""

    slug = "ruhd"
    name = "Ruhd"
    min_players = 2
    max_players = 4
    default_options: dict[str, Any] = {}

    # ----------------------------------------------------------------- setup
    def new_game(self, players: int, *, seed: int, options: dict[str, Any] | None = None,
                 deal: dict[str, Any] | None = None) -> RuhdState:
        """A fresh game: 2x2 start, 5 tiles per player in the deck, 4 of them in the open hand."""
        if not isinstance(players, int) or isinstance(players, bool) or not 2 <= players <= 4:
            raise IllegalAction("Ruhd is played by 2 to 4 players.")
        if not isinstance(seed, (int, str)) or isinstance(seed, bool):
            raise IllegalAction("The seed must be an integer.")
        if options is not None and not isinstance(options, dict):
            raise IllegalAction("The options must be an object.")
        if options:
            raise IllegalAction(f"Ruhd has no option '{next(iter(options))}'.")
        used = 4 + DECK_PER_PLAYER * players
        if deal is None:
            order = list(range(len(TILE_IDS)))
            random.Random(seed).shuffle(order)
        else:
            order = self._parse_deal(deal, used)
        start, deck = order[:4], tuple(order[4:used])
        in_play = set(order[:used])
        set_aside = tuple(order[used:]) if deal is None else tuple(
            t for t in range(len(TILE_IDS)) if t not in in_play)
        board: dict[Cell, Stack] = {cell: (t, 0, -1) for cell, t in zip(START_CELLS, start, strict=True)}
        hand, deck = deck[:HAND_SIZE], deck[HAND_SIZE:]
        log = ({"seat": None, "text": f"The starting board is {_id_list_text(_ids(start))}; the open hand holds "
                                      f"{_id_list_text(_ids(hand))}; {len(deck)} tiles are left in the deck and "
                                      f"{len(set_aside)} are set aside."},)
        return RuhdState(players=players, seed=seed, board=board, hand=hand, deck=deck, set_aside=set_aside,
                         scores=(0,) * players, turn=0, phase="place", recent=None, log=log, last=None,
                         last_placement=None)

    @staticmethod
    def _parse_deal(deal: object, used: int) -> list[int]:
        """The tile order of a deal= argument: {"tiles": [ids]}, the board's 4 then the deck, top first."""
        if not isinstance(deal, dict) or set(deal) != {"tiles"}:
            raise IllegalAction("A Ruhd deal is {\"tiles\": [tile ids]}.")
        tiles = deal["tiles"]
        if not isinstance(tiles, list) or not all(isinstance(t, str) for t in tiles):
            raise IllegalAction("The deal's tiles must be a list of tile ids.")
        if len(tiles) != used:
            raise IllegalAction(f"The deal must list exactly {used} tiles: 4 for the board, then the deck.")
        unknown = [t for t in tiles if t not in TILE_INDEX]
        if unknown:
            raise IllegalAction(f"There is no tile {unknown[0]!r}.")
        if len(set(tiles)) != len(tiles):
            raise IllegalAction("The deal lists a tile twice.")
        return [TILE_INDEX[t] for t in tiles]

    # ----------------------------------------------------------------- queries
    def to_act(self, state: RuhdState) -> list[int]:
        """The seat whose turn it is (both its place and its cover step), or nobody once over."""
        return [] if state.phase == "over" else [state.turn]

    def must_act(self, state: RuhdState) -> list[int]:
        """Same as to_act: the one seat to act always must."""
        return self.to_act(state)

    def scores(self, state: RuhdState) -> list[int]:
        """Points per seat."""
        return list(state.scores)

    def is_over(self, state: RuhdState) -> bool:
        """Whether the game has ended."""
        return state.phase == "over"

    def result(self, state: RuhdState) -> dict[str, Any]:
        """Scores, the seats with the top score (equal top scores share the win), and a draw when every seat has it."""
        top = max(state.scores)
        winners = [seat for seat, points in enumerate(state.scores) if points == top]
        return {"scores": list(state.scores), "winners": winners, "draw": len(winners) == state.players}

    @staticmethod
    def takeable(state: RuhdState) -> list[Cell]:
        """Cells whose face-down tile may be taken back (all but the most recent), in cell order."""
        return sorted(cell for cell, stack in state.board.items() if stack[2] >= 0 and cell != state.recent)

    def placement_options(self, state: RuhdState) -> list[tuple[int, Cell | None, list[Cell]]]:
        """Every tile the player to act may place: (tile, cell it is taken from or None, legal cells)."""
        base = frontier(state.board)
        options: list[tuple[int, Cell | None, list[Cell]]] = []
        cells = sorted(base)
        for tile in state.hand:
            options.append((tile, None, cells))
        for source in self.takeable(state):
            extra = empty_neighbours(state.board, source) - base
            options.append((state.board[source][2], source, sorted(base | extra) if extra else cells))
        return options

    def legal_actions(self, state: RuhdState, seat: int) -> list[Action]:
        """Every placement (tile, cell, rotation) or every cover (hand tile, face-up cell) of the seat to act."""
        if state.phase == "over" or type(seat) is not int or seat != state.turn:
            return []
        if state.phase == "cover":
            cells = sorted(cell for cell, stack in state.board.items() if stack[2] < 0)
            return [{"type": "cover", "tile": TILE_IDS[t], "at": [r, c]} for t in state.hand for r, c in cells]
        actions: list[Action] = []
        for tile, _source, cells in self.placement_options(state):
            tid = TILE_IDS[tile]
            for r, c in cells:
                actions.extend({"type": "place", "tile": tid, "at": [r, c], "rotation": rot} for rot in range(4))
        return actions

    # ----------------------------------------------------------------- actions
    def apply(self, state: RuhdState, seat: int, action: Action) -> RuhdState:
        """The state after `seat` does `action`; IllegalAction (and `state` untouched) if not allowed."""
        if state.phase == "over":
            raise IllegalAction("The game is over.")
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < state.players:
            raise IllegalAction("There is no such seat.")
        if not isinstance(action, dict):
            raise IllegalAction("An action must be an object with a type.")
        kind = action.get("type")
        if kind not in ("place", "cover"):
            raise IllegalAction(f"Unknown action type {kind!r}: Ruhd has 'place' and 'cover'.")
        if seat != state.turn:
            raise IllegalAction("It is not your turn.")
        if kind == "place":
            check_fields(action, {"tile": str, "at": object, "rotation": int})
            if state.phase != "place":
                raise IllegalAction("You have already placed a tile this turn: now cover a face-up tile "
                                    "with a tile from the open hand.")
            return self._place(state, seat, action)
        check_fields(action, {"tile": str, "at": object})
        if state.phase != "cover":
            raise IllegalAction("Place a tile first; covering comes after.")
        return self._cover(state, seat, action)

    @staticmethod
    def _tile_index(tile: str) -> int:
        """A tile id -> its index, or IllegalAction for an unknown id."""
        index = TILE_INDEX.get(tile)
        if index is None:
            raise IllegalAction(f"There is no tile {tile!r}: tiles are T00 to T47.")
        return index

    def _place(self, state: RuhdState, seat: int, action: Action) -> RuhdState:
        """Place step: move the tile, score it, refill an empty hand, then cover (or end the turn)."""
        tile_id: str = action["tile"]
        tile = self._tile_index(tile_id)
        cell = parse_cell(action["at"])
        rotation: int = action["rotation"]
        if not 0 <= rotation <= 3:
            raise IllegalAction("The rotation is 0, 1, 2 or 3 quarter turns clockwise.")
        board = state.board
        source: Cell | None = None
        if tile not in state.hand:
            for where, stack in board.items():
                if stack[2] == tile:
                    source = where
                    break
            if source is None:
                if any(stack[0] == tile for stack in board.values()):
                    raise IllegalAction(f"{tile_id} is face-up on the board: it can't be moved.")
                raise IllegalAction(f"{tile_id} is neither in the open hand nor face-down on the board.")
            if source == state.recent:
                raise IllegalAction(f"{tile_id} was placed face-down most recently: it can't be taken back yet.")
        if cell in board:
            if board[cell][2] >= 0:
                raise IllegalAction(f"{cell_text(cell)} holds a face-down tile: nothing can be placed on it.")
            raise IllegalAction(f"{cell_text(cell)} is already taken.")
        new_board = dict(board)
        uncovered: int | None = None
        if source is not None:
            base, base_rot, _ = new_board[source]
            new_board[source] = (base, base_rot, -1)
            uncovered = base
        up = face_up_map(new_board)
        if not any((cell[0] + dr, cell[1] + dc) in up for dr, dc in DELTAS):
            raise IllegalAction(f"{tile_id} can't go on {cell_text(cell)}: a tile must be placed next to at least "
                                "one face-up tile.")
        sides = FACING[tile][rotation]
        breakdown: list[dict[str, Any]] = []
        points = score_placement(up, cell, sides, breakdown)
        new_board[cell] = (tile, rotation, -1)
        hand = tuple(t for t in state.hand if t != tile) if source is None else state.hand
        scores = list(state.scores)
        scores[seat] += points
        record: dict[str, Any] = {
            "type": "place", "seat": seat, "tile": tile_id, "at": [cell[0], cell[1]], "rotation": rotation,
            "sides": [side_code(s) for s in sides], "from": "hand" if source is None else "board",
            "taken_from": None if source is None else [source[0], source[1]],
            "uncovered": None if uncovered is None else TILE_IDS[uncovered],
            "points": points, "breakdown": breakdown,
        }
        if source is None:
            what = f"{{s{seat}}} placed {tile_id} from the open hand on {cell_text(cell)}"
        else:
            what = (f"{{s{seat}}} took {tile_id} back from {cell_text(source)}, uncovering {TILE_IDS[uncovered or 0]}, "
                    f"and placed it on {cell_text(cell)}")
        why = "; ".join(item["text"] for item in breakdown)
        events = [{"seat": seat, "text": f"{what} at rotation {rotation} for {_points_text(points)}: {why}."}]
        deck = state.deck
        refilled: list[str] = []
        if not hand and deck:
            hand, deck, refilled = self._refill(deck, events)
        record["refilled"] = refilled
        new = replace(state, board=new_board, hand=hand, deck=deck, scores=tuple(scores), phase="cover",
                      last=record, last_placement=record)
        if not hand:
            events.append({"seat": None, "text": "The open hand and the deck are empty: there is nothing to cover "
                                                 "with."})
            return self._end_turn(new, events)
        return replace(new, log=state.log + tuple(events))

    def _cover(self, state: RuhdState, seat: int, action: Action) -> RuhdState:
        """Cover step: a hand tile goes face-down on a face-up board tile; then the turn ends."""
        tile_id: str = action["tile"]
        tile = self._tile_index(tile_id)
        cell = parse_cell(action["at"])
        if tile not in state.hand:
            raise IllegalAction(f"{tile_id} is not in the open hand: covering uses a tile from the open hand.")
        stack = state.board.get(cell)
        if stack is None:
            raise IllegalAction(f"{cell_text(cell)} is empty: cover a face-up tile on the board.")
        if stack[2] >= 0:
            raise IllegalAction(f"{cell_text(cell)} is already covered: cover a face-up tile.")
        board = dict(state.board)
        board[cell] = (stack[0], stack[1], tile)
        hand = tuple(t for t in state.hand if t != tile)
        events = [{"seat": seat, "text": f"{{s{seat}}} covered {TILE_IDS[stack[0]]} on {cell_text(cell)} with "
                                         f"{tile_id}, face-down."}]
        deck = state.deck
        refilled: list[str] = []
        if not hand and deck:
            hand, deck, refilled = self._refill(deck, events)
        record = {"type": "cover", "seat": seat, "tile": tile_id, "at": [cell[0], cell[1]],
                  "covered": TILE_IDS[stack[0]], "refilled": refilled}
        new = replace(state, board=board, hand=hand, deck=deck, recent=cell, last=record)
        return self._end_turn(new, events)

    @staticmethod
    def _refill(deck: tuple[int, ...], events: list[dict[str, Any]]) -> tuple[tuple[int, ...], tuple[int, ...],
                                                                              list[str]]:
        """Draw up to 4 tiles from the deck into the (empty) open hand."""
        hand, deck = deck[:HAND_SIZE], deck[HAND_SIZE:]
        ids = _ids(hand)
        events.append({"seat": None, "text": f"The open hand is refilled from the deck: {_id_list_text(ids)} "
                                             f"({len(deck)} left in the deck)."})
        return hand, deck, ids

    def _end_turn(self, state: RuhdState, events: list[dict[str, Any]]) -> RuhdState:
        """Close a turn: the game ends once the hand and deck are both empty; else the next seat places.

        The rules' automatic passes and "no player can place" ending never arise: an empty hand is refilled
        at once, so a turn starts with a hand tile whenever the game goes on, and the board is unbounded with
        at least four face-up tiles, so a hand tile always fits somewhere (and the hand is shared, so one seat
        can place exactly when every seat can).
        """
        if not state.hand and not state.deck:
            return self._finish(state, events, "The deck and the open hand are empty")
        nxt = replace(state, turn=(state.turn + 1) % state.players, phase="place")
        return replace(nxt, log=state.log + tuple(events))

    def _finish(self, state: RuhdState, events: list[dict[str, Any]], why: str) -> RuhdState:
        """End the game and log the outcome."""
        done = replace(state, phase="over")
        result = self.result(done)
        top = max(state.scores)
        seats = [f"{{s{s}}}" for s in result["winners"]]
        if len(seats) == 1:
            outcome = f"{seats[0]} wins with {_points_text(top)}"
        else:
            outcome = f"{_id_list_text(seats)} share the win with {_points_text(top)}"
        events.append({"seat": None, "text": f"{why}: the game is over. {outcome}."})
        return replace(done, log=state.log + tuple(events))

    # ----------------------------------------------------------------- views
    def view(self, state: RuhdState, seat: int | None) -> View:
        """Everything public (all but the deck order), plus legal cells and hints for the seat to act."""
        over = state.phase == "over"
        acting = not over and type(seat) is int and seat == state.turn
        visible: set[int] = set(state.hand)
        board_view = []
        for (r, c), (t, rot, cover) in sorted(state.board.items()):
            visible.add(t)
            if cover >= 0:
                visible.add(cover)
            board_view.append({
                "at": [r, c], "tile": TILE_IDS[t], "rotation": rot, "sides": [side_code(s) for s in FACING[t][rot]],
                "face_up": cover < 0, "cover": TILE_IDS[cover] if cover >= 0 else None,
            })
        recent = None
        if state.recent is not None:
            recent = {"tile": TILE_IDS[state.board[state.recent][2]], "at": list(state.recent)}
        legal_cells: dict[str, list[list[int]]] = {}
        cell_points: dict[str, list[list[int]]] = {}
        cover_cells: list[list[int]] = []
        if acting and state.phase == "place":
            legal_cells, cell_points = self._hints(state)
        elif acting:
            cover_cells = [[r, c] for (r, c), stack in sorted(state.board.items()) if stack[2] < 0]
        return {
            "game": self.slug,
            "players": state.players,
            "seat": seat,
            "to_act": self.to_act(state),
            "must_act": self.must_act(state),
            "scores": list(state.scores),
            "over": over,
            "result": self.result(state) if over else None,
            "legal": self.legal_actions(state, seat) if acting and seat is not None else [],
            "log": [dict(event) for event in state.log],
            "last": json_copy(state.last),
            "last_placement": json_copy(state.last_placement),
            "phase": state.phase,
            "turn": None if over else state.turn,
            "board": board_view,
            "hand": _ids(state.hand),
            "deck": len(state.deck),
            "set_aside": len(state.set_aside),
            "recent_face_down": recent,
            "takeable": [{"tile": TILE_IDS[state.board[cell][2]], "at": list(cell)} for cell in self.takeable(state)],
            "tiles": {TILE_IDS[t]: list(TILES[TILE_IDS[t]]) for t in sorted(visible)},
            "any_rotation": True,
            "legal_cells": legal_cells,
            "cell_points": cell_points,
            "cover_cells": cover_cells,
        }

    def _hints(self, state: RuhdState) -> tuple[dict[str, list[list[int]]], dict[str, list[list[int]]]]:
        """Per placeable tile: its legal cells, and per cell the points of each rotation 0-3."""
        legal_cells: dict[str, list[list[int]]] = {}
        cell_points: dict[str, list[list[int]]] = {}
        up = face_up_map(state.board)
        tables: dict[Cell, CellTable] = {}
        for tile, source, cells in self.placement_options(state):
            board_up = up
            if source is not None:
                base, rot, _ = state.board[source]
                board_up = dict(up)
                board_up[source] = FACING[base][rot]
            facing = FACING[tile]
            tid = TILE_IDS[tile]
            legal_cells[tid] = [[r, c] for r, c in cells]
            points: list[list[int]] = []
            for cell in cells:
                # A cell's table depends on the board only: hand tiles share it; a taken tile's uncovering
                # changes it only near where the tile was taken from.
                if source is None or not in_reach(source, cell):
                    table = tables.get(cell)
                    if table is None:
                        table = tables[cell] = cell_table(up, cell)
                else:
                    table = cell_table(board_up, cell)
                points.append([table_points(table, facing[rot]) for rot in range(4)])
            cell_points[tid] = points
        return legal_cells, cell_points

    # ----------------------------------------------------------------- storage
    def dump(self, state: RuhdState) -> dict[str, Any]:
        """The state as plain JSON data."""
        return {
            "players": state.players,
            "seed": state.seed,
            "board": [[r, c, TILE_IDS[t], rot, TILE_IDS[cover] if cover >= 0 else None]
                      for (r, c), (t, rot, cover) in sorted(state.board.items())],
            "hand": _ids(state.hand),
            "deck": _ids(state.deck),
            "set_aside": _ids(state.set_aside),
            "scores": list(state.scores),
            "turn": state.turn,
            "phase": state.phase,
            "recent": None if state.recent is None else list(state.recent),
            "log": [dict(event) for event in state.log],
            "last": json_copy(state.last),
            "last_placement": json_copy(state.last_placement),
        }

    def load(self, data: dict[str, Any]) -> RuhdState:
        """The state from dump()'s data."""
        board: dict[Cell, Stack] = {
            (r, c): (TILE_INDEX[t], rot, TILE_INDEX[cover] if cover is not None else -1)
            for r, c, t, rot, cover in data["board"]
        }
        recent = data["recent"]
        return RuhdState(
            players=data["players"], seed=data["seed"], board=board,
            hand=tuple(TILE_INDEX[t] for t in data["hand"]), deck=tuple(TILE_INDEX[t] for t in data["deck"]),
            set_aside=tuple(TILE_INDEX[t] for t in data["set_aside"]), scores=tuple(data["scores"]),
            turn=data["turn"], phase=data["phase"], recent=None if recent is None else (recent[0], recent[1]),
            log=tuple(dict(event) for event in data["log"]), last=json_copy(data["last"]),
            last_placement=json_copy(data["last_placement"]),
        )


ENGINE: Engine[RuhdState] = RuhdEngine()  # mypy checks the engine keeps the contract
