"""What every engine test shares: a refused action, a snapshot of a state, the random-play driver.

Named engine_helpers (not helpers) because pytest puts each test folder on sys.path and these modules share
one namespace: a plain name would shadow, or be shadowed by, a module of the same name in another folder.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterable
from typing import Any

import pytest

from games.engines import IllegalAction


def snapshot(engine: Any, state: Any) -> str:
    """The state's dump as canonical JSON text.

    Text, not the dump dict itself: a dump that shared a list with the state would change along with it, and
    a comparison of the two would then pass however the state was mutated.
    """
    return json.dumps(engine.dump(state), sort_keys=True)


def refused(engine: Any, state: Any, seat: Any, action: Any, match: str | None = None, *,
            kind: type[IllegalAction] = IllegalAction) -> str:
    """Assert `apply` refuses the action with `kind` (IllegalAction or a subclass) and leaves the state as it
    was (ENGINES.md: "raises IllegalAction(reason) and leaves `state` untouched"); returns the message."""
    before = snapshot(engine, state)
    with pytest.raises(kind, match=match) as info:
        engine.apply(state, seat, action)
    assert snapshot(engine, state) == before, f"a refused {action!r} changed the state"
    return str(info.value)


# No game of random legal moves needs more actions than this (the longest, six-player Columbo over four
# rounds, takes about a thousand); more means a game that does not end.
MAX_STEPS = 20_000

Choose = Callable[[Any, random.Random], tuple[int, dict[str, Any]]]
Check = Callable[[Any, int], object]
After = Callable[[Any, int, dict[str, Any], Any], object]


def uniform(engine: Any) -> Choose:
    """A random seat among those that may act, and a random legal action of it."""

    def choose(state: Any, rng: random.Random) -> tuple[int, dict[str, Any]]:
        seat = rng.choice(engine.to_act(state))
        return seat, rng.choice(engine.legal_actions(state, seat))

    return choose


def random_game(engine: Any, players: int, seed: int, *, options: dict[str, Any] | None = None,
                choose: Choose | None = None, check: Check | None = None, after: After | None = None,
                max_steps: int = MAX_STEPS) -> tuple[Any, list[tuple[int, dict[str, Any]]]]:
    """Play one game to its end: `choose(state, rng)` picks each move (default: uniform), `check(state, step)`
    runs before it and `after(before, seat, action, after)` once it applied. Returns the final state and the
    moves. Fails when the game has not ended after `max_steps` moves.

    The one random-play driver of the engine tests: the contract battery checks what every engine owes with
    it, and each game's file plugs in what only that game knows (card counts, who has seen which card)."""
    rng = random.Random(seed)
    pick = choose or uniform(engine)
    state = engine.new_game(players, seed=seed, options=options)
    history: list[tuple[int, dict[str, Any]]] = []
    for step in range(max_steps):
        if engine.is_over(state):
            return state, history
        if check is not None:
            check(state, step)
        seat, action = pick(state, rng)
        new = engine.apply(state, seat, action)
        if after is not None:
            after(state, seat, action, new)
        history.append((seat, action))
        state = new
    raise AssertionError(f"{engine.slug} with {players} players, seed {seed}: no end after {max_steps} moves")


def all_refused(engine: Any, state: Any, probes: Iterable[tuple[Any, Any]]) -> None:
    """Assert every (seat, action) of `probes` is refused with IllegalAction, and the state is as it was after
    them all. One snapshot for the lot rather than refused()'s two a probe: the random-play tests probe
    thousands of positions, and a change by any one probe still shows at the end."""
    before = snapshot(engine, state)
    for seat, action in probes:
        with pytest.raises(IllegalAction):
            engine.apply(state, seat, action)
    assert snapshot(engine, state) == before, "a refused action changed the state"
