"""Every sampled state is one the deciding seat could be in: its view of the sample is its view of the true
state (logs aside, which the samples leave empty), all along real matches of each game."""

from __future__ import annotations

import random
from typing import Any

import pytest

from games.analysis.determinize import SAMPLERS, new_tracker
from games.analysis.selfplay import bots_of
from games.engines import get_engine

NOT_COMPARED = {"log", "last", "last_placement", "last_round", "rounds_played"}


@pytest.mark.parametrize(("game", "players"), [("gomori", 2), ("ruhd", 2), ("ruhd", 4), ("rummy", 2),
                                               ("columbo", 2), ("columbo", 3)])
def test_a_sample_looks_the_same_to_the_deciding_seat(game: str, players: int) -> None:
    engine = get_engine(game)
    levels = list(bots_of(game).values())
    checked = 0
    for seed in range(3):
        state: Any = engine.new_game(players, seed=seed)
        trackers = [new_tracker(game, s) for s in range(players)]
        rng = random.Random(seed)
        bots = [levels[(seed + s) % len(levels)] for s in range(players)]
        while not engine.is_over(state):
            must = set(engine.must_act(state))
            wanted = []
            for seat in engine.to_act(state):
                view = engine.view(state, seat)
                if view.get("phase") != "peek":
                    sample = SAMPLERS[game](view, trackers[seat].knowledge(), random.Random(checked))
                    again = engine.view(sample, seat)
                    assert {k: v for k, v in view.items() if k not in NOT_COMPARED} == \
                        {k: v for k, v in again.items() if k not in NOT_COMPARED}
                    checked += 1
                action, _ = bots[seat](view, view["legal"], rng)
                if action is not None:
                    wanted.append((seat, action))
            optional = [w for w in wanted if w[0] not in must]
            rng.shuffle(optional)
            seat, action = (optional or wanted)[0]
            state = engine.apply(state, seat, action)
            for s, tracker in enumerate(trackers):
                if tracker.needs_view:
                    tracker.observe(seat, action, engine.view(state, s))
    assert checked > 20


def test_samples_differ_in_what_the_seat_cannot_see() -> None:
    engine = get_engine("gomori")
    state = engine.new_game(2, seed=4)
    view = engine.view(state, 0)
    hands = {tuple(SAMPLERS["gomori"](view, {}, random.Random(i)).hands[1]) for i in range(10)}
    assert len(hands) > 5
    assert all(tuple(SAMPLERS["gomori"](view, {}, random.Random(i)).hands[0]) == tuple(view["hand"])
               for i in range(10))
