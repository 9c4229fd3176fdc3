"""This process's live matches (the Hub), their group commit (the Writer), and the channel that brings the other
processes' news about them.

    socket ──> LiveMatch.change(decide_*) ──> Writer ──> store.commit (one transaction for every change that
                   │                                      arrived meanwhile, each fenced by its version)
                   └──> after the commit: its sockets, and through the channel layer the other processes
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Sequence
from typing import Any

import orjson
from channels.db import database_sync_to_async
from channels.layers import InMemoryChannelLayer, get_channel_layer
from django.conf import settings

from ..core.batch import Batched
from ..core.faults import DATABASE, backoff, db_unavailable, layer_unavailable
from . import events
from .news import match_group
from .owner import LiveMatch
from .presence import attendance, attendances
from .snapshot import Change, Player, Presence, ServiceError, Snapshot
from .store import commit, load, load_many, stored_versions
from .tasks import raise_if_cancelled
from .types import Line

log = logging.getLogger(__name__)

# Every table this process holds is looked at once per HEARTBEAT_SECONDS: its sockets' sessions checked (the end
# of a session without a signal: expiry, a row deleted) and its presence read again (another process's sockets
# going stale, an absent seat's wait). The tables are taken in BEAT_SLICES slices, one a tick, each slice's
# presence in one trip and two queries: a read per table per beat was 4% of a club's server time (issue 41), and a
# whole club's at once would stall the moves behind it.
HEARTBEAT_SECONDS = 15.0
BEAT_SLICES = 15
# Every GAMES_CATCH_UP_SECONDS (2 s) the versions of every match this process holds are read in one query: a copy
# that missed a change (its announcer died between the commit and the news, the channel layer was away, a command in
# another process wrote it) reads the match again. The bound on how long any page shows an older position than the
# database has, without anybody moving (README, Durability).

# A batch of changes whose commit met the database away (a restart, a dropped connection, SQLite held by another
# writer) is tried again within this many seconds, under the same fence, before its moves are refused as "busy".
COMMIT_PATIENCE_SECONDS = 8.0

BUSY = "The server is busy for a moment: your move was not made. Try again."


class Busy(ServiceError):
    """The database did not take a change within the writer's patience: nothing was written."""

    def __init__(self, message: str = BUSY) -> None:
        super().__init__(message)


class Writer:
    """Group commit: the changes that arrive while a batch is being written go together in the next one,
    so the database thread is entered once per batch, not once per move."""

    def __init__(self) -> None:
        self.pending: list[tuple[Change, asyncio.Future[None]]] = []
        self.running = False
        self.commit_batch = database_sync_to_async(commit_then_tell)

    async def write(self, change: Change) -> bool:
        future = asyncio.get_running_loop().create_future()
        self.pending.append((change, future))
        if not self.running:
            self.running = True
            asyncio.get_running_loop().create_task(self._drain())
        await future
        if change.refused is not None:
            raise change.refused
        return change.written

    async def _drain(self) -> None:
        try:
            while self.pending:
                await asyncio.sleep(0)  # the moves of this loop iteration join the batch
                batch, self.pending = self.pending, []
                try:
                    await self._commit([change for change, _ in batch])
                except Exception as error:  # every change of the batch fails
                    for _, future in batch:
                        if not future.done():
                            future.set_exception(error)
                else:
                    for _, future in batch:
                        if not future.done():
                            future.set_result(None)
        finally:
            self.running = False

    async def _commit(self, changes: list[Change]) -> None:
        """The batch written; through a passing fault of the database, tried again within the patience (each
        change under its own fence, so a commit that did land before the connection broke is not written twice:
        its fence fails and its match is read again). Past the patience: Busy, nothing of the batch written."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + COMMIT_PATIENCE_SECONDS
        afters = [change.after for change in changes]
        pauses = backoff()
        while True:
            try:
                await self.commit_batch(changes)
            except Exception as error:
                if not db_unavailable(error):
                    raise
                DATABASE.failed(error)
                for change, after in zip(changes, afters, strict=True):  # as decided, for the next try
                    change.after, change.written, change.refused = after, False, None
                pause = next(pauses)
                if loop.time() + pause >= deadline:
                    raise Busy() from error
                await asyncio.sleep(pause)
                continue
            DATABASE.answered()
            return


class Hub:
    """This process's live matches, and its one channel for the other processes' news about them."""

    def __init__(self) -> None:
        self.loop = asyncio.get_running_loop()
        self.matches: dict[int, LiveMatch] = {}
        self.loading: dict[int, asyncio.Future[LiveMatch | None]] = {}
        # News of a match that arrived while it was being read (after its group was joined, before its copy was
        # held): the read may predate the change it tells of, so it is applied once the copy is held.
        self.early: dict[int, list[dict[str, Any]]] = {}
        self.writer = Writer()
        self.channel: str | None = None
        self.reader: asyncio.Task[None] | None = None
        self.beat: asyncio.Task[None] | None = None
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
            await get_channel_layer().group_add(match_group(match_id), self.channel)
            snap, (presence, watchers) = await loads(match_id)
            live = LiveMatch(self, snap, presence, watchers) if snap is not None else None
            if live is not None:
                self.matches[match_id] = live
                for message in self.early.pop(match_id, ()):
                    await self.on_message(message)  # an older version than the read is passed over there
            future.set_result(live)
            return live
        except BaseException as error:
            future.set_exception(error)
            future.exception()  # retrieved: no "never retrieved" warning when nobody else waited
            raise
        finally:
            del self.loading[match_id]
            self.early.pop(match_id, None)

    async def drop(self, live: LiveMatch) -> None:
        """Forget a match no socket of this process watches or is opening (bot matches come back through the
        runner)."""
        if self.matches.get(live.id) is live and not live.sockets and not live.arriving:
            del self.matches[live.id]
            live.close()
            with contextlib.suppress(Exception):
                layer, group = get_channel_layer(), match_group(live.id)
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

    # -- the heartbeat --------------------------------------------------------------------------

    def keep_beating(self) -> None:
        if self.beat is None or self.beat.done():
            self.beat = self.loop.create_task(self._beat())

    async def _beat(self) -> None:
        tick = 0
        caught_up = self.loop.time()
        every = float(settings.GAMES_CATCH_UP_SECONDS)
        while True:
            raise_if_cancelled()
            await asyncio.sleep(HEARTBEAT_SECONDS / BEAT_SLICES)
            tick = (tick + 1) % BEAT_SLICES
            try:
                if self.loop.time() - caught_up >= every:
                    caught_up = self.loop.time()
                    await self.catch_up()
                await self.beat_slice([live for live in self.matches.values()
                                       if live.sockets and live.id % BEAT_SLICES == tick])
            except Exception as error:
                raise_if_cancelled()
                if db_unavailable(error):
                    DATABASE.failed(error)  # said once; the next tick tries again
                else:
                    log.exception("heartbeat")

    async def catch_up(self) -> int:
        """Every copy this process holds that is behind the database reads the match again (one query for all of
        them, then a read per copy behind); how many were behind."""
        held = dict(self.matches)
        if not held:
            return 0
        versions = await database_sync_to_async(stored_versions)(list(held))
        behind = 0
        for match_id, live in held.items():
            version = versions.get(match_id, -1)
            if version > live.snap.version and self.matches.get(match_id) is live:
                behind += 1
                await live.catch_up(version)
        return behind

    async def beat_slice(self, due: list[LiveMatch]) -> None:
        if not due:
            return
        taken = {live.id: live.presence_taken for live in due}
        known = await database_sync_to_async(attendances)(list(taken))
        for live in due:
            if self.matches.get(live.id) is not live:
                continue  # dropped meanwhile
            try:  # one table's trouble is its own: the slice's other tables beat on
                for socket in list(live.sockets):
                    await socket.session_check({"periodic": True})
                if live.presence_taken == taken[live.id]:  # no socket's opening or closing read it since
                    await live.refresh_presence(known=known[live.id])
            except Exception:
                raise_if_cancelled()
                log.exception("heartbeat of match %s", live.id)

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
            except Exception as error:
                raise_if_cancelled()
                if db_unavailable(error):
                    DATABASE.failed(error)
                elif not layer_unavailable(error):  # the layer says its own outage once (games.core.layers)
                    log.exception("live message")
                await asyncio.sleep(0.1)

    async def on_message(self, message: dict[str, Any]) -> None:
        kind = message.get("type")
        if kind == "layer.resumed":  # the channel layer is back after an outage: whatever was missed, read now
            await self.catch_up()
            for held in list(self.matches.values()):
                await held.chat_again()
            return
        if (kind in ("match.changed", "match.presence", "match.player") and message.get("id") in self.loading
                and message["id"] not in self.matches):
            self.early.setdefault(message["id"], []).append(message)
            return
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
                await live.chat(Line(**orjson.loads(message["line"])), publish=False)
        elif kind == "match.chat_hidden":
            live = self.matches.get(message["id"])
            if live is not None:
                await live.chat_hidden(int(message["line"]))
        elif kind == "match.player":
            player = Player(**orjson.loads(message["player"]))
            live = self.matches.get(message["id"])
            if live is not None:
                await live.rename(player)

    def close(self) -> None:
        for live in self.matches.values():
            live.close()
        if self.reader is not None:
            self.reader.cancel()
        if self.beat is not None:
            self.beat.cancel()


def commit_then_tell(changes: list[Change]) -> None:
    """The batch written in its transaction, then, after the commit and in the same trip to the database thread,
    told to whoever hears committed changes (games.play.events: the notifications by email)."""
    commit(changes)
    events.committed(changes)


_hub: Hub | None = None


def hub() -> Hub:
    """This process's hub (one per event loop: tests run a loop each, and a hub's tasks live in one)."""
    global _hub
    loop = asyncio.get_running_loop()
    if _hub is None or _hub.loop is not loop or loop.is_closed():
        _hub = Hub()
    return _hub


Loaded = tuple[Snapshot | None, tuple[dict[int, Presence], int]]


def _load_attended(match_id: int) -> Loaded:
    """The match and who is at its table, in one trip to the database thread."""
    snap = load(match_id)
    return snap, attendance(match_id) if snap is not None else ({}, 0)


def _load_attended_many(match_ids: Sequence[int]) -> list[Loaded]:
    """_load_attended of the matches several sockets open at once, in the same six queries however many."""
    if len(match_ids) == 1:
        return [_load_attended(match_ids[0])]
    snaps = load_many(match_ids)
    known = attendances(sorted(snaps))
    return [(snaps[match_id], known[match_id]) if match_id in snaps else (None, ({}, 0)) for match_id in match_ids]


# The matches this process's sockets open, read in gathered trips (games.core.batch): at a club's opening, one
# trip per table queued past daphne's handshake timeout (issue 47).
loads: Batched[int, Loaded] = Batched(_load_attended_many)

