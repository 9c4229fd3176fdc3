"""Gomori's board as the live table draws it: each cell's HTML, remembered by the few values it depends on
(games.presenters.gomori.CellKey), is the cell macro drawn from the cell's whole entry, as the board drew every
cell before (issue 47)."""

from __future__ import annotations

import random
import re
from typing import Any

from games.core.jinja import draw_piece
from games.engines import get_engine
from games.engines.base import card_name
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



def place(cell: str) -> tuple[int, int]:
    found = re.search(r'id="gc(-?\d+)_(-?\d+)"', cell)
    assert found, cell
    return int(found.group(1)), int(found.group(2))


def classes(cell: str) -> list[str]:
    found = re.match(r'\s*<div class="([^"]*)"', cell)
    assert found, cell
    return found.group(1).split()


def test_each_cell_shows_what_the_view_says_of_its_place() -> None:
    """Against the view itself, not the key: a key that left out what the view says of a cell (its stack, the last
    move's marks, the targets of the chosen card, a king's targets) would draw another cell's HTML here."""
    engine = get_engine("gomori")
    checked = 0
    for state in positions(seeds=4, moves=40):
        seat = engine.to_act(state)[0] if not engine.is_over(state) else 0
        view = engine.view(state, seat)
        plays = (view.get("last") or {}).get("plays") or []
        marks = {
            "last-play": {tuple(p["at"]) for p in plays},
            "flipped": {tuple(f["at"]) for p in plays for f in p.get("flipped", [])},
            "gathered": {tuple(c) for p in plays for c in p.get("gathered_cells", [])},
        }
        stacks = {tuple(f["at"]): f for f in view["field"]}
        for raw in selections(view):
            ui = gomori.clean_ui(view, seat, raw)
            legal = [a for a in view.get("legal") or [] if a["card"] == ui.get("card")]
            if "at" in ui:
                wanted = {"target": set(), "king-target": {tuple(a["king_target"]) for a in legal
                                                           if a.get("king_target") and list(a["at"]) == ui["at"]}}
            else:
                wanted = {"target": {tuple(a["at"]) for a in legal}, "king-target": set()}
            cells = [cell for row in gomori.present(view, seat, ui, NAMES)["cells_html"] for cell in row]
            drawn = {place(cell) for cell in cells}
            found: dict[str, set[tuple[int, ...]]] = {name: set() for name in (*marks, *wanted)}
            for cell in cells:
                for name in found:
                    if name in classes(cell):
                        found[name].add(place(cell))
                stack = stacks.get(place(cell))
                if stack:
                    assert card_name(stack["stack"][-1]) in cell
                    height = f'<span class="stack-height" aria-hidden="true">{len(stack["stack"])}</span>'
                    assert (height in cell) == (len(stack["stack"]) > 1)
                else:
                    assert "empty-cell" in cell
                checked += 1
            for name, places in marks.items():
                assert found[name] == places & drawn, name
            assert found["target"] == wanted["target"] and found["king-target"] == wanted["king-target"]
    assert checked > 5_000
