"""The site's in-memory channel layer keeps the behaviour of Channels' own, at a cost that doesn't grow
with the number of live matches."""

from __future__ import annotations

import asyncio
import os

import pytest
from channels.exceptions import ChannelFull
from channels.layers import get_channel_layer

from games.layers import InMemoryChannelLayer


def test_the_site_uses_its_own_layers():
    from games.layers import RedisChannelLayer

    expected = RedisChannelLayer if os.environ.get("REDIS_URL") else InMemoryChannelLayer
    assert type(get_channel_layer()) is expected


async def test_group_send_reaches_every_member_once():
    layer = InMemoryChannelLayer()
    a, b, outsider = [await layer.new_channel() for _ in range(3)]
    await layer.group_add("room", a)
    await layer.group_add("room", b)
    await layer.group_send("room", {"type": "hello", "text": "hi"})
    assert await layer.receive(a) == {"type": "hello", "text": "hi"}
    assert await layer.receive(b) == {"type": "hello", "text": "hi"}
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(layer.receive(outsider), 0.05)
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(layer.receive(a), 0.05)


async def test_group_discard_and_unknown_group():
    layer = InMemoryChannelLayer()
    a = await layer.new_channel()
    await layer.group_add("room", a)
    await layer.group_discard("room", a)
    await layer.group_send("room", {"type": "x"})
    await layer.group_send("nobody-here", {"type": "x"})
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(layer.receive(a), 0.05)


async def test_each_receiver_gets_its_own_copy():
    layer = InMemoryChannelLayer()
    a, b = await layer.new_channel(), await layer.new_channel()
    await layer.group_add("room", a)
    await layer.group_add("room", b)
    nested = {"type": "x", "data": {"cards": [1, 2]}}
    await layer.group_send("room", nested)
    nested["data"]["cards"].append(3)  # the sender changing its dict afterwards
    first = await layer.receive(a)
    first["data"]["cards"].append(4)  # one receiver changing what it got
    assert (await layer.receive(b))["data"]["cards"] == [1, 2]
    flat = {"type": "y", "data": "text"}
    await layer.send(a, flat)
    flat["data"] = "changed"
    assert (await layer.receive(a))["data"] == "text"


async def test_a_full_channel_refuses_a_send_and_misses_a_group_send():
    layer = InMemoryChannelLayer(capacity=2)
    a, b = await layer.new_channel(), await layer.new_channel()
    await layer.send(a, {"type": "1"})
    await layer.send(a, {"type": "2"})
    with pytest.raises(ChannelFull):
        await layer.send(a, {"type": "3"})
    await layer.group_add("room", a)
    await layer.group_add("room", b)
    await layer.group_send("room", {"type": "g"})  # a is full: it misses this one, b still gets it
    assert (await layer.receive(b))["type"] == "g"
    assert [(await layer.receive(a))["type"] for _ in range(2)] == ["1", "2"]


async def test_expired_messages_go_with_their_channel_group_membership():
    layer = InMemoryChannelLayer(expiry=0.05)
    a, b = await layer.new_channel(), await layer.new_channel()
    await layer.group_add("room", a)
    await layer.group_add("room", b)
    await layer.send(a, {"type": "old"})
    await asyncio.sleep(0.1)
    layer._cleaned_at -= InMemoryChannelLayer.CLEAN_EVERY_SECONDS  # the next housekeeping is due
    await layer.group_send("room", {"type": "new"})
    # a never read its message in time: it left the group, as with Channels' layer; b is still in.
    assert "room" in layer.groups and a not in layer.groups["room"] and b in layer.groups["room"]
    assert (await layer.receive(b))["type"] == "new"


async def test_housekeeping_runs_at_most_once_a_second():
    layer = InMemoryChannelLayer(expiry=0.01)
    a = await layer.new_channel()
    await layer.group_add("room", a)
    await layer.group_send("room", {"type": "first"})  # housekeeping ran (nothing to do): not due again soon
    await asyncio.sleep(0.05)
    await layer.group_send("room", {"type": "second"})
    assert a in layer.groups["room"]  # the expired message was not looked for yet
    assert layer.channels[a].qsize() == 2


async def test_flush_empties_everything():
    layer = InMemoryChannelLayer()
    a = await layer.new_channel()
    await layer.group_add("room", a)
    await layer.send(a, {"type": "x"})
    await layer.flush()
    assert layer.channels == {} and layer.groups == {}


@pytest.mark.redis
@pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="runs in the PostgreSQL + Redis CI pass")
async def test_a_burst_beyond_the_redis_pool_waits_instead_of_failing():
    """Three hundred sockets joining their groups at once: more operations in flight than the pool has
    connections (redis-py 8 failed the 101st with "Too many connections"; the site answered HTTP 500)."""
    from games.layers import RedisChannelLayer

    layer = get_channel_layer()
    assert isinstance(layer, RedisChannelLayer)
    channels = [await layer.new_channel() for _ in range(300)]
    await asyncio.gather(*(layer.group_add(f"burst-{i}", channel) for i, channel in enumerate(channels)))
    await asyncio.gather(*(layer.group_send(f"burst-{i}", {"type": "x", "n": i}) for i in range(300)))
    received = await asyncio.gather(*(layer.receive(channel) for channel in channels))
    assert [message["n"] for message in received] == list(range(300))
    await asyncio.gather(*(layer.group_discard(f"burst-{i}", channel) for i, channel in enumerate(channels)))
    await layer.flush()
