"""The site's channel layers: Channels' own, with two costs and a failure that grow with the site removed.

In memory (one process, no Redis), InMemoryChannelLayer below:

Channels' own InMemoryChannelLayer scans every channel and every group for expired entries on each
receive and each group send, starts a task per member for a group send, and deep-copies every message.
With a hundred live matches that scan was a tenth of the server's time per move. This one keeps the same
behaviour (messages expire, stale group members go, a full channel drops the message) and does that
housekeeping at most once a second; a message whose values are all plain (strings, numbers) is copied
shallowly, as a deep copy of it would be equal and no less shared.

With Redis (several processes), RedisChannelLayer below: redis-py 8 caps a connection pool at 100
connections and fails the 101st operation at once ("Too many connections"), so a burst of sockets
connecting to one process (each joins its groups) got HTTP 500s. Its pool waits for a free connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from copy import deepcopy
from typing import Any

from channels.exceptions import ChannelFull
from channels.layers import InMemoryChannelLayer as ChannelsInMemoryChannelLayer
from channels_redis.core import RedisChannelLayer as ChannelsRedisChannelLayer
from redis.asyncio import BlockingConnectionPool

_PLAIN = (str, int, float, bool, bytes, type(None))


class InMemoryChannelLayer(ChannelsInMemoryChannelLayer):
    CLEAN_EVERY_SECONDS = 1.0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._cleaned_at = 0.0

    def _clean_expired(self) -> None:
        now = time.monotonic()
        if now - self._cleaned_at < self.CLEAN_EVERY_SECONDS:
            return
        self._cleaned_at = now
        super()._clean_expired()

    async def send(self, channel: str, message: dict[str, Any]) -> None:
        assert isinstance(message, dict), "message is not a dict"
        self.require_valid_channel_name(channel)
        assert "__asgi_channel__" not in message
        self._put(channel, message)

    def _put(self, channel: str, message: dict[str, Any]) -> None:
        queue = self.channels.get(channel)
        if queue is None:
            queue = self.channels[channel] = asyncio.Queue(maxsize=self.get_capacity(channel))
        copied = dict(message) if all(type(v) in _PLAIN for v in message.values()) else deepcopy(message)
        try:
            queue.put_nowait((time.time() + self.expiry, copied))
        except asyncio.QueueFull:
            raise ChannelFull(channel) from None

    async def group_send(self, group: str, message: dict[str, Any]) -> None:
        assert isinstance(message, dict), "Message is not a dict"
        self.require_valid_group_name(group)
        self._clean_expired()
        # Putting on a queue never waits: no task per member is needed, and a full channel drops the
        # message as Channels' layer does.
        for channel in list(self.groups.get(group, ())):
            with contextlib.suppress(ChannelFull):
                self._put(channel, message)

    async def flush(self) -> None:
        await super().flush()
        self._cleaned_at = 0.0


class RedisChannelLayer(ChannelsRedisChannelLayer):
    """Channels' Redis layer whose connection pools make an operation wait for a free connection (up to
    the host's "timeout" seconds) when all of its "max_connections" are busy, instead of failing it."""

    def create_pool(self, index: int) -> Any:
        host = dict(self.hosts[index])
        if "address" not in host:  # Sentinel and other set-ups: Channels' own pool
            return super().create_pool(index)
        return BlockingConnectionPool.from_url(host.pop("address"), **host)
