"""The services the site leans on failing for a while (the database, the channel layer), said once each.

Every loop that meets such a fault (the hub's news reader, a table's heartbeat, the bot runner, a move's commit)
asks here whether the error is a passing one (`db_unavailable`, `layer_unavailable`) and reports it to the
service's `Outage`, which logs one line when the fault begins and one when the service answers again, however
many operations met it meanwhile: a restart of Redis used to leave 90 tracebacks per process, each the same news.

Also the tests' crash hook (`crash_point`): an environment variable kills the process at a named place, the way a
power cut or an out-of-memory kill would, so that a test can show the others converge (README, Durability).
"""

from __future__ import annotations

import logging
import os
import signal
import sys
import time
from collections.abc import Iterator
from typing import Any

from django.db import DatabaseError, InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.templatetags.static import static
from django.utils.html import escape
from django.views.defaults import server_error as django_server_error

log = logging.getLogger("games.core.faults")


class Outage:
    """One service's state as this process sees it: up, or down since when (one line logged at each change)."""

    def __init__(self, name: str, meanwhile: str) -> None:
        self.name = name
        self.meanwhile = meanwhile  # what the site does while it is down, said in the first line
        self.since: float | None = None
        self.met = 0  # operations that met the fault since it began

    @property
    def down(self) -> bool:
        return self.since is not None

    def failed(self, error: BaseException) -> None:
        self.met += 1
        if self.since is None:
            self.since = time.monotonic()
            log.warning("%s is unavailable (%s): %s", self.name, brief(error), self.meanwhile)

    def answered(self) -> bool:
        """The service answered: True if that ends an outage (said in one line)."""
        if self.since is None:
            return False
        took, met = time.monotonic() - self.since, self.met
        self.since, self.met = None, 0
        log.warning("%s is back after %.1f s (%d operations met the fault meanwhile)", self.name, took, met)
        return True


DATABASE = Outage("The database", "moves are refused with 'the server is busy' and pages wait or say so, until it "
                                  "answers again")
CHANNEL_LAYER = Outage("The channel layer (Redis)", "each process goes on serving its own pages; news between "
                                                    "processes waits, and their pages catch up when it is back")


class _PoolAttempts(logging.Filter):
    """psycopg_pool logs a warning for each failed attempt to connect (several a second while the database is
    away, two lines each): taken here as the outage's news, said once (DATABASE)."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if message.startswith("error connecting"):
            DATABASE.failed(ConnectionError(message.split(": ", 1)[-1].splitlines()[0]))
            return False
        return True


def quiet_pool_attempts() -> None:
    """Install the filter above on the pool's logger (at start-up, once)."""
    pool_log = logging.getLogger("psycopg.pool")
    if not any(isinstance(f, _PoolAttempts) for f in pool_log.filters):
        pool_log.addFilter(_PoolAttempts())


def backoff(steps: tuple[float, ...] = (0.1, 0.25, 0.5, 1.0)) -> Iterator[float]:
    """The pauses between tries of something that met a fault: the steps, then the last one for ever."""
    yield from steps
    while True:
        yield steps[-1]


def brief(error: BaseException) -> str:
    """The error in a few words, on one line."""
    text = " ".join(str(error).split())
    return f"{type(error).__name__}: {text[:160]}" if text else type(error).__name__


def db_unavailable(error: BaseException) -> bool:
    """Whether a database error is the database being away or busy (a restart, a dropped connection, the pool
    out of connections, SQLite held by another writer), not a bug: the same request may work in a moment."""
    if isinstance(error, InterfaceError):
        return True
    if isinstance(error, OperationalError):
        cause = error.__cause__ or error
        if type(cause).__module__.startswith("sqlite3"):
            text = str(cause).lower()
            return "locked" in text or "busy" in text or "unable to open" in text or "disk i/o" in text
        return True  # psycopg: connection lost, refused, terminated; pool timeout; serialization failures
    if isinstance(error, DatabaseError):
        return type(error.__cause__ or error).__name__ in ("PoolTimeout", "PoolClosed", "TooManyRequests")
    return type(error).__module__.startswith("psycopg_pool")


def layer_unavailable(error: BaseException) -> bool:
    """Whether a channel-layer error is Redis being away (refused, reset, timed out, loading after a restart)."""
    try:
        from redis.exceptions import ConnectionError as RedisConnectionError
        from redis.exceptions import TimeoutError as RedisTimeoutError
    except ImportError:  # the in-memory layer only: no Redis to be away
        return False
    return isinstance(error, RedisConnectionError | RedisTimeoutError | ConnectionError | TimeoutError)


# -- pages while the database is away ---------------------------------------------------------------------

RETRY_AFTER_SECONDS = 5
AWAY_TEXT = "The site's database is not answering for a moment (a restart, or a busy spell). Nothing you did was lost."


def server_error(request: HttpRequest) -> HttpResponse:
    """handler500: a request that failed because the database is away is answered 503 with a page that says so and
    reloads itself (drawn without the database: no session, no template context), under /api/ as JSON; any other
    error is a 500: templates/500.html through Django's own server_error (no request, no database), under /api/
    as JSON."""
    error = sys.exc_info()[1]
    if error is None or not db_unavailable(error):
        if request.path.startswith("/api/"):
            return JsonResponse({"error": "Something went wrong on the server; the match goes on."}, status=500)
        return django_server_error(request)
    DATABASE.failed(error)
    headers = {"Retry-After": str(RETRY_AFTER_SECONDS)}
    if request.path.startswith("/api/"):
        return JsonResponse({"error": f"{AWAY_TEXT} Try again in a few seconds.", "retry_after": RETRY_AFTER_SECONDS},
                            status=503, headers=headers)
    page = (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="refresh" content="{RETRY_AFTER_SECONDS}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<title>Back in a moment · Card Club</title><link rel="stylesheet" href="{escape(static("css/site.css"))}">'
        '</head><body><main class="error-page"><h1>Back in a moment</h1>'
        f"<p>{AWAY_TEXT}</p><p>This page tries again by itself in a few seconds.</p>"
        '<p><a href="/">Home</a></p></main></body></html>'
    )
    return HttpResponse(page, status=503, headers=headers)


# -- the tests' crash hook -------------------------------------------------------------------------------

# GAMES_TEST_CRASH="<point>" kills this process (SIGKILL, no clean-up) the first time it passes <point>;
# "<point>:N" the N-th time. Unset in every real deployment: the check is then one comparison of a constant.
_CRASH = os.environ.get("GAMES_TEST_CRASH", "")
_CRASH_POINT, _, _CRASH_AT = _CRASH.partition(":")
_passes: dict[str, int] = {}


def crash_point(name: str, **context: Any) -> None:
    """A place where the process may die for a test (README, Durability): after a change's commit, before
    anyone was told of it."""
    if not _CRASH_POINT or name != _CRASH_POINT:
        return
    _passes[name] = _passes.get(name, 0) + 1
    if _passes[name] >= int(_CRASH_AT or 1):
        log.warning("GAMES_TEST_CRASH: killed at %s %s", name, context)
        os.kill(os.getpid(), signal.SIGKILL)
