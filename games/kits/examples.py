"""What the rules pages' worked examples share (each game's kit builds its own: games/kits/<slug>.py); the rules
page (games.rulebook) starts each page's numbering with `new_page`.

Gomori's and Ruhd's examples are real positions: the engine plays the move and the table's presenter says
what to draw, so the highlighted cells, the gathered lines and the score pad are the rules' own verdict and
cannot drift from them. Columbo's and Rummy's are small arrangements of cards (a grid, a pack), drawn by the
same Jinja2 macros and card faces as the table, with values and names from the engines.

No example carries a control: a rules page sends nothing, and the panel beside a live table must never put a
`ws-send` button inside the match's socket.
"""

from __future__ import annotations

from typing import Any

Cell = tuple[int, int]

_figures = [0]  # the example fields drawn so far for this page: each gets ids of its own


def new_page() -> None:
    """Start numbering a page's example fields again."""
    _figures[0] = 0


def current_figure() -> int:
    return _figures[0]


def without_controls(rows: list[list[dict[str, Any]]], keep_targets: set[Cell] | None = None) -> None:
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
