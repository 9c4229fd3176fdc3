"""The channel layers, each with one cost or failure removed.

Redis: redis-py 8 caps a connection pool at 100 connections and fails the 101st operation at once ("Too many
connections"), so a burst of sockets connecting to one process (each joins its groups) got HTTP 500s. Its pool
waits for a free connection instead. A group send takes two trips to Redis, not four, and can leave out the
sender's own channel (a process's news about a match need not come back to it). Redis may restart: the layer rides
through it (below). In memory: the sweep of expired messages runs once a second, not per message.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

import channels.layers
from channels.layers import get_channel_layer
from channels_redis.core import RedisChannelLayer as ChannelsRedisChannelLayer
from redis.asyncio import BlockingConnectionPool
from redis.driver_info import DriverInfo

from .faults import CHANNEL_LAYER, backoff, layer_unavailable

log = logging.getLogger(__name__)

# The message every socket of this process that belongs to a group is handed when Redis answers again after an
# outage (a consumer's `layer_resumed`): what it missed meanwhile is read again from the database.
RESUMED = {"type": "layer.resumed"}

# What redis-py tells Redis of itself (CLIENT SETINFO), worked out once here at start-up: left to itself, redis-py
# works it out for every new connection with importlib.metadata, which reads every directory on sys.path: 50-200 ms
# on the event loop each time (the lag monitor caught it holding the loop at N=100 on PostgreSQL + Redis).
DRIVER = DriverInfo()


# Channels-redis's group send, per channel key: drop expired messages, then add this one unless the channel is full.
# One script per connection for every key, where channels-redis sends a pipeline first and then the script.
_SEND = """
local over = 0
local now = tonumber(ARGV[#ARGV - 1])
local expiry = tonumber(ARGV[#ARGV])
for i = 1, #KEYS do
    redis.call('ZREMRANGEBYSCORE', KEYS[i], 0, math.floor(now) - expiry)
    if redis.call('ZCOUNT', KEYS[i], '-inf', '+inf') < tonumber(ARGV[i + #KEYS]) then
        redis.call('ZADD', KEYS[i], ARGV[#ARGV - 1], ARGV[i])
        redis.call('EXPIRE', KEYS[i], expiry)
    else
        over = over + 1
    end
end
return over
"""


class RedisChannelLayer(ChannelsRedisChannelLayer):
    """Channels' Redis layer whose connection pools make an operation wait for a free connection (up to
    the host's "timeout" seconds) when all of its "max_connections" are busy, instead of failing it; whose
    group send makes two trips to Redis instead of four, and leaves out `skip` if it is a member; and which rides
    through Redis being away.

    A live match's every move is announced to its group (games.play.news.announce), whose members are the
    processes holding the match, the announcing one too: on PostgreSQL + Redis the four trips of each send and
    the message coming back to its own sender were 29% of a busy server's time (bench/README.md, issue 30).

    Redis away (stopped, restarted, unreachable): a receive waits and tries again instead of raising (it raised
    into every consumer, and Channels closed each socket with 1011); a group joined or left, and a message sent,
    while it is away is kept or dropped here instead of raising (a socket opening got an HTTP 500, and each lost
    send logged a traceback). This process knows its own groups (`joined`): a restarted Redis has forgotten them,
    so when it answers again they are all joined again, and every socket in them is handed RESUMED, to read again
    what it missed. The other processes' copies of a match catch up by reading its version
    (games.play.hub: the version sweep). One line is logged when Redis goes and one when it is back
    (games.core.faults.CHANNEL_LAYER)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.joined: dict[str, set[str]] = {}  # group -> this process's channels in it
        self.dropped = 0  # messages not sent while Redis was away
        self._probe: asyncio.Task[None] | None = None

    def create_pool(self, index: int) -> Any:
        host = dict(self.hosts[index])
        if "address" not in host:  # Sentinel and other set-ups: Channels' own pool
            return super().create_pool(index)
        return BlockingConnectionPool.from_url(host.pop("address"), **{"driver_info": DRIVER, **host})

    # -- riding through an outage --------------------------------------------------------------------------

    def _away(self, error: BaseException) -> None:
        """An operation met Redis away: said once (games.core.faults), and a probe watches for its return."""
        CHANNEL_LAYER.failed(error)
        if self._probe is None or self._probe.done():
            self._probe = asyncio.get_running_loop().create_task(self._watch_for_return())

    async def _watch_for_return(self) -> None:
        for pause in backoff():  # soon at first, then each second
            await asyncio.sleep(pause)
            try:
                for index in range(self.ring_size):
                    await self.connection(index).ping()
                await self._rejoin()
                await self._hand_resumed()
            except Exception as error:  # still away (or away again half way): the next try does it all again
                if not layer_unavailable(error):
                    log.exception("channel layer: joining the groups again")
                CHANNEL_LAYER.failed(error)
                continue
            break
        CHANNEL_LAYER.answered()
        if self.dropped:
            log.info("channel layer: %s messages were not sent while Redis was away", self.dropped)
            self.dropped = 0

    async def _rejoin(self) -> None:
        """This process's groups joined again (a restarted Redis knows none), one script a connection."""
        now = time.time()
        by_index: dict[int, list[tuple[str, set[str]]]] = {}
        for group, channels_in in list(self.joined.items()):
            by_index.setdefault(self.consistent_hash(group), []).append((group, set(channels_in)))
        for index, groups in by_index.items():
            pipe = self.connection(index).pipeline(transaction=False)
            for group, members in groups:
                key = self._group_key(group)
                pipe.zadd(key, dict.fromkeys(members, now))
                pipe.expire(key, self.group_expiry)
            await pipe.execute()

    async def _hand_resumed(self) -> None:
        """Every socket of this process in a group is handed RESUMED, through Redis as any message (a message put
        straight into a receive buffer waits unseen while its reader is the one blocked on Redis for all of them)."""
        names = sorted({channel for members in self.joined.values() for channel in members if "!" in channel})
        now = time.time()
        by_index: dict[int, list[str]] = {}
        for name in names:
            by_index.setdefault(self.consistent_hash(self.non_local_name(name)), []).append(name)
        for index, local in by_index.items():
            pipe = self.connection(index).pipeline(transaction=False)
            keys = set()
            for name in local:
                key = self.prefix + self.non_local_name(name)
                pipe.zadd(key, {self.serialize({**RESUMED, "__asgi_channel__": name}): now})
                keys.add(key)
            for key in keys:
                pipe.expire(key, int(self.expiry))
            await pipe.execute()

    async def receive_single(self, channel: str) -> Any:
        pauses = backoff()
        while True:
            try:
                return await super().receive_single(channel)
            except Exception as error:
                if not layer_unavailable(error):
                    raise
                self._away(error)
                await asyncio.sleep(next(pauses))

    async def group_add(self, group: str, channel: str) -> None:
        self.joined.setdefault(group, set()).add(channel)
        try:
            await super().group_add(group, channel)
        except Exception as error:
            if not layer_unavailable(error):
                raise
            self._away(error)  # joined when Redis is back (_rejoin)

    async def group_discard(self, group: str, channel: str) -> None:
        members = self.joined.get(group)
        if members is not None:
            members.discard(channel)
            if not members:
                del self.joined[group]
        try:
            await super().group_discard(group, channel)
        except Exception as error:
            if not layer_unavailable(error):
                raise
            self._away(error)  # a restarted Redis forgot it anyway; otherwise its messages expire unread

    async def send(self, channel: str, message: dict[str, Any]) -> None:
        try:
            await super().send(channel, message)
        except Exception as error:
            if not layer_unavailable(error):
                raise
            self._away(error)
            self.dropped += 1

    async def group_send(self, group: str, message: dict[str, Any], *, skip: str | None = None) -> None:
        try:
            await self._group_send(group, message, skip=skip)
        except Exception as error:
            if not layer_unavailable(error):
                raise
            self._away(error)
            self.dropped += 1

    async def _group_send(self, group: str, message: dict[str, Any], *, skip: str | None = None) -> None:
        assert self.require_valid_group_name(group), "Group name not valid"
        key = self._group_key(group)
        pipe = self.connection(self.consistent_hash(group)).pipeline(transaction=False)
        pipe.zremrangebyscore(key, min=0, max=int(time.time()) - self.group_expiry)
        pipe.zrange(key, 0, -1)
        _, members = await pipe.execute()
        names = [name for member in members if (name := member.decode("utf8")) != skip]
        if not names:
            return
        by_connection, messages, capacities = self._map_channel_keys_to_connection(names, message)
        for index, keys in by_connection.items():
            args = [messages[k] for k in keys] + [capacities[k] for k in keys] + [time.time(), int(self.expiry)]
            over = await self.connection(index).eval(_SEND, len(keys), *keys, *args)
            if over:
                log.info("%s of %s channels over capacity in group %s", over, len(names), group)


async def send_to_others(group: str, message: dict[str, Any], own: str | None) -> None:
    """Send to a group but for the channel `own` where the layer can leave it out (Redis; the in-memory layer
    serves one process, whose own channel then gets it too, as any member)."""
    layer = get_channel_layer()
    if isinstance(layer, RedisChannelLayer):
        await layer.group_send(group, message, skip=own)
    else:
        await layer.group_send(group, message)


class InMemoryChannelLayer(channels.layers.InMemoryChannelLayer):
    """Channels' in-memory layer (one process: the embedded default) whose sweep of expired messages and group
    memberships runs at most once a second instead of on every receive and group send.

    The sweep walks every channel's queue and every group's members: with thousands of sockets each message cost
    O(sockets), and at a club of 1,000 matches it was 24% of the saturated server's time (bench/README.md,
    issue 30). A message expires after `expiry` (60 s) and a membership after a day; dropping them up to a
    second later changes nothing a socket sees."""

    SWEEP_EVERY = 1.0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._swept_at = float("-inf")

    def _clean_expired(self) -> None:
        now = time.monotonic()
        if now - self._swept_at < self.SWEEP_EVERY:
            return
        self._swept_at = now
        super()._clean_expired()
