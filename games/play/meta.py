"""What every viewer of a match may know about the match itself (its players, their presence and clocks, its
status, its result), typed: TableMeta, made from a snapshot once per update and shared by its sockets.

Each field says which of the page's fragments it redraws (`redraws`): games.play.display compares, for each
fragment, the values of the fields that redraw it (and what the fragment draws from the view), so a field added
here redraws what it names and is never silently left out.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from datetime import datetime, timedelta
from operator import attrgetter
from typing import Any

from django.urls import reverse
from django.utils import timezone

from ..catalog import GAMES
from .clock import clock_now, is_correspondence
from .decide import abort_allowed
from .seating import may_cancel
from .snapshot import AWAY, Presence, Snapshot, State, Status, claim_deadline, must_act_of, state_of
from .wording import distinct_names

FRAGMENTS = ("players", "status", "board", "hand", "log", "error")
BOT_REASONS = 4  # at most this many of a bot's reasons for its latest turn


def redraws(*fragments: str) -> dict[str, tuple[str, ...]]:
    """A field's metadata: the fragments drawn from it (none: it only travels with the page)."""
    assert set(fragments) <= set(FRAGMENTS), fragments
    return {"redraws": fragments}


@dataclass(frozen=True)
class PlayerLine:
    """One seat as the players' panel shows it."""

    index: int
    name: str  # distinct at the table: "Columbo Regular 2 (bot)"
    username: str
    avatar: str
    profile_url: str
    is_bot: bool
    program: bool  # a program plays the seat through the Bot API: a person's seat, marked BOT
    left: bool  # its player left: a bot plays the seat
    bot_name: str  # that bot's name
    user_id: int | None
    open: bool  # nobody holds the seat yet
    invite_only: bool
    present: bool
    opening: bool  # present by the opening's grace only: seated just now, their page not open yet
    claim_at: datetime | None  # when a person who is away may be claimed (None while present, or a bot)
    clock: float | None
    clock_text: str
    # A correspondence clock (days a move): when this seat, waited on, runs out; the table shows it as a date in
    # the viewer's zone and never ticks it (None otherwise).
    due_at: datetime | None
    score: int | None  # the final score, once the match is over
    place: int | None
    reasons: list[str]  # in a match of bots only: the bot's reasons for its latest turn


@dataclass(frozen=True)
class TableMeta:
    id: int = field(metadata=redraws())
    game: str = field(metadata=redraws())
    game_name: str = field(metadata=redraws())
    status: str = field(metadata=redraws("players", "status", "board", "hand"))
    version: int = field(metadata=redraws("board", "hand"))
    players: tuple[PlayerLine, ...] = field(metadata=redraws("players"))
    result: dict[str, Any] | None = field(metadata=redraws("status", "log"))  # the log's closing line
    is_public: bool = field(metadata=redraws())
    rated: bool = field(metadata=redraws())
    rematch_votes: tuple[int, ...] = field(metadata=redraws("status"))
    rematch_declined: int | None = field(metadata=redraws("status"))
    abort_allowed: bool = field(metadata=redraws("status"))
    handovers: tuple[dict[str, Any], ...] = field(metadata=redraws("log"))  # a handover renames past log entries
    watchers: int = field(metadata=redraws("players"))
    created_by_id: int | None = field(metadata=redraws("status"))
    cancellers: tuple[int, ...] = field(metadata=redraws("status"))  # the seats whose person may call the match off
    invite_code: str = field(metadata=redraws("status"))  # drawn for the seated players only (the status fragment)
    clock: dict[str, Any] = field(metadata=redraws("players"))
    rematch_url: str = field(metadata=redraws("status"))
    url: str = field(metadata=redraws())
    # Seconds since the deal while the match is on (Columbo solo's clock); the server's time, never the browser's.
    # Read whenever the table is drawn; it changes every second, so it redraws nothing by itself.
    elapsed: int | None = field(metadata=redraws())
    # Seconds since the turn's last change: with a bot's known pause, the time a countdown shows (Columbo's card
    # actions and slap window last until a bot draws).
    turn_age: float | None = field(metadata=redraws())

    @property
    def correspondence(self) -> bool:
        """Days a move: an absent player is no news (no "away", nothing to claim)."""
        return is_correspondence(self.clock)

    @property
    def names(self) -> list[str]:
        """Each seat's name as the log and the refusals say it ("Seat 2" for an open one)."""
        return [p.name or f"Seat {p.index + 1}" for p in self.players]

    def drawn_from(self, fragment: str) -> tuple[Any, ...]:
        """The values of the fields that redraw this fragment."""
        return _REDRAWN_BY.get(fragment, _NO_FIELDS)(self)


def _getter(names: list[str]) -> Callable[[TableMeta], tuple[Any, ...]]:
    """The values of these fields as a tuple (attrgetter of one name gives its value bare, of none fails)."""
    if len(names) > 1:
        return attrgetter(*names)
    if names:
        get = attrgetter(names[0])
        return lambda meta: (get(meta),)
    return lambda meta: ()


# Each fragment's fields, read from the dataclass once: drawn_from runs for every fragment of every socket of every
# update, and walking fields() there each time was 1.7% of the live loop's samples (bench/README.md, issue 47).
_REDRAWN_BY: dict[str, Callable[[TableMeta], tuple[Any, ...]]] = {
    fragment: _getter([f.name for f in fields(TableMeta) if fragment in f.metadata["redraws"]])
    for fragment in FRAGMENTS
}
_NO_FIELDS = _getter([])


def bot_reasons(snap: Snapshot) -> dict[int, list[str]]:
    """In a match of bots only: each bot's reasons (Move.note) for the moves of its latest turn, oldest first.

    Never where a person plays: a reason may tell what a bot holds ("completes K-K-K")."""
    if snap.state is None or not snap.seats or not all(s.is_bot for s in snap.seats):
        return {}
    reasons: dict[int, list[str]] = {}
    closed: set[int] = set()
    previous = None
    for seat, note in reversed(snap.notes):  # newest first: a seat's latest turn is its first run of moves
        if previous is not None and seat != previous:
            closed.add(previous)
        previous = seat
        if seat in closed:
            continue
        turn = reasons.setdefault(seat, [])
        if note and len(turn) < BOT_REASONS:
            turn.insert(0, note)
    return reasons


def clock_text(seconds: float) -> str:
    """A clock as it reads: "4:05" (whole seconds, rounded up: a clock at 0.2 s has not run out)."""
    whole = math.ceil(seconds)
    return f"{whole // 60}:{whole % 60:02d}"


def due_times(snap: Snapshot, state: State | None) -> dict[int, datetime]:
    """A correspondence match's due time for each seat it waits on: the start of the turn plus the seat's time
    left then (exact, and the same at every redraw, unlike the seconds left now)."""
    if not is_correspondence(snap.clock) or snap.status != Status.ACTIVE or snap.turn_started_at is None:
        return {}
    start = snap.turn_started_at
    return {i: start + timedelta(seconds=snap.clock_left[i]) for i in sorted(must_act_of(snap, state))
            if i < len(snap.clock_left)}


def table_meta(snap: Snapshot, presence: dict[int, Presence], watchers: int = 0, state: State | None = None,
               now: datetime | None = None) -> TableMeta:
    """The match's meta as every viewer may know it, now."""
    reasons = bot_reasons(snap)
    now = now or timezone.now()
    names = distinct_names([s.player.name if s.player else "" for s in snap.seats])
    bot_names = distinct_names([s.actor.name if s.actor else "" for s in snap.seats])
    if snap.clock and state is None and snap.state is not None:
        state = state_of(snap)
    clocks = clock_now(snap, state, now) if snap.clock else []
    correspondence = is_correspondence(snap.clock)  # nobody is claimed: the clock is the rule
    due = due_times(snap, state)
    players = []
    for seat in snap.seats:
        player = seat.player
        players.append(PlayerLine(
            index=seat.index,
            name=names[seat.index],
            username=player.username if player else "",
            avatar=player.avatar if player else "",
            profile_url=player.profile_url if player else "",
            is_bot=seat.is_bot,
            program=bool(player and player.program),
            left=seat.left,
            bot_name=bot_names[seat.index] if seat.left else "",
            user_id=player.user_id if player else None,
            open=player is None,
            invite_only=seat.invite_only,
            present=bool(player and (seat.is_bot or (presence.get(seat.index) or AWAY).is_present(now))),
            opening=bool(player and seat.is_person and (presence.get(seat.index) or AWAY).is_opening(now)),
            claim_at=(claim_deadline(presence.get(seat.index) or AWAY, snap.turn_started_at, now)
                      if seat.is_person and not correspondence else None),
            clock=round(clocks[seat.index], 1) if seat.index < len(clocks) else None,
            clock_text=clock_text(clocks[seat.index]) if seat.index < len(clocks) else "",
            due_at=due.get(seat.index),
            score=seat.final_score,
            place=seat.place,
            reasons=reasons.get(seat.index, []),
        ))
    active = snap.status == Status.ACTIVE
    return TableMeta(
        id=snap.id,
        game=snap.game,
        game_name=GAMES[snap.game].name,
        status=snap.status,
        version=snap.version,
        players=tuple(players),
        result=snap.result,
        is_public=snap.is_public,
        rated=snap.rated,
        rematch_votes=tuple(snap.rematch_votes),
        rematch_declined=snap.rematch_declined,
        abort_allowed=abort_allowed(snap),
        handovers=tuple(snap.handovers),
        watchers=watchers,
        created_by_id=snap.created_by_id,
        cancellers=tuple(s.index for s in snap.seats if may_cancel(snap, s.user_id)),
        invite_code=snap.invite_code,
        clock=snap.clock,
        rematch_url=reverse("match", args=[snap.rematch_id]) if snap.rematch_id else "",
        url=reverse("match", args=[snap.id]),
        elapsed=int((now - snap.started_at).total_seconds()) if snap.started_at and active else None,
        turn_age=round((now - snap.turn_started_at).total_seconds(), 1) if snap.turn_started_at and active else None,
    )
