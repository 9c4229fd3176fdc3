"""The Redis channel layer really carries messages between consumers (and between processes)."""

from __future__ import annotations

import os
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
