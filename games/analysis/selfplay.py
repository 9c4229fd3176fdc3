"""Recording bot-against-bot matches, as the analysis's tests and bench/analysis.py need them.

The driver is bench/bots.py's: every seat that may act is asked; optional moves (Columbo's slaps and card
actions) race in a random order ahead of the seat the game waits on.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from games.catalog import kit
from games.engines.base import Action, Bot

MAX_ACTIONS = 20_000


def bots_of(game: str) -> dict[str, Bot]:
    """The game's bot levels, weakest first."""
    return dict(kit(game).bots)


def play_match(game: str, bots: Sequence[Bot], seed: int, *, options: dict[str, Any] | None = None,
               deal: dict[str, Any] | None = None,
               max_actions: int = MAX_ACTIONS) -> tuple[list[tuple[int, Action]], Any]:
    """Play one seeded match (len(bots) players, optionally from an explicit deal); returns the recorded
    (seat, action) list and the final state. Stops early after max_actions."""
    engine = kit(game).engine
    state = engine.new_game(len(bots), seed=seed, options=options, deal=deal)
    order = random.Random(f"race:{seed}")
    rngs = [random.Random(f"{seed}:{seat}") for seat in range(len(bots))]
    actions: list[tuple[int, Action]] = []
    while not engine.is_over(state) and len(actions) < max_actions:
        must = set(engine.must_act(state))
        wanted: list[tuple[int, Action]] = []
        for seat in engine.to_act(state):
            view = engine.view(state, seat)
            choice, _ = bots[seat](view, view["legal"], rngs[seat])
            if choice is not None:
                wanted.append((seat, choice))
            elif seat in must:
                raise RuntimeError(f"{game}: seat {seat} must act but chose nothing (seed {seed})")
        optional = [w for w in wanted if w[0] not in must]
        order.shuffle(optional)
        seat, action = (optional or wanted)[0]
        actions.append((seat, action))
        state = engine.apply(state, seat, action)
    return actions, state


__all__ = ["bots_of", "play_match"]
