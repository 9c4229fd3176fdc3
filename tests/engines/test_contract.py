"""The engine contract (/work/shared/design/ENGINES.md), checked the same way for every registered game.

Each game, each player count it supports and a few seeds: a random game in which, at every position, every
legal action of every seat that may act applies without touching the state; near misses of those actions
(and any action of a seat that may not act) are refused with IllegalAction and leave the state as it was; the
state survives a JSON round trip of dump/load; no view changes when only what its seat may not know changes;
and the game ends within a bound. The rules of each game, its card counts and its own leak trackers stay in
that game's test file; this file holds what every engine owes alike, so a fifth engine is covered the day it
is registered (with its entries in tests/hidden.py and LEAKS, which a test below demands).

The view check changes the hidden cards of a state and compares views: it catches a view that shows the
order of a stock, or another seat's unseen cards, wherever in the view. It cannot catch a view that repeats
a hidden card from the game's own record of what happened (a log line naming a private draw), since that
record is left alone; each game's own leak test (test_<game>.py) searches its views for such codes. Tests
at the end run each check against an engine broken on purpose, so a check that stopped checking would show.

Last, the engine modules themselves: each keeps to the standard library (ENGINES.md), and the registry finds
every one.
"""

from __future__ import annotations

import ast
import json
import random
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from engine_helpers import Check, random_game, refused, snapshot
from hidden import SCRAMBLERS, scramble

from games.engines import ENGINES, SLUGS, IllegalAction, get_engine

ENGINE_DIR = Path(__file__).resolve().parents[2] / "games" / "engines"
MODULES = sorted(path.name for path in ENGINE_DIR.glob("*.py"))

# Two seeds per player count: enough to reach every phase of each game (rounds, reshuffles, endings) while
# the whole battery stays within a few seconds; the per-game files play many more games for their own checks.
SEEDS = (0, 1)
# The positions of a game that get the expensive checks: all of the first ones, then one in CHECK_EVERY, so a
# long game still has its middle and its end checked without its cost growing with its length.
FULL_CHECKS = 40
CHECK_EVERY = 7


def cases() -> list[Any]:
    """(slug, players) for every registered game and every player count it supports."""
    return [pytest.param(slug, players, id=f"{slug}-{players}p")
            for slug in SLUGS for players in range(get_engine(slug).min_players, get_engine(slug).max_players + 1)]


# ---------------------------------------------------------------------------------------------------------
# the checks of one position
# ---------------------------------------------------------------------------------------------------------

def key(action: Any) -> str:
    return json.dumps(action, sort_keys=True)


def near_misses(action: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Actions one step away from a legal one, each refused by the contract (ENGINES.md "Action": unknown
    types, missing or extra fields, wrong value types) unless it happens to be legal itself."""
    yield {**action, "type": "no-such-type"}
    yield {**action, "unexpected": 1}
    yield {k: v for k, v in action.items() if k != "type"}
    for field, value in action.items():
        if field == "type":
            continue
        yield {k: v for k, v in action.items() if k != field}
        # a value of another JSON type: a string for anything that is not one, an object for a string
        yield {**action, field: {"x": 1} if isinstance(value, str) else str(value)}


def check_refusals(engine: Any, state: Any, rng: random.Random) -> None:
    """What no seat may do here is refused, and the state stays as it was."""
    players = len(engine.scores(state))
    to_act = engine.to_act(state)
    for seat in to_act:
        legal = engine.legal_actions(state, seat)
        listed = {key(a) for a in legal}
        for miss in near_misses(rng.choice(legal)):
            if key(miss) not in listed:
                refused(engine, state, seat, miss)
        for shape in (None, [], "draw", 5, {}):
            refused(engine, state, seat, shape)
    any_action = next((a for s in to_act for a in engine.legal_actions(state, s)), {"type": "x"})
    for seat in range(players):
        if seat not in to_act:
            # A seat that may not act now has nothing legal, and what others may do is refused to it.
            assert engine.legal_actions(state, seat) == [], seat
            refused(engine, state, seat, any_action)
    for seat in (-1, players, True, None, "0", 0.0):
        refused(engine, state, seat, any_action)


def check_legal_actions_apply(engine: Any, state: Any) -> None:
    """Every listed action of every seat that may act applies, each listed once, none touching the input."""
    before = snapshot(engine, state)
    for seat in engine.to_act(state):
        legal = engine.legal_actions(state, seat)
        assert legal, f"seat {seat} may act but has no legal action"
        assert len({key(a) for a in legal}) == len(legal), "an action listed twice"
        for action in legal:
            engine.apply(state, seat, action)
    assert snapshot(engine, state) == before, "apply changed the state it was given"


def check_dump_load(engine: Any, state: Any) -> None:
    """dump is plain JSON and load(dump) is the same state: equal, and dumping the same again."""
    data = engine.dump(state)
    text = json.dumps(data, sort_keys=True)  # raises on anything that is not JSON
    loaded = engine.load(json.loads(text))
    assert loaded == state
    assert key(engine.dump(loaded)) == text


def clear_all(value: Any) -> None:
    """Empty every list and dict inside a JSON value, innermost first."""
    if isinstance(value, dict):
        for item in value.values():
            clear_all(item)
        value.clear()
    elif isinstance(value, list):
        for item in value:
            clear_all(item)
        value.clear()


def viewers(state: Any, engine: Any) -> list[int | None]:
    return [*range(len(engine.scores(state))), None]


def check_views(engine: Any, slug: str, state: Any, rng: random.Random) -> int:
    """Each seat's and a spectator's view is JSON and stays the same when only what that viewer may not know
    changes. Returns how many of those changes altered the state (so a run can show it tested something)."""
    before = snapshot(engine, state)
    altered = 0
    for viewer in viewers(state, engine):
        text = json.dumps(engine.view(state, viewer), sort_keys=True)
        if engine.is_over(state):
            continue  # once over, the hands are open to everyone
        data = scramble(slug, json.loads(before), viewer, rng)
        altered += key(data) != before
        other = json.dumps(engine.view(engine.load(data), viewer), sort_keys=True)
        assert other == text, f"the view of {viewer} shows what it may not know"
    return altered


def check_position(engine: Any, slug: str, state: Any, rng: random.Random) -> int:
    check_legal_actions_apply(engine, state)
    check_refusals(engine, state, rng)
    check_dump_load(engine, state)
    return check_views(engine, slug, state, rng)


def check_over(engine: Any, state: Any, last: tuple[int, dict[str, Any]]) -> None:
    """An ended game: nobody acts, nothing applies, and the result agrees with the scores."""
    assert engine.to_act(state) == []
    for seat in range(len(engine.scores(state))):
        assert engine.legal_actions(state, seat) == []
    refused(engine, state, last[0], last[1])
    result = engine.result(state)
    json.dumps(result)
    assert set(result) >= {"scores", "winners", "draw"}
    assert result["scores"] == engine.scores(state)
    assert set(result["winners"]) <= set(range(len(result["scores"])))
    assert isinstance(result["draw"], bool)


# ---------------------------------------------------------------------------------------------------------
# the battery
# ---------------------------------------------------------------------------------------------------------

def play(slug: str, players: int, seed: int, check: Check | None = None,
         ) -> tuple[Any, list[tuple[int, dict[str, Any]]]]:
    """A game of uniformly random legal moves, `check(state, step)` before each."""
    return random_game(get_engine(slug), players, seed, check=check)


@pytest.mark.parametrize(("slug", "players"), cases())
@pytest.mark.parametrize("seed", SEEDS)
def test_random_games_keep_the_contract(slug: str, players: int, seed: int) -> None:
    engine = get_engine(slug)
    rng = random.Random(seed * 1000 + players)
    altered = 0

    def check(state: Any, step: int) -> None:
        nonlocal altered
        assert engine.to_act(state), "a game that is not over waits on someone"
        if step < FULL_CHECKS or step % CHECK_EVERY == 0:
            altered += check_position(engine, slug, state, rng)

    state, history = play(slug, players, seed, check)
    assert history, "a game ends only after someone acted"
    check_over(engine, state, history[-1])
    check_dump_load(engine, state)
    for viewer in viewers(state, engine):
        json.dumps(engine.view(state, viewer))
    # The hidden-information check changed what it claims to have changed, so it is not vacuous.
    assert altered > 0


@pytest.mark.parametrize("slug", SLUGS)
def test_views_are_copies(slug: str) -> None:
    """A caller that edits a view (a presenter sorting a hand, say) must not edit the game behind it."""
    engine = get_engine(slug)
    players = max(engine.min_players, 2)

    def check(state: Any, step: int) -> None:
        before = snapshot(engine, state)
        for viewer in viewers(state, engine):
            clear_all(engine.view(state, viewer))
            assert snapshot(engine, state) == before, (viewer, step)

    play(slug, players, seed=5, check=check)


@pytest.mark.parametrize("slug", SLUGS)
def test_same_seed_and_actions_give_the_same_game(slug: str) -> None:
    """ENGINES.md "Determinism": a match is fully recorded by its seed and its actions."""
    engine = get_engine(slug)
    players = max(engine.min_players, 2)
    state, history = play(slug, players, seed=7)
    replay = engine.new_game(players, seed=7)
    for seat, action in history:
        replay = engine.apply(replay, seat, action)
    assert snapshot(engine, replay) == snapshot(engine, state)
    assert snapshot(engine, engine.new_game(players, seed=7)) != snapshot(engine, engine.new_game(players, seed=8))


class Proxy:
    """An engine standing in for a registered one, with one part broken by a subclass."""

    def __init__(self, engine: Any) -> None:
        self.engine = engine

    def __getattr__(self, name: str) -> Any:
        return getattr(self.engine, name)


class LeakyEngine(Proxy):
    """An engine whose views also carry something hidden: the check above must catch it."""

    def __init__(self, engine: Any, leak: Callable[[dict[str, Any]], Any]) -> None:
        super().__init__(engine)
        self.leak = leak

    def view(self, state: Any, seat: int | None) -> dict[str, Any]:
        return {**self.engine.view(state, seat), "leak": self.leak(self.engine.dump(state))}


# One hidden thing per game that a careless view could show: the next undrawn card, or another seat's hand.
LEAKS: dict[str, Callable[[dict[str, Any]], Any]] = {
    "gomori": lambda data: data["hands"][1],
    "columbo": lambda data: data["stock"][-1:],
    "ruhd": lambda data: data["deck"][:1],
    "rummy": lambda data: sorted(data["hands"][1]),
}


@pytest.mark.parametrize("slug", SLUGS)
def test_the_view_check_catches_a_leak(slug: str) -> None:
    """The hidden-information check fails for a view that shows what its seat may not know."""
    engine = get_engine(slug)
    leaky = LeakyEngine(engine, LEAKS[slug])
    state = engine.new_game(2, seed=3)
    check_views(engine, slug, state, random.Random(3))  # the real engine passes
    with pytest.raises(AssertionError, match="may not know"):
        check_views(leaky, slug, state, random.Random(3))


class RefusalLeavesATrace(Proxy):
    """A refused action changes what dump() shows, as an apply that wrote before checking would."""

    touched = 0

    def apply(self, state: Any, seat: Any, action: Any) -> Any:
        try:
            return self.engine.apply(state, seat, action)
        except IllegalAction:
            self.touched += 1
            raise

    def dump(self, state: Any) -> dict[str, Any]:
        return {**self.engine.dump(state), "touched": self.touched}


class ListsAnIllegalAction(Proxy):
    def legal_actions(self, state: Any, seat: int) -> list[dict[str, Any]]:
        return [*self.engine.legal_actions(state, seat), {"type": "no-such-type"}]


class LoadForgets(Proxy):
    """load() gives back the game's first position, whatever was dumped."""

    def load(self, data: dict[str, Any]) -> Any:
        return self.engine.new_game(len(self.engine.scores(self.engine.load(data))), seed=data.get("seed", 0))


@pytest.mark.parametrize("slug", SLUGS)
def test_the_position_checks_catch_a_broken_engine(slug: str) -> None:
    """Each check of a position fails for an engine that breaks the rule it checks."""
    engine = get_engine(slug)
    players = max(engine.min_players, 2)
    state = engine.new_game(players, seed=4)
    for _ in range(3):  # a few moves in, so the first position and this one differ
        seat = engine.to_act(state)[0]
        state = engine.apply(state, seat, engine.legal_actions(state, seat)[0])
    check_position(engine, slug, state, random.Random(4))  # the real engine passes them all
    with pytest.raises(AssertionError, match="changed the state"):
        check_refusals(RefusalLeavesATrace(engine), state, random.Random(4))
    with pytest.raises(IllegalAction):
        check_legal_actions_apply(ListsAnIllegalAction(engine), state)
    with pytest.raises(AssertionError):
        check_dump_load(LoadForgets(engine), state)


def test_every_game_has_a_way_to_hide_and_a_leak_to_catch() -> None:
    """A newly registered game must say what its seats may not know (tests/hidden.py) before the battery can
    check it."""
    assert set(SCRAMBLERS) == set(SLUGS) == set(LEAKS)


# ---------------------------------------------------------------------------------------------------------
# the engine modules
# ---------------------------------------------------------------------------------------------------------

def imported_modules(path: Path) -> list[str]:
    """The absolute module names a file imports (relative imports stay inside games.engines)."""
    names: list[str] = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level:
            names.append(node.module or "")
    return names


@pytest.mark.parametrize("module", MODULES)
def test_engine_module_imports_only_the_standard_library(module: str) -> None:
    for name in imported_modules(ENGINE_DIR / module):
        top = name.split(".")[0]
        assert top in sys.stdlib_module_names or name.startswith("games.engines"), f"{module} imports {name}"


def test_every_game_has_an_engine_module_and_the_registry_finds_it() -> None:
    assert {f"{slug}.py" for slug in SLUGS} <= set(MODULES)
    assert [engine.slug for engine in ENGINES.values()] == list(SLUGS)


def test_refusals_are_illegal_actions() -> None:
    """IllegalAction is a ValueError, so callers that catch ValueError catch refusals too (ENGINES.md)."""
    assert issubclass(IllegalAction, ValueError)
