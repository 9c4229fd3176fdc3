"""WebSocket handshakes are checked as Django checks a form's origin (config/origins.py): only a page of this
very site (scheme, host and port) or an origin in CSRF_TRUSTED_ORIGINS opens a socket; other ports, schemes and
hosts, "null" and a missing Origin are refused at the handshake, so a page elsewhere cannot act through a
signed-in player's socket."""

from __future__ import annotations

import json
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.db import connections
from factories import client_for, make_match

from games.models import Match

pytestmark = pytest.mark.django_db(transaction=True)

Header = tuple[bytes, bytes]


def session_cookie(user: Any) -> str:
    return f"sessionid={client_for(user).cookies['sessionid'].value}"


async def close_worker_connections() -> None:
    """Stop the bot runner the match socket started and close the worker thread's database connection (as
    tests/games/conftest.py's ws_client does), or PostgreSQL could not drop the test database."""
    from games.play import scheduler

    await scheduler.stop()
    await database_sync_to_async(connections.close_all)()


async def handshake(headers: list[Header], *, path: str = "/ws/notify/", scheme: str | None = None
                    ) -> tuple[bool, WebsocketCommunicator]:
    """Open a socket through the whole ASGI application; (accepted, the communicator)."""
    from config.asgi import application

    communicator = WebsocketCommunicator(application, path, headers=headers)
    if scheme is not None:
        communicator.scope["scheme"] = scheme
    connected, _ = await communicator.connect(timeout=5)
    return connected, communicator


async def refused(headers: list[Header], **kwargs: Any) -> bool:
    connected, communicator = await handshake(headers, **kwargs)
    await communicator.disconnect()
    return not connected


@pytest.mark.parametrize(
    ("origin", "host"),
    [
        (b"http://testserver:8288", b"testserver"),  # another port of the same host
        (b"http://127.0.0.1:8288", b"127.0.0.1:8000"),
        (b"https://testserver", b"testserver"),  # another scheme
        (b"http://localhost", b"testserver"),  # another host, though in ALLOWED_HOSTS
        (b"http://localhost:8000", b"127.0.0.1:8000"),
        (b"http://evil.example", b"testserver"),
        (b"null", b"testserver"),  # a sandboxed frame or a file
        (b"http://testserver/page", b"testserver"),  # not an origin
        (b"http://user@testserver", b"testserver"),
        (b"http://testserver", b"evil.example"),  # a Host the site does not answer to
    ],
)
async def test_a_page_of_another_origin_is_refused(origin: bytes, host: bytes) -> None:
    assert await refused([(b"origin", origin), (b"host", host)])


async def test_a_handshake_without_an_origin_or_a_host_is_refused() -> None:
    assert await refused([(b"host", b"testserver")])
    assert await refused([(b"origin", b"http://testserver")])


@pytest.mark.parametrize(
    ("origin", "host", "scheme"),
    [
        (b"http://testserver", b"testserver", None),
        (b"http://TestServer", b"testserver", None),  # host names in any case
        (b"http://127.0.0.1:8000", b"127.0.0.1:8000", "ws"),
        (b"http://[::1]:8000", b"[::1]:8000", "ws"),
        (b"https://localhost", b"localhost", "wss"),
        (b"https://localhost", b"localhost:443", "wss"),  # the default port, said or not
    ],
)
async def test_the_site_s_own_pages_are_accepted(origin: bytes, host: bytes, scheme: str | None) -> None:
    connected, communicator = await handshake([(b"origin", origin), (b"host", host)], scheme=scheme)
    assert connected
    await communicator.disconnect()


async def test_csrf_trusted_origins_are_accepted_exactly_or_by_subdomain_wildcard(settings: Any) -> None:
    settings.CSRF_TRUSTED_ORIGINS = ["https://cards.example.org", "https://*.friends.example"]
    for origin in (b"https://cards.example.org", b"https://table.friends.example"):
        connected, communicator = await handshake([(b"origin", origin), (b"host", b"testserver")])
        assert connected, origin
        await communicator.disconnect()
    for origin in (b"http://cards.example.org", b"https://cards.example.org:8443", b"https://friends.example",
                   b"http://table.friends.example", b"https://evilfriends.example"):
        assert await refused([(b"origin", origin), (b"host", b"testserver")]), origin


async def test_behind_a_tls_proxy_its_forwarded_scheme_decides(settings: Any) -> None:
    """daphne's socket scope has no scheme: with SECURE_PROXY_SSL_HEADER (HTTPS on) the proxy's header tells."""
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    secure = [(b"origin", b"https://testserver"), (b"host", b"testserver"), (b"x-forwarded-proto", b"https")]
    connected, communicator = await handshake(secure)
    assert connected
    await communicator.disconnect()
    assert await refused([(b"origin", b"http://testserver"), *secure[1:]])
    assert await refused([(b"origin", b"https://testserver"), (b"host", b"testserver"),
                          (b"x-forwarded-proto", b"http")])


async def test_a_page_on_another_port_cannot_cancel_a_player_s_waiting_match(alice: Any) -> None:
    match = await database_sync_to_async(make_match)(creator=alice, seats=["open"])
    cookie = await database_sync_to_async(session_cookie)(alice)
    # The site on 127.0.0.1:8000; a page served from 127.0.0.1:8288 (anything else run on the machine) opens
    # a socket with the player's cookie and asks to cancel.
    headers = [(b"origin", b"http://127.0.0.1:8288"), (b"host", b"127.0.0.1:8000"), (b"cookie", cookie.encode())]
    try:
        connected, communicator = await handshake(headers, path=f"/ws/m/{match.pk}/")
        if connected:
            await communicator.send_to(text_data=json.dumps({"op": "cancel"}))
            await communicator.receive_nothing(timeout=1)
        await communicator.disconnect()
        after = await database_sync_to_async(Match.objects.get)(pk=match.pk)
        assert not connected
        assert after.status == Match.Status.WAITING and after.version == match.version
        # The same request from the site's own page does cancel it: the refusal above was the origin's.
        own = [(b"origin", b"http://127.0.0.1:8000"), *headers[1:]]
        connected, communicator = await handshake(own, path=f"/ws/m/{match.pk}/")
        assert connected
        await communicator.send_to(text_data=json.dumps({"op": "cancel"}))
        for _ in range(20):
            after = await database_sync_to_async(Match.objects.get)(pk=match.pk)
            if after.status != Match.Status.WAITING:
                break
            await communicator.receive_nothing(timeout=0.2)
        assert after.status == Match.Status.ABORTED
        await communicator.disconnect()
    finally:
        await close_worker_connections()
