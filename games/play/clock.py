"""Clocks: a clock per player (minutes plus seconds added per move) or a limit per turn, kept by the server.

Each seat's seconds left as of the last change (Snapshot.clock_left, turn_started_at) and when the first person
waited on runs out (clock_due_at); pure functions of a snapshot and its state.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

from django.utils import timezone

from .snapshot import ServiceError, Snapshot, State, Status, engine_of, must_act_of

CLOCK_KINDS = ("none", "fischer", "turn")


def clock_spec(kind: str, *, minutes: float = 0, increment: int = 0, turn_seconds: int = 0) -> dict[str, Any]:
    """A match's clock as chosen at creation; ServiceError if out of range."""
    if kind in ("", "none"):
        return {}
    if kind == "fischer":
        if not 0.5 <= minutes <= 180 or not 0 <= increment <= 180:
            raise ServiceError("A clock has 0.5 to 180 minutes per player and 0 to 180 seconds added per move.")
        return {"kind": "fischer", "base": float(minutes) * 60, "increment": int(increment)}
    if kind == "turn":
        if not 5 <= turn_seconds <= 3600:
            raise ServiceError("A turn limit is 5 to 3,600 seconds.")
        return {"kind": "turn", "seconds": int(turn_seconds)}
    raise ServiceError("Choose no clock, a clock per player, or a limit per turn.")


def clock_start(snap: Snapshot) -> list[float]:
    full = snap.clock.get("base") if snap.clock.get("kind") == "fischer" else snap.clock.get("seconds")
    return [float(full or 0)] * snap.players


def clock_now(snap: Snapshot, state: State, now: datetime | None = None) -> list[float]:
    """Each seat's seconds left at `now` (the seats the game waits on lose the time since turn_started_at)."""
    left = list(snap.clock_left)
    if not snap.clock or not left or snap.status != Status.ACTIVE or snap.turn_started_at is None:
        return left
    elapsed = ((now or timezone.now()) - snap.turn_started_at).total_seconds()
    for index in must_act_of(snap, state):
        if index < len(left):
            left[index] = max(0.0, left[index] - elapsed)
    return left


def run_clock(before: Snapshot, before_state: State, after: Snapshot, after_state: State, *, mover: int | None,
               now: datetime) -> Snapshot:
    """The clocks after a move: the waited-on seats pay the time it took; the mover gains its increment
    (a clock per player) or each seat newly waited on starts a full turn (a limit per turn)."""
    left = clock_now(before, before_state, now)
    waited = must_act_of(before, before_state)
    if before.clock.get("kind") == "fischer":
        if mover is not None and mover < len(left):
            left[mover] += before.clock.get("increment", 0)
    else:
        full = float(before.clock.get("seconds", 0))
        for index in engine_of(after).must_act(after_state) if after_state is not None else ():
            if index == mover or index not in waited:
                left[index] = full
    after = replace(after, clock_left=[round(x, 3) for x in left], turn_started_at=now)
    return replace(after, clock_due_at=clock_due_at(after, after_state))


def clock_due_at(snap: Snapshot, state: State) -> datetime | None:
    """When the first person the game waits on runs out of time (bots are never flagged)."""
    if not snap.clock or snap.status != Status.ACTIVE or state is None or not snap.clock_left:
        return None
    start = snap.turn_started_at or timezone.now()
    due = [start + timedelta(seconds=snap.clock_left[i]) for i in must_act_of(snap, state)
           if i < len(snap.clock_left) and snap.seats[i].is_person]
    return min(due) if due else None


