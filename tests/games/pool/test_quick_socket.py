"""Quick pairing over the lobby's socket (games.pool.socket) through the real ASGI application: a click
sits the person down (the grid says so, and how many others wait), a second click gets them up, the socket
closing (leaving the page) gets them up, and two people seated together each get the frame that moves their
pages to the match."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator

from config.asgi import application
from games.models import Seat, Seek

Headers = Callable[..., list[tuple[bytes, bytes]]]
POOL = "gomori-2-none"


async def lobby_socket(user: Any, ws_headers: Headers) -> WebsocketCommunicator:
    communicator = WebsocketCommunicator(application, "/ws/notify/?lobby=1",
                                         headers=await sync_to_async(ws_headers)(user))
    connected, _ = await communicator.connect()
    assert connected
    return communicator


async def until(communicator: WebsocketCommunicator, pattern: str, timeout: float = 5) -> str:
    while True:
        message = await communicator.receive_from(timeout=timeout)
        if re.search(pattern, message):
            return message


def click(pool: str = POOL, op: str = "seek", **extra: Any) -> str:
    return json.dumps({"op": op, "pool": pool, "HEADERS": {"HX-Request": "true"}, **extra})


@pytest.mark.django_db(transaction=True)
async def test_one_click_each_seats_two_people_and_both_pages_go_to_the_match(
    make_user: Callable[..., Any], ws_headers: Headers
) -> None:
    alice, bob = await sync_to_async(make_user)("alice"), await sync_to_async(make_user)("bob")
    a, b = await lobby_socket(alice, ws_headers), await lobby_socket(bob, ws_headers)
    await a.send_to(text_data=click())
    grid = await until(a, r'id="quick"')
    assert re.search(rf'data-pool="{POOL}" aria-pressed="true"', grid)
    seen = await until(b, r'1 waiting')  # Bob's grid counts Alice in the pool
    assert re.search(rf'data-pool="{POOL}" aria-pressed="false"', seen)
    await b.send_to(text_data=click())
    go_a, go_b = await until(a, r"data-go="), await until(b, r"data-go=")
    match_id = await sync_to_async(lambda: Seat.objects.get(user=alice).match_id)()
    assert f'data-go="/m/{match_id}/"' in go_a and f'data-go="/m/{match_id}/"' in go_b
    seats = Seat.objects.filter(match_id=match_id)
    players = await sync_to_async(lambda: set(seats.values_list("user_id", flat=True)))()
    assert players == {alice.pk, bob.pk}
    await a.disconnect()
    await b.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_a_second_click_or_leaving_the_page_gets_the_person_up(
    make_user: Callable[..., Any], ws_headers: Headers
) -> None:
    alice = await sync_to_async(make_user)("alice")
    waiting = sync_to_async(lambda: list(Seek.objects.filter(match__isnull=True).values_list("user_id", flat=True)))
    a = await lobby_socket(alice, ws_headers)
    await a.send_to(text_data="not json")
    await a.send_to(text_data=json.dumps({"op": "seek", "pool": 3}))
    await a.send_to(text_data=click(op="dance"))
    assert await a.receive_nothing(timeout=0.3)  # nonsense is ignored, the socket stays open
    await a.send_to(text_data=click("no-such-pool"))
    assert "There is no such pool." in await until(a, r'id="quick-error"')
    await a.send_to(text_data=click())
    await until(a, r'aria-pressed="true"')
    assert await waiting() == [alice.pk]
    await a.send_to(text_data=click())
    grid = await until(a, r'id="quick"')
    assert 'aria-pressed="true"' not in grid and await waiting() == []
    await a.send_to(text_data=click())
    await until(a, r'aria-pressed="true"')
    await a.disconnect()
    assert await waiting() == []

    anonymous = WebsocketCommunicator(application, "/ws/notify/?lobby=1",
                                      headers=await sync_to_async(ws_headers)())
    assert (await anonymous.connect())[0]
    await anonymous.send_to(text_data=click())
    assert await anonymous.receive_nothing(timeout=0.3) and await waiting() == []
    await anonymous.disconnect()
