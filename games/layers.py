"""The channel layers, each with one cost or failure removed.

Redis: redis-py 8 caps a connection pool at 100 connections and fails the 101st operation at once ("Too many
connections"), so a burst of sockets connecting to one process (each joins its groups) got HTTP 500s. Its pool
waits for a free connection instead. In memory: the sweep of expired messages runs once a second, not per message.
"""

from __future__ import annotations

import time
from typing import Any

import channels.layers
from channels_redis.core import RedisChannelLayer as ChannelsRedisChannelLayer
from redis.asyncio import BlockingConnectionPool


class RedisChannelLayer(ChannelsRedisChannelLayer):
    """Channels' Redis layer whose connection pools make an operation wait for a free connection (up to
    the host's "timeout" seconds) when all of its "max_connections" are busy, instead of failing it."""

    def create_pool(self, index: int) -> Any:
        host = dict(self.hosts[index])
        if "address" not in host:  # Sentinel and other set-ups: Channels' own pool
            return super().create_pool(index)
        return BlockingConnectionPool.from_url(host.pop("address"), **host)


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
