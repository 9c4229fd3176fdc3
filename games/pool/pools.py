"""The quick-pairing pools: per game, its usual table size (its kit's `usual_players`) and three clocks (none, a
real-time clock per player, a limit per turn), like lichess's quick-pairing grid, and a correspondence row (1, 2, 3
or 7 days a move). A pool's key names it in the database and on the page."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..catalog import GAMES
from ..play.clock import clock_label, clock_spec, correspondence_clocks, is_correspondence

# (key, label, clock_spec arguments)
CLOCKS: tuple[tuple[str, str, dict[str, Any]], ...] = (
    ("none", "No clock", {"kind": "none"}),
    ("live", "5 min + 3 s", {"kind": "fischer", "minutes": 5, "increment": 3}),
    ("turn", "30 s a turn", {"kind": "turn", "turn_seconds": 30}),
)


def _grid_clocks() -> list[tuple[str, str, dict[str, Any]]]:
    return [(key, label, clock_spec(spec["kind"], minutes=spec.get("minutes", 0), increment=spec.get("increment", 0),
                                    turn_seconds=spec.get("turn_seconds", 0))) for key, label, spec in CLOCKS]


# Every clock offered by key, as pools, challenges and the Bot API name them: (key, label, the clock);
# the real-time three, then the correspondence ones ("1d" ... "7d").
KEYED_CLOCKS: tuple[tuple[str, str, dict[str, Any]], ...] = (*_grid_clocks(), *correspondence_clocks())


@dataclass(frozen=True)
class Pool:
    key: str  # "gomori-2-none"
    game: str
    players: int
    clock_key: str
    clock_label: str
    clock: dict[str, Any]  # games.play.clock.clock_spec's

    @property
    def game_name(self) -> str:
        return GAMES[self.game].name

    @property
    def min_players(self) -> int:
        """The smallest table of people this pool's game can start (never a table of one)."""
        return max(2, GAMES[self.game].engine.min_players)

    @property
    def may_shrink(self) -> bool:
        """Whether a smaller table (or bots in the empty seats) may be offered to those who waited."""
        return self.players > self.min_players

    @property
    def correspondence(self) -> bool:
        return is_correspondence(self.clock)

    @property
    def players_text(self) -> str:
        return f"{self.players} players"


def _pools() -> dict[str, Pool]:
    pools = {}
    for slug in GAMES:
        # The table size people usually play the game at (its kit's); where the game seats more than two, a pool
        # may offer a smaller table (or bots in the empty seats) to whoever has waited long enough.
        players = GAMES[slug].usual_players
        for clock_key, label, clock in KEYED_CLOCKS:
            key = f"{slug}-{players}-{clock_key}"
            pools[key] = Pool(key, slug, players, clock_key, label, clock)
    return pools


POOLS: dict[str, Pool] = _pools()


def clock_of(key: str) -> dict[str, Any]:
    """A clock of the grid by its key (challenges offer the same ones); KeyError if unknown."""
    for clock_key, _, clock in KEYED_CLOCKS:
        if clock_key == key:
            return dict(clock)
    raise KeyError(key)


__all__ = ["CLOCKS", "KEYED_CLOCKS", "POOLS", "Pool", "clock_label", "clock_of"]
