"""The live match: in each process, the one owner of a match being played.

A `LiveMatch` holds the match's snapshot, its engine state and the sockets of this process watching it. Every
change goes through `change`, one at a time (its lock): decided on the snapshot (games.play.decide), written with
the version as the fence (the hub's Writer, batched with the other matches' changes that arrived meanwhile),
then shown to this process's sockets and announced (games.play.news). A change whose fence fails (another
process came first) reloads the match and is decided again. Presence lives beside the match
(games.play.presence), read again for all the process's tables by the hub's heartbeat (games.play.hub).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

import orjson
from channels.db import database_sync_to_async
from django.urls import reverse
from django.utils import timezone

from ..core.batch import Batched
from ..core.faults import crash_point
from ..engines.base import Engine, View
from .bot_accounts import takeover_bot
from .chat import KeptLines, muted_by_many
from .decide import Decider, decide_bot_turn, decide_move, decide_timeout, follow_end
from .display import RenderCache
from .liveness import ensure_pulse
from .news import announce, tell_copies
from .presence import (
    Attendance,
    attendance,
    attendances,
    closed,
    opened,
    presence_close,
    presence_open_many,
    present_seats,
    shown_presence,
)
from .snapshot import Change, Player, Presence, ServiceError, Snapshot, State, Status, engine_of, state_of
from .store import load, stored_versions
from .types import Line

log = logging.getLogger(__name__)

RELOADS = 5  # fence failures in a row before a change gives up (only under heavy contention)


class Writer(Protocol):
    async def write(self, change: Change) -> bool: ...


class Hub(Protocol):
    """What a live match needs of this process's hub (games.play.hub.Hub): its writer, its channel on the layer
    (None until it listens), whether it is alone (LiveMatch.alone), its heartbeat."""

    alone: bool
    channel: str | None

    @property
    def writer(self) -> Writer: ...

    async def drop(self, live: LiveMatch) -> None: ...

    def keep_beating(self) -> None: ...


class Viewer(Protocol):
    """A socket on a match (games.play.socket.MatchConsumer)."""

    seat: int | None
    channel_name: str
    user_id: int | None  # signed out: None

    async def show(self, live: LiveMatch, cache: RenderCache) -> None: ...

    async def session_check(self, event: dict[str, Any]) -> None: ...

    async def chat_line(self, line: Line) -> None: ...

    async def send_chat(self) -> None: ...

    async def chat_hidden(self, line_id: int) -> None: ...


class LiveMatch:
    def __init__(self, hub: Hub, snap: Snapshot, presence: dict[int, Presence], watchers: int = 0) -> None:
        self.hub = hub
        self.snap = snap
        self.state: State | None = state_of(snap)
        self.presence = presence
        self.present = present_seats(presence)  # the seats present when the presence was last shown
        self.watchers = watchers  # spectators' sockets on the match, in every process
        self.sockets: set[Viewer] = set()
        # Sockets between Hub.get and attach: the copy must not be dropped under them (a socket attached to a
        # dropped copy would miss every change made through the hub's next one).
        self.arriving = 0
        self.lock = asyncio.Lock()
        self.bot_timer: asyncio.TimerHandle | None = None
        # How many times the presence was taken in: the hub's heartbeat leaves a read alone that a socket's
        # opening or closing overtook (it read the rows after the heartbeat did).
        self.presence_taken = 0
        self.chat_kept = KeptLines(snap.id)  # each room's last lines, for the chat panel of a page opening

    @property
    def id(self) -> int:
        return self.snap.id

    @property
    def engine(self) -> Engine[State]:
        return engine_of(self.snap)

    def snap_url(self) -> str:
        return reverse("match", args=[self.id])

    def view(self, seat: int | None) -> View | None:
        return self.engine.view(self.state, seat) if self.state is not None else None

    @property
    def alone(self) -> bool:
        """Whether this copy is the match's only one (the hub alone on the in-memory layer: no other process): the
        one place it is decided, asked by `tell` (whom to tell) and `knows_attendance` (what to read back)."""
        return self.hub.alone

    async def tell(self, message: dict[str, Any], readers: Callable[[], dict[str, Any]] | None = None) -> None:
        """News of this match for the other processes' copies and the API's streams (games.play.news.tell_copies)."""
        await tell_copies(self.id, message, alone=self.alone, own=self.hub.channel, readers=readers)

    def knows_attendance(self, seat: int | None, *, opening: bool) -> bool:
        """Whether the attendance after a socket's opening or closing is known here without reading it back: when
        alone, and of a closing a spectator's only (another socket of the seat, or a bot's stream, may be open)."""
        return self.alone and (opening or seat is None)

    # -- changes ---------------------------------------------------------------------------

    async def change(self, decide: Decider, /, *, fresh: bool = False, retry: bool = True, **kw: Any) -> bool:
        """decide(snapshot, state, **kw) on this copy, written; a failed fence reloads the copy and decides again
        (without `retry`: reloads and gives up). With `fresh`, the copy is reloaded first (a claim is decided on
        the database's own copy). False when there was nothing to do. Raises what the decider raises to refuse."""
        async with self.lock:
            if fresh:
                await self.reload()
            for _ in range(RELOADS):
                change = decide(self.snap, self.state, **kw)
                if change is None:
                    return False
                if await self.hub.writer.write(change):
                    crash_point("after-commit", match=self.id)  # the tests' kill -9 before anyone is told
                    await self.apply(change.after, change.state, publish=True, before=change.before)
                    break
                await self.reload()
                if not retry:
                    return False
            else:
                raise ServiceError("The match is too busy right now: try again.")
        with follow_end(change.after) as stats:  # the statistics of an end, once everyone was shown it
            if stats is not None:
                await self.change(stats)
        return True

    async def move(self, *, seat: int, action: Any, user_id: int, expected_version: int | None) -> bool:
        """A person's move, whoever brings it (the table's socket, the Bot API): the one decider call of moves."""
        return await self.change(decide_move, seat=seat, action=action, user_id=user_id,
                                 expected_version=expected_version)

    async def due(self) -> bool:
        """What the clock and the bots have to do now: flag a person out of time, let a due bot act."""
        flagged = False
        due = self.snap.clock_due_at
        if due is not None and due <= timezone.now() and self.state is not None:
            bot = await database_sync_to_async(takeover_bot)(self.snap.game)
            flagged = await self.change(decide_timeout, bot=bot)
        return await self.bot_turn() or flagged

    async def bot_turn(self) -> bool:
        """Let a due bot seat act (its thinking runs off the event loop); False if none was due."""
        if self.state is None or self.snap.bot_due_at is None:
            return False
        snap, state = self.snap, self.state
        decided = await asyncio.to_thread(decide_bot_turn, snap, state)
        if decided is None:
            return False
        # Decided outside the lock; written only if nothing changed the match meanwhile.
        return await self.change(lambda now_snap, now_state: decided if now_snap is snap else None, retry=False)

    async def catch_up(self, version: int) -> None:
        """The database has `version` of this match: if this copy is behind it (the news of a change was lost: its
        process died between the commit and the announcement, or the channel layer was away), read it again and
        show it; a copy that caught up meanwhile is left alone."""
        async with self.lock:
            if version > self.snap.version:
                log.info("match %s: this process's copy was at version %s, the database at %s: read again",
                         self.id, self.snap.version, version)
                await self.reload()

    async def reload(self) -> None:
        """Read the match again (a fence failed, or a decision needs the database's own copy)."""
        snap = await database_sync_to_async(load)(self.id)
        if snap is None:
            return
        if snap.version == self.snap.version:
            self.snap = snap  # the same version is the same match: nothing to show
            return
        await self.apply(snap, None, publish=False)

    async def apply(self, snap: Snapshot, state: State | None, *, publish: bool, before: Snapshot | None = None,
                    ) -> None:
        """Take a newer snapshot (this process's change, or another's from the channel layer) and show it."""
        old, old_state = before or self.snap, self.state
        self.snap = snap
        self.state = state if state is not None else state_of(snap)
        self.schedule_bot()
        if publish:
            await announce(snap, old, state=self.state, before_state=old_state, alone=self.alone, own=self.hub.channel)
        await self.show_all()

    async def show_all(self) -> None:
        cache = RenderCache(self.snap, self.state, self.presence, self.watchers)  # shared by this update's sockets
        for socket in list(self.sockets):
            try:
                await socket.show(self, cache)
            except Exception:  # one socket's failure must not keep the others from the news
                log.exception("could not update a socket of match %s", self.id)

    def render_cache(self) -> RenderCache:
        """A cache for one socket's own redraw (a selection, a refusal)."""
        return RenderCache(self.snap, self.state, self.presence, self.watchers)

    # -- bots ------------------------------------------------------------------------------

    def schedule_bot(self) -> None:
        """A timer for the next bot move, while this process shows the match to someone (the bot runner
        moves the bots of matches nobody here watches)."""
        if self.bot_timer is not None:
            self.bot_timer.cancel()
            self.bot_timer = None
        due = min((t for t in (self.snap.bot_due_at, self.snap.clock_due_at) if t is not None), default=None)
        if due is None or self.snap.status != Status.ACTIVE or not self.sockets:
            return
        delay = max(0.0, (due - timezone.now()).total_seconds())
        loop = asyncio.get_running_loop()
        self.bot_timer = loop.call_later(delay, lambda: loop.create_task(self._timed_bot_turn()))

    async def _timed_bot_turn(self) -> None:
        if not self.sockets:  # dropped meanwhile: the runner has it
            return
        try:
            await self.due()
        except Exception:
            log.exception("bot turn failed in match %s", self.id)

    # -- presence --------------------------------------------------------------------------

    async def arrive(self, socket: Viewer) -> frozenset[int]:
        """A socket is opening (accepted, its first page not sent yet): its presence is recorded (a seat's, or a
        spectator's in the count of those watching) and shown to the others first, so whoever connects next sees
        it. What the opening changed is known here when alone (knows_attendance); with other processes it is read
        back (theirs may have changed too). Gives whom the socket's person muted in this match's chat, read in the same
        trip (the sockets opening meanwhile share it: games.core.batch)."""
        read_back = not self.knows_attendance(socket.seat, opening=True)
        known, version, muted = await arrivals(Arrival(self.id, socket.seat, socket.channel_name, read_back,
                                                         socket.user_id))
        # The page this socket belongs to was drawn from the database a moment ago: a copy held here that missed a
        # change must not draw it an older position (it reads the match again first).
        await self.catch_up(version)
        await self.refresh_presence(known=known or opened((self.presence, self.watchers), socket.seat))
        return muted

    def attach(self, socket: Viewer) -> None:
        """The socket is open: it is shown every change from now on."""
        self.sockets.add(socket)
        if self.bot_timer is None:
            self.schedule_bot()
        self.hub.keep_beating()
        ensure_pulse()  # this process's sockets count while it lives (games.play.liveness)

    async def detach(self, socket: Viewer) -> None:
        self.sockets.discard(socket)
        read_back = not self.knows_attendance(socket.seat, opening=False)
        known = await database_sync_to_async(presence_close)(
            match_id=self.id, seat=socket.seat, socket=socket.channel_name, read_back=read_back)
        await self.refresh_presence(known=known or closed((self.presence, self.watchers)))
        await self.hub.drop(self)

    async def refresh_presence(self, publish: bool = True, known: tuple[dict[int, Presence], int] | None = None,
                               ) -> None:
        """Show who is at the table now (`known`: the attendance just read with a socket's opening or closing)."""
        presence, watchers = known if known is not None else await database_sync_to_async(attendance)(self.id)
        self.presence_taken += 1
        # The same rows may mean another thing as time passes (a heartbeat gone stale, an opening's grace over):
        # who is present now is compared too, so the heartbeat's refresh shows a seat turning away.
        present = present_seats(presence)
        # A pulse moves the heartbeats without changing what the table shows: the pages are drawn again only
        # when something shown changes (who is here, who is joining, an absent seat's last sign of life).
        shown = shown_presence(presence)
        if shown == shown_presence(self.presence) and watchers == self.watchers and present == self.present:
            self.presence = presence
            return
        self.presence, self.watchers, self.present = presence, watchers, present
        if publish:
            with contextlib.suppress(Exception):
                await self.tell({"type": "match.presence", "id": self.id})
        await self.show_all()

    async def chat(self, line: Line, *, publish: bool = True) -> None:
        """A chat line: to this process's sockets in its room, and to the other processes holding the match."""
        self.chat_kept.add(line)
        for socket in list(self.sockets):
            with contextlib.suppress(Exception):
                await socket.chat_line(line)
        if publish:
            message = {"type": "match.chat", "id": self.id, "from": self.hub.channel,
                       "line": orjson.dumps(line).decode()}
            with contextlib.suppress(Exception):  # the Bot API's streams hear every line said (games.api.streams)
                await self.tell(message, readers=lambda: message)

    async def chat_again(self) -> None:
        """Every socket's chat panel drawn again from the database (lines said elsewhere while the channel layer was
        away never came as news)."""
        self.chat_kept.forget()
        for socket in list(self.sockets):
            with contextlib.suppress(Exception):
                await socket.send_chat()

    async def chat_hidden(self, line_id: int) -> None:
        self.chat_kept.forget()
        for socket in list(self.sockets):
            with contextlib.suppress(Exception):
                await socket.chat_hidden(line_id)

    async def rename(self, player: Player) -> None:
        """A player's new name or picture: shown at once (the snapshot's copy of the player changes)."""
        if not any(s.user_id == player.user_id for s in self.snap.seats):
            return
        async with self.lock:
            seats = tuple(replace(s, player=player) if s.user_id == player.user_id else s for s in self.snap.seats)
            self.chat_kept.forget()
            self.snap = replace(self.snap, seats=seats)
            await self.show_all()

    def close(self) -> None:
        self.sockets.clear()
        if self.bot_timer is not None:
            self.bot_timer.cancel()
            self.bot_timer = None


@dataclass(frozen=True)
class Arrival:
    """A socket opening on a match: its seat (None: a spectator), its channel, whether the attendance after it is
    read back, and whose mutes its chat panel needs (None: signed out)."""

    match_id: int
    seat: int | None
    socket: str
    read_back: bool
    user_id: int | None


Arrived = tuple[Attendance | None, int, frozenset[int]]


def _arrived(asks: Sequence[Arrival]) -> list[Arrived]:
    """Sockets' openings written (presence_open's rows, gathered), then, after every write, what each needs read:
    the attendance of its match (when read back), its match's version in the database, its viewer's mutes. A few
    queries for the whole gathering rather than seven for each socket."""
    presence_open_many([(a.match_id, a.seat, a.socket) for a in asks])
    read = sorted({a.match_id for a in asks if a.read_back})
    known = attendances(read) if read else {}
    versions = stored_versions(sorted({a.match_id for a in asks}))
    mutes = muted_by_many([(a.match_id, a.user_id) for a in asks if a.user_id is not None])
    return [(known[a.match_id] if a.read_back else None, versions.get(a.match_id, -1),
             mutes.get((a.match_id, a.user_id), frozenset()) if a.user_id is not None else frozenset()) for a in asks]


# One arrival per match a trip: each socket's read-back attendance is the table as its own opening left it.
arrivals: Batched[Arrival, Arrived] = Batched(_arrived, key=lambda ask: ask.match_id)
