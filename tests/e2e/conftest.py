"""Real-browser tests: a live ASGI server (daphne, so WebSockets work too) on the test database, and Playwright.

Django's live_server fixture is WSGI-only and serves no WebSockets, so `asgi_server` runs daphne in a
subprocess pointed at the very database this test process created (SQLite file or PostgreSQL test
database). Tests that use it must be `@pytest.mark.django_db(transaction=True)`, so what they write is
committed and visible to the server, and cleaned up afterwards.

`page` is a fresh browser context and tab per test (base URL = the server), with every console message
collected: a Content Security Policy violation fails the test. A screenshot of each test's last page is
saved under test-artifacts/e2e/.
"""

from __future__ import annotations

import contextlib
import os
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from servers import Daphne, database_url

BASE_DIR = Path(__file__).resolve().parents[2]
ARTIFACTS = BASE_DIR / "test-artifacts" / "e2e"
CHROMIUM = os.environ.get("E2E_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test in this folder is an e2e test, whether or not it says so."""
    for item in items:
        if Path(str(item.fspath)).is_relative_to(Path(__file__).parent):
            item.add_marker(pytest.mark.e2e)


# One server per test module, not per session: its bot runner polls the shared test database, and left
# running it would play the bots of the socket and service tests that a worker runs after the browser
# tests (and broadcast their moves on its own channel layer, which those tests never hear).
@pytest.fixture(scope="module")
def asgi_server(
    django_db_setup: None, django_db_blocker: Any, tmp_path_factory: pytest.TempPathFactory,
    request: pytest.FixtureRequest,
) -> Iterator[str]:
    """Run the real ASGI application (HTTP and WebSockets) with daphne on a free port; yield its base URL."""
    from django.db import connection

    with django_db_blocker.unblock():
        url = database_url(connection.settings_dict)

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    # One log per module: a failure's server log is not overwritten by the next module's.
    log = ARTIFACTS / f"daphne-{os.environ.get('PYTEST_XDIST_WORKER', 'main')}-{request.module.__name__}.log"
    log.unlink(missing_ok=True)
    server = Daphne(
        {
            "DATABASE_URL": url,
            # Debug on, so /media/ (uploaded avatars) and static files are served by the app itself.
            "DJANGO_DEBUG": "true",
            "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
            "DJANGO_MEDIA_ROOT": str(tmp_path_factory.mktemp("e2e-media")),
            # Bots answer after a short pause, so games against them finish quickly.
            "GAMES_BOT_DELAY": os.environ.get("E2E_BOT_DELAY", "0.1"),
            # Parallel workers' servers number their matches alike: on a shared Redis, keep their groups apart.
            "CHANNELS_REDIS_PREFIX": f"cardclub-e2e-{os.environ.get('PYTEST_XDIST_WORKER', 'main')}-{os.getpid()}",
            # A module's SERVER_ENV (a dict) adds to it: debug off to see what production shows, say.
            **getattr(request.module, "SERVER_ENV", {}),
        },
        log,
    )
    try:
        yield server.url
    finally:
        server.stop()


@pytest.fixture(autouse=True)
def _real_password_hashing(settings: Any) -> None:
    """Users made here must sign in through the server, which knows only the real password hashers."""
    from django.conf import global_settings

    settings.PASSWORD_HASHERS = global_settings.PASSWORD_HASHERS


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Headless Debian chromium through Playwright's sync API, one per test module.

    Playwright's sync API keeps an asyncio loop running in this thread, and Django then refuses ORM calls
    ("you cannot call this from an async context"). The tests here are plain sync code, so that guard is
    lifted for as long as the browser is up, and restored afterwards.
    """
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: ./dev test installs it (apt-get install chromium)")
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    playwright = sync_playwright().start()
    try:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield browser
        browser.close()
    finally:
        playwright.stop()
        if previous is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


@pytest.fixture
def console_messages() -> list[str]:
    """Everything the page logged to the console, and uncaught errors, as "type: text" lines."""
    return []


@pytest.fixture
def page(browser: Any, asgi_server: str, console_messages: list[str], request: pytest.FixtureRequest) -> Iterator[Any]:
    """A new context and tab for this test, at the live server; screenshot and CSP check afterwards."""
    context = browser.new_context(base_url=asgi_server, viewport={"width": 1280, "height": 800})
    context.set_default_timeout(20_000)
    tab = context.new_page()
    tab.on("console", lambda message: console_messages.append(f"{message.type}: {message.text}"))
    tab.on("pageerror", lambda error: console_messages.append(f"pageerror: {error}"))
    yield tab
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    name = re.sub(r"[^\w.-]+", "_", request.node.name)
    with contextlib.suppress(Exception):
        tab.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)
    context.close()
    settled()
    violations = [line for line in console_messages if "Content Security Policy" in line]
    if violations:
        pytest.fail("Content Security Policy violations:\n" + "\n".join(violations))


def settled(timeout: float = 5.0) -> None:
    """Wait until the server has written the statistics of a match that ended (in a transaction of its own, just
    after the end is shown): the test's database is flushed next, and on PostgreSQL a flush can deadlock with a
    transaction of the server's still in flight."""
    from games.models import Match

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if not Match.objects.filter(stats_due=True).exists():
                return
        except Exception:  # a test without the database
            return
        time.sleep(0.05)

