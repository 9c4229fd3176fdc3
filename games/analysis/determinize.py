"""Determinization: full engine states consistent with what one seat knows, one sampler per game (its kit's
``analysis.sampler``, in games/kits/<slug>_analysis.py).

A sampler gets the seat's view (``engine.view(state, seat)``), the seat's ``Knowledge`` (what a seat with perfect
memory learned from public events that the current view no longer shows: the kit's ``analysis.tracker`` keeps it,
for the games that need any) and a random generator, and returns a complete engine state in which every card or
tile the seat cannot see is dealt at random among the places the seat cannot see into. Nothing here ever reads a
true state: the analysis builds its states from views alone, so it cannot leak a hidden card
(tests/analysis/test_fairness.py checks it).

Every sampled state also gets a fresh random ``seed``: the engines draw later randomness (reshuffles, later deals)
from the match seed, which no player knows.

The states are built with ``engine.load()`` from a constructed dump, which is exact (the same code path as crash
recovery) and cheap. Logs start empty: the rollout bots read only the board, hands and counts.
"""

from __future__ import annotations

from collections.abc import Mapping

from games.kits.analysis_spec import Knowledge, SampleError, Sampler, Tracker

from .specs import PerGame, get_spec

# Each game's sampler, by slug.
SAMPLERS: Mapping[str, Sampler] = PerGame(lambda spec: spec.sampler)


def new_tracker(game: str, seat: int) -> Tracker:
    """The tracker of one seat in a game."""
    return get_spec(game).tracker(seat)


__all__ = ["SAMPLERS", "Knowledge", "SampleError", "Sampler", "Tracker", "new_tracker"]
