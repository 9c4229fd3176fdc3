"""The live core: in each process, one owner per match being played.

A `LiveMatch` holds the match's snapshot, its engine state and the sockets of this process watching it.
Every change goes through it, one at a time (its lock): decided on the snapshot (services.decide_*),
written with the version as the fence (services.commit, batched by the `Writer` with the other matches'
changes that arrived meanwhile), then shown to this process's sockets and sent through the channel layer
to the other processes holding the match, which take the new snapshot from the message without reading
the database. A change whose fence fails (another process came first) reloads the match and is decided
again. Presence lives beside the match (services.presence_*), beaten by one task per held match.

    consumer ──> LiveMatch.act ──> services.decide_move ──> Writer ──> services.commit (one transaction)
                     └──> its sockets' show() and, through the channel layer, the other processes
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from dataclasses import replace
from typing import Any, Protocol

import orjson
from channels.db import database_sync_to_async
from channels.layers import InMemoryChannelLayer, get_channel_layer
from django.urls import reverse
from django.utils import timezone

from . import chat, selectors, services
from .catalog import kit
from .engines import get_engine
from .selectors import Presence
from .services import Change, ServiceError, Snapshot

log = logging.getLogger(__name__)

HEARTBEAT_SECONDS = 15.0
RELOADS = 5  # fence failures in a row before a change gives up (only under heavy contention)


def raise_if_cancelled() -> None:
    """For a loop that runs until cancelled: stop if this task was asked to stop, though the await that took
    the cancellation did not raise it. Libraries swallow it: redis-py turns it into its own ConnectionError
    (which a loop that logs errors and goes on would catch), and asgiref's sync_to_async, cancelled while its
    thread runs, waits for the thread and returns the result as if nothing had happened. The loop would then
    run forever, holding up whoever waits for it (a server's shutdown, a test's teardown). Each such loop
    checks this at every turn, and after catching an error."""
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError


class Viewer(Protocol):
    """A socket on a match (games.consumers.MatchConsumer)."""

    seat: int | None
    channel_name: str

    async def show(self, live: LiveMatch, shared: dict[Any, str]) -> None: ...

    async def session_check(self, event: dict[str, Any]) -> None: ...

    async def chat_line(self, line: chat.Line) -> None: ...

    async def chat_hidden(self, line_id: int) -> None: ...


class Writer:
    """Group commit: the changes that arrive while a batch is being written go together in the next one,
    so the database thread is entered once per batch, not once per move."""

    def __init__(self) -> None:
        self.pending: list[tuple[Change, asyncio.Future[None]]] = []
        self.running = False

    async def write(self, change: Change) -> bool:
        future = asyncio.get_running_loop().create_future()
        self.pending.append((change, future))
        if not self.running:
            self.running = True
            asyncio.get_running_loop().create_task(self._drain())
        await future
        return change.written

    async def _drain(self) -> None:
        try:
            while self.pending:
                await asyncio.sleep(0)  # the moves of this loop iteration join the batch
                batch, self.pending = self.pending, []
                try:
                    await database_sync_to_async(services.commit)([change for change, _ in batch])
                except Exception as error:  # the database is away: every change of the batch fails
                    for _, future in batch:
                        if not future.done():
                            future.set_exception(error)
                else:
                    for _, future in batch:
                        if not future.done():
                            future.set_result(None)
        finally:
            self.running = False


class LiveMatch:
    def __init__(self, hub: Hub, snap: Snapshot, presence: dict[int, Presence], watchers: int = 0) -> None:
        self.hub = hub
        self.snap = snap
        self.state = self.engine.load(snap.state) if snap.state is not None else None
        self.presence = presence
        self.watchers = watchers  # spectators' sockets on the match, in every process
        self.sockets: set[Viewer] = set()
        # Sockets between Hub.get and attach: the copy must not be dropped under them (a socket attached to a
        # dropped copy would miss every change made through the hub's next one).
        self.arriving = 0
        self.lock = asyncio.Lock()
        self.bot_timer: asyncio.TimerHandle | None = None
        self.heartbeat: asyncio.Task[None] | None = None

    @property
    def id(self) -> int:
        return self.snap.id

    @property
    def engine(self) -> Any:
        return get_engine(self.snap.game)

    def snap_url(self) -> str:
        return reverse("match", args=[self.id])

    def view(self, seat: int | None) -> dict[str, Any] | None:
        return self.engine.view(self.state, seat) if self.state is not None else None

    # -- changes ---------------------------------------------------------------------------

    async def act(self, *, user_id: int, seat: int, action: Any, expected_version: int | None) -> None:
        """A person's action for their seat. Raises ServiceError, MatchMovedOn or IllegalAction."""
        await self.change(lambda snap, state: services.decide_move(
            snap, state, seat=seat, action=action, user_id=user_id, expected_version=expected_version))

    async def resign(self, *, user_id: int) -> None:
        await self.change(lambda snap, state: (services.decide_resign(snap, user_id=user_id), state))

    async def claim(self, *, user_id: int, absent_seat: int, with_bot: bool) -> None:
        bot = None
        if with_bot:
            bot = await database_sync_to_async(services.bot_player)(self.snap.game,
                                                                   kit(self.snap.game).takeover_level)
        presence = await database_sync_to_async(selectors.presence_of)(self.id)
        await self.change(lambda snap, state: (services.decide_claim(
            snap, state, user_id=user_id, absent_seat=absent_seat, presence=presence, bot=bot), state), fresh=True)

    async def rematch(self, *, user_id: int, accept: bool = True) -> None:
        def decide(snap: Snapshot, state: Any) -> tuple[Change, Any] | None:
            if accept:
                change = services.decide_rematch(snap, user_id=user_id)
            else:
                change = services.decide_decline_rematch(snap, user_id=user_id)
            return (change, state) if change is not None else None

        await self.change(decide)

    async def cancel(self, *, user_id: int) -> None:
        await self.change(lambda snap, state: (services.decide_cancel(snap, user_id=user_id), state))

    async def abort(self, *, user_id: int) -> None:
        await self.change(lambda snap, state: (services.decide_abort(snap, user_id=user_id), state))

    async def retake(self, *, user_id: int) -> None:
        await self.change(lambda snap, state: (services.decide_retake(snap, state, user_id=user_id), state))

    async def due(self) -> bool:
        """What the clock and the bots have to do now: flag a person out of time, let a due bot act."""
        flagged = False
        due = self.snap.clock_due_at
        if due is not None and due <= timezone.now() and self.state is not None:
            bot = None
            if self.snap.players > 2:
                bot = await database_sync_to_async(services.bot_player)(self.snap.game,
                                                                       kit(self.snap.game).takeover_level)

            def decide(snap: Snapshot, state: Any) -> tuple[Change, Any] | None:
                change = services.decide_timeout(snap, state, bot=bot)
                return (change, state) if change is not None else None

            flagged = await self.change(decide)
        return await self.bot_turn() or flagged

    async def bot_turn(self) -> bool:
        """Let a due bot seat act (its thinking runs off the event loop); False if none was due."""
        if self.state is None or self.snap.bot_due_at is None:
            return False
        snap, state = self.snap, self.state
        decided = await asyncio.to_thread(services.decide_bot_turn, snap, state)
        if decided is None:
            return False
        # Decided outside the lock; written only if nothing changed the match meanwhile.
        return await self.change(lambda now_snap, now_state: decided if now_snap is snap else None, reload=False)

    async def change(
        self, decide: Callable[[Snapshot, Any], tuple[Change, Any] | None], reload: bool = True, fresh: bool = False,
    ) -> bool:
        """Decide a change on this copy and write it; a failed fence reloads the copy and decides again.
        With `fresh`, the copy is reloaded first (a claim is decided on the database's clock)."""
        async with self.lock:
            if fresh:
                await self.reload()
            for _ in range(RELOADS):
                decided = decide(self.snap, self.state)
                if decided is None:
                    return False
                change, state = decided
                if await self.hub.writer.write(change):
                    await self.apply(change.after, state, publish=True, before=change.before)
                    return True
                if not reload:
                    await self.reload()
                    return False
                await self.reload()
        raise ServiceError("The match is too busy right now: try again.")

    async def reload(self) -> None:
        """Read the match again (a fence failed, or a decision needs the database's own copy)."""
        snap = await database_sync_to_async(services.load)(self.id)
        if snap is None:
            return
        if snap.version == self.snap.version:
            self.snap = snap  # the same version is the same match: nothing to show
            return
        await self.apply(snap, None, publish=False)

    async def apply(self, snap: Snapshot, state: Any, *, publish: bool, before: Snapshot | None = None) -> None:
        """Take a newer snapshot (this process's change, or another's from the channel layer) and show it."""
        old, old_state = before or self.snap, self.state
        self.snap = snap
        self.state = state if state is not None else (self.engine.load(snap.state) if snap.state else None)
        self.schedule_bot()
        if publish:
            await self.cue_turns(old, old_state)
            try:
                layer = get_channel_layer()
                if not self.hub.alone:
                    await layer.group_send(services.match_group(self.id), services.changed_message(snap))
                if old.status != snap.status or old.seats != snap.seats:
                    await layer.group_send(services.LOBBY_GROUP, {"type": "lobby.changed"})
            except Exception:  # committed already: another process's copy then catches up at its next fence
                log.exception("could not announce match %s", self.id)
        await self.show_all()

    async def cue_turns(self, old: Snapshot, old_state: Any) -> None:
        """Tell people whose turn it has just become, if they are not at this table here ("your turn" on
        whatever page of the site they are)."""
        at_table = frozenset(socket.seat for socket in self.sockets if socket.seat is not None)
        cues = services.turn_cues(self.snap, services.must_act_of(old, old_state),
                                  services.must_act_of(self.snap, self.state), at_table)
        layer = get_channel_layer()
        for group, message in cues:
            with contextlib.suppress(Exception):  # a cue is a courtesy: its loss costs nothing
                await layer.group_send(group, message)

    async def show_all(self) -> None:
        shared: dict[Any, str] = {}  # fragments that are the same for several sockets of this one update
        for socket in list(self.sockets):
            try:
                await socket.show(self, shared)
            except Exception:  # one socket's failure must not keep the others from the news
                log.exception("could not update a socket of match %s", self.id)

    # -- bots ------------------------------------------------------------------------------

    def schedule_bot(self) -> None:
        """A timer for the next bot move, while this process shows the match to someone (the bot runner
        moves the bots of matches nobody here watches)."""
        if self.bot_timer is not None:
            self.bot_timer.cancel()
            self.bot_timer = None
        due = min((t for t in (self.snap.bot_due_at, self.snap.clock_due_at) if t is not None), default=None)
        if due is None or self.snap.status != "active" or not self.sockets:
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

    async def arrive(self, socket: Viewer) -> None:
        """A seat's socket is about to open: its presence is recorded (and shown to the others) first, so
        whoever connects next sees it."""
        await database_sync_to_async(services.presence_open)(match_id=self.id, seat=socket.seat,
                                                             socket=socket.channel_name)
        if socket.seat is not None:  # spectators are counted at the next heartbeat, not announced one by one
            await self.refresh_presence()

    def attach(self, socket: Viewer) -> None:
        """The socket is open: it is shown every change from now on."""
        self.sockets.add(socket)
        if self.bot_timer is None:
            self.schedule_bot()
        if self.heartbeat is None:
            self.heartbeat = asyncio.get_running_loop().create_task(self._beat())

    async def detach(self, socket: Viewer) -> None:
        self.sockets.discard(socket)
        await database_sync_to_async(services.presence_close)(match_id=self.id, seat=socket.seat,
                                                              socket=socket.channel_name)
        if socket.seat is not None:
            await self.refresh_presence()
        await self.hub.drop(self)

    async def refresh_presence(self, publish: bool = True) -> None:
        presence, watchers = await database_sync_to_async(selectors.attendance)(self.id)
        if presence == self.presence and watchers == self.watchers:
            return
        self.presence, self.watchers = presence, watchers
        if publish and not self.hub.alone:
            with contextlib.suppress(Exception):
                await get_channel_layer().group_send(services.match_group(self.id),
                                                     {"type": "match.presence", "id": self.id})
        await self.show_all()

    async def chat(self, line: chat.Line, *, publish: bool = True) -> None:
        """A chat line: to this process's sockets in its room, and to the other processes holding the match."""
        for socket in list(self.sockets):
            with contextlib.suppress(Exception):
                await socket.chat_line(line)
        if publish and not self.hub.alone:
            with contextlib.suppress(Exception):
                await get_channel_layer().group_send(services.match_group(self.id), {
                    "type": "match.chat", "id": self.id, "from": self.hub.channel, "line": orjson.dumps(line).decode()})

    async def chat_hidden(self, line_id: int) -> None:
        for socket in list(self.sockets):
            with contextlib.suppress(Exception):
                await socket.chat_hidden(line_id)

    async def rename(self, player: services.Player) -> None:
        """A player's new name or picture: shown at once (the snapshot's copy of the player changes)."""
        if not any(s.user_id == player.user_id for s in self.snap.seats):
            return
        async with self.lock:
            seats = tuple(replace(s, player=player) if s.user_id == player.user_id else s for s in self.snap.seats)
            self.snap = replace(self.snap, seats=seats)
            await self.show_all()

    async def _beat(self) -> None:
        """Keep this process's seat sockets counted, and notice other processes' sockets going stale."""
        while True:
            raise_if_cancelled()
            await asyncio.sleep(HEARTBEAT_SECONDS)
            try:
                for socket in list(self.sockets):
                    await socket.session_check({})  # a session that ended without a signal (expiry, admin)
                    if socket in self.sockets:
                        await database_sync_to_async(services.presence_beat)(socket=socket.channel_name)
                await self.refresh_presence()
            except Exception:
                raise_if_cancelled()
                log.exception("heartbeat of match %s", self.id)

    def close(self) -> None:
        self.sockets.clear()
        if self.bot_timer is not None:
            self.bot_timer.cancel()
            self.bot_timer = None
        if self.heartbeat is not None:
            self.heartbeat.cancel()


class Hub:
    """This process's live matches, and its one channel for the other processes' news about them."""

    def __init__(self) -> None:
        self.loop = asyncio.get_running_loop()
        self.matches: dict[int, LiveMatch] = {}
        self.loading: dict[int, asyncio.Future[LiveMatch | None]] = {}
        self.writer = Writer()
        self.channel: str | None = None
        self.reader: asyncio.Task[None] | None = None
        # Channels' in-memory layer serves one process: there is no other process to tell of this one's
        # changes (a tenth of a move's cost at 100 matches). The news of sync code (views, commands) still
        # comes in through the channel.
        self.alone = isinstance(get_channel_layer(), InMemoryChannelLayer)

    async def get(self, match_id: int) -> LiveMatch | None:
        """The live match, loaded from the database if this process does not hold it yet."""
        live = self.matches.get(match_id)
        if live is not None:
            return live
        if match_id in self.loading:  # another socket of this process is loading it right now
            live = await asyncio.shield(self.loading[match_id])
            if live is None or self.matches.get(match_id) is live:
                return live
            # Its loader was done with it (the bot runner's turn) and dropped it before this task woke up:
            # a copy the hub no longer holds would never be shown another change.
            return await self.get(match_id)
        future: asyncio.Future[LiveMatch | None] = self.loop.create_future()
        self.loading[match_id] = future
        try:
            await self._listen()
            await get_channel_layer().group_add(services.match_group(match_id), self.channel)
            snap = await database_sync_to_async(services.load)(match_id)
            presence, watchers = await database_sync_to_async(selectors.attendance)(match_id) if snap else ({}, 0)
            live = LiveMatch(self, snap, presence, watchers) if snap is not None else None
            if live is not None:
                self.matches[match_id] = live
            future.set_result(live)
            return live
        except BaseException as error:
            future.set_exception(error)
            future.exception()  # retrieved: no "never retrieved" warning when nobody else waited
            raise
        finally:
            del self.loading[match_id]

    async def drop(self, live: LiveMatch) -> None:
        """Forget a match no socket of this process watches or is opening (bot matches come back through the
        runner)."""
        if self.matches.get(live.id) is live and not live.sockets and not live.arriving:
            del self.matches[live.id]
            live.close()
            with contextlib.suppress(Exception):
                layer, group = get_channel_layer(), services.match_group(live.id)
                await layer.group_discard(group, self.channel)
                if live.id in self.matches or live.id in self.loading:  # held again meanwhile: keep its news
                    await layer.group_add(group, self.channel)

    async def bot_turn(self, match_id: int) -> bool:
        """For the bot runner: a due bot acts, on this process's copy or on one loaded for the purpose."""
        live = await self.get(match_id)
        if live is None:
            return False
        try:
            return await live.due()
        finally:
            await self.drop(live)

    # -- the other processes' news ---------------------------------------------------------

    async def _listen(self) -> None:
        if self.channel is None:
            # The default prefix: channels-redis receives every process-local channel through one real one.
            self.channel = await get_channel_layer().new_channel()
            self.reader = self.loop.create_task(self._read())

    async def _read(self) -> None:
        layer = get_channel_layer()
        while True:
            raise_if_cancelled()
            try:
                message = await layer.receive(self.channel)
                await self.on_message(message)
            except asyncio.CancelledError:
                raise
            except Exception:
                raise_if_cancelled()
                log.exception("live message")
                await asyncio.sleep(0.1)

    async def on_message(self, message: dict[str, Any]) -> None:
        kind = message.get("type")
        if kind == "match.changed":
            live = self.matches.get(message["id"])
            if live is None or message["version"] <= live.snap.version:
                return  # this process's own change coming back, or an old one
            async with live.lock:
                if message["version"] > live.snap.version:
                    await live.apply(Snapshot.from_json(message["data"]), None, publish=False)
        elif kind == "match.presence":
            live = self.matches.get(message["id"])
            if live is not None:
                await live.refresh_presence(publish=False)
        elif kind == "match.chat":
            live = self.matches.get(message["id"])
            if live is not None and message.get("from") != self.channel:
                await live.chat(chat.Line(**orjson.loads(message["line"])), publish=False)
        elif kind == "match.chat_hidden":
            live = self.matches.get(message["id"])
            if live is not None:
                await live.chat_hidden(int(message["line"]))
        elif kind == "match.player":
            player = services.Player(**orjson.loads(message["player"]))
            live = self.matches.get(message["id"])
            if live is not None:
                await live.rename(player)

    def close(self) -> None:
        for live in self.matches.values():
            live.close()
        if self.reader is not None:
            self.reader.cancel()


_hub: Hub | None = None


def hub() -> Hub:
    """This process's hub (one per event loop: tests run a loop each, and a hub's tasks live in one)."""
    global _hub
    loop = asyncio.get_running_loop()
    if _hub is None or _hub.loop is not loop or loop.is_closed():
        _hub = Hub()
    return _hub
