"""A match as a bot's seat sees it: the engine's view(state, seat), exactly what the table shows that seat, and
nothing else of the state (no other seat's hidden cards can get here: the view is the engine's own). Its legal
actions in the public notation of the engines' contract (ENGINES.md), the clocks, the version a move is fenced
by, the status and result."""

from __future__ import annotations

from typing import Any

from django.utils import timezone

from ..play.clock import clock_now
from ..play.decide import abort_allowed
from ..play.snapshot import SeatInfo, Snapshot, State, Status, engine_of


def player_json(seat: SeatInfo) -> dict[str, Any]:
    actor = seat.actor
    return {
        "seat": seat.index,
        "username": seat.player.username if seat.player else None,
        "name": seat.player.name if seat.player else None,
        "bot": bool(seat.player and (seat.player.is_bot or seat.player.program)),
        "played_by": actor.username if actor and seat.substitute else None,  # a built-in bot took the seat over
    }


def seat_state(snap: Snapshot, state: State | None, seat: int) -> dict[str, Any]:
    """What the API tells the player of `seat` about the match now."""
    engine = engine_of(snap)
    view = engine.view(state, seat) if state is not None else None
    to_act = list(engine.to_act(state)) if state is not None and snap.status == Status.ACTIVE else []
    legal = engine.legal_actions(state, seat) if seat in to_act and state is not None else []
    clock: dict[str, Any] | None = None
    if snap.clock:
        clock = {**snap.clock, "left": [round(x, 2) for x in clock_now(snap, state, timezone.now())]
                 if state is not None else list(snap.clock_left)}
    return {
        "id": snap.id,
        "game": snap.game,
        "status": snap.status,
        "rated": snap.rated,
        "version": snap.version,
        "moves": snap.move_count,
        "seat": seat,
        "players": [player_json(s) for s in snap.seats],
        "to_act": to_act,
        "your_turn": seat in to_act,
        "legal": legal,
        "clock": clock,
        "abort_allowed": abort_allowed(snap),
        "result": snap.result if snap.status in (Status.FINISHED, Status.ABORTED) else None,
        "view": view,
    }
