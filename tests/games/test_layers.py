"""The in-memory channel layer (games.core.layers.InMemoryChannelLayer): Channels' own, its sweep of expired messages
once a second instead of on every message; what it sweeps is still swept."""

from __future__ import annotations

import asyncio
from typing import Any

import channels.layers
import pytest

from games.core.layers import InMemoryChannelLayer


async def test_a_burst_of_group_sends_sweeps_once_and_every_member_gets_each_message(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    layer = InMemoryChannelLayer()
    sweeps: list[int] = []
    real = channels.layers.InMemoryChannelLayer._clean_expired

    def counted(self: Any) -> None:
        sweeps.append(1)
        real(self)

    monkeypatch.setattr(channels.layers.InMemoryChannelLayer, "_clean_expired", counted)
    names = [await layer.new_channel() for _ in range(50)]
    for name in names:
        await layer.group_add("club", name)
    for number in range(20):
        await layer.group_send("club", {"type": "x", "n": number})
    assert len(sweeps) == 1  # not 20 sweeps over 50 channels
    for name in names[:3]:
        assert [(await layer.receive(name))["n"] for _ in range(20)] == list(range(20))


async def test_expired_messages_and_their_channels_are_still_swept() -> None:
    layer = InMemoryChannelLayer(expiry=0.05)
    layer.SWEEP_EVERY = 0.1
    name = await layer.new_channel()
    await layer.group_add("club", name)
    await layer.send(name, {"type": "old"})
    await asyncio.sleep(0.15)
    other = await layer.new_channel()
    await layer.send(other, {"type": "new"})
    await layer.group_send("elsewhere", {"type": "nudge"})  # the next sweep is due: it runs here
    assert name not in layer.channels  # the expired message went, and with it the channel's membership
    assert name not in layer.groups.get("club", {})
    assert (await layer.receive(other))["type"] == "new"


def test_the_redis_layers_connections_do_not_read_the_installed_packages_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """redis-py works out its own version for every new connection with importlib.metadata (it reads every
    directory on sys.path: 50-200 ms on the event loop under load); the layer's pools hand it the one found at
    start-up."""
    import redis.driver_info
    import redis.utils

    from games.core.layers import DRIVER, RedisChannelLayer

    def read_again() -> str:
        raise AssertionError("the installed packages were read again for a connection")

    monkeypatch.setattr(redis.utils, "get_lib_version", read_again)
    layer = RedisChannelLayer(hosts=[{"address": "redis://127.0.0.1:6379/0", "max_connections": 5, "timeout": 1}])
    pool = layer.create_pool(0)
    assert pool.connection_kwargs["driver_info"] is DRIVER
    connection = pool.make_connection()  # made, not connected: what a new connection is built with
    assert connection.driver_info is DRIVER and DRIVER.lib_version == redis.__version__
