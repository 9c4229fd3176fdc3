"""Quick pairing's rules, pure (no database, no clock of its own): who sits with whom among the people waiting in
one pool, at a given moment. games.pool.pairing loads a pool's seekers under its lock, asks `tables`, and seats
the tables it answers.

- Nearest ratings first: of all the tables that could be made now, the one with the smallest spread of ratings is
  made first, then the next among those left (ties: the table whose longest waiter has waited longest).
- The range widens with waiting: ±100 at first, ±200 after 10 s, anyone after 30 s. Two people may sit together
  when their ratings are within the wider of their two ranges (the longer waiter's), so whoever has waited 30 s
  sits with anybody.
- Never the same two twice in a row while a third waits: two people who sat together in their latest match of
  the game are seated together again only at a table that takes everyone left in the pool.
- Never two people of whom one blocked the other (games.social), even at a table of everyone left.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

NEAR = 100.0  # rating points either side, at first
WIDER = 200.0
WIDEN_AFTER = 10.0  # seconds of waiting before the range is WIDER
ANYONE_AFTER = 30.0  # seconds of waiting before anyone will do
# After this long without a table, the pool offers a bot (or, for the larger games, a smaller table).
ALONE_OFFER_AFTER = 30.0


@dataclass(frozen=True)
class Seeker:
    """One person waiting in a pool, as the rules see them."""

    id: int  # the seek row's
    user_id: int
    rating: float
    since: datetime
    last_opponents: frozenset[int] = frozenset()
    apart: frozenset[int] = frozenset()  # the people this one never sits with (a block, either way)


def window(waited: float) -> float:
    """How far from their own rating someone who has waited this many seconds will be seated."""
    if waited >= ANYONE_AFTER:
        return math.inf
    return WIDER if waited >= WIDEN_AFTER else NEAR


def waited(seeker: Seeker, now: datetime) -> float:
    return max(0.0, (now - seeker.since).total_seconds())


def compatible(a: Seeker, b: Seeker, now: datetime) -> bool:
    """Whether two people may sit together now: within the wider of their two ranges."""
    return abs(a.rating - b.rating) <= max(window(waited(a, now)), window(waited(b, now)))


def repeat(a: Seeker, b: Seeker) -> bool:
    """Whether these two sat together in the latest match of the game of either of them."""
    return b.user_id in a.last_opponents or a.user_id in b.last_opponents


def kept_apart(a: Seeker, b: Seeker) -> bool:
    """Whether one of the two blocked the other: never at one table."""
    return b.user_id in a.apart or a.user_id in b.apart


def _best_table(pool: list[Seeker], size: int, now: datetime) -> tuple[Seeker, ...] | None:
    """The table with the smallest spread of ratings that can be made now from `pool` (sorted by rating)."""
    best: tuple[Seeker, ...] | None = None
    best_key: tuple[float, datetime, int] | None = None
    everyone = len(pool) == size  # a table of everyone left: repeats allowed, nobody else waits
    for i, low in enumerate(pool):
        table = [low]
        for other in pool[i + 1:]:
            if best_key is not None and other.rating - low.rating > best_key[0]:
                break  # every later one spreads the table wider than the best found
            if all(compatible(other, t, now) and not kept_apart(other, t) and (everyone or not repeat(other, t))
                   for t in table):
                table.append(other)
                if len(table) == size:
                    break
        if len(table) < size:
            continue
        key = (table[-1].rating - table[0].rating, min(t.since for t in table), min(t.id for t in table))
        if best_key is None or key < best_key:
            best, best_key = tuple(table), key
    return best


def tables(seekers: Sequence[Seeker], size: int, now: datetime) -> list[tuple[Seeker, ...]]:
    """The tables of `size` to seat now, nearest ratings first; whoever is in none waits on."""
    pool = sorted(seekers, key=lambda s: (s.rating, s.since, s.id))
    made: list[tuple[Seeker, ...]] = []
    while len(pool) >= size:
        table = _best_table(pool, size, now)
        if table is None:
            break
        made.append(tuple(sorted(table, key=lambda s: (s.since, s.id))))
        seated = {s.id for s in table}
        pool = [s for s in pool if s.id not in seated]
    return made
