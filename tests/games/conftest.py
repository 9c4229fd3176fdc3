"""Fixtures for the live-match tests: players, started Gomori matches, and logged-in WebSocket clients."""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.layers import channel_layers
from channels.testing import WebsocketCommunicator
from django.test import Client
from factories import SEED as FACTORY_SEED
from factories import make_match
from fragments import Page

# The seed of the fixtures' matches (the tests' own modules use the same value): factories.SEED.
SEED = FACTORY_SEED


@pytest.fixture(autouse=True)
def _own_channel_layer(settings: Any) -> Iterator[None]:
    """A channel layer of this test's own: a fresh in-memory one, or Redis under a per-worker prefix.

    Parallel test workers number their matches from 1 each, so on a shared Redis their group names
    ("match-1-seat-0") would collide; a prefix per worker keeps their broadcasts apart.
    """
    layers = {alias: dict(config) for alias, config in settings.CHANNEL_LAYERS.items()}
    default = layers["default"]
    if "Redis" in default["BACKEND"]:
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        default["CONFIG"] = {**default.get("CONFIG", {}), "prefix": f"cardclub-test-{worker}-{os.getpid()}"}
    settings.CHANNEL_LAYERS = layers
    channel_layers.backends.clear()
    yield
    channel_layers.backends.clear()


@pytest.fixture
def alice(make_user: Callable[..., Any]) -> Any:
    return make_user("alice", display_name="Alice")


@pytest.fixture
def bob(make_user: Callable[..., Any]) -> Any:
    return make_user("bob", display_name="Bob")


@pytest.fixture
def carol(make_user: Callable[..., Any]) -> Any:
    return make_user("carol", display_name="Carol")


def _start_gomori(first: Any, second: Any, *, seed: int = SEED, is_public: bool = True) -> Any:
    return make_match(creator=first, game="gomori", seats=["open"], seed=seed, is_public=is_public,
                      joiners=[second])


@pytest.fixture
def start_gomori(db: None) -> Callable[..., Any]:
    """start_gomori(first, second, seed=SEED, is_public=True): a started Gomori match between two people.

    first holds seat 0 (black, to play first), second seat 1.
    """
    return _start_gomori


@pytest.fixture
def gomori_match(alice: Any, bob: Any) -> Any:
    """Alice (seat 0, black, to play) against Bob (seat 1), started with SEED."""
    return _start_gomori(alice, bob)


@pytest.fixture
def ws_headers() -> Callable[..., list[tuple[bytes, bytes]]]:
    """Headers for a WebSocket handshake from this site's pages: the Origin of the page (first), the Host it
    was served from (config/origins.py wants them to match), and the session cookie of a browser signed in as
    the given user (None: an anonymous browser). Call from sync code."""
    from django.conf import settings
    from django.test import Client

    host = "testserver"
    for allowed in settings.ALLOWED_HOSTS:
        if allowed != "*" and not allowed.startswith((".", "[")):
            host = allowed
            break

    def headers(user: object | None = None) -> list[tuple[bytes, bytes]]:
        result = [(b"origin", f"http://{host}".encode()), (b"host", host.encode())]
        if user is not None:
            client = Client()
            client.force_login(user)
            name = settings.SESSION_COOKIE_NAME
            result.append((b"cookie", f"{name}={client.cookies[name].value}".encode()))
        return result

    return headers


def session_cookie(user: Any) -> str:
    """The session cookie of a signed-in user, as a browser would send it."""
    client = Client()
    client.force_login(user)
    return f"sessionid={client.cookies['sessionid'].value}"


class PageCommunicator(WebsocketCommunicator):
    """A socket whose receive_from answers what the page shows after the message, as a browser would
    have it: updates carry only what changed (see games.rendering.SocketPage). The message itself is
    kept in `.message`."""

    message = ""

    async def receive_from(self, timeout: float = 1) -> str:  # type: ignore[override]
        self.message = await super().receive_from(timeout)
        if not hasattr(self, "page"):
            self.page = Page()
        return self.page.apply(self.message)

    async def settle(self, quiet: float = 0.3) -> str:
        """Take every message until none comes for `quiet` seconds; what the page shows then."""
        while not await self.receive_nothing(timeout=quiet):
            await self.receive_from(timeout=5)
        return self.page.html() if hasattr(self, "page") else ""


class PacedCommunicator(PageCommunicator):
    """A socket that sends no faster than a person can click: under the consumer's 20 frames a second.

    On a fast machine a scripted game (Gomori's chained plays, Ruhd's turn-then-place selections) would
    otherwise trip the flood limit, which is the server doing its job, not the test's subject.
    """

    min_gap = 1 / 18
    _last_send = 0.0

    async def send_to(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        loop = asyncio.get_running_loop()
        wait = self._last_send + self.min_gap - loop.time()
        if wait > 0:
            await asyncio.sleep(wait)
        self._last_send = loop.time()
        await super().send_to(text_data=text_data, bytes_data=bytes_data)


@pytest.fixture
async def ws_client() -> AsyncIterator[Callable[..., Any]]:
    """open_socket(match_id, user=None, code=None) -> (connected, close code or None, communicator).

    Goes through config.asgi.application (origin check, sessions, auth, routing); user None is anonymous;
    path= opens another socket than the match's; paced=False sends as fast as the test does (the flood
    test). Every communicator opened is disconnected at the end.
    """
    from config.asgi import application

    opened: list[WebsocketCommunicator] = []

    async def open_socket(
        match_id: int | None, user: Any = None, code: str | None = None, path: str | None = None,
        paced: bool = True,
    ) -> tuple[bool, Any, Any]:
        headers = [(b"origin", b"http://testserver"), (b"host", b"testserver")]
        if user is not None:
            cookie = await database_sync_to_async(session_cookie)(user)
            headers.append((b"cookie", cookie.encode()))
        if path is None:
            path = f"/ws/m/{match_id}/" + (f"?code={code}" if code else "")
        kind = PacedCommunicator if paced else PageCommunicator
        communicator = kind(application, path, headers=headers)
        connected, detail = await communicator.connect(timeout=5)
        opened.append(communicator)
        return connected, detail, communicator

    yield open_socket
    for communicator in opened:
        if communicator.future.done():  # closed by the server (or the test) already
            continue
        with contextlib.suppress(Exception, asyncio.CancelledError):
            await communicator.disconnect(timeout=3)
    await close_worker_connections()


async def close_worker_connections() -> None:
    """Stop the bot runner the sockets started, and close the database connection of the worker thread.

    Connections persist (CONN_MAX_AGE), so without this the thread behind database_sync_to_async would
    keep one open past the test, and PostgreSQL would refuse to drop the test database at the end.
    """
    from django.db import connections

    from games.play import scheduler

    await scheduler.stop()
    await database_sync_to_async(connections.close_all)()
