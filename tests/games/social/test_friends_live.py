"""Friends over real WebSockets (config.asgi.application): the lobby's Friends panel redrawn live as a followed
person opens and closes a page, starts a clocked match (Watch), or hides their status; and a chat line from a
blocked person never reaches the blocker's table."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from fragments import section

from config.asgi import application
from games.challenges import services as challenges
from games.play import chat
from games.social import services

pytestmark = pytest.mark.django_db(transaction=True)

Headers = Callable[..., list[tuple[bytes, bytes]]]


async def notify_socket(headers: list[tuple[bytes, bytes]], lobby: bool) -> WebsocketCommunicator:
    socket = WebsocketCommunicator(application, "/ws/notify/" + ("?lobby=1" if lobby else ""), headers=headers)
    connected, _ = await socket.connect(timeout=5)
    assert connected
    return socket


async def next_panel(socket: WebsocketCommunicator, timeout: float = 5) -> str:
    """The next Friends panel the socket sends (other parts' frames passed over)."""
    async with asyncio.timeout(timeout):
        while True:
            frame = await socket.receive_from(timeout=timeout)
            if '<section id="friends"' in frame:
                return frame


async def no_panel(socket: WebsocketCommunicator, quiet: float = 0.5) -> bool:
    try:
        await next_panel(socket, timeout=quiet)
    except TimeoutError:
        return True
    return False


async def test_the_panel_shows_a_followed_person_coming_online_playing_then_away(
    make_user: Callable[..., Any], ws_headers: Headers
) -> None:
    alice = await database_sync_to_async(make_user)("alice", display_name="Alice")
    bob = await database_sync_to_async(make_user)("bob", display_name="Bob")
    carol = await database_sync_to_async(make_user)("carol", display_name="Carol")
    await database_sync_to_async(services.follow)(alice, bob)
    lobby = await notify_socket(await database_sync_to_async(ws_headers)(alice), lobby=True)
    assert "Nobody you follow is online now." in await next_panel(lobby)

    page = await notify_socket(await database_sync_to_async(ws_headers)(bob), lobby=False)  # any page of Bob's
    shown = await next_panel(lobby)
    assert 'data-friend="bob" data-state="online"' in shown and 'action="/challenge/bob/"' in shown

    # Bob starts a clocked match: playing, with Watch.
    made = await database_sync_to_async(challenges.challenge)(carol, bob, game="gomori", clock="live")
    match = await database_sync_to_async(challenges.accept)(bob, made.pk)
    shown = await next_panel(lobby)
    assert 'data-state="playing"' in shown and f'href="/m/{match.pk}/">Watch</a>' in shown

    await page.disconnect()
    assert 'data-friend="bob" data-state="away"' in await next_panel(lobby)
    await lobby.disconnect()


async def test_a_hidden_status_never_reaches_the_panel_and_a_follow_elsewhere_redraws_it(
    make_user: Callable[..., Any], ws_headers: Headers
) -> None:
    alice = await database_sync_to_async(make_user)("alice", display_name="Alice")
    bob = await database_sync_to_async(make_user)("bob", display_name="Bob", hide_online=True)
    carol = await database_sync_to_async(make_user)("carol", display_name="Carol")
    await database_sync_to_async(services.follow)(alice, bob)
    lobby = await notify_socket(await database_sync_to_async(ws_headers)(alice), lobby=True)
    assert "Nobody you follow is online now." in await next_panel(lobby)
    page = await notify_socket(await database_sync_to_async(ws_headers)(bob), lobby=False)
    assert await no_panel(lobby)  # Bob hides his status: nothing said
    carols = await notify_socket(await database_sync_to_async(ws_headers)(carol), lobby=False)
    await database_sync_to_async(services.follow)(alice, carol)  # from another tab: the lobby reads its follows
    shown = await next_panel(lobby)
    assert 'data-friend="carol" data-state="online"' in shown and "bob" not in shown
    for socket in (page, carols, lobby):
        await socket.disconnect()


async def test_a_blocked_person_s_chat_lines_do_not_reach_the_blocker(
    ws_client: Callable[..., Any], alice: Any, bob: Any, start_gomori: Any
) -> None:
    chat.throttle.buckets.clear()
    match = await database_sync_to_async(start_gomori)(alice, bob)
    await database_sync_to_async(services.block)(alice, bob)
    sockets = []
    for user in (alice, bob):
        ok, _, socket = await ws_client(match.pk, user)
        assert ok
        sockets.append(socket)
    for socket in sockets:
        await socket.settle(0.2)
    black, red = sockets
    await red.send_to(text_data=json.dumps({"op": "chat", "text": "you will lose"}))
    assert "you will lose" in section(await red.receive_from(timeout=5), "chat")  # Bob sees his own line
    assert await black.receive_nothing(timeout=0.5)
    # Alice's reload does not show it either; her own line reaches Bob.
    ok, _, again = await ws_client(match.pk, alice)
    assert ok and "you will lose" not in section(await again.receive_from(timeout=5), "chat")
    await black.send_to(text_data=json.dumps({"op": "chat", "text": "good game"}))
    assert "good game" in section(await red.receive_from(timeout=5), "chat")


async def test_pages_opening_and_closing_together_are_written_in_one_trip_each(make_user: Any) -> None:
    """Every signed-in page opens the notification socket: at a club's opening thousands at once. Those opening
    together share one write (games.social.socket.opened), and so do those closing; each row is its own."""
    from games.models import OnlineSocket
    from games.social import socket as part

    people = [await database_sync_to_async(make_user)(f"crowd{i}") for i in range(5)]
    asks = [(person.pk, f"page-{i}") for i, person in enumerate(people)]
    trips = part.opened.trips
    await asyncio.gather(*(part.opened(ask) for ask in asks))
    assert part.opened.trips - trips == 1
    rows = await database_sync_to_async(lambda: dict(
        OnlineSocket.objects.filter(closed_at__isnull=True).values_list("socket", "user_id")))()
    assert rows == {socket: user_id for user_id, socket in asks}
    trips = part.closed.trips
    await asyncio.gather(*(part.closed(ask) for ask in asks[:3]))
    assert part.closed.trips - trips == 1
    still_open = await database_sync_to_async(lambda: set(
        OnlineSocket.objects.filter(closed_at__isnull=True).values_list("socket", flat=True)))()
    assert still_open == {"page-3", "page-4"}
