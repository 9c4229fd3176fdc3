"""Gomori's kit: black against red on a loose 4x4 field."""

from __future__ import annotations

from functools import cache
from typing import Any

from ..bots import gomori as bots
from ..engines.base import View, card_name
from ..engines.gomori import ENGINE as GOMORI
from ..presenters import card, cell_words
from ..presenters import gomori as gomori_table
from . import Kit
from . import gomori_analysis as analysis
from .examples import Cell, without_controls

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
    rows: list[list[dict[str, Any]]] = table["rows"]
    without_controls(rows, keep)
    return rows


def _targets(rows: list[list[dict[str, Any]]]) -> list[Cell]:
    return [(cell["at"][0], cell["at"][1]) for row in rows for cell in row if "target" in cell["classes"].split()]


def _gomori_play(field: dict[Cell, tuple[list[str], bool]], hand: list[str], action: dict[str, Any]) -> dict[str, Any]:
    """One play: the field before (its cell highlighted) and after (played, turned and gathered cells marked)."""
    before = _gomori_state(field, hand)
    after = GOMORI.apply(before, 0, {"type": "play", **action})
    assert after.last is not None
    last = after.last["plays"][-1]
    return {
        "card": card(action["card"]),
        "before": _gomori_rows(before, action["card"], {(action["at"][0], action["at"][1])}),
        "after": _gomori_rows(after),
        "gathered": [card(code) for code in last["gathered"]],
        "flipped": [card_name(f["card"]) for f in last["flipped"]],
        "plays_again": last["plays_again"],
    }


@cache
def _examples() -> dict[str, Any]:
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


def _words(text: str, view: View | None) -> str:
    """Cells as the field labels them now: its rows and columns count from the playable window's top left."""
    playable = (view or {}).get("playable")
    origin = (playable["rows"][0], playable["cols"][0]) if playable else (0, 0)
    return cell_words(text.replace("turning [", "turning the card at ["), origin)


KIT = Kit(
    slug="gomori",
    blurb="Black against red on a loose 4x4 field: stack, flip with face cards and gather lines of one suit.",
    lower_is_better=False,
    score_label="cards gathered",
    engine=GOMORI,
    presenter=gomori_table,
    bots=bots.BOTS,
    usual_players=2,
    analysis=analysis.SPEC,
    level_blurbs=bots.LEVEL_BLURBS,
    rules_examples=_examples,
    log_verbs={"gathers": "gather"},
    words=_words,
)
