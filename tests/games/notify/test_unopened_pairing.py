"""A page that was loading when its person was paired missed the frame that sent their pages to the match: its
notification socket, once open, sends it there, until the person has opened the match."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.utils import timezone

from config.asgi import application
from games.models import Board, Match
from games.play.create import create_table
from games.play.presence import presence_open

Headers = Callable[..., list[tuple[bytes, bytes]]]
CLOCK = {"kind": "turn", "seconds": 60}


async def first_frame(user: Any, ws_headers: Headers, path: str = "/ws/notify/") -> str | None:
    """The first frame a new notification socket of this person gets within half a second, if any."""
    socket = WebsocketCommunicator(application, path, headers=await sync_to_async(ws_headers)(user))
    connected, _ = await socket.connect()
    assert connected
    try:
        if await socket.receive_nothing(timeout=0.5):
            return None
        return str(await socket.receive_from(timeout=1))
    finally:
        await socket.disconnect()


def seat_of(match: Match, user: Any) -> int:
    return int(match.seats.get(user=user).index)


@pytest.mark.django_db(transaction=True)
async def test_a_page_opening_just_after_a_pairing_goes_to_the_match(
    make_user: Callable[..., Any], ws_headers: Headers
) -> None:
    alice, bob = await sync_to_async(make_user)("alice"), await sync_to_async(make_user)("bob")
    match = await sync_to_async(create_table)(game="gomori", people=[alice, bob], clock=CLOCK)
    url = match.get_absolute_url()
    frame = await first_frame(alice, ws_headers)
    assert frame is not None and f'data-go="{url}"' in frame
    # The match's own page is not sent to itself.
    assert await first_frame(alice, ws_headers, f"/ws/notify/?here={match.pk}") is None
    # Once Alice opened the match, another page of hers stays where it is; Bob, who has not, is still sent.
    await sync_to_async(presence_open)(match_id=match.pk, seat=await sync_to_async(seat_of)(match, alice),
                                       socket="test-alice")
    assert await first_frame(alice, ws_headers) is None
    frame = await first_frame(bob, ws_headers)
    assert frame is not None and f'data-go="{url}"' in frame


@pytest.mark.django_db(transaction=True)
async def test_an_old_pairing_or_a_match_without_a_clock_sends_nobody(
    make_user: Callable[..., Any], ws_headers: Headers
) -> None:
    alice, bob, carol = [await sync_to_async(make_user)(name) for name in ("alice", "bob", "carol")]
    match = await sync_to_async(create_table)(game="gomori", people=[alice, bob], clock=CLOCK)
    await sync_to_async(Board.objects.filter(match=match).update)(since=timezone.now() - timedelta(minutes=5))
    assert await first_frame(alice, ws_headers) is None
    await sync_to_async(create_table)(game="gomori", people=[carol], bots=("random",))
    assert await first_frame(carol, ws_headers) is None


@pytest.mark.django_db(transaction=True)
async def test_the_match_s_own_page_passes_the_frame_sending_it_there_by(
    make_user: Callable[..., Any], ws_headers: Headers
) -> None:
    """A match started by a seat taken from the lobby: its creator's page on the match shows the start live and
    is not reloaded; another page of theirs goes there."""
    from games.notify.goto import send_to_match

    alice = await sync_to_async(make_user)("alice")
    match = await sync_to_async(create_table)(game="gomori", people=[alice], bots=("random",))
    on_it = WebsocketCommunicator(application, f"/ws/notify/?here={match.pk}",
                                  headers=await sync_to_async(ws_headers)(alice))
    elsewhere = WebsocketCommunicator(application, "/ws/notify/", headers=await sync_to_async(ws_headers)(alice))
    for socket in (on_it, elsewhere):
        connected, _ = await socket.connect()
        assert connected
    await sync_to_async(send_to_match)(match, [alice.pk])
    assert 'data-go="' in await elsewhere.receive_from(timeout=5)
    assert await on_it.receive_nothing(timeout=0.3)
    for socket in (on_it, elsewhere):
        await socket.disconnect()
