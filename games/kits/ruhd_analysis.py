"""Ruhd's part of the post-match analysis (games/kits/analysis_spec.py): placements and covers are decisions,
placements ordered for the screening by the points they score now; only the deck's order is hidden (and which
tiles were set aside)."""

from __future__ import annotations

import random
from typing import Any

from ..bots import ruhd as bots
from ..engines.base import Action, View
from ..engines.ruhd import ENGINE as RUHD
from ..engines.ruhd import TILE_IDS
from .analysis_spec import AnalysisSpec, Budget, Knowledge, Option, Thresholds, check, fresh_seed, shuffled


def sample(view: View, knowledge: Knowledge, rng: random.Random) -> Any:
    """Shuffle the tiles nobody has seen into the deck and the set-aside heap."""
    unseen = [t for t in TILE_IDS if t not in view["tiles"]]
    check(len(unseen) == view["deck"] + view["set_aside"], "ruhd", "unseen tiles != deck + set aside")
    rng.shuffle(unseen)
    recent = view["recent_face_down"]
    return RUHD.load({
        "players": view["players"],
        "seed": fresh_seed(rng),
        "board": [[e["at"][0], e["at"][1], e["tile"], e["rotation"], e["cover"]] for e in view["board"]],
        "hand": list(view["hand"]),
        "deck": unseen[:view["deck"]],
        "set_aside": unseen[view["deck"]:],
        "scores": list(view["scores"]),
        "turn": view["turn"],
        "phase": view["phase"],
        "recent": None if recent is None else list(recent["at"]),
        "log": [],
        "last": None,
        "last_placement": None,
    })


def classify(view: View, legal: list[Action], action: Action) -> tuple[str | None, list[Option]]:
    return view["phase"], list(legal)


def rank(view: View, options: list[Option], rng: random.Random) -> list[Option]:
    """Placements by the points they score now (the view's hints); covers at random."""
    if view["phase"] != "place":
        return shuffled(options, rng)
    points: dict[tuple[str, int, int, int], int] = {}
    for tile, cells in view["legal_cells"].items():
        for cell, rotations in zip(cells, view["cell_points"][tile], strict=True):
            for rotation, p in enumerate(rotations):
                points[(tile, cell[0], cell[1], rotation)] = p
    scored = []
    for option in options:
        assert option is not None
        p = points.get((option["tile"], option["at"][0], option["at"][1], option["rotation"]), 0)
        scored.append((-p, rng.random(), option))
    scored.sort(key=lambda item: (item[0], item[1]))
    return [item[2] for item in scored]


# lichess's 10/20/30 win-chance points: single placements swing a game of Ruhd.
SPEC = AnalysisSpec("ruhd", RUHD, bots, lower_wins=False, scale=3.0, sampler=sample, classify=classify, rank=rank,
                    budget=Budget(candidates=10, screen=16, samples=96), thresholds=Thresholds(0.10, 0.20, 0.30))
