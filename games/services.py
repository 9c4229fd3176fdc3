"""Every change of a match: decided on a snapshot, written with the version as the only fence.

A change is decided by a pure function (`decide_*`) on a `Snapshot` of the match (its row, seats and
players), which gives a `Change`: the snapshot after it, and the move to append if it is one. `commit`
writes a batch of changes in one transaction, each as `UPDATE match ... WHERE id = ? AND version = ?`
plus its Move row; a change whose fence fails is not written, and its caller reloads and decides again.
Every change moves the version on, so a copy of the match that missed one can never write over it.

The live core (games/live.py) holds snapshots in memory and commits the moves that arrive together in
one batch. The plain functions at the end (`act`, `resign`, `join_match`, ...) load, decide and commit
in one call, for views, commands and tests; they return the fresh Match and tell live pages through
the channel layer (`publish`).
"""

from __future__ import annotations

import logging
import random
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from functools import partial
from typing import Any

import orjson
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings
from django.db import connection, transaction
from django.urls import reverse
from django.utils import timezone

from accounts.models import User

from . import models, selectors, stats
from .catalog import GAMES, ActionContext, clean_options, kit
from .engines import IllegalAction, get_engine
from .models import Match, Move, Seat
from .results import Termination

log = logging.getLogger(__name__)

# A socket counts for its seat while its heartbeat (every 15 s) is this recent: a process that died
# leaves rows behind that stop counting by themselves.
NOTES_KEPT = 16  # the recent bots' reasons a snapshot carries (rendering shows a turn's worth)


class ServiceError(Exception):
    """A request the site refuses, with a sentence for the person who made it."""


class MatchMovedOn(ServiceError):
    """The action was meant for an older position: someone else's action came first."""

    def __init__(
        self, message: str = "The game moved on before your action arrived; here is the current position."
    ) -> None:
        super().__init__(message)


@dataclass(frozen=True)
class SeatSpec:
    """How the creator wants a seat filled: "open" (anyone from the lobby), "invite" (the link), or "bot"."""

    kind: str
    level: str = ""


# ---------------------------------------------------------------------------------------------
# Snapshots


@dataclass(frozen=True)
class Player:
    """A seat's occupant as the pages show them: copied into the snapshot, so no page reads a user."""

    user_id: int
    username: str
    name: str
    avatar: str
    profile_url: str
    is_bot: bool
    bot_level: str

    @classmethod
    def of(cls, user: User) -> Player:
        return cls(user.pk, user.username, user.name, user.avatar_url, user.get_absolute_url(), bool(user.is_bot),
                   user.bot_level or "")


@dataclass(frozen=True)
class SeatInfo:
    index: int
    player: Player | None  # who sat here, on the record (a player who left stays the seat's player)
    invite_only: bool = False
    joined_at: datetime | None = None
    final_score: int | None = None
    place: int | None = None
    substitute: Player | None = None  # the bot playing the seat since its player left

    @property
    def user_id(self) -> int | None:
        return self.player.user_id if self.player else None

    @property
    def actor(self) -> Player | None:
        """Who plays the seat now."""
        return self.substitute or self.player

    @property
    def is_bot(self) -> bool:
        """Whether a bot plays the seat now."""
        actor = self.actor
        return bool(actor and actor.is_bot)

    @property
    def left(self) -> bool:
        """Whether its player left and a bot plays it."""
        return self.substitute is not None

    @property
    def is_person(self) -> bool:
        """A person sits here and plays the seat themselves."""
        return self.player is not None and not self.is_bot


@dataclass(frozen=True)
class Snapshot:
    """A match as the live core holds it: everything a change needs and every page shows."""

    id: int
    game: str
    players: int
    options: dict[str, Any]
    seed: int
    status: str
    version: int
    move_count: int  # Move rows so far; the next one is number move_count + 1
    state: Any  # the engine's dump(), or None before the deal
    is_public: bool
    rated: bool
    invite_code: str
    started_at: datetime | None
    finished_at: datetime | None
    turn_started_at: datetime | None
    bot_due_at: datetime | None
    result: dict[str, Any] | None
    rematch_votes: list[int]
    rematch_id: int | None
    seats: tuple[SeatInfo, ...]
    notes: tuple[tuple[int, str], ...] = ()  # (seat, bot's reason) of the latest moves, oldest first
    created_by_id: int | None = None
    rematch_declined: int | None = None
    handovers: list[dict[str, Any]] = field(default_factory=list)
    moved: tuple[int, ...] = ()  # the seats that made at least one move
    clock: dict[str, Any] = field(default_factory=dict)
    clock_left: list[float] = field(default_factory=list)  # seconds each seat had at turn_started_at
    clock_due_at: datetime | None = None

    @property
    def pk(self) -> int:
        return self.id

    def seat(self, index: int) -> SeatInfo | None:
        return self.seats[index] if 0 <= index < len(self.seats) else None

    def seat_of(self, user_id: int | None) -> SeatInfo | None:
        """The seat a person holds (people hold at most one)."""
        return next((s for s in self.seats if user_id is not None and s.user_id == user_id), None)

    def may_watch(self, user_id: int | None, code: str) -> bool:
        return selectors.may_watch(is_public=self.is_public, seated=self.seat_of(user_id) is not None,
                                   invite_code=self.invite_code, given=code)

    def to_json(self) -> bytes:
        return orjson.dumps(self, default=_plain)

    @classmethod
    def from_json(cls, data: bytes | str) -> Snapshot:
        raw = orjson.loads(data)
        seats = tuple(
            SeatInfo(
                index=s["index"], player=Player(**s["player"]) if s["player"] else None, invite_only=s["invite_only"],
                joined_at=_time(s["joined_at"]), final_score=s["final_score"], place=s["place"],
                substitute=Player(**s["substitute"]) if s["substitute"] else None,
            )
            for s in raw.pop("seats")
        )
        for name in ("started_at", "finished_at", "turn_started_at", "bot_due_at", "clock_due_at"):
            raw[name] = _time(raw[name])
        raw["notes"] = tuple((seat, note) for seat, note in raw["notes"])
        raw["moved"] = tuple(raw["moved"])
        return cls(**raw, seats=seats)


def _plain(value: Any) -> Any:
    if isinstance(value, tuple):
        return list(value)
    raise TypeError(type(value))


def _time(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value) if value else None


def snapshot_of(
    match: Match, seats: list[Seat], notes: tuple[tuple[int, str], ...] = (), moved: tuple[int, ...] = (),
) -> Snapshot:
    return Snapshot(
        id=match.pk, game=match.game, players=match.players, options=match.options or {}, seed=match.seed,
        status=match.status, version=match.version, move_count=match.move_count, state=match.state,
        is_public=match.is_public,
        rated=match.rated, invite_code=match.invite_code, started_at=match.started_at,
        finished_at=match.finished_at, turn_started_at=match.turn_started_at, bot_due_at=match.bot_due_at,
        result=match.result, rematch_votes=list(match.rematch_votes or []), rematch_id=match.rematch_id,
        seats=tuple(
            SeatInfo(s.index, Player.of(s.user) if s.user else None, s.invite_only, s.joined_at, s.final_score,
                     s.place, Player.of(s.substitute) if s.substitute else None)
            for s in seats
        ),
        notes=notes, created_by_id=match.created_by_id, rematch_declined=match.rematch_declined,
        handovers=list(match.handovers or []), moved=moved, clock=dict(match.clock or {}),
        clock_left=list(match.clock_left or []), clock_due_at=match.clock_due_at,
    )


def load(match_id: int) -> Snapshot | None:
    """The match as it is in the database now (four queries), or None if there is no such match."""
    match = Match.objects.filter(pk=match_id).first()
    if match is None:
        return None
    seats = list(Seat.objects.filter(match_id=match_id).select_related("user", "substitute").order_by("index"))
    recent = list(Move.objects.filter(match_id=match_id).order_by("-number").values_list("seat", "note")[:NOTES_KEPT])
    moved = tuple(sorted(Move.objects.filter(match_id=match_id).order_by().values_list("seat", flat=True).distinct()))
    return snapshot_of(match, seats, tuple(reversed(recent)), moved)


# ---------------------------------------------------------------------------------------------
# Changes


@dataclass
class Change:
    """A decided change: the snapshot after it and what else to write with it."""

    before: Snapshot
    after: Snapshot
    move: tuple[int, Any, str] | None = None  # (seat, action, note)
    seats_changed: bool = False
    make_rematch: bool = False
    # Set by commit when the fence held.
    written: bool = field(default=False, init=False)


def engine_of(snap: Snapshot) -> Any:
    return get_engine(snap.game)


def decide_move(
    snap: Snapshot, state: Any, *, seat: int, action: Any, user_id: int | None = None,
    expected_version: int | None = None, note: str = "", now: datetime | None = None,
) -> tuple[Change, Any]:
    """A seat's action checked against the state: (the change, the engine's new state).

    user_id is the person acting (None for a bot's move, which the caller chose for a bot seat).
    Raises ServiceError, MatchMovedOn or IllegalAction, and never changes `snap` or `state`."""
    if snap.status != Match.Status.ACTIVE:
        raise ServiceError("This match is not in progress.")
    holder = snap.seat(seat)
    if user_id is not None and (holder is None or holder.user_id != user_id or holder.is_bot):
        raise ServiceError("You can only act for your own seat.")
    if expected_version is not None and expected_version != snap.version:
        raise MatchMovedOn()
    now = now or timezone.now()
    engine = engine_of(snap)
    # What the server decides itself, never the browser (the game's kit says which parts).
    action = kit(snap.game).prepare_action(action, ActionContext(snap.players, snap.started_at, now))
    new_state = engine.apply(state, seat, action)  # raises IllegalAction, state untouched
    after = replace(
        snap, version=snap.version + 1, move_count=snap.move_count + 1, state=engine.dump(new_state),
        turn_started_at=now,
        rematch_votes=[], notes=(*snap.notes, (seat, note[:200]))[-NOTES_KEPT:],
        moved=snap.moved if seat in snap.moved else tuple(sorted((*snap.moved, seat))),
    )
    if snap.clock:
        after = _run_clock(snap, state, after, new_state, mover=seat, now=now)
    change = Change(snap, after, move=(seat, action, note[:200]))
    if engine.is_over(new_state):
        _finish(change, engine.result(new_state), reason=Termination.NORMAL, now=now)
    else:
        change.after = replace(after, bot_due_at=bot_due_at(after, new_state))
    return change, new_state


# ---------------------------------------------------------------------------------------------
# Lifecycle: cancel, abort, seats handed to bots and taken back, clocks


def abort_allowed(snap: Snapshot) -> bool:
    """A match may be aborted (ended unrated, on the record as aborted) until every person in it has moved;
    from then on it can only be resigned."""
    return snap.status == Match.Status.ACTIVE and any(
        s.is_person and s.index not in snap.moved for s in snap.seats)


def _closed(snap: Snapshot, *, reason: Termination, by: int | None) -> Snapshot:
    return replace(snap, version=snap.version + 1, status=Match.Status.ABORTED, finished_at=timezone.now(),
                   bot_due_at=None, clock_due_at=None,
                   result={"reason": reason, "by": by, "scores": [], "winners": [], "draw": False})


def decide_cancel(snap: Snapshot, *, user_id: int | None) -> Change:
    """The creator calls off a match still waiting for players: it is in nobody's history or statistics."""
    if snap.status != Match.Status.WAITING:
        raise ServiceError("Only a match still waiting for players can be cancelled; abort or resign instead.")
    seat = snap.seat_of(user_id)
    if user_id is None or not (user_id == snap.created_by_id or (seat is not None and seat.index == 0)):
        raise ServiceError("Only the match's creator can cancel it.")
    return Change(snap, _closed(snap, reason=Termination.CANCELLED, by=seat.index if seat else None))


def decide_abort(snap: Snapshot, *, user_id: int | None) -> Change:
    """Any seated person ends the match unrated before everyone has made their first move."""
    seat = snap.seat_of(user_id)
    if seat is None or not seat.is_person:
        raise ServiceError("Only a player of this match can abort it.")
    if not abort_allowed(snap):
        raise ServiceError("Everyone has moved: the match can no longer be aborted (you may resign).")
    return Change(snap, _closed(snap, reason=Termination.ABORTED, by=seat.index))


def _log_length(snap: Snapshot, state: Any) -> int:
    return len(engine_of(snap).view(state, None).get("log") or []) if state is not None else 0


def _hand_to_bot(snap: Snapshot, state: Any, index: int, bot: Player, *, why: str) -> Snapshot:
    """The seat is played by `bot` from the next move on; the record keeps who sat there and from when."""
    seats = list(snap.seats)
    seat = seats[index]
    seats[index] = replace(seat, substitute=bot)
    handover = {"seat": index, "name": seat.player.name if seat.player else "", "bot": bot.name,
                "move": snap.move_count + 1, "log": _log_length(snap, state), "why": why}
    after = replace(snap, version=snap.version + 1, seats=tuple(seats), handovers=[*snap.handovers, handover])
    return replace(after, bot_due_at=bot_due_at(after, state), clock_due_at=clock_due_at(after, state))


def decide_retake(snap: Snapshot, state: Any, *, user_id: int | None) -> Change:
    """A player whose seat was handed to a bot comes back before the end and plays it again."""
    if snap.status != Match.Status.ACTIVE:
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
        if after.clock.get("kind") == "turn":
            left[seat.index] = float(after.clock["seconds"])
        after = replace(after, clock_left=left)
    after = replace(after, bot_due_at=bot_due_at(after, state), clock_due_at=clock_due_at(after, state))
    return Change(snap, after, seats_changed=True)


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


def _clock_start(snap: Snapshot) -> list[float]:
    full = snap.clock.get("base") if snap.clock.get("kind") == "fischer" else snap.clock.get("seconds")
    return [float(full or 0)] * snap.players


def clock_now(snap: Snapshot, state: Any, now: datetime | None = None) -> list[float]:
    """Each seat's seconds left at `now` (the seats the game waits on lose the time since turn_started_at)."""
    left = list(snap.clock_left)
    if not snap.clock or not left or snap.status != Match.Status.ACTIVE or snap.turn_started_at is None:
        return left
    elapsed = ((now or timezone.now()) - snap.turn_started_at).total_seconds()
    for index in must_act_of(snap, state):
        if index < len(left):
            left[index] = max(0.0, left[index] - elapsed)
    return left


def _run_clock(before: Snapshot, before_state: Any, after: Snapshot, after_state: Any, *, mover: int | None,
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


def clock_due_at(snap: Snapshot, state: Any) -> datetime | None:
    """When the first person the game waits on runs out of time (bots are never flagged)."""
    if not snap.clock or snap.status != Match.Status.ACTIVE or state is None or not snap.clock_left:
        return None
    start = snap.turn_started_at or timezone.now()
    due = [start + timedelta(seconds=snap.clock_left[i]) for i in must_act_of(snap, state)
           if i < len(snap.clock_left) and snap.seats[i].is_person]
    return min(due) if due else None


def decide_timeout(snap: Snapshot, state: Any, *, bot: Player | None, now: datetime | None = None) -> Change | None:
    """A person whose time ran out: in a game of two (or solo) they lose; with more, a bot takes their seat
    (on the record, and a loss for them as when a player leaves). None if nobody's time is out."""
    now = now or timezone.now()
    if snap.clock_due_at is None or snap.clock_due_at > now or snap.status != Match.Status.ACTIVE:
        return None
    left = clock_now(snap, state, now)
    out = [i for i in sorted(must_act_of(snap, state)) if snap.seats[i].is_person and left[i] <= 0.05]
    if not out:
        return None
    snap = replace(snap, clock_left=[round(x, 3) for x in left], turn_started_at=now)
    persons = [s for s in snap.seats if s.is_person]
    if snap.players <= 2 or bot is None or len(persons) <= 1:
        change = end_with_loser(snap, out[0], reason=Termination.TIME)
        change.after = replace(change.after, clock_due_at=None)
        return change
    after = snap
    for index in out:
        after = _hand_to_bot(after, state, index, bot, why="time")
        after = replace(after, version=snap.version + 1)
    return Change(snap, after, seats_changed=True)


def decide_resign(snap: Snapshot, *, user_id: int | None) -> Change:
    if snap.status != Match.Status.ACTIVE:
        raise ServiceError("This match is not in progress.")
    seat = snap.seat_of(user_id)
    if seat is None or seat.is_bot:
        raise ServiceError("You have no seat in this match.")
    if abort_allowed(snap):
        raise ServiceError("Not everyone has moved yet: abort the match instead (it then counts for nothing).")
    return end_with_loser(snap, seat.index, reason=Termination.RESIGN)


def decide_claim(
    snap: Snapshot, state: Any, *, user_id: int | None, absent_seat: int, presence: dict[int, selectors.Presence],
    bot: Player | None = None,
) -> Change:
    """When a seated person has been away 60 s while the game waits on them: claim the win, or (with `bot`)
    hand their seat to that bot."""
    if snap.status != Match.Status.ACTIVE:
        raise ServiceError("This match is not in progress.")
    claimant = snap.seat_of(user_id)
    if claimant is None or claimant.is_bot:
        raise ServiceError("Only players of this match can claim it.")
    absent = snap.seat(absent_seat)
    if absent is None or absent.index == claimant.index or absent.player is None or absent.is_bot:
        raise ServiceError("That seat can't be claimed.")
    engine = engine_of(snap)
    if absent_seat not in engine.must_act(state):
        raise ServiceError("The game is not waiting on that player.")
    remaining = selectors.away_seconds_left(presence.get(absent_seat), snap.turn_started_at)
    if remaining > 0:
        raise ServiceError(f"{absent.player.name} may still come back: you can claim in {remaining} s.")
    if bot is None:
        return end_with_loser(snap, absent_seat, reason=Termination.ABANDON)
    return Change(snap, _hand_to_bot(snap, state, absent_seat, bot, why="away"), seats_changed=True)


def decide_rematch(snap: Snapshot, *, user_id: int | None) -> Change | None:
    """A vote for a rematch; None if this person's vote is already in (or the rematch made)."""
    if snap.status != Match.Status.FINISHED:
        raise ServiceError("A rematch can be asked for once the match is over.")
    seat = snap.seat_of(user_id)
    if seat is None or not seat.is_person:
        raise ServiceError("Only players of this match can ask for a rematch.")
    if snap.rematch_declined is not None:
        raise ServiceError("The rematch was declined.")
    if snap.rematch_id or seat.index in snap.rematch_votes:
        return None
    votes = sorted({*snap.rematch_votes, seat.index})
    humans = {s.index for s in snap.seats if s.is_person}
    after = replace(snap, version=snap.version + 1, rematch_votes=votes)
    return Change(snap, after, make_rematch=humans <= set(votes))


def decide_decline_rematch(snap: Snapshot, *, user_id: int | None) -> Change | None:
    """Turn down the rematch someone offered: the offer is closed, for everyone."""
    if snap.status != Match.Status.FINISHED:
        raise ServiceError("There is no rematch to decline.")
    seat = snap.seat_of(user_id)
    if seat is None or not seat.is_person:
        raise ServiceError("Only players of this match can decline a rematch.")
    if snap.rematch_id or snap.rematch_declined is not None:
        return None
    return Change(snap, replace(snap, version=snap.version + 1, rematch_declined=seat.index))


def decide_join(snap: Snapshot, *, player: Player, invite_code: str | None, seat_index: int | None) -> Change:
    if snap.status != Match.Status.WAITING:
        raise ServiceError("This match is no longer waiting for players.")
    if snap.seat_of(player.user_id) is not None:
        raise ServiceError("You already have a seat in this match.")
    has_code = selectors.code_matches(invite_code, snap.invite_code)
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
    after = _start_if_full(replace(snap, version=snap.version + 1, seats=tuple(seats)), now)
    return Change(snap, after, seats_changed=True)


def decide_leave(snap: Snapshot, *, user_id: int | None) -> Change:
    """Give up a seat before the match starts; the creator leaving cancels the match."""
    if snap.status != Match.Status.WAITING:
        raise ServiceError("The match has started: resign instead.")
    seat = snap.seat_of(user_id)
    if seat is None:
        raise ServiceError("You have no seat in this match.")
    if seat.index == 0:
        after = replace(snap, version=snap.version + 1, status=Match.Status.ABORTED, finished_at=timezone.now(),
                        result={"reason": Termination.CANCELLED, "scores": [], "winners": [], "draw": False})
        return Change(snap, after)
    seats = list(snap.seats)
    seats[seat.index] = replace(seat, player=None, joined_at=None)
    return Change(snap, replace(snap, version=snap.version + 1, seats=tuple(seats)), seats_changed=True)


def _start_if_full(snap: Snapshot, now: datetime) -> Snapshot:
    """Deal the game once every seat has a player."""
    if snap.status != Match.Status.WAITING or any(s.player is None for s in snap.seats):
        return snap
    engine = engine_of(snap)
    state = engine.new_game(snap.players, seed=snap.seed, options=snap.options)
    started = replace(snap, status=Match.Status.ACTIVE, started_at=now, turn_started_at=now, state=engine.dump(state))
    if started.clock:
        started = replace(started, clock_left=_clock_start(started))
    return replace(started, bot_due_at=bot_due_at(started, state), clock_due_at=clock_due_at(started, state))


def _places(scores: list[int], winners: list[int], lower_is_better: bool) -> list[int]:
    """1 for the winners, then by score (ties share a place)."""
    places = [0] * len(scores)
    others = [i for i in range(len(scores)) if i not in winners]
    for i in winners:
        places[i] = 1
    others.sort(key=lambda i: scores[i], reverse=not lower_is_better)
    place = len(winners) + 1
    for rank, i in enumerate(others):
        if rank > 0 and scores[i] != scores[others[rank - 1]]:
            place = len(winners) + 1 + rank
        places[i] = place
    return places


def _finish(change: Change, result: dict[str, Any], *, reason: Termination, now: datetime) -> None:
    """Close the match with its result: seat scores and places; the statistics follow in commit."""
    snap = change.after
    scores = list(result.get("scores", []))
    winners = list(result.get("winners", []))
    lower = GAMES[snap.game].lower_is_better
    # A player who left loses, whatever the bot in their seat achieved; the others' results come from play.
    left = [s.index for s in snap.seats if s.left]
    if left and snap.players > 1:
        result = {**result, "left": left}
        stayed = [i for i in range(snap.players) if i not in left]
        kept = [w for w in winners if w not in left]
        if not kept and stayed and scores and reason == Termination.NORMAL:
            best = (min if lower else max)(scores[i] for i in stayed)
            kept = [i for i in stayed if scores[i] == best]
        elif not kept and stayed and reason == Termination.NORMAL:
            kept = stayed
        winners = kept
        result["winners"] = winners
        result["draw"] = False if len(winners) <= 1 else bool(result.get("draw"))
    places = _places(scores, winners, lower) if scores else [1 if i in winners or not winners else 2
                                                                 for i in range(snap.players)]
    if left and snap.players > 1:
        last = max((places[i] for i in range(snap.players) if i not in left), default=0) + 1
        places = [last if i in left else place for i, place in enumerate(places)]
    seats = tuple(replace(s, final_score=scores[s.index] if scores else None, place=places[s.index])
                  for s in snap.seats)
    change.after = replace(snap, status=Match.Status.FINISHED, finished_at=now, bot_due_at=None, clock_due_at=None,
                           seats=seats, result={**(snap.result or {}), **result, "reason": reason})
    change.seats_changed = True


def end_with_loser(snap: Snapshot, loser: int, *, reason: Termination) -> Change:
    """The match ends now with this seat the loser (resigned, out of time, abandoned, suspended)."""
    engine = engine_of(snap)
    scores = engine.scores(engine.load(snap.state))
    winners = [i for i in range(snap.players) if i != loser and not snap.seats[i].left]
    change = Change(snap, replace(snap, version=snap.version + 1))
    _finish(change, {"scores": scores, "winners": winners, "draw": False, "loser": loser}, reason=reason,
            now=timezone.now())
    return change


# ---------------------------------------------------------------------------------------------
# Bots


def _reaction_delay(game: str, level: str) -> float:
    return float(kit(game).reaction_delay.get(level, settings.GAMES_BOT_DELAY))


def bot_delay(snap: Snapshot, state: Any, seat: int, must: bool) -> float:
    """How long a bot seat waits: a short pause for its turn (longer where its bots ask for patience,
    e.g. to leave a person time for a card action), its level's reaction time for an optional move."""
    actor = snap.seats[seat].actor
    if not must:
        return _reaction_delay(snap.game, actor.bot_level if actor else "")
    delay = settings.GAMES_BOT_DELAY
    patience = kit(snap.game).patience
    if patience is not None and any(s.is_person for s in snap.seats):
        delay = max(delay, patience(engine_of(snap).view(state, seat)))
    return delay


def bot_due_at(snap: Snapshot, state: Any) -> datetime | None:
    """When a bot seat should next be asked to act; None when no bot is to act."""
    engine = engine_of(snap)
    if snap.status != Match.Status.ACTIVE or engine.is_over(state):
        return None
    bots = {s.index for s in snap.seats if s.is_bot}
    if not bots:
        return None
    start = snap.turn_started_at or timezone.now()
    must = set(engine.must_act(state))
    due = [start + timedelta(seconds=bot_delay(snap, state, seat, seat in must))
           for seat in engine.to_act(state) if seat in bots]
    return min(due) if due else None


def decide_bot_turn(snap: Snapshot, state: Any, now: datetime | None = None) -> tuple[Change, Any] | None:
    """Let the first due bot seat act once; None when none is due (the change then only reschedules).

    Its action comes from the bot, which sees only that seat's view and legal actions; a bot that fails or
    answers illegally plays a random legal action instead, so a bot bug never stops a match."""
    now = now or timezone.now()
    if snap.status != Match.Status.ACTIVE or snap.bot_due_at is None or snap.bot_due_at > now:
        return None
    engine = engine_of(snap)
    bots = {s.index: s.actor.bot_level for s in snap.seats if s.actor and s.is_bot}
    must = set(engine.must_act(state))
    started = snap.turn_started_at or now
    for seat in sorted((s for s in engine.to_act(state) if s in bots), key=lambda s: (s not in must, s)):
        if started + timedelta(seconds=bot_delay(snap, state, seat, seat in must)) > now:
            continue
        level = bots[seat]
        rng = random.Random(f"{snap.seed}:{snap.move_count}:{seat}")
        legal = engine.legal_actions(state, seat)
        try:
            action, reason = kit(snap.game).bots[level](engine.view(state, seat), legal, rng)
        except Exception:  # a bot bug must not stop the match
            log.exception("bot %s failed in match %s", level, snap.id)
            action, reason = (rng.choice(legal), "plays at random") if legal else (None, "")
        if action is None:
            continue
        try:
            return decide_move(snap, state, seat=seat, action=action, note=reason, now=now)
        except IllegalAction as error:
            log.error("bot %s chose an illegal action in match %s: %s", level, snap.id, error)
            if legal:
                return decide_move(snap, state, seat=seat, action=rng.choice(legal), note="plays at random", now=now)
    return None


def bot_player(slug: str, level: str) -> Player:
    return Player.of(bot_user(slug, level))


def bot_user(slug: str, level: str) -> Any:
    from django.contrib.auth import get_user_model

    from .bots_accounts import bot_username, ensure_bot_accounts

    user_model = get_user_model()
    for attempt in range(2):
        try:
            return user_model.objects.get(username=bot_username(slug, level), is_bot=True)
        except user_model.DoesNotExist:
            if attempt == 0:
                ensure_bot_accounts()
    raise ServiceError(f"There is no {level} bot for {GAMES[slug].name}.")


# ---------------------------------------------------------------------------------------------
# Writing


# The match columns a change may write (everything else is fixed at creation).
ROW_FIELDS = ("status", "version", "move_count", "state", "started_at", "finished_at", "turn_started_at", "bot_due_at",
              "result", "rematch_votes", "rematch_id", "rematch_declined", "handovers", "clock_left", "clock_due_at")


def commit(changes: list[Change]) -> None:
    """Write changes of different matches in one transaction; each is written only if its fence holds
    (its `written` says so). A change that fails on the way (a bug, a constraint) is rolled back alone."""
    now = timezone.now()
    moves = [change for change in changes if _is_plain_move(change)]
    with transaction.atomic():
        _write_moves(moves, now)
        for change in changes:
            if _is_plain_move(change):
                continue
            try:
                with transaction.atomic():  # a savepoint: one bad change does not undo the others
                    change.written = _write(change, now)
            except Exception:
                log.exception("change of match %s could not be written", change.before.id)
                change.written = False


def _is_plain_move(change: Change) -> bool:
    """A move that changes no seat and ends nothing: most of what a live match writes."""
    return (change.move is not None and not change.seats_changed and not change.make_rematch
            and change.after.status == change.before.status == Match.Status.ACTIVE)


# The columns a plain move changes, and the statements that write it. Plain SQL with each field's own
# conversion: building the ORM's UPDATE and INSERT cost several times the writes themselves (commit() of a
# batch of 10 Gomori moves on SQLite: 1.35 ms a move through the ORM, 0.15 ms so).
_MOVE_COLUMNS = ("version", "move_count", "state", "turn_started_at", "bot_due_at", "rematch_votes", "clock_left",
                 "clock_due_at", "updated_at")


_JSON_COLUMNS = frozenset({"state", "rematch_votes", "clock_left"})


def _json_text(value: Any) -> str:
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()


def _json_param(value: Any) -> Any:
    """A JSON column's value, encoded by orjson: the state is most of what a move writes, and the standard
    library's encoder was a tenth of a move's cost at 100 matches."""
    if connection.vendor == "postgresql":
        from psycopg.types.json import Jsonb

        return Jsonb(value, dumps=_json_text)
    return _json_text(value)


def _write_moves(changes: list[Change], now: datetime) -> None:
    if not changes:
        return
    ops = connection.ops
    match_fields = {f.name: f for f in Match._meta.concrete_fields}
    sets = ", ".join(f"{ops.quote_name(match_fields[name].column or name)} = %s" for name in _MOVE_COLUMNS)
    update = f"UPDATE {ops.quote_name(Match._meta.db_table)} SET {sets} WHERE id = %s AND version = %s"
    insert = (f"INSERT INTO {ops.quote_name(Move._meta.db_table)} (match_id, number, seat, action, note, created_at) "
              "VALUES (%s, %s, %s, %s, %s, %s)")
    stamp = match_fields["updated_at"].get_db_prep_save(now, connection)
    rows = []
    with connection.cursor() as cursor:
        for change in changes:
            after = change.after
            values = [_json_param(getattr(after, name)) if name in _JSON_COLUMNS
                      else match_fields[name].get_db_prep_save(getattr(after, name), connection)
                      for name in _MOVE_COLUMNS[:-1]]
            cursor.execute(update, [*values, stamp, after.id, change.before.version])
            change.written = cursor.rowcount == 1
            if change.written:
                seat, action, note = change.move  # type: ignore[misc]
                rows.append([after.id, after.move_count, seat, _json_param(action), note, stamp])
        if rows:
            cursor.executemany(insert, rows)


def _write(change: Change, now: datetime) -> bool:
    after = change.after
    if change.make_rematch:
        after = change.after = replace(after, rematch_id=_create_rematch(change.before).pk)
    values = {name: getattr(after, name) for name in ROW_FIELDS}
    if not Match.objects.filter(pk=after.id, version=change.before.version).update(**values, updated_at=now):
        if change.make_rematch:
            raise _FenceFailed  # undo the rematch made above (the savepoint rolls back)
        return False
    if change.move is not None:
        seat, action, note = change.move
        Move.objects.create(match_id=after.id, number=after.move_count, seat=seat, action=action, note=note)
    if change.seats_changed:
        for old, new in zip(change.before.seats, after.seats, strict=True):
            if old != new:
                Seat.objects.filter(match_id=after.id, index=new.index).update(
                    user_id=new.user_id, joined_at=new.joined_at, final_score=new.final_score, place=new.place,
                    substitute_id=new.substitute.user_id if new.substitute else None,
                )
    if after.status == Match.Status.FINISHED and change.before.status != Match.Status.FINISHED:
        stats.record_finished(Match.objects.get(pk=after.id))
    return True


class _FenceFailed(Exception):
    pass


def _create_rematch(old: Snapshot) -> Match:
    """The next game of a finished match: same players, seats rotated, a new seed, dealt at once."""
    rematch = Match.objects.create(
        game=old.game, players=old.players, options=old.options, seed=secrets.randbits(48),
        is_public=old.is_public, rated=old.rated, created_by_id=old.seats[0].user_id, clock=old.clock,
    )
    now = timezone.now()
    for seat in old.seats:  # a player who left is not asked back: the bot that finished their game is
        Seat.objects.create(match=rematch, index=(seat.index + 1) % old.players,
                            user_id=seat.actor.user_id if seat.actor else None, joined_at=now)
    _deal(rematch.pk)
    return rematch


def _deal(match_id: int) -> None:
    """Start a match created with every seat filled (its first state, version 0)."""
    snap = load(match_id)
    assert snap is not None
    started = _start_if_full(snap, timezone.now())
    if started is not snap:
        Match.objects.filter(pk=match_id).update(**{name: getattr(started, name) for name in ROW_FIELDS})


# ---------------------------------------------------------------------------------------------
# Presence: one row per open socket of a seat, outside the match row


def presence_open(*, match_id: int, seat: int | None, socket: str) -> None:
    """A socket opened on the match: a seat's (seat None: a spectator's, counted as watching)."""
    now = timezone.now()
    models.Presence.objects.update_or_create(
        socket=socket, defaults={"match_id": match_id, "seat": seat, "last_seen": now}
    )
    if seat is not None:
        Seat.objects.filter(match_id=match_id, index=seat).update(last_seen=now)


def presence_close(*, match_id: int, seat: int | None, socket: str) -> None:
    """A socket closed; for a seat, the abandonment clock runs from now."""
    models.Presence.objects.filter(socket=socket).delete()
    if seat is not None:
        Seat.objects.filter(match_id=match_id, index=seat).update(last_seen=timezone.now())


def presence_beat(*, socket: str) -> None:
    models.Presence.objects.filter(socket=socket).update(last_seen=timezone.now())


# ---------------------------------------------------------------------------------------------
# One change at a time, from sync code (views, commands, tests)


def publish(snap: Snapshot, before: Snapshot | None = None) -> None:
    """Tell every process holding this match (and the lobby, and whoever's turn it has become) about its new
    version; after the commit."""
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(match_group(snap.id), changed_message(snap))
        async_to_sync(layer.group_send)(LOBBY_GROUP, {"type": "lobby.changed"})
        for group, message in turn_cues(snap, must_act_of(before), must_act_of(snap)):
            async_to_sync(layer.group_send)(group, message)
    except Exception:  # a lost message must never undo a committed change: pages catch up on reconnect
        log.exception("could not announce match %s", snap.id)


def must_act_of(snap: Snapshot | None, state: Any = None) -> set[int]:
    """The seats the game waits on (none unless the match is in progress)."""
    if snap is None or snap.status != Match.Status.ACTIVE or snap.state is None:
        return set()
    engine = engine_of(snap)
    return set(engine.must_act(state if state is not None else engine.load(snap.state)))


def turn_cues(snap: Snapshot, before: set[int], after: set[int], at_table: frozenset[int] = frozenset(),
              ) -> list[tuple[str, dict[str, Any]]]:
    """The "your turn" cues of a change: to each person whose turn it has just become, unless they are at the
    table already (the table says it)."""
    cues = []
    for index in sorted(after - before - at_table):
        seat = snap.seat(index)
        if seat is not None and seat.player is not None and not seat.is_bot:
            cues.append((user_group(seat.player.user_id), {
                "type": "turn.cue", "match": snap.id, "url": reverse("match", args=[snap.id]),
                "game": GAMES[snap.game].name}))
    return cues


LOBBY_GROUP = "lobby"


def user_group(user_id: int) -> str:
    """The group of one person's sockets (session checks, "your turn" cues)."""
    return f"user-{user_id}"


def match_group(match_id: int) -> str:
    """The group of the processes holding a live copy of this match."""
    return f"live-{match_id}"


def changed_message(snap: Snapshot) -> dict[str, Any]:
    return {"type": "match.changed", "id": snap.id, "version": snap.version, "data": snap.to_json().decode()}


def run_change(match_id: int, decide: Callable[[Snapshot], Change | None], attempts: int = 20) -> Snapshot:
    """Load, decide and commit one change; if another change came first (the fence failed), decide again
    on the new version. Returns the snapshot after it (the current one when there was nothing to do)."""
    for _ in range(attempts):
        snap = load(match_id)
        if snap is None:
            raise ServiceError("There is no such match.")
        change = decide(snap)
        if change is None:
            return snap
        commit([change])
        if change.written:
            transaction.on_commit(partial(publish, change.after, snap))
            return change.after
    raise ServiceError("The match is too busy right now: try again.")


def _state(snap: Snapshot) -> Any:
    """The engine's state of a snapshot (None before the deal)."""
    return engine_of(snap).load(snap.state) if snap.state is not None else None


def _fresh(snap: Snapshot) -> Match:
    return Match.objects.get(pk=snap.id)


def create_match(
    *,
    creator: User,
    game: str,
    players: int,
    seats: list[SeatSpec],
    options: dict[str, Any] | None = None,
    is_public: bool = True,
    rated: bool = True,
    seed: int | None = None,
    first_seat_bot: str = "",
    clock: dict[str, Any] | None = None,
) -> Match:
    """A new match with the creator in seat 0 and the other seats as asked; it starts once all are filled.

    With `first_seat_bot` (a bot level) a bot takes seat 0 instead and the creator watches: with bots in
    every other seat too, that is a bot-against-bot match."""
    if game not in GAMES:
        raise ServiceError("Choose one of the four games.")
    engine = get_engine(game)
    if not engine.min_players <= players <= engine.max_players:
        raise ServiceError(f"{engine.name} is for {engine.min_players} to {engine.max_players} players.")
    if len(seats) != players - 1:
        raise ServiceError("Say how each other seat is to be filled.")
    try:
        clean = clean_options(game, options or {})
    except ValueError as error:
        raise ServiceError(str(error)) from None
    if any(spec.kind not in {"open", "invite", "bot"} for spec in seats):
        raise ServiceError("A seat is open, by invitation, or a bot.")
    if creator.is_bot:
        raise ServiceError("Bots don't create matches.")
    with transaction.atomic():
        match = Match.objects.create(
            game=game, players=players, options=clean, seed=seed if seed is not None else secrets.randbits(48),
            is_public=is_public, rated=rated, created_by=creator, clock=clock or {},
        )
        now = timezone.now()
        first = bot_user(game, first_seat_bot) if first_seat_bot else creator
        Seat.objects.create(match=match, index=0, user=first, joined_at=now)
        for index, spec in enumerate(seats, start=1):
            user = bot_user(game, spec.level) if spec.kind == "bot" else None
            Seat.objects.create(match=match, index=index, user=user, joined_at=now if user else None,
                                invite_only=spec.kind == "invite")
        _deal(match.pk)
        snap = load(match.pk)
        assert snap is not None
        transaction.on_commit(lambda: publish(snap))
    return _fresh(snap)


def join_match(*, match_id: int, user: User, invite_code: str | None = None, seat_index: int | None = None) -> Match:
    """Take a free seat: an open one from the lobby, or an invite-only one with the invite code."""
    if not user.is_authenticated:
        raise ServiceError("Sign in to take a seat.")
    player = Player.of(user)
    with transaction.atomic():
        snap = run_change(match_id, lambda s: decide_join(s, player=player, invite_code=invite_code,
                                                           seat_index=seat_index))
    return _fresh(snap)


def leave_match(*, match_id: int, user: User) -> Match:
    with transaction.atomic():
        return _fresh(run_change(match_id, lambda s: decide_leave(s, user_id=user.pk)))


def act(*, match_id: int, user: User, seat: int, action: Any, expected_version: int | None = None) -> Match:
    """A person's action for their seat, checked by the engine against the current state."""
    user_id = getattr(user, "pk", None)
    if user_id is None:
        raise ServiceError("You can only act for your own seat.")
    with transaction.atomic():
        snap = run_change(match_id, lambda s: decide_move(s, _state(s), seat=seat, action=action, user_id=user_id,
                                                          expected_version=expected_version)[0])
    return _fresh(snap)


def resign(*, match_id: int, user: User) -> Match:
    """Give up: the others win. Always possible while the match is on."""
    with transaction.atomic():
        return _fresh(run_change(match_id, lambda s: decide_resign(s, user_id=getattr(user, "pk", None))))


def claim_abandoned(*, match_id: int, user: User, absent_seat: int, take_over_with_bot: bool = False) -> Match:
    """When a seated person has been away 60 s while the game waits on them: claim the win or seat a bot."""

    def decide(snap: Snapshot) -> Change:
        bot = bot_player(snap.game, kit(snap.game).takeover_level) if take_over_with_bot else None
        return decide_claim(snap, _state(snap), user_id=getattr(user, "pk", None),
                            absent_seat=absent_seat, presence=selectors.presence_of(match_id), bot=bot)

    with transaction.atomic():
        return _fresh(run_change(match_id, decide))


def cancel_match(*, match_id: int, user: User) -> Match:
    """The creator calls off a match still waiting for players."""
    with transaction.atomic():
        return _fresh(run_change(match_id, lambda s: decide_cancel(s, user_id=getattr(user, "pk", None))))


def abort_match(*, match_id: int, user: User) -> Match:
    """A player ends the match unrated before everyone has moved."""
    with transaction.atomic():
        return _fresh(run_change(match_id, lambda s: decide_abort(s, user_id=getattr(user, "pk", None))))


def abandon_match(*, match_id: int, user: User) -> Match:
    """Walk away from a match against bots from "Your matches": aborted while that is allowed, else resigned
    (a loss, as a player who leaves a game gets)."""
    snap = load(match_id)
    if snap is None:
        raise ServiceError("There is no such match.")
    seat = snap.seat_of(getattr(user, "pk", None))
    if seat is None or not seat.is_person:
        raise ServiceError("You have no seat in this match.")
    if any(s.is_person for s in snap.seats if s.index != seat.index):
        raise ServiceError("Only matches against bots can be abandoned from the list: resign at the table.")
    if snap.status == Match.Status.WAITING:
        return cancel_match(match_id=match_id, user=user)
    if abort_allowed(snap):
        return abort_match(match_id=match_id, user=user)
    return resign(match_id=match_id, user=user)


def retake_seat(*, match_id: int, user: User) -> Match:
    """Take back a seat a bot has played since its player left."""
    with transaction.atomic():
        return _fresh(run_change(match_id, lambda s: decide_retake(s, _state(s), user_id=getattr(user, "pk", None))))


def decline_rematch(*, match_id: int, user: User) -> Match:
    with transaction.atomic():
        return _fresh(run_change(match_id, lambda s: decide_decline_rematch(s, user_id=getattr(user, "pk", None))))


def check_clock(*, match_id: int) -> Snapshot:
    """Flag whoever's time ran out (the bot runner's job; any process may do it: the fence keeps it once)."""

    def decide(snap: Snapshot) -> Change | None:
        bot = bot_player(snap.game, kit(snap.game).takeover_level) if snap.players > 2 else None
        return decide_timeout(snap, _state(snap), bot=bot) if snap.state is not None else None

    with transaction.atomic():
        return run_change(match_id, decide)


def offer_rematch(*, match_id: int, user: User) -> Match | None:
    """Ask for a rematch; once every person in the match has asked, it is created: same players, seats rotated.
    Returns the rematch once it exists."""
    with transaction.atomic():
        snap = run_change(match_id, lambda s: decide_rematch(s, user_id=getattr(user, "pk", None)))
    return Match.objects.get(pk=snap.rematch_id) if snap.rematch_id else None


def play_bot_turn(*, match_id: int, expected_version: int) -> bool:
    """Let the due bot seats act once. Harmless when another process got there first (version check)."""
    snap = load(match_id)
    if snap is None or snap.version != expected_version:
        return False
    decided = decide_bot_turn(snap, _state(snap)) if snap.state is not None else None
    if decided is None:
        return False
    change = decided[0]
    with transaction.atomic():
        commit([change])
        if change.written:
            transaction.on_commit(lambda: publish(change.after, snap))
    return change.written


@dataclass(frozen=True)
class Imported:
    """A match replayed from an exported file (games.replay checked every action), ready to be stored."""

    game: str
    players: int
    seed: int
    options: dict[str, Any]
    state: dict[str, Any]  # the replayed final position, dumped
    actions: list[tuple[int, Any]]  # (seat, action), in order
    users: list[Any]
    is_public: bool
    rated: bool
    creator: User
    started_at: datetime
    outcome: dict[str, Any] | None  # the engine's result, or None when the file records a loser
    loser: int | None
    reason: Termination


def store_imported(imported: Imported) -> Match:
    """Store an imported match finished: with the engine's outcome, or with the recorded loser."""
    now = timezone.now()
    moves = len(imported.actions)
    with transaction.atomic():
        match = Match.objects.create(
            game=imported.game, players=imported.players, options=imported.options, seed=imported.seed,
            status=Match.Status.ACTIVE, state=imported.state, version=moves, move_count=moves,
            is_public=imported.is_public, rated=imported.rated, created_by=imported.creator,
            started_at=imported.started_at, turn_started_at=now,
        )
        Seat.objects.bulk_create(
            Seat(match=match, index=index, user=user, joined_at=now) for index, user in enumerate(imported.users)
        )
        Move.objects.bulk_create(
            Move(match=match, number=number, seat=seat, action=action)
            for number, (seat, action) in enumerate(imported.actions, start=1)
        )
        snap = load(match.pk)
        assert snap is not None
        if imported.outcome is not None:
            change = Change(snap, replace(snap, version=snap.version + 1))
            _finish(change, imported.outcome, reason=Termination.NORMAL, now=now)
        else:
            assert imported.loser is not None
            change = end_with_loser(snap, imported.loser, reason=imported.reason)
        _write(change, now)
    return Match.objects.get(pk=match.pk)


def set_public(*, match_id: int, is_public: bool) -> None:
    """An administrator makes a match public or private; the history's copies of the flag follow.

    Only the flag is written: a whole-row save would write back a state read before the latest move."""
    with transaction.atomic():
        Match.objects.filter(pk=match_id).update(is_public=is_public)
        models.FinishedMatch.objects.filter(match_id=match_id).update(is_public=is_public)
        models.PlayerResult.objects.filter(match_id=match_id).update(is_public=is_public)


def player_changed(*, user_id: int) -> None:
    """A player's name or picture changed: their live tables redraw it (no match row is touched)."""
    live = (Match.Status.WAITING, Match.Status.ACTIVE)
    ids = list(Match.objects.filter(status__in=live, seats__user_id=user_id).values_list("pk", flat=True).distinct())
    layer = get_channel_layer()
    if layer is None or not ids:
        return
    from django.contrib.auth import get_user_model

    player = Player.of(get_user_model().objects.get(pk=user_id))
    for match_id in ids:
        message = {"type": "match.player", "id": match_id, "player": orjson.dumps(player).decode()}
        transaction.on_commit(partial(async_to_sync(layer.group_send), match_group(match_id), message))
