"""The worked examples of the rules pages (/rules/<game>/), made the way the tables make theirs.

Gomori's and Ruhd's examples are real positions: the engine plays the move and the table's presenter says
what to draw, so the highlighted cells, the gathered lines and the score pad are the rules' own verdict and
cannot drift from them. Columbo's and Rummy's are small arrangements of cards (a grid, a pack), drawn by the
same Jinja2 macros and card faces as the table, with values and names from the engines.

No example carries a control: a rules page sends nothing, and the panel beside a live table must never put a
`ws-send` button inside the match's socket.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from .engines import SLUGS
from .engines.base import card_name
from .engines.columbo import TAP_LIMIT, TAP_PENALTY, card_points
from .engines.gomori import ENGINE as GOMORI
from .engines.ruhd import ENGINE as RUHD
from .engines.ruhd import FACING as RUHD_FACING
from .engines.ruhd import TILE_INDEX as RUHD_TILE_INDEX
from .engines.ruhd import side_code
from .engines.rummy import card_penalty, joker_stands, new_pack
from .tables import card
from .tables import gomori as gomori_table
from .tables import ruhd as ruhd_table
from .tables.rummy import describe_pack

Cell = tuple[int, int]


def examples(slug: str) -> dict[str, Any]:
    """The examples a game's rules template draws; KeyError for an unknown game."""
    if slug not in SLUGS:
        raise KeyError(slug)
    _figures[:] = [0]
    return _BUILDERS[slug]()


_figures = [0]  # the example fields drawn so far for this page: each gets ids of its own


def _without_controls(rows: list[list[dict[str, Any]]], keep_targets: set[Cell] | None = None) -> None:
    """Drop the cells' socket controls (their highlight stays); keep only some targets when asked. The cells'
    ids become the example's own: a page shows several fields, and the panel sits beside the live table."""
    _figures[0] += 1
    for row in rows:
        for cell in row:
            cell.pop("hx", None)
            cell.pop("aria", None)
            if "id" in cell:
                cell["id"] = f"rules-{_figures[0]}-{cell['id']}"
            if keep_targets is not None and tuple(cell["at"]) not in keep_targets:
                cell["classes"] = " ".join(c for c in cell["classes"].split() if c != "target")


# ---------------------------------------------------------------------------------------------------------
# Gomori: positions on the field, played by the engine, drawn by the table's cell macro
# ---------------------------------------------------------------------------------------------------------

_BLACK = [r + s for s in "CS" for r in ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")]
_RED = [r + s for s in "DH" for r in ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")]


def _gomori_state(field: dict[Cell, tuple[list[str], bool]], hand: list[str]) -> Any:
    """Black (seat 0) to play with this hand; the draw piles hold the cards found nowhere else."""
    used = {code for stack, _ in field.values() for code in stack} | set(hand)
    red_hand = [c for c in _RED if c not in used][:5]
    return GOMORI.load({
        "seed": 0,
        "hands": [hand, red_hand],
        "piles": [[c for c in _BLACK if c not in used], [c for c in _RED if c not in used and c not in red_hand]],
        "field": [{"at": [r, c], "stack": stack, "face_up": up} for (r, c), (stack, up) in sorted(field.items())],
        "gathered": [[], []],
        "turn": 0, "chain": False, "passes": 0, "over": False, "end_reason": None, "log": [], "last": None,
    })


def _gomori_rows(state: Any, selected: str | None = None, keep: set[Cell] | None = None) -> list[list[dict[str, Any]]]:
    """The field as black sees it, with the cells the selected card may go to highlighted."""
    view = GOMORI.view(state, 0)
    table = gomori_table.present(view, 0, {"card": selected} if selected else {}, ["Black", "Red"])
    rows: list[list[dict[str, Any]]] = table["rows"]()
    _without_controls(rows, keep)
    return rows


def _targets(rows: list[list[dict[str, Any]]]) -> list[Cell]:
    return [tuple(cell["at"]) for row in rows for cell in row if "target" in cell["classes"].split()]  # type: ignore[misc]


def _gomori_play(field: dict[Cell, tuple[list[str], bool]], hand: list[str], action: dict[str, Any]) -> dict[str, Any]:
    """One play: the field before (its cell highlighted) and after (played, turned and gathered cells marked)."""
    before = _gomori_state(field, hand)
    after = GOMORI.apply(before, 0, {"type": "play", **action})
    last = after.last["plays"][-1]
    return {
        "card": card(action["card"]),
        "before": _gomori_rows(before, action["card"], {tuple(action["at"])}),  # type: ignore[arg-type]
        "after": _gomori_rows(after),
        "gathered": [card(code) for code in last["gathered"]],
        "flipped": [card_name(f["card"]) for f in last["flipped"]],
        "plays_again": last["plays_again"],
    }


@cache
def _gomori() -> dict[str, Any]:
    # The rules' own examples: the 5♣ goes on empty cells, the 5♥ and a face-down card; the J♣ also on
    # every club and the J♥; an ace anywhere.
    where: dict[Cell, tuple[list[str], bool]] = {
        (0, 0): (["5H"], True), (0, 3): (["9S"], True), (1, 1): (["7D"], False),
        (2, 2): (["JH"], True), (3, 0): (["2C"], True), (3, 3): (["8D"], True),
    }
    hand = ["5C", "JC", "AS", "9C", "3S"]
    state = _gomori_state(where, hand)
    placing = []
    for code in ("5C", "JC", "AS"):
        rows = _gomori_rows(state, code)
        placing.append({"card": card(code), "rows": rows, "count": len(_targets(rows))})

    gather_field: dict[Cell, tuple[list[str], bool]] = {
        (0, 0): (["7D"], True), (0, 1): (["3C"], True), (1, 1): (["9C"], True), (1, 3): (["QH"], False),
        (2, 3): (["4S"], True), (3, 0): (["10H"], True), (3, 1): (["6H", "KC"], True),
    }
    gather = _gomori_play(gather_field, ["5C", "8S", "2S", "JS", "6C"], {"card": "5C", "at": [2, 1]})

    around: dict[Cell, tuple[list[str], bool]] = {
        (0, 0): (["6D"], True), (0, 1): (["8H"], True), (0, 2): (["2S"], True),
        (1, 0): (["3S"], True), (1, 1): (["4C"], True), (1, 2): (["10C"], False),
        (2, 0): (["9H"], True), (2, 1): (["10D"], True), (2, 2): (["QD"], True), (3, 3): (["2H"], True),
    }
    jack = _gomori_play(around, ["JC", "5S", "7C", "AC", "3C"], {"card": "JC", "at": [1, 1]})
    queen = _gomori_play(around, ["QS", "5S", "7C", "AC", "3C"], {"card": "QS", "at": [1, 2]})
    king = _gomori_play(around, ["KC", "5S", "7C", "AC", "3C"], {"card": "KC", "at": [1, 1], "king_target": [3, 3]})
    return {"placing": placing, "hand": [card(c) for c in hand], "gather": gather, "jack": jack, "queen": queen,
            "king": king}


# ---------------------------------------------------------------------------------------------------------
# Ruhd: boards played by the engine and drawn by the table's board macro, score pad included
# ---------------------------------------------------------------------------------------------------------

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
    _without_controls(table["rows"])  # the cells' ids (and the hand's, below) become the example's own
    for item in table["hand"]:
        item["key"] = f"rules-{_figures[0]}-{item['key']}"
    table["roving"] = False  # an example is no Tab stop
    if not steps:
        table["turn_text"] = None
    return table


def _sides(tile: str, rotation: int) -> list[str]:
    return [side_code(s) for s in RUHD_FACING[RUHD_TILE_INDEX[tile]][rotation]]


@cache
def _ruhd() -> dict[str, Any]:
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


# ---------------------------------------------------------------------------------------------------------
# Columbo: players' grids as the table's grid macro draws them
# ---------------------------------------------------------------------------------------------------------

def _cb_hand(seat: int, name: str, cards: list[str | None], *, me: bool = False, shown: tuple[int, ...] = (),
             marks: dict[int, str] | None = None, tapped: bool = False) -> dict[str, Any]:
    """A grid: None is an empty slot; `shown` the slots drawn face-up; `marks` what happened to a slot."""
    marks = marks or {}
    slots = []
    for k, code in enumerate(cards):
        where = "Your card" if me else f"{name}'s card"
        if code is None:
            slots.append({"seat": seat, "slot": k, "empty": True, "label": f"{where}: empty"})
            continue
        face = card(code) if k in shown else None
        slots.append({
            "seat": seat, "slot": k, "empty": False, "face": face, "flash": None, "remembered": False,
            "known": False, "mark": marks.get(k, ""), "seen_by": "",
            "label": f"{where}: {card_name(code)}" if face else f"{where}: face-down card",
        })
    columns: list[list[dict[str, Any] | None]] = [[slots[0], slots[2]], [slots[1], slots[3]]]
    for first in range(4, len(slots), 2):
        columns.append([slots[first], slots[first + 1] if first + 1 < len(slots) else None])
    return {"seat": seat, "name": name, "me": me, "columns": columns, "cards": sum(1 for c in cards if c),
            "tapped": tapped, "current": False, "peeking": False, "total": None, "dealer": False}


def _cb_result(seat: int, name: str, cards: list[str], *, tapper: bool = False) -> dict[str, Any]:
    points = sum(card_points(c) for c in cards)
    penalty = TAP_PENALTY if tapper and points >= TAP_LIMIT else 0
    faces = [{"face": card(c), "points": card_points(c)} for c in cards]
    return {"seat": seat, "name": name, "columns": [[faces[0], faces[2]], [faces[1], faces[3]]],
            "points": points, "penalty": penalty, "total": points + penalty, "tapper": tapper, "me": False}


def _cb_results(rows: list[dict[str, Any]], ended: str) -> dict[str, Any]:
    """A round's results as the table's results macro takes them (round 1, so no totals by round)."""
    low = min(row["total"] for row in rows)
    for row in rows:
        row["leading"] = row["total"] == low
    return {"solo": False, "results": {
        "round": 1, "final": False, "ended": ended, "rows": rows, "history": [],
        "totals": [row["total"] for row in rows], "names": [row["name"] for row in rows],
        "fresh": True, "tap_limit": TAP_LIMIT, "tap_penalty": TAP_PENALTY,
    }}


@cache
def _columbo() -> dict[str, Any]:
    values = [{"card": card(c), "points": card_points(c)} for c in
              ("AS", "2D", "7C", "10H", "JS", "QD", "KC", "KH")]
    hidden = ["4H", "JC", "9S", "2D"]
    ben = ["KS", "3C", "8D", "QH"]
    good_tap = _cb_results([
        _cb_result(0, "Ada", ["AH", "2S", "KH", "AC"], tapper=True),
        _cb_result(1, "Ben", ["KS", "3C", "8D", "QH"]),
        _cb_result(2, "Cy", ["5C", "6H", "AD", "4S"]),
    ], "Ada tapped")
    bad_tap = _cb_results([
        _cb_result(0, "Ada", ["AH", "2S", "4C", "3D"], tapper=True),
        _cb_result(1, "Ben", ["9S", "3C", "8D", "2H"]),
    ], "Ada tapped")
    return {
        "values": values,
        "peek": _cb_hand(0, "You", hidden, me=True, shown=(2, 3)),
        "stock_top": None,
        "discard": {"six": card("6S"), "eight": card("8S"), "nine": card("9D"), "jack": card("JD"),
                    "queen": card("QC"), "drawn": card("4C"), "seven": card("7H")},
        "look_other": _cb_hand(1, "Ben", ben, shown=(1,), marks={1: "looked"}),
        "look_own": _cb_hand(0, "You", hidden, me=True, shown=(0,), marks={0: "looked"}),
        "jack_mine": _cb_hand(0, "You", hidden, me=True, marks={1: "exchanged"}),
        "jack_other": _cb_hand(1, "Ben", ben, marks={2: "exchanged"}),
        "queen_other": _cb_hand(1, "Ben", ben, shown=(0,), marks={0: "looked"}),
        "queen_swap_mine": _cb_hand(0, "You", hidden, me=True, marks={3: "exchanged"}),
        "queen_swap_other": _cb_hand(1, "Ben", ben, marks={0: "exchanged"}),
        "slap_own_hit": _cb_hand(0, "You", ["4H", None, "9S", "2D"], me=True),
        "slap_other_hit": _cb_hand(1, "Ben", ["KS", "3C", "5D", "QH", "10C"], marks={2: "dealt", 4: "dealt"}),
        "slap_own_miss": _cb_hand(0, "You", ["4H", "JC", "9S", "2D", "7D"], me=True, shown=(1,),
                                  marks={1: "slapped", 4: "dealt"}),
        "slap_other_miss": _cb_hand(1, "Ben", ben, shown=(3,), marks={3: "slapped"}),
        "slap_other_miss_me": _cb_hand(0, "You", ["4H", "JC", "9S", "2D", "5S", "AC"], me=True,
                                       marks={4: "dealt", 5: "dealt"}),
        "slapped_six": card("6H"),
        "good_tap": good_tap,
        "bad_tap": bad_tap,
        "tap_limit": TAP_LIMIT,
        "tap_penalty": TAP_PENALTY,
    }


# ---------------------------------------------------------------------------------------------------------
# Rummy: packs checked, named and valued by the engine, drawn as the table draws its packs
# ---------------------------------------------------------------------------------------------------------

def _pack(cards: list[str], *, added: str | None = None) -> dict[str, Any]:
    pack = new_pack(cards, 0)
    captions = {j["at"]: "as " + " or ".join(card_name(j["rank"] + s) for s in j["suits"]) for j in joker_stands(pack)}
    return {
        "title": describe_pack(pack.kind, pack.cards, pack.low),
        "value": pack.value,
        "cards": [{**card(code), "caption": captions.get(at, ""), "added": code == added}  # type: ignore[dict-item]
                  for at, code in enumerate(pack.cards)],
    }


def _lay_down(packs: list[list[str]], minimum: int = 40) -> dict[str, Any]:
    drawn = [_pack(cards) for cards in packs]
    total = sum(p["value"] for p in drawn)
    return {"packs": drawn, "total": total, "minimum": minimum, "enough": total >= minimum}


@cache
def _rummy() -> dict[str, Any]:
    left = ["KS", "7H", "XB", "3D"]
    return {
        "values": [{"card": card(c), "value": v} for c, v in
                   (("2H", "2"), ("9C", "9"), ("JD", "10"), ("QS", "10"), ("KH", "10"), ("AC", "10 or 1"),
                    ("XR", "what it stands for"))],
        "sets": [_pack(["7H", "7S", "7D"]), _pack(["QH", "QD", "QC", "XB"])],
        "runs": [_pack(["4H", "5H", "6H", "7H"]), _pack(["AS", "2S", "3S"]), _pack(["QD", "KD", "AD"]),
                 _pack(["8C", "XB", "10C"])],
        "not_run": [card(c) for c in ("KC", "AC", "2C")],
        "first": _lay_down([["KH", "KD", "KS"], ["2C", "3C", "4C", "5C"]]),
        "short": _lay_down([["3H", "4H", "5H"], ["8S", "8D", "8C"]]),
        "joker_before": _pack(["7D", "8D", "XR", "10D"]),
        "joker_after": _pack(["7D", "8D", "9D", "10D"], added="9D"),
        "joker": card("XR"),
        "nine": card("9D"),
        "left": [{"card": card(c), "points": card_penalty(c)} for c in left],
        "left_total": sum(card_penalty(c) for c in left),
    }


_BUILDERS = {"gomori": _gomori, "columbo": _columbo, "ruhd": _ruhd, "rummy": _rummy}
