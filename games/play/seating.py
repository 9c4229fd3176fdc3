"""The seats' changes, decided (pure, as games.play.decide): taken and given up before the start (the match dealt
once every seat is filled, or called off by its creator), and handed to a bot when a player left, then taken back.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from django.utils import timezone

from ..results import Termination
from .access import code_matches
from .bots import bot_due_at
from .clock import clock_due_at, clock_start, per_move
from .finish import closed
from .snapshot import Change, Player, ServiceError, Snapshot, State, Status, engine_of


def decide_join(snap: Snapshot, state: State, *, player: Player, invite_code: str | None = None,
                seat_index: int | None = None) -> Change:
    """Take a free seat: an open one from the lobby, or an invite-only one with the invite code."""
    if snap.status != Status.WAITING:
        raise ServiceError("This match is no longer waiting for players.")
    if snap.seat_of(player.user_id) is not None:
        raise ServiceError("You already have a seat in this match.")
    has_code = code_matches(invite_code, snap.invite_code)
    if not snap.is_public and not has_code:
        raise ServiceError("This match is private: you need its invite link.")
    free = [s for s in snap.seats if s.player is None and (has_code or not s.invite_only)]
    if seat_index is not None:
        free = [s for s in free if s.index == seat_index]
    if not free:
        raise ServiceError("There is no free seat for you in this match.")
    now = timezone.now()
    seats = list(snap.seats)
    seats[free[0].index] = replace(free[0], player=player, joined_at=now)
    after, new_state = start_if_full(replace(snap, version=snap.version + 1, seats=tuple(seats)), now)
    return Change(snap, after, state=new_state, seats_changed=True)


def start_if_full(snap: Snapshot, now: datetime) -> tuple[Snapshot, State | None]:
    """Deal the game once every seat has a player: (the snapshot, its state: None while not dealt)."""
    if snap.status != Status.WAITING or any(s.player is None for s in snap.seats):
        return snap, None
    engine = engine_of(snap)
    state = engine.new_game(snap.players, seed=snap.seed, options=snap.options)
    started = replace(snap, status=Status.ACTIVE, started_at=now, turn_started_at=now, state=engine.dump(state))
    if started.clock:
        started = replace(started, clock_left=clock_start(started))
    return replace(started, bot_due_at=bot_due_at(started, state), clock_due_at=clock_due_at(started, state)), state


def decide_leave(snap: Snapshot, state: State, *, user_id: int | None) -> Change:
    """Give up a seat before the match starts; the creator leaving cancels the match."""
    if snap.status != Status.WAITING:
        raise ServiceError("The match has started: resign instead.")
    seat = snap.seat_of(user_id)
    if seat is None:
        raise ServiceError("You have no seat in this match.")
    if seat.index == 0:
        after = replace(snap, version=snap.version + 1, status=Status.ABORTED, finished_at=timezone.now(),
                        result={"reason": Termination.CANCELLED, "scores": [], "winners": [], "draw": False})
        return Change(snap, after)
    seats = list(snap.seats)
    seats[seat.index] = replace(seat, player=None, joined_at=None)
    return Change(snap, replace(snap, version=snap.version + 1, seats=tuple(seats)), seats_changed=True)


def may_cancel(snap: Snapshot, user_id: int | None) -> bool:
    """Whether this person may call the match off: its creator (or whoever holds seat 1), while it waits."""
    seat = snap.seat_of(user_id)
    return (snap.status == Status.WAITING and user_id is not None
            and (user_id == snap.created_by_id or (seat is not None and seat.index == 0)))


def decide_cancel(snap: Snapshot, state: State, *, user_id: int | None) -> Change:
    """The creator calls off a match still waiting for players: it is in nobody's history or statistics."""
    if snap.status != Status.WAITING:
        raise ServiceError("Only a match still waiting for players can be cancelled; abort or resign instead.")
    if not may_cancel(snap, user_id):
        raise ServiceError("Only the match's creator can cancel it.")
    seat = snap.seat_of(user_id)
    return Change(snap, closed(snap, reason=Termination.CANCELLED, by=seat.index if seat else None))


def _log_length(snap: Snapshot, state: State) -> int:
    return len(engine_of(snap).view(state, None).get("log") or []) if state is not None else 0


def hand_to_bot(snap: Snapshot, state: State, index: int, bot: Player, *, why: str) -> Snapshot:
    """The seat is played by `bot` from the next move on; the record keeps who sat there and from when."""
    seats = list(snap.seats)
    seat = seats[index]
    seats[index] = replace(seat, substitute=bot)
    handover = {"seat": index, "name": seat.player.name if seat.player else "", "bot": bot.name,
                "move": snap.move_count + 1, "log": _log_length(snap, state), "why": why}
    after = replace(snap, version=snap.version + 1, seats=tuple(seats), handovers=[*snap.handovers, handover])
    return replace(after, bot_due_at=bot_due_at(after, state), clock_due_at=clock_due_at(after, state))


def decide_retake(snap: Snapshot, state: State, *, user_id: int | None) -> Change:
    """A player whose seat was handed to a bot comes back before the end and plays it again."""
    if snap.status != Status.ACTIVE:
        raise ServiceError("This match is not in progress.")
    seat = snap.seat_of(user_id)
    if seat is None or not seat.left:
        raise ServiceError("You have no seat to take back in this match.")
    seats = list(snap.seats)
    seats[seat.index] = replace(seat, substitute=None)
    handovers = [dict(h) for h in snap.handovers]
    for handover in reversed(handovers):
        if handover["seat"] == seat.index and "until_move" not in handover:
            handover.update(until_move=snap.move_count + 1, until_log=_log_length(snap, state))
            break
    after = replace(snap, version=snap.version + 1, seats=tuple(seats), handovers=handovers)
    if after.clock:
        left = list(after.clock_left)
        if per_move(after.clock):
            left[seat.index] = float(after.clock["seconds"])
        after = replace(after, clock_left=left)
    after = replace(after, bot_due_at=bot_due_at(after, state), clock_due_at=clock_due_at(after, state))
    return Change(snap, after, state=state, seats_changed=True)
