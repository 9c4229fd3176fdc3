"""The Redis channel layer, with one failure removed.

redis-py 8 caps a connection pool at 100 connections and fails the 101st operation at once ("Too many
connections"), so a burst of sockets connecting to one process (each joins its groups) got HTTP 500s.
Its pool waits for a free connection instead.
"""

from __future__ import annotations

from typing import Any

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
