"""Gomori's board as the live table draws it: each cell's HTML, remembered by the few values it depends on
(games.presenters.gomori.CellKey), is the cell macro drawn from the cell's whole entry, as the board drew every
cell before (issue 47)."""

from __future__ import annotations

import random
from typing import Any

from games.core.jinja import draw_piece
from games.engines import get_engine
from games.presenters import gomori

NAMES = ["Alice", "Bob <b>&'\""]


def selections(view: dict[str, Any]) -> list[dict[str, Any]]:
    """Nothing chosen, each card that may be played, and each cell a king's play then chooses a target from."""
    legal = view.get("legal") or []
    found: list[dict[str, Any]] = [{}]
    for code in dict.fromkeys(a["card"] for a in legal):
        found.append({"card": code})
    for action in legal:
        if action.get("king_target"):
            found.append({"card": action["card"], "at": list(action["at"])})
    return found


def positions(seeds: int, moves: int) -> list[Any]:
    engine = get_engine("gomori")
    found = []
    for seed in range(seeds):
        state = engine.new_game(2, seed=seed)
        rng = random.Random(seed)
        for _ in range(moves):
            if engine.is_over(state):
                break
            found.append(state)
            seat = engine.to_act(state)[0]
            state = engine.apply(state, seat, rng.choice(engine.legal_actions(state, seat)))
        found.append(state)
    return found


def test_each_cell_drawn_from_its_key_is_the_cell_macro_drawn_from_its_entry() -> None:
    engine = get_engine("gomori")
    compared = targets = kings = 0
    for state in positions(seeds=6, moves=40):
        for seat in (0, 1, None):
            view = engine.view(state, seat)
            for raw in selections(view) if seat is not None else [{}]:
                ui = gomori.clean_ui(view, seat, raw)
                table = gomori.present(view, seat, ui, NAMES)
                entries = [[draw_piece(gomori.CELL_MACRO, cell=cell) for cell in row] for row in table["rows"]]
                assert [list(row) for row in table["cells_html"]] == entries
                compared += sum(len(row) for row in entries)
                targets += sum('class="gomori-cell target' in cell for row in entries for cell in row)
                kings += sum("king-target" in cell for row in entries for cell in row)
    # The positions reach what a cell may show: cards played on, targets of a chosen card, a king's targets.
    assert compared > 10_000 and targets > 500 and kings > 0

