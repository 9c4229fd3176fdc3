"""games.core.faults in process: which errors are the database or Redis away, an outage said in one line each way
however many operations meet it, and what a page or a program is answered while the database is away (a 503 that
says so, JSON under /api/). The faults themselves, with real processes and servers:
tests/games/play/test_faults_*.py."""

from __future__ import annotations

import logging
import sqlite3
from typing import Any

import pytest
from django.db import DatabaseError, IntegrityError, InterfaceError, OperationalError
from django.test import Client
from redis.exceptions import ConnectionError as RedisConnectionError

from games.core import faults


def wrapped(error: Exception, cause: BaseException) -> Exception:
    error.__cause__ = cause
    return error


def test_which_errors_are_the_database_away() -> None:
    assert faults.db_unavailable(wrapped(OperationalError("database is locked"),
                                         sqlite3.OperationalError("database is locked")))
    assert not faults.db_unavailable(wrapped(OperationalError("no such table: x"),
                                             sqlite3.OperationalError("no such table: x")))  # a bug, not a fault
    assert faults.db_unavailable(OperationalError("server closed the connection unexpectedly"))
    assert faults.db_unavailable(InterfaceError("connection already closed"))
    assert not faults.db_unavailable(IntegrityError("duplicate key"))
    assert not faults.db_unavailable(DatabaseError("something else"))
    assert not faults.db_unavailable(ValueError("a bug"))
    assert faults.layer_unavailable(RedisConnectionError("Connection refused"))
    assert faults.layer_unavailable(ConnectionResetError())
    assert not faults.layer_unavailable(KeyError("a bug"))


def test_an_outage_is_said_once_when_it_begins_and_once_when_it_ends(caplog: pytest.LogCaptureFixture) -> None:
    outage = faults.Outage("The thing", "pages wait")
    with caplog.at_level(logging.INFO, logger="games.core.faults"):
        assert not outage.answered()  # nothing to say while it is up
        for _ in range(90):
            outage.failed(ConnectionRefusedError("Connection refused"))
        assert outage.down
        assert outage.answered()
        assert not outage.answered()
    lines = [record.getMessage() for record in caplog.records]
    assert len(lines) == 2
    assert lines[0].startswith("The thing is unavailable (ConnectionRefusedError: Connection refused)")
    assert lines[1].startswith("The thing is back after") and "90 operations" in lines[1]
    assert not any(record.exc_info for record in caplog.records)


def test_the_pool_s_failed_attempts_are_taken_as_the_outage_s_news(caplog: pytest.LogCaptureFixture) -> None:
    faults.quiet_pool_attempts()
    faults.DATABASE.answered()  # up, whatever an earlier test left
    caplog.clear()
    pool_log = logging.getLogger("psycopg.pool")
    with caplog.at_level(logging.INFO):
        for _ in range(5):
            pool_log.warning("error connecting in 'pool-1': connection failed: Connection refused\n\tIs it running?")
        pool_log.warning("something else about the pool")
        faults.DATABASE.answered()
    messages = [record.getMessage() for record in caplog.records]
    assert [m for m in messages if "error connecting" in m] == []
    assert sum("The database is unavailable" in m for m in messages) == 1
    assert "something else about the pool" in messages
    assert sum("The database is back" in m for m in messages) == 1


@pytest.fixture
def database_away(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every page and API request meets the database away: the sessions' and the API tokens' reads fail as a
    restarted PostgreSQL's connections do."""
    def away(*args: Any, **kwargs: Any) -> Any:
        raise OperationalError("terminating connection due to administrator command")

    monkeypatch.setattr("django.contrib.sessions.backends.db.SessionStore.load", away)
    monkeypatch.setattr("games.api.auth.authenticate", away)


@pytest.mark.django_db
def test_a_page_requested_while_the_database_is_away_says_so_and_reloads_itself(
    database_away: None, settings: Any,
) -> None:
    settings.DEBUG = False
    client = Client(raise_request_exception=False)
    client.cookies["sessionid"] = "x" * 32
    response = client.get("/play/")
    assert response.status_code == 503 and response["Retry-After"] == str(faults.RETRY_AFTER_SECONDS)
    page = response.content.decode()
    assert "Back in a moment" in page and 'http-equiv="refresh"' in page and 'href="/"' in page
    assert "Traceback" not in page

    api = client.get("/api/v1/account", HTTP_AUTHORIZATION="Bearer ccb_x")
    assert api.status_code == 503 and api["Content-Type"] == "application/json"
    assert api.json()["retry_after"] == faults.RETRY_AFTER_SECONDS and "busy" in api.json()["error"]


@pytest.mark.django_db
def test_any_other_server_error_is_still_a_500(monkeypatch: pytest.MonkeyPatch, settings: Any) -> None:
    settings.DEBUG = False

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise ValueError("a bug")

    monkeypatch.setattr("django.contrib.sessions.backends.db.SessionStore.load", broken)
    client = Client(raise_request_exception=False)
    client.cookies["sessionid"] = "x" * 32
    assert client.get("/play/").status_code == 500
