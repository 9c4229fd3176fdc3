"""The database away under a running site (README, Durability): a PostgreSQL of the test's own restarted under two
daphne processes, and SQLite held by another writer (a long write, a backup) under one. A move in flight is made
once the database answers or refused as "busy" within the page's patience, nothing acknowledged is lost, play goes
on without restarting anything, and each process logs the fault in a line, not a traceback per request."""

from __future__ import annotations

import asyncio
import os
import random
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

import psycopg
import pytest
from channels.db import database_sync_to_async
from django.db import connection
from live_pages import Page
from servers import Daphne, database_url, server_env, session_cookie
from services import PrivatePostgres

from games.engines import get_engine
from games.play.hub import BUSY, COMMIT_PATIENCE_SECONDS

pytestmark = pytest.mark.django_db(transaction=True)

GOMORI = get_engine("gomori")


async def start(env: dict[str, str], log: Path) -> Daphne:
    return await asyncio.to_thread(Daphne, env, log)


def table(server: Daphne, match_id: int, cookie: str, name: str) -> Any:
    return Page.open(server.ws, f"/ws/m/{match_id}/", cookie, server.url, name)


def log_lines(server: Daphne, text: str) -> list[str]:
    return [line for line in server.log.read_text(errors="replace").splitlines() if text in line]


def match_row(url: str, match_id: int) -> tuple[int, int, str, Any, list[tuple[int, Any]]]:
    """(version, move count, status, state, moves) of a match, read straight from a database by its URL."""
    with psycopg.connect(url) as conn:
        version, count, status, state, seed = conn.execute(
            "SELECT version, move_count, status, state, seed FROM games_match WHERE id = %s", [match_id]).fetchone()
        moves = conn.execute("SELECT seat, action FROM games_move WHERE match_id = %s ORDER BY number",
                             [match_id]).fetchall()
    replay = GOMORI.new_game(2, seed=seed)
    for seat, action in moves:
        replay = GOMORI.apply(replay, seat, action)
    assert state == GOMORI.dump(replay), "the stored moves replay to the stored position"
    return version, count, status, state, moves


async def answered(page: Page, version: int, since: int, timeout: float) -> str:
    """What a move sent at `version` got within `timeout`: "made" (the page shows the next version) or "busy"."""
    message = await page.until(lambda m: BUSY in m or f'data-move="{version + 1}"' in m, timeout=timeout, since=since)
    return "busy" if BUSY in message else "made"


postgres_only = pytest.mark.skipif(
    not os.environ.get("REDIS_URL") or connection.vendor != "postgresql",
    reason="a PostgreSQL restarted under two processes: the scale-out CI pass (PostgreSQL + Redis) runs it")


@postgres_only
async def test_postgresql_restarted_under_two_processes_loses_nothing_and_play_goes_on(
    make_user: Any, start_gomori: Any, tmp_path: Path, settings: Any,
) -> None:
    users = [await database_sync_to_async(make_user)(name) for name in ("ann", "ben", "cat", "dan")]
    ann, ben, cat, dan = users
    across = await database_sync_to_async(start_gomori)(ann, ben, seed=41)
    here = await database_sync_to_async(start_gomori)(cat, dan, seed=42)
    cookies = {user.pk: await database_sync_to_async(session_cookie)(user) for user in users}
    postgres = await asyncio.to_thread(PrivatePostgres)
    servers: list[Daphne] = []
    pages: list[Page] = []
    try:
        url = await asyncio.to_thread(postgres.copy_of, database_url(connection.settings_dict), "cardclub_faults")
        env = server_env(DATABASE_URL=url, CHANNELS_REDIS_PREFIX=settings.CHANNEL_LAYERS["default"]["CONFIG"]["prefix"])
        a = await start(env, tmp_path / "a.log")
        b = await start(env, tmp_path / "b.log")
        servers += [a, b]
        by_match = {
            across.pk: {0: await table(a, across.pk, cookies[ann.pk], "ann on A"),
                        1: await table(b, across.pk, cookies[ben.pk], "ben on B")},
            here.pk: {0: await table(a, here.pk, cookies[cat.pk], "cat on A"),
                      1: await table(a, here.pk, cookies[dan.pk], "dan on A")},
        }
        pages += [page for seats in by_match.values() for page in seats.values()]
        rng = random.Random(3)
        acknowledged = {across.pk: 0, here.pk: 0}

        async def play(match_id: int, *, during: bool = False) -> str:
            row = cached[match_id] if during else await asyncio.to_thread(match_row, url, match_id)
            version, _, _, state, _ = row
            (seat,) = GOMORI.to_act(GOMORI.load(state))
            action = rng.choice(GOMORI.legal_actions(GOMORI.load(state), seat))
            page = by_match[match_id][seat]
            since = len(page.messages)
            await page.send({"action": action, "version": version})
            outcome = await answered(page, version, since, timeout=COMMIT_PATIENCE_SECONDS + 12)
            if outcome == "made":
                acknowledged[match_id] = version + 1
                await by_match[match_id][1 - seat].until_version(version + 1, timeout=15)
            return outcome

        for _ in range(2):
            for match_id in (across.pk, here.pk):
                assert await play(match_id) == "made"
        cached = {match_id: await asyncio.to_thread(match_row, url, match_id) for match_id in (across.pk, here.pk)}

        # The restart: a fast shutdown cuts every connection, 3 s without a database, then it is back.
        await asyncio.to_thread(postgres.stop)
        in_flight = [asyncio.create_task(play(match_id, during=True)) for match_id in (across.pk, here.pk)]
        await asyncio.sleep(3)
        await asyncio.to_thread(postgres.start)
        outcomes = await asyncio.gather(*in_flight)
        assert set(outcomes) <= {"made", "busy"}  # a clear answer either way, within the page's patience

        # Every connection cut under moves in flight (pg_terminate_backend, as an administrator or a failover does).
        cached = {match_id: await asyncio.to_thread(match_row, url, match_id) for match_id in (across.pk, here.pk)}
        in_flight = [asyncio.create_task(play(match_id, during=True)) for match_id in (across.pk, here.pk)]
        with psycopg.connect(url, autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                          "WHERE datname = current_database() AND pid <> pg_backend_pid()")
        outcomes += await asyncio.gather(*in_flight)
        assert set(outcomes) <= {"made", "busy"}, outcomes

        # Play goes on on both processes, neither restarted; nothing acknowledged was lost.
        for _ in range(2):
            for match_id in (across.pk, here.pk):
                assert await play(match_id) == "made"
        for match_id, pages_of in by_match.items():
            version, count, _, _, moves = await asyncio.to_thread(match_row, url, match_id)
            assert version == acknowledged[match_id] and count == len(moves)
            for page in pages_of.values():
                assert not page.closed.is_set() or page.close_code == 1013, (page.name, page.close_code)
                assert not page.went_back()
        for server in servers:
            assert server.process.poll() is None
            assert "Traceback" not in server.log.read_text(errors="replace"), server.log.read_text()[-6000:]
            assert 1 <= len(log_lines(server, "The database is unavailable")) <= 2
            assert log_lines(server, "The database is back after")
    finally:
        for page in pages:
            await page.close()
        for server in servers:
            await asyncio.to_thread(server.stop)
        await asyncio.to_thread(postgres.close)


sqlite_only = pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite's lock: the embedded CI pass runs it")


def hold_the_write_lock(path: str, seconds: float, holding: threading.Event) -> None:
    """Another program's long write: the database's write lock taken and kept for `seconds`."""
    held = sqlite3.connect(path, timeout=30, isolation_level=None)
    try:
        held.execute("BEGIN IMMEDIATE")
        holding.set()
        time.sleep(seconds)
        held.execute("ROLLBACK")
    finally:
        held.close()


def back_up(path: str, target: Path, pause: float) -> int:
    """A backup as `sqlite3 db .backup` takes it (the online backup API), slowed to a page per step; pages copied."""
    source = sqlite3.connect(path)
    copy = sqlite3.connect(target)
    steps = 0

    def progress(status: int, remaining: int, total: int) -> None:
        nonlocal steps
        steps += 1
        time.sleep(pause)

    try:
        source.backup(copy, pages=1, progress=progress)
    finally:
        copy.close()
        source.close()
    return steps


def sqlite_row(match_id: int) -> tuple[int, int, list[tuple[int, Any]]]:
    from games.models import Match, Move

    match = Match.objects.get(pk=match_id)
    moves = list(Move.objects.filter(match_id=match_id).order_by("number").values_list("seat", "action"))
    replay = GOMORI.new_game(2, seed=match.seed)
    for seat, action in moves:
        replay = GOMORI.apply(replay, seat, action)
    assert match.state == GOMORI.dump(replay)
    return match.version, match.move_count, moves


@sqlite_only
async def test_sqlite_held_by_another_writer_makes_moves_wait_or_refuses_them_clearly_and_play_resumes(
    alice: Any, bob: Any, start_gomori: Any, tmp_path: Path,
) -> None:
    match = await database_sync_to_async(start_gomori)(alice, bob, seed=43)
    cookies = [await database_sync_to_async(session_cookie)(user) for user in (alice, bob)]
    path = str(connection.settings_dict["NAME"])
    server = await start(server_env(DJANGO_SQLITE_BUSY_SECONDS="4"), tmp_path / "daphne.log")  # the default
    pages = [await table(server, match.pk, cookies[seat], f"seat {seat}") for seat in (0, 1)]
    rng = random.Random(4)

    async def send_move() -> tuple[Page, int, int]:
        version, _, _ = await database_sync_to_async(sqlite_row)(match.pk)
        state = GOMORI.load((await database_sync_to_async(lambda: match.__class__.objects.get(pk=match.pk))()).state)
        (seat,) = GOMORI.to_act(state)
        page = pages[seat]
        since = len(page.messages)
        await page.send({"action": rng.choice(GOMORI.legal_actions(state, seat)), "version": version})
        return page, version, since

    try:
        # A short hold (2 s): the move waits for it and is made when it ends.
        holding = threading.Event()
        holder = asyncio.create_task(asyncio.to_thread(hold_the_write_lock, path, 2.0, holding))
        await asyncio.to_thread(holding.wait, 10)
        sent = time.monotonic()
        page, version, since = await send_move()
        assert await answered(page, version, since, timeout=15) == "made"
        assert time.monotonic() - sent >= 1.0  # it waited for the lock
        await holder

        # A hold longer than the page's patience: the move is refused as "busy" within it, nothing written.
        holding = threading.Event()
        holder = asyncio.create_task(asyncio.to_thread(hold_the_write_lock, path, COMMIT_PATIENCE_SECONDS + 6, holding))
        await asyncio.to_thread(holding.wait, 10)
        sent = time.monotonic()
        page, version, since = await send_move()
        assert await answered(page, version, since, timeout=COMMIT_PATIENCE_SECONDS + 5) == "busy"
        assert time.monotonic() - sent <= COMMIT_PATIENCE_SECONDS + 5
        await holder
        assert (await database_sync_to_async(sqlite_row)(match.pk))[0] == version  # nothing was written

        # Play resumes when it ends: the same move made again, and more, while a slow backup copies the file.
        backup = asyncio.create_task(asyncio.to_thread(back_up, path, tmp_path / "backup.sqlite3", 0.002))
        for _ in range(4):
            page, version, since = await send_move()
            assert await answered(page, version, since, timeout=15) == "made"
        assert await backup > 0
        version, count, moves = await database_sync_to_async(sqlite_row)(match.pk)
        assert count == len(moves) and all(p.version == version for p in pages)
        log = server.log.read_text(errors="replace")
        assert "Traceback" not in log, log[-6000:]
        assert log_lines(server, "The database is unavailable") and log_lines(server, "The database is back after")
    finally:
        for page in pages:
            await page.close()
        await asyncio.to_thread(server.stop)
