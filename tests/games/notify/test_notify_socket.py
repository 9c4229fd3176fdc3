"""A WebSocket smoke test through the real ASGI application: origin check, session auth, the notify socket."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator

from accounts.sessions import notices_group, user_group
from config.asgi import application

Headers = Callable[..., list[tuple[bytes, bytes]]]


@pytest.mark.django_db(transaction=True)
async def test_an_anonymous_socket_watches_the_lobby_but_gets_nobody_s_notifications(
    make_user: Callable[..., Any], ws_headers: Headers
) -> None:
    user = await sync_to_async(make_user)()
    communicator = WebsocketCommunicator(application, "/ws/notify/", headers=ws_headers())
    connected, _ = await communicator.connect()
    assert connected
    await get_channel_layer().group_send(notices_group(user.pk), {"type": "notify.html", "html": "<p id=ping>hi</p>"})
    assert await communicator.receive_nothing(timeout=0.3)
    await communicator.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_foreign_origin_is_refused(make_user: Callable[..., Any], ws_headers: Headers) -> None:
    user = await sync_to_async(make_user)()
    headers = [(b"origin", b"https://evil.example"), *(await sync_to_async(ws_headers)(user))[1:]]
    communicator = WebsocketCommunicator(application, "/ws/notify/", headers=headers)
    connected, _ = await communicator.connect()
    assert not connected
    await communicator.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_signed_in_socket_is_accepted_and_gets_its_notifications(
    make_user: Callable[..., Any], ws_headers: Headers
) -> None:
    user = await sync_to_async(make_user)()
    communicator = WebsocketCommunicator(application, "/ws/notify/", headers=await sync_to_async(ws_headers)(user))
    connected, _ = await communicator.connect()
    assert connected
    await get_channel_layer().group_send(notices_group(user.pk), {"type": "notify.html", "html": "<p id=ping>hi</p>"})
    assert await communicator.receive_from(timeout=10) == "<p id=ping>hi</p>"
    await communicator.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_a_mute_in_a_table_s_chat_leaves_the_person_s_notification_socket_open(
    make_user: Callable[..., Any], ws_headers: Headers
) -> None:
    """The mute's news goes to every socket of the person (games.play.chat), the notification socket's too."""
    user = await sync_to_async(make_user)()
    communicator = WebsocketCommunicator(application, "/ws/notify/", headers=await sync_to_async(ws_headers)(user))
    connected, _ = await communicator.connect()
    assert connected
    await get_channel_layer().group_send(user_group(user.pk), {"type": "chat.muted", "match": 1, "muted": [2]})
    await get_channel_layer().group_send(notices_group(user.pk), {"type": "notify.html", "html": "<p id=ping>hi</p>"})
    assert await communicator.receive_from(timeout=10) == "<p id=ping>hi</p>"
    await communicator.disconnect()
