"""The Ruhd projects' AI (pantherNZ/Ruhd-boardgame, AIController at difficulty 1): every open-hand tile on
every free cell at every rotation, scored by the placement's immediate points, the highest taken (ties at
random). The original AI places only from the open hand and has no covering strategy, so when this opponent
must cover it covers a random face-up tile with a random hand tile; it takes a face-down tile back only when no
hand tile fits anywhere."""

from __future__ import annotations

import random

from games.engines.base import Action, View


def best_placement(view: View, legal: list[Action], rng: random.Random) -> tuple[Action | None, str]:
    if not legal:
        return None, "has nothing to do"
    if view["phase"] == "cover":
        return rng.choice(legal), "covers at random"
    hand = set(view["hand"])
    scored: list[tuple[int, float, Action]] = []
    for tile, cells in view["legal_cells"].items():
        if tile not in hand and any(t in hand for t in view["legal_cells"]):
            continue
        for cell, points in zip(cells, view["cell_points"][tile], strict=True):
            for rotation, p in enumerate(points):
                scored.append((p, rng.random(), {"type": "place", "tile": tile, "at": list(cell),
                                                 "rotation": rotation}))
    if not scored:
        return rng.choice(legal), "places at random"
    points, _, action = max(scored, key=lambda item: (item[0], item[1]))
    return action, f"best immediate placement, {points} points"


OPPONENT = best_placement
