"""Clocks: a clock per player (minutes plus seconds added per move), a limit per turn, or days a move
(correspondence: a limit per turn counted in days), kept by the server.

Each seat's seconds left as of the last change (Snapshot.clock_left, turn_started_at) and when the first person
waited on runs out (clock_due_at); pure functions of a snapshot and its state.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

from django.utils import timezone

from .snapshot import ServiceError, Snapshot, State, Status, engine_of, must_act_of

CLOCK_KINDS = ("none", "fischer", "turn", "days")

# The days a move a correspondence clock may have (lichess's choice, less the rarely used ones).
CORRESPONDENCE_DAYS = (1, 2, 3, 7)

DAY_SECONDS = 86400


def clock_spec(kind: str, *, minutes: float = 0, increment: int = 0, turn_seconds: int = 0,
               days: int = 0) -> dict[str, Any]:
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
    if kind == "days":
        if isinstance(days, bool) or days not in CORRESPONDENCE_DAYS:
            raise ServiceError("A correspondence clock has 1, 2, 3 or 7 days a move.")
        return {"kind": "days", "days": int(days), "seconds": int(days) * DAY_SECONDS}
    raise ServiceError("Choose no clock, a clock per player, a limit per turn, or days a move.")


def is_correspondence(clock: dict[str, Any] | None) -> bool:
    """Days a move: the clock is the only rule (no away claim, no board held: games.boards)."""
    return (clock or {}).get("kind") == "days"


def per_move(clock: dict[str, Any] | None) -> bool:
    """Whether each seat newly waited on starts a full budget (a turn limit, days a move)."""
    return (clock or {}).get("kind") in ("turn", "days")


def clock_label(clock: dict[str, Any] | None) -> str:
    """The human name of any clock, the one every page says: "No clock", "5 min + 3 s", "30 s a turn",
    "1 day a move", "3 days a move"."""
    kind = (clock or {}).get("kind")
    if clock and kind == "fischer":
        return f"{clock['base'] / 60:g} min + {clock['increment']} s"
    if clock and kind == "turn":
        return f"{clock['seconds']} s a turn"
    if clock and kind == "days":
        days = int(clock["days"])
        return f"{days} day{'s' if days != 1 else ''} a move"
    return "No clock"


def correspondence_key(days: int) -> str:
    """The short key of a days-a-move clock in the lists of keyed clocks (challenges, tournaments, the API)."""
    return f"{days}d"


def correspondence_clocks() -> list[tuple[str, str, dict[str, Any]]]:
    """(key, label, clock) of each correspondence clock offered: ("3d", "3 days a move", {...})."""
    return [(correspondence_key(d), clock_label(spec), spec)
            for d in CORRESPONDENCE_DAYS for spec in [clock_spec("days", days=d)]]


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
    (a clock per player) or each seat newly waited on starts a full turn (a limit per turn, days a move)."""
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


