"""A match as the play package holds it: its players, its seats, the snapshot every change is decided on, and
what a decision gives (a Change). Plain data, no database: the deciders (games.play.decide) read only this.

`Snapshot.to_json`/`from_json` is the codec the live core sends between processes; games.play.store makes a
snapshot from the database.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from enum import StrEnum
from typing import TYPE_CHECKING, Any

import orjson
from django.conf import settings
from django.utils import timezone

from ..engines import get_engine
from ..engines.base import Action, Engine
from .access import may_watch

if TYPE_CHECKING:  # for the hints only: the deciders are pure and must import without Django's models
    from accounts.models import User

NOTES_KEPT = 16  # the recent bots' reasons a snapshot carries (the page shows a turn's worth)

# An engine's state: each engine has its own type (Engine[State]); the play package handles them all alike.
State = Any


class Status(StrEnum):
    """Where a match is in its life (games.models.Match.Status stores these values)."""

    WAITING = "waiting"
    ACTIVE = "active"
    FINISHED = "finished"
    ABORTED = "aborted"


class ServiceError(Exception):
    """A request the site refuses, with a sentence for the person who made it."""


class MatchMovedOn(ServiceError):
    """The action was meant for an older position: someone else's action came first."""

    def __init__(
        self, message: str = "The game moved on before your action arrived; here is the current position."
    ) -> None:
        super().__init__(message)


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
    # A program's account (the Bot API): played like a person's seat (its own moves, the away and clock rules),
    # marked BOT where it is named. is_bot is the site's built-in bots, played by the server.
    program: bool = False

    @classmethod
    def of(cls, user: User) -> Player:
        return cls(user.pk, user.username, user.name, user.avatar_url, user.get_absolute_url(), bool(user.is_bot),
                   user.bot_level or "", bool(getattr(user, "program", False)))


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
    state: dict[str, Any] | None  # the engine's dump(), or None before the deal
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
    stats_due: bool = False  # finished, its statistics not written yet (Match.stats_due)

    @property
    def pk(self) -> int:
        return self.id

    def seat(self, index: int) -> SeatInfo | None:
        return self.seats[index] if 0 <= index < len(self.seats) else None

    def seat_of(self, user_id: int | None) -> SeatInfo | None:
        """The seat a person holds (people hold at most one)."""
        return next((s for s in self.seats if user_id is not None and s.user_id == user_id), None)

    def may_watch(self, user_id: int | None, code: str) -> bool:
        return may_watch(is_public=self.is_public, seated=self.seat_of(user_id) is not None,
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


def engine_of(snap: Snapshot) -> Engine[State]:
    return get_engine(snap.game)


def state_of(snap: Snapshot) -> State | None:
    """The engine's state of a snapshot (None before the deal)."""
    return engine_of(snap).load(snap.state) if snap.state is not None else None


def must_act_of(snap: Snapshot | None, state: State | None = None) -> set[int]:
    """The seats the game waits on (none unless the match is in progress)."""
    if snap is None or snap.status != Status.ACTIVE or snap.state is None:
        return set()
    engine = engine_of(snap)
    return set(engine.must_act(state if state is not None else engine.load(snap.state)))


@dataclass
class Change:
    """A decided change: the snapshot after it, the engine's state after it, and what else to write with it."""

    before: Snapshot
    after: Snapshot
    state: State | None = None  # the engine state of `after` (None: not dealt yet)
    move: tuple[int, Action, str] | None = None  # (seat, action, note)
    seats_changed: bool = False
    make_rematch: bool = False
    records_stats: bool = False  # writes the finished match's statistics and ratings (games.play.decide.decide_stats)
    # Set by commit when the fence held.
    written: bool = field(default=False, init=False)
    # Set by commit when a subscriber of the change refused it (the gate of games.boards at a match's start):
    # the writer raises it to whoever asked, as a decider's own refusal.
    refused: ServiceError | None = field(default=None, init=False)


# ---------------------------------------------------------------------------------------------
# Presence, as the deciders and pages are given it (games.play.presence reads it)

# A socket counts for its seat while its heartbeat (every 15 s) is this recent: a process that died leaves rows
# behind that stop counting by themselves.
PRESENCE_STALE_SECONDS = 45

# A player seated by a road they did not watch happen (quick pairing, a challenge accepted, a tournament's pairing,
# a rematch) needs a moment for their page to open the match: their seat counts as present this long after the
# match starts, until their first socket on it, so nobody is shown away (or claimable) while their page loads.
PRESENCE_OPENING_SECONDS = 30


@dataclass(frozen=True)
class Presence:
    """A seat's sockets as the Presence table says: the freshest heartbeat of its open sockets (None: none open),
    and when its last socket closed (or its player sat down). Whether the seat is present, and since when it is
    away, follow from these and the time: a heartbeat grows stale with nobody telling. `opening_until`: a seat
    whose player has not opened the match since it started counts as present until then (the opening's grace)."""

    heartbeat: datetime | None
    left_at: datetime | None
    opening_until: datetime | None = None

    def is_present(self, now: datetime) -> bool:
        return self.is_opening(now) or self.has_socket(now)

    def has_socket(self, now: datetime) -> bool:
        return self.heartbeat is not None and self.heartbeat > now - timedelta(seconds=PRESENCE_STALE_SECONDS)

    def is_opening(self, now: datetime) -> bool:
        """Within the opening's grace and not here yet: their page is on its way (the table says "joining")."""
        return self.opening_until is not None and now < self.opening_until and not self.has_socket(now)

    @property
    def present(self) -> bool:
        return self.is_present(timezone.now())

    @property
    def last_seen(self) -> datetime | None:
        """The seat's last sign of life."""
        return max((t for t in (self.heartbeat, self.left_at) if t is not None), default=None)


AWAY = Presence(None, None)


def claim_deadline(presence: Presence | None, waiting_since: datetime | None, now: datetime) -> datetime | None:
    """When an absent player's seat may be claimed: the full wait after the later of their last sign of life and
    `waiting_since` (the match's turn_started_at), so a player who left during the opponent's long turn still gets
    the whole wait once it is their turn. None while they are present (or nothing is known of them). The one
    deadline the claim is decided on, the table counts down to and the buttons open at."""
    if presence is None or presence.is_present(now):
        return None
    since = max((t for t in (presence.last_seen, waiting_since) if t is not None), default=None)
    if since is None:
        return now
    return since + timedelta(seconds=settings.GAMES_ABANDON_SECONDS)


def away_seconds_left(presence: Presence | None, waiting_since: datetime | None, now: datetime | None = None) -> int:
    """Whole seconds before an absent player's seat may be claimed (rounded up); 0 once it may; the full wait if
    they are present."""
    now = now or timezone.now()
    deadline = claim_deadline(presence, waiting_since, now)
    if deadline is None:
        wait: int = settings.GAMES_ABANDON_SECONDS
        return wait
    return max(0, math.ceil((deadline - now).total_seconds()))
