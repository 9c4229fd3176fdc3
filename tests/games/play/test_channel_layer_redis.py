"""The Redis channel layer really carries messages between consumers (and between processes)."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.conf import settings

from config.asgi import application

Headers = Callable[..., list[tuple[bytes, bytes]]]

pytestmark = [
    pytest.mark.redis,
    pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="runs in the PostgreSQL + Redis CI pass"),
]


@pytest.mark.django_db(transaction=True)
async def test_group_send_reaches_two_consumers_through_redis(
    make_user: Callable[..., Any], ws_headers: Headers
) -> None:
    from channels_redis.core import RedisChannelLayer

    layer = get_channel_layer()
    assert isinstance(layer, RedisChannelLayer), type(layer)

    user = await sync_to_async(make_user)()
    headers = await sync_to_async(ws_headers)(user)
    first = WebsocketCommunicator(application, "/ws/notify/", headers=headers)
    second = WebsocketCommunicator(application, "/ws/notify/", headers=headers)
    assert (await first.connect())[0]
    assert (await second.connect())[0]

    # Sent from this process's layer: both sockets of the user get it.
    await layer.group_send(f"user-{user.pk}", {"type": "notify.html", "html": "<p id=one>1</p>"})
    assert await first.receive_from(timeout=10) == "<p id=one>1</p>"
    assert await second.receive_from(timeout=10) == "<p id=one>1</p>"

    # Sent from a separate layer instance, as another server process would: it still arrives, via Redis.
    # Same class and settings as this process's layer, so the same key prefix (tests/games/conftest.py gives
    # each test worker its own, so that parallel workers' groups stay apart).
    other_process = type(layer)(**settings.CHANNEL_LAYERS["default"].get("CONFIG", {}))
    await other_process.group_send(f"user-{user.pk}", {"type": "notify.html", "html": "<p id=two>2</p>"})
    assert await first.receive_from(timeout=10) == "<p id=two>2</p>"
    assert await second.receive_from(timeout=10) == "<p id=two>2</p>"

    await first.disconnect()
    await second.disconnect()
    await other_process.close_pools()


def redis_layers(count: int, **config: Any) -> list[Any]:
    """Layers of the site's class on the test Redis, as `count` processes of one site would hold: one key prefix,
    this test's own."""
    import uuid

    from games.core.layers import RedisChannelLayer

    base = dict(settings.CHANNEL_LAYERS["default"].get("CONFIG", {}))
    prefix = f"layer-test-{uuid.uuid4().hex[:8]}"
    return [RedisChannelLayer(**{**base, "prefix": prefix, **config}) for _ in range(count)]


async def test_a_group_send_reaches_every_member_but_the_one_left_out() -> None:
    """Two processes' channels (each a process-local one behind one real channel) and a plain channel: each
    member gets the message once; `skip` (the sender's own) gets nothing; a membership older than the
    group's expiry is dropped, as channels-redis's own group send drops it."""
    here, there = redis_layers(2)
    try:
        own, mine, theirs = await here.new_channel(), await here.new_channel(), await there.new_channel()
        plain = "plain.channel"
        for channel in (own, mine, theirs, plain):
            await here.group_add("match-7", channel)
        stale = await there.new_channel()
        connection = here.connection(here.consistent_hash("match-7"))
        await connection.zadd(here._group_key("match-7"), {stale: int(time.time()) - here.group_expiry - 10})

        await here.group_send("match-7", {"type": "match.changed", "n": 1}, skip=own)
        await here.group_send("match-7", {"type": "match.changed", "n": 2})
        # Each member gets each message once, in order; the channel left out gets only the second.
        assert [(await here.receive(mine))["n"] for _ in range(2)] == [1, 2]
        assert [(await there.receive(theirs))["n"] for _ in range(2)] == [1, 2]
        assert [(await here.receive(plain))["n"] for _ in range(2)] == [1, 2]
        assert (await here.receive(own))["n"] == 2
        assert stale.encode() not in await connection.zrange(here._group_key("match-7"), 0, -1)
    finally:
        await here.close_pools()
        await there.close_pools()


async def test_a_full_channel_misses_a_group_message_and_expired_messages_make_room() -> None:
    [layer] = redis_layers(1, capacity=2, expiry=1)
    try:
        await layer.group_add("g", "plain.one")
        for n in range(3):
            await layer.group_send("g", {"type": "x", "n": n})
        assert [(await layer.receive("plain.one"))["n"] for _ in range(2)] == [0, 1]  # the third found it full
        for n in range(2):
            await layer.group_send("g", {"type": "x", "n": 10 + n})
        await asyncio.sleep(2.1)  # both expire unread, and make room
        await layer.group_send("g", {"type": "x", "n": 20})
        assert (await layer.receive("plain.one"))["n"] == 20  # not the full channel's third, nor the expired
    finally:
        await layer.close_pools()
