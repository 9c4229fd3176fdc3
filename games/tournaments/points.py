"""A tournament's points, pure: what a finished table gives each seat, and the arena's streak rule.

At a table, the sole first place is a win (2 points), a shared first place a draw (1), the last place (when it
is not also first) a loss (0), and any place between those 1 ("m", a middle place at a table of three or more).
In an arena a second win in a row, and every win in a row after it, counts double (4): the flame shows from the
second win, and any result other than a win ends the streak. A Swiss bye is worth a win (2) and is never doubled.
An aborted match is no result for anyone, whatever aborted it (a player who never moved, absent when paired,
included: they are paused, not scored).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..results import SeatOutcome, outcomes_by_place

WIN, DRAW, MIDDLE, LOSS, BYE = "w", "d", "m", "l", "b"
BASE = {WIN: 2, DRAW: 1, MIDDLE: 1, LOSS: 0, BYE: 2}


def table_results(places: Sequence[int]) -> list[str]:
    """Each seat's result from its place at the table (1 = first; ties share a place): the site's outcome of the
    seat (games.results.outcomes_by_place), a lost seat above the last place being a middle one."""
    last = max(places, default=1)
    kinds = {SeatOutcome.WON: WIN, SeatOutcome.DRAWN: DRAW, SeatOutcome.SOLO: WIN}
    return [kinds.get(outcome) or (LOSS if place == last else MIDDLE)
            for place, outcome in zip(places, outcomes_by_place(places), strict=True)]


@dataclass(frozen=True)
class Scored:
    """One result on a player's sheet with the points it earned."""

    result: str
    points: int
    doubled: bool


def score(result: str, streak: int, *, arena: bool) -> tuple[Scored, int]:
    """The points of a result for a player with `streak` wins in a row before it, and their streak after it."""
    if result == WIN:
        doubled = arena and streak >= 1
        return Scored(WIN, BASE[WIN] * (2 if doubled else 1), doubled), streak + 1
    if result == BYE:
        return Scored(BYE, BASE[BYE], False), streak
    return Scored(result, BASE[result], False), 0


def on_fire(streak: int) -> bool:
    """The flame: two wins in a row or more (the next win counts double too)."""
    return streak >= 2


def sheet_total(results: Sequence[str], *, arena: bool) -> tuple[list[Scored], int, int]:
    """A whole sheet scored from the start: (each result scored, the total, the streak at the end)."""
    streak, total, scored = 0, 0, []
    for result in results:
        entry, streak = score(result, streak, arena=arena)
        scored.append(entry)
        total += entry.points
    return scored, total, streak
