"""Ruhd's kit: square tiles from a shared open hand."""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from ..bots import ruhd as bots
from ..engines.base import View
from ..engines.ruhd import ENGINE as RUHD
from ..engines.ruhd import FACING as RUHD_FACING
from ..engines.ruhd import TILE_INDEX as RUHD_TILE_INDEX
from ..engines.ruhd import TILES as RUHD_TILES
from ..engines.ruhd import side_code
from ..presenters import cell_words
from ..presenters import ruhd as ruhd_table
from . import Kit
from . import ruhd_analysis as analysis
from .examples import current_figure, without_controls
from .figures import Figure, FigureFacts, MatchRecord, MoveLoader

NAMES = ["Ada", "Ben"]


def _ruhd_state(board: list[tuple[int, int, str, int]], hand: list[str], deck: list[str]) -> Any:
    return RUHD.load({
        "players": 2, "seed": 0,
        "board": [[r, c, tile, rotation, None] for r, c, tile, rotation in board],
        "hand": hand, "deck": deck, "set_aside": [], "scores": [0, 0], "turn": 0, "phase": "place",
        "recent": None, "log": [], "last": None, "last_placement": None,
    })


def _ruhd_table(state: Any, *, steps: bool = False) -> dict[str, Any]:
    """The table as a spectator sees it (no controls); the line of steps only where the example wants it."""
    table = ruhd_table.present(RUHD.view(state, None), None, {}, NAMES)
    without_controls(table["rows"])  # the cells' ids (and the hand's, below) become the example's own
    for item in table["hand"]:
        item["key"] = f"rules-{current_figure()}-{item['key']}"
    table["roving"] = False  # an example is no Tab stop
    if not steps:
        table["turn_text"] = None
    return table


def _sides(tile: str, rotation: int) -> list[str]:
    return [side_code(s) for s in RUHD_FACING[RUHD_TILE_INDEX[tile]][rotation]]


@cache
def _examples() -> dict[str, Any]:
    start = RUHD.new_game(2, seed=0, deal={"tiles": [
        "T00", "T17", "T38", "T27",  # the starting board
        "T05", "T20", "T42", "T31", "T12", "T44", "T09", "T35", "T26", "T47",  # the deck, the open hand first
    ]})

    # The original rules' worked example (10 points), rebuilt from the tile set: the tile goes right of a row
    # of two tiles whose left sides are red 1s, and on top of a column of two tiles whose top sides are green.
    ten = _ruhd_state(
        [(0, 0, "T08", 0), (0, 1, "T02", 1), (1, 2, "T01", 0), (2, 2, "T00", 0)],
        ["T11", "T20", "T33"], ["T40", "T45"],
    )
    placed = RUHD.apply(ten, 0, {"type": "place", "tile": "T11", "at": [0, 2], "rotation": 0})
    covered = RUHD.apply(placed, 0, {"type": "cover", "tile": "T20", "at": [1, 2]})

    # One side: of the tiles that would touch exactly one other, the placement scoring most (so its side counts too).
    view = RUHD.view(start, 0)
    best: tuple[int, str, list[int], int] | None = None
    for tile, cells in view["legal_cells"].items():
        for at, points in zip(cells, view["cell_points"][tile], strict=True):
            touching = [e for e in view["board"] if abs(e["at"][0] - at[0]) + abs(e["at"][1] - at[1]) == 1]
            if len(touching) == 1:
                for rotation, got in enumerate(points):
                    if best is None or got > best[0]:
                        best = (got, tile, at, rotation)
    assert best is not None
    one_side = RUHD.apply(start, 0, {"type": "place", "tile": best[1], "at": best[2], "rotation": best[3]})
    return {
        "tile": ruhd_table.drawn("T05", _sides("T05", 0)),
        "tile_turned": ruhd_table.drawn("T05", _sides("T05", 1)),
        "start": _ruhd_table(start, steps=True),
        "one_side": _ruhd_table(one_side),
        "ten": _ruhd_table(placed),
        "covered": _ruhd_table(covered),
        "legend": [{"colour": colour, "mark": ruhd_table.MARKS[code]} for code, colour in ruhd_table.COLOURS.items()],
    }


# The most points one tile scored when placed (stored as "best_placement" in PlayerStats.extras).
BEST_PLACEMENT = Figure("best_placement", "Best tile", "high", unit="points")


def _best_placements(match: MatchRecord, facts: FigureFacts, moves: MoveLoader) -> None:
    """Each seat's best single placement: the moves replayed, reading the placing seat's score gain."""
    state = RUHD.new_game(match.players, seed=match.seed, options=match.options or None)
    for seat, action in moves():
        before = RUHD.scores(state)[seat]
        state = RUHD.apply(state, seat, action)
        if isinstance(action, dict) and action.get("type") == "place":
            gained = RUHD.scores(state)[seat] - before
            facts.report(seat, BEST_PLACEMENT.key,
                         BEST_PLACEMENT.best(facts.extras.get(seat, {}).get(BEST_PLACEMENT.key), gained))


_TILE = re.compile(r"\bT(\d\d)\b")
_ROTATION = re.compile(r" at rotation ([0-3])\b")
_TURNS = {"0": "", "1": " turned a quarter clockwise", "2": " turned upside down",
          "3": " turned a quarter anticlockwise"}


def _tile_words(found: re.Match[str]) -> str:
    sides = RUHD_TILES.get(found.group(0))
    if sides is None:
        return found.group(0)
    return "the " + "–".join(f"{ruhd_table.COLOURS[s[0]]} {s[1:]}" for s in sides) + " tile"


def _words(text: str, view: View | None) -> str:
    """Tiles by their sides (up, right, down, left as printed), cells as the board labels them now (its grid counts
    from one cell around the tiles, none once the game is over), and a rotation in words."""
    board = (view or {}).get("board") or []
    margin = 0 if (view or {}).get("phase") == "over" else 1
    rows = [entry["at"][0] for entry in board] or [0]
    cols = [entry["at"][1] for entry in board] or [0]
    text = _ROTATION.sub(lambda m: _TURNS[m.group(1)], text)
    return cell_words(_TILE.sub(_tile_words, text), (min(rows) - margin, min(cols) - margin))


KIT = Kit(
    slug="ruhd",
    blurb="Lay square tiles from a shared open hand and score where colours and numbers meet.",
    lower_is_better=False,
    score_label="points",
    engine=RUHD,
    presenter=ruhd_table,
    bots=bots.BOTS,
    usual_players=3,
    analysis=analysis.SPEC,
    level_blurbs=bots.LEVEL_BLURBS,
    table_css="css/ruhd.css",
    figures=(BEST_PLACEMENT,),
    stats_extra=_best_placements,
    stats_needs_moves=True,
    rules_examples=_examples,
    log_verbs={"places": "place", "covers": "cover"},
    words=_words,
)
