"""The arena's pairing rule, pure: who among the free players sits together now.

Free players are ordered by score, then rating (highest first, then the longest free, then id), and taken in
that order: each table is the first free player with the next ones, passing over someone they sat with in
their latest match (two who just played each other sit together again only when both have waited
`REMATCH_AFTER` seconds for anyone else). A table is made as soon as enough players are free for it. At a game
for more than two, the last few (fewer than the table size, at least the game's smallest table) are seated at a
smaller table once one of them has waited `SMALLER_TABLE_AFTER` seconds or when nobody is playing (no one else
can come free); a single free player waits for the next.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

SMALLER_TABLE_AFTER = 20.0
REMATCH_AFTER = 10.0


@dataclass(frozen=True)
class Free:
    id: int  # the person's id
    score: int
    rating: float
    free_since: datetime
    last_opponents: frozenset[int]


def order(free: Sequence[Free]) -> list[Free]:
    return sorted(free, key=lambda f: (-f.score, -f.rating, f.free_since, f.id))


def _waited(free: Free, now: datetime) -> float:
    return (now - free.free_since).total_seconds()


def _may_sit(a: Free, b: Free, now: datetime) -> bool:
    """Two who just played each other sit together again only after both waited REMATCH_AFTER for another."""
    rematch = a.id in b.last_opponents or b.id in a.last_opponents
    return not rematch or min(_waited(a, now), _waited(b, now)) >= REMATCH_AFTER


def tables(free: Sequence[Free], table_size: int, *, min_table: int, now: datetime, anyone_playing: bool,
           ) -> list[list[int]]:
    """The tables to make now, each a list of ids in order of standing."""
    waiting = order(free)
    made: list[list[int]] = []
    left: list[Free] = []
    while waiting:
        table = [waiting.pop(0)]
        for candidate in list(waiting):
            if len(table) == table_size:
                break
            if all(_may_sit(seated, candidate, now) for seated in table):
                table.append(candidate)
                waiting.remove(candidate)
        if len(table) == table_size:
            made.append([f.id for f in table])
        else:  # the first of them waits; the others go back in their places
            left.append(table[0])
            waiting = order([*table[1:], *waiting])
    smaller = table_size > min_table and len(left) >= min_table
    if smaller and (max(_waited(f, now) for f in left) >= SMALLER_TABLE_AFTER or not anyone_playing):
        made.append([f.id for f in order(left)])
    return made
