"""Every bot level of every game plays from its seat's view alone and answers legal moves.

Short seeded games, the levels mixed: at every decision the hidden part of the state (other hands, stocks and
draw piles, the Ruhd deck: tests/hidden.py) is shuffled into a different state that shows the seat exactly the
same view, and the bot, given that view and the same random generator, must choose the same move. Pure engine
and bot code, no database; a few seconds in all.
"""

from __future__ import annotations

import importlib
import random
from pathlib import Path
from typing import Any

import pytest
from hidden import scramble

from games.engines import SLUGS, get_engine

# (game, players, options, seeds, move cap per game)
PLAN: list[tuple[str, int, dict[str, Any] | None, int, int]] = [
    ("gomori", 2, None, 3, 400),
    ("ruhd", 2, None, 3, 100),
    ("ruhd", 3, None, 1, 100),
    ("rummy", 2, None, 3, 400),
    ("columbo", 2, {"rounds": 1}, 2, 600),
    ("columbo", 3, {"rounds": 1, "action_trigger": "any_discard"}, 1, 600),
]


def _play(game: str, players: int, options: dict[str, Any] | None, seed: int, cap: int) -> int:
    """A seeded game of mixed levels; every decision checked against a scrambled twin. Returns the decisions."""
    engine = get_engine(game)
    bots = importlib.import_module(f"games.bots.{game}").BOTS
    levels = list(bots)
    seats = [levels[(seed + s) % len(levels)] for s in range(players)]
    state = engine.new_game(players, seed=seed, options=options)
    order = random.Random(f"order:{seed}")
    decisions = 0
    for number in range(cap):
        if engine.is_over(state):
            break
        must = set(engine.must_act(state))
        to_act = engine.to_act(state)
        order.shuffle(to_act)
        for seat in to_act:
            view = engine.view(state, seat)
            legal = engine.legal_actions(state, seat)
            twin = engine.load(scramble(game, engine.dump(state), seat, random.Random(f"{seed}:{number}")))
            twin_view = engine.view(twin, seat)
            assert twin_view == view, f"{game}: the scramble changed seat {seat}'s view"
            assert engine.legal_actions(twin, seat) == legal
            action, reason = bots[seats[seat]](view, legal, random.Random(f"{seed}:{number}:{seat}"))
            again, _ = bots[seats[seat]](twin_view, legal, random.Random(f"{seed}:{number}:{seat}"))
            decisions += 1
            assert again == action, (game, seats[seat], action, again)
            assert isinstance(reason, str) and reason and "\n" not in reason
            if action is None:
                assert seat not in must, (game, seats[seat], reason)
                continue
            assert action in legal, (game, seats[seat], action, reason)
            state = engine.apply(state, seat, action)
            break
        else:
            raise AssertionError(f"{game}: no seat acted")
    return decisions


@pytest.mark.parametrize(("game", "players", "options", "seeds", "cap"), PLAN)
def test_bots_choose_from_their_view_alone_and_legally(game: str, players: int, options: dict[str, Any] | None,
                                                        seeds: int, cap: int) -> None:
    assert sum(_play(game, players, options, seed, cap) for seed in range(seeds)) > 10


@pytest.mark.parametrize("game", SLUGS)
def test_bots_modules_touch_no_state_and_no_django(game: str) -> None:
    module = importlib.import_module(f"games.bots.{game}")
    source = Path(module.__file__ or "").read_text()
    for forbidden in ("django", "ENGINE", "State", ".load(", "dump("):
        assert forbidden not in source, (game, forbidden)
