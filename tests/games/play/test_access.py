"""Who may look at a match: one rule (may_watch) for its page, its socket, its replay and its export.

A private match is open to its players and to whoever has its invite code; the code is compared in constant
time, and any text a visitor sends in its place (non-ASCII, very long) is a plain refusal, never a crash.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from factories import client_for, make_match, make_user

from config.asgi import application
from games.models import Match
from games.play.access import can_watch, code_matches, may_watch

pytestmark = pytest.mark.django_db(transaction=True)

ODD_CODES = ["é", "😀" * 40, "\x00", "a" * 500, "%ZZ"]


def test_code_matches_only_the_match_s_own_code() -> None:
    assert code_matches("abc123", "abc123")
    assert not code_matches("abc124", "abc123")
    assert not code_matches("", "")  # a match without a code is not opened by an empty one
    assert not code_matches(None, "abc123")
    for odd in ODD_CODES:
        assert not code_matches(odd, "abc123")


def test_may_watch_public_seated_or_with_the_code() -> None:
    def may(*, public: bool = False, seated: bool = False, given: str = "") -> bool:
        return may_watch(is_public=public, seated=seated, invite_code="code", given=given)

    assert may(public=True) and may(seated=True) and may(given="code")
    assert not may() and not may(given="other")


def private_match() -> Match:
    owner, guest = make_user(username="owner"), make_user(username="guest")
    return make_match(creator=owner, seats=["invite"], joiners=[guest], is_public=False)


@pytest.mark.parametrize("odd", ODD_CODES)
def test_the_match_page_refuses_any_odd_code_with_a_404(odd: str) -> None:
    match = private_match()
    stranger = client_for(make_user(username="stranger"))
    assert stranger.get(f"/m/{match.pk}/", {"code": odd}).status_code == 404
    assert stranger.get(f"/m/{match.pk}/", {"code": match.invite_code}).status_code == 200
    for path in (f"/m/{match.pk}/replay/", f"/m/{match.pk}/export.json"):
        assert stranger.get(path, {"code": odd}).status_code == 404


async def test_the_match_socket_closes_on_an_odd_code_and_opens_with_the_right_one(
    ws_headers: Callable[..., list[tuple[bytes, bytes]]],
) -> None:
    match = await database_sync_to_async(private_match)()
    stranger = await database_sync_to_async(make_user)(username="stranger")
    headers = await database_sync_to_async(ws_headers)(stranger)
    for code in ("%C3%A9", "%F0%9F%98%80", "%00", "x" * 300):
        socket = WebsocketCommunicator(application, f"/ws/m/{match.pk}/?code={code}", headers=headers)
        connected, _ = await socket.connect()
        if connected:  # accepted, then closed with the "forbidden" code before anything is sent
            message: Any = await socket.receive_output(timeout=3)
            assert message["type"] == "websocket.close", message
        await socket.disconnect()
    socket = WebsocketCommunicator(application, f"/ws/m/{match.pk}/?code={match.invite_code}", headers=headers)
    connected, _ = await socket.connect()
    assert connected
    first = await socket.receive_from(timeout=5)
    assert 'id="board"' in first
    await socket.disconnect()


def test_the_players_of_a_private_match_open_it_without_the_code() -> None:
    match = private_match()
    owner = match.seats.get(index=0).user
    assert client_for(owner).get(f"/m/{match.pk}/").status_code == 200
    assert can_watch(match, owner, "")
