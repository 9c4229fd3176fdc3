"""Correspondence matches for tests (a clock of days a move), made as the lobby makes a match without a clock and
then given {"kind": "days", ...} in the database, as the correspondence clock keeps it: each seat's seconds left
as of turn_started_at, and when the first person waited on runs out (clock_due_at). Made this way because the
seating gate of this branch counts any clock as a person's one board; the clock's own code is another change's."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.utils import timezone
from factories import SEED, make_match

DAY = 86400


def days_clock(days: int) -> dict[str, Any]:
    return {"kind": "days", "days": days, "seconds": days * DAY}


def make_days_match(first: Any, second: Any, *, days: int = 3, seed: int = SEED, game: str = "gomori",
                    left: list[float] | None = None, started: datetime | None = None) -> Any:
    """A started two-player match (first in seat 0, second in seat 1) on a clock of `days` a move; `left`: each
    seat's seconds left at `started` (the turn's start, now by default)."""
    from games.models import Match

    match = make_match(creator=first, game=game, seats=["open"], seed=seed, joiners=[second])
    clock = days_clock(days)
    started = started or timezone.now()
    left = [float(clock["seconds"])] * match.players if left is None else left
    due = started + timedelta(seconds=min(left[i] for i in match.waiting_on))
    Match.objects.filter(pk=match.pk).update(clock=clock, clock_left=left, turn_started_at=started, clock_due_at=due)
    return Match.objects.get(pk=match.pk)
