"""Faults, as deployed (README, Durability): real daphne processes on the test database, real WebSocket clients, and
the fault itself real: a process killed between a change's commit and its announcement (GAMES_TEST_CRASH), a Redis
of the test's own stopped and started under two processes, a page that leaves while its socket opens.

PostgreSQL restarted under the site and SQLite held by another writer are in test_faults_databases.py; a site bot
played on by the other process is below, a Bot API stream and the bridge riding through a kill in
tests/games/api/test_api_faults.py.
"""

from __future__ import annotations

import asyncio
import os
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import websockets
from channels.db import database_sync_to_async
from django.db import connection
from live_pages import Page
from servers import Daphne, server_env, session_cookie
from services import PrivateRedis

from games.engines import get_engine
from games.models import Match, Move

pytestmark = pytest.mark.django_db(transaction=True)

GOMORI = get_engine("gomori")

redis_only = pytest.mark.skipif(not os.environ.get("REDIS_URL") or connection.vendor != "postgresql",
                                reason="two processes need PostgreSQL + Redis: the scale-out CI pass runs it")


async def start(env: dict[str, str], log: Path) -> Daphne:
    return await asyncio.to_thread(Daphne, env, log)


async def stop(*servers: Daphne) -> None:
    for server in servers:
        await asyncio.to_thread(server.stop)


def table(server: Daphne, match_id: int, cookie: str | None, name: str) -> Any:
    return Page.open(server.ws, f"/ws/m/{match_id}/", cookie, server.url, name)


@database_sync_to_async
def stored(match_id: int) -> tuple[Match, list[tuple[int, dict[str, Any]]]]:
    match = Match.objects.get(pk=match_id)
    return match, list(Move.objects.filter(match_id=match_id).order_by("number").values_list("seat", "action"))


def replayed(match: Match, moves: list[tuple[int, dict[str, Any]]]) -> Any:
    state = GOMORI.new_game(2, seed=match.seed)
    for seat, action in moves:
        state = GOMORI.apply(state, seat, action)
    return state


async def next_move(match_id: int, rng: random.Random) -> tuple[int, dict[str, Any], int]:
    """(the seat to move, a legal action of theirs, the version it is for), as the database has the match."""
    match, _ = await stored(match_id)
    state = GOMORI.load(match.state)
    (seat,) = GOMORI.to_act(state)
    return seat, rng.choice(GOMORI.legal_actions(state, seat)), match.version


async def move(page: Page, match_id: int, rng: random.Random) -> int:
    """The seat to move plays a legal move from `page` (theirs); the version after it, once the page shows it."""
    _, action, version = await next_move(match_id, rng)
    await page.send({"action": action, "version": version})
    await page.until_version(version + 1)
    return version + 1


def log_lines(server: Daphne, text: str) -> list[str]:
    return [line for line in server.log.read_text(errors="replace").splitlines() if text in line]


def assert_quiet(*servers: Daphne) -> None:
    """No traceback in a server's log: each fault is one line (games.core.faults)."""
    for server in servers:
        log = server.log.read_text(errors="replace")
        assert "Traceback" not in log, log[-6000:]


@pytest.fixture
def prefix(settings: Any) -> str:
    # This test's own on the shared Redis (tests/games/conftest.py), shared with its servers.
    return str(settings.CHANNEL_LAYERS["default"]["CONFIG"]["prefix"])


# -- 1. A copy never outlives the truth ---------------------------------------------------------------------------


@pytest.mark.redis
@redis_only
async def test_a_page_opened_where_a_copy_missed_a_change_is_drawn_the_database_s_position_and_none_goes_back(
    alice: Any, bob: Any, carol: Any, start_gomori: Any, tmp_path: Path, prefix: str,
) -> None:
    env = server_env(CHANNELS_REDIS_PREFIX=prefix)
    # A dies between its first commit and the news of it. B compares versions only hourly here: only a socket's
    # opening can bring its copy up to date (the sweep is the next test's).
    a = await start({**env, "GAMES_TEST_CRASH": "after-commit"}, tmp_path / "a.log")
    b = await start({**env, "GAMES_CATCH_UP_SECONDS": "3600"}, tmp_path / "b.log")
    servers = [a, b]
    pages: list[Page] = []
    try:
        match = await database_sync_to_async(start_gomori)(alice, bob, seed=11)
        cookies = {user.pk: await database_sync_to_async(session_cookie)(user) for user in (alice, bob, carol)}
        seats = {0: cookies[alice.pk], 1: cookies[bob.pk]}
        rng = random.Random(5)
        mover, action, version = await next_move(match.pk, rng)
        waiting = await table(b, match.pk, seats[1 - mover], "the opponent's page on B")
        moving = await table(a, match.pk, seats[mover], "the mover's page on A")
        pages += [waiting, moving]
        await moving.send({"action": action, "version": version})
        await asyncio.to_thread(a.process.wait, 30)  # A committed the move and died before telling anyone
        fresh, _ = await stored(match.pk)
        assert fresh.version == version + 1
        await asyncio.sleep(1.0)
        assert waiting.version == version, "B's copy was told nothing: the fault under test"

        # A page opened on B now (the mover's page reloaded there, a spectator) is drawn the database's position,
        # and B's copy with it: the page open there all along is shown it too.
        reloaded = await table(b, match.pk, seats[mover], "the mover's page reloaded onto B")
        watcher = await table(b, match.pk, cookies[carol.pk], "a spectator on B")
        pages += [reloaded, watcher]
        assert reloaded.versions[0] == version + 1 and watcher.versions[0] == version + 1
        await waiting.until_version(version + 1, timeout=5)

        # Play goes on across both processes; A restarted, the mover's page moved back to it.
        a = await start(env, tmp_path / "a-restarted.log")
        servers.append(a)
        back = await table(a, match.pk, seats[mover], "the mover's page back on A")
        pages.append(back)
        by_seat = {mover: back, 1 - mover: waiting}
        for _ in range(6):
            seat, _, _ = await next_move(match.pk, rng)
            if GOMORI.is_over(GOMORI.load((await stored(match.pk))[0].state)):
                break
            now = await move(by_seat[seat], match.pk, rng)
            for page in (back, waiting, watcher):
                await page.until_version(now, timeout=10)
        fresh, moves = await stored(match.pk)
        assert fresh.state == GOMORI.dump(replayed(fresh, moves)) and fresh.move_count == len(moves)
        for page in pages:
            assert not page.went_back(), f"{page.name} went back: {page.versions}"
        assert log_lines(b, f"match {match.pk}: this process's copy was at version {version}")
    finally:
        for page in pages:
            await page.close()
        await stop(*servers)


@pytest.mark.redis
@redis_only
async def test_a_copy_that_missed_a_change_catches_up_within_the_bound_with_nobody_moving(
    alice: Any, bob: Any, carol: Any, start_gomori: Any, tmp_path: Path, prefix: str,
) -> None:
    """The no-retry case: nobody moves, nobody opens a page; B's copy reads the database's version by itself."""
    env = server_env(CHANNELS_REDIS_PREFIX=prefix)
    a = await start({**env, "GAMES_TEST_CRASH": "after-commit"}, tmp_path / "a.log")
    b = await start(env, tmp_path / "b.log")  # GAMES_CATCH_UP_SECONDS: 2, the default
    pages: list[Page] = []
    try:
        match = await database_sync_to_async(start_gomori)(alice, bob, seed=12)
        cookies = {user.pk: await database_sync_to_async(session_cookie)(user) for user in (alice, bob, carol)}
        seats = {0: cookies[alice.pk], 1: cookies[bob.pk]}
        mover, action, version = await next_move(match.pk, random.Random(1))
        waiting = await table(b, match.pk, seats[1 - mover], "the opponent's page on B")
        watcher = await table(b, match.pk, cookies[carol.pk], "a spectator on B")
        moving = await table(a, match.pk, seats[mover], "the mover's page on A")
        pages += [waiting, watcher, moving]
        await moving.send({"action": action, "version": version})
        await asyncio.to_thread(a.process.wait, 30)
        died = asyncio.get_running_loop().time()
        # Within the bound (README: GAMES_CATCH_UP_SECONDS, 2 s, and a read), with a margin for a loaded machine.
        await waiting.until_version(version + 1, timeout=8)
        await watcher.until_version(version + 1, timeout=8)
        took = asyncio.get_running_loop().time() - died
        assert took < 8
        assert (await stored(match.pk))[0].version == version + 1
        assert not waiting.went_back() and not watcher.went_back()
        assert_quiet(b)
    finally:
        for page in pages:
            await page.close()
        await stop(a, b)


# -- 2. Redis stopped and started under two processes -----------------------------------------------------------


@pytest.fixture
def own_redis() -> Iterator[PrivateRedis]:
    redis = PrivateRedis()
    try:
        yield redis
    finally:
        redis.close()


@pytest.mark.redis
@redis_only
async def test_redis_stopped_and_started_under_two_processes_closes_no_page_and_everything_catches_up(
    make_user: Any, start_gomori: Any, tmp_path: Path, own_redis: PrivateRedis,
) -> None:
    users = [await database_sync_to_async(make_user)(name) for name in ("ann", "ben", "cat", "dan", "eve")]
    ann, ben, cat, dan, eve = users
    cookies = {user.pk: await database_sync_to_async(session_cookie)(user) for user in users}
    env = server_env(REDIS_URL=own_redis.url, CHANNELS_REDIS_PREFIX="faults")
    a = await start(env, tmp_path / "a.log")
    b = await start(env, tmp_path / "b.log")
    pages: list[Page] = []
    rng = random.Random(7)
    try:
        # One match whose pages are all on A (as the README's proxy sends them), one across A and B.
        here = await database_sync_to_async(start_gomori)(ann, ben, seed=21)
        across = await database_sync_to_async(start_gomori)(cat, dan, seed=22)
        here_pages = {0: await table(a, here.pk, cookies[ann.pk], "ann on A"),
                      1: await table(a, here.pk, cookies[ben.pk], "ben on A")}
        across_pages = {0: await table(a, across.pk, cookies[cat.pk], "cat on A"),
                        1: await table(b, across.pk, cookies[dan.pk], "dan on B")}
        notices = await Page.open(b.ws, "/ws/notify/", cookies[dan.pk], b.url, "dan's notification socket on B",
                                  first=None)
        lobby = await Page.open(b.ws, "/ws/notify/?lobby=1", None, b.url, "a lobby watched on B", first=None)
        pages += [*here_pages.values(), *across_pages.values(), notices, lobby]
        await asyncio.sleep(0.5)
        for _ in range(2):  # news crosses processes before the fault
            seat, _, _ = await next_move(across.pk, rng)
            now = await move(across_pages[seat], across.pk, rng)
            await across_pages[1 - seat].until_version(now, timeout=10)

        await asyncio.to_thread(own_redis.stop)
        stopped = asyncio.get_running_loop().time()
        # The match whose pages are on A plays on as if nothing happened.
        for _ in range(4):
            seat, _, _ = await next_move(here.pk, rng)
            now = await move(here_pages[seat], here.pk, rng)
            await here_pages[1 - seat].until_version(now, timeout=5)
        # Across processes, a move on A reaches B's page while Redis is still away (B reads the version).
        seat, _, _ = await next_move(across.pk, rng)
        now = await move(across_pages[seat], across.pk, rng)
        await across_pages[1 - seat].until_version(now, timeout=8)
        # A page opened on B meanwhile gets the table, and a notification socket opens: no HTTP 500.
        late = await table(b, here.pk, cookies[eve.pk], "eve watching on B, opened while Redis is away")
        late_notices = await Page.open(a.ws, "/ws/notify/", cookies[eve.pk], a.url, "eve's notifications on A",
                                       first=None)
        pages += [late, late_notices]
        assert late.version == (await stored(here.pk))[0].version
        await asyncio.sleep(max(0.0, stopped + 5 - asyncio.get_running_loop().time()))
        assert not any(page.closed.is_set() for page in pages), [(p.name, p.close_code) for p in pages]
        await asyncio.to_thread(own_redis.start)

        # Back: the groups were joined again. A chat line (it travels only over the layer) crosses processes...
        said = len(across_pages[1].messages)
        await across_pages[0].send({"op": "chat", "text": "still here?"})
        try:
            await across_pages[1].until(lambda m: "still here?" in m, timeout=10, since=said)
        except TimeoutError:
            for m in across_pages[0].messages[-3:]:
                print("CAT", m[:300].replace("\n", " "))
            print("DAN", across_pages[1].messages[said:])
            raise
        # ... a move on A reaches the spectator who arrived on B during the outage, through the news ...
        seat, _, _ = await next_move(here.pk, rng)
        now = await move(here_pages[seat], here.pk, rng)
        await late.until_version(now, timeout=10)
        # ... and "your turn" reaches dan's notification socket on B when cat moves on A.
        seat, _, _ = await next_move(across.pk, rng)
        if seat == 1:  # dan's move first, so that cat's makes it dan's turn
            await move(across_pages[1], across.pk, rng)
        cued = len(notices.messages)
        await move(across_pages[0], across.pk, rng)
        await notices.until(lambda m: f"#{across.pk}" in m and "Your turn" in m, timeout=10, since=cued)
        # ... and the lobby watched on B hears a match on A ending (it leaves the lists of matches being played).
        heard = len(lobby.messages)
        await here_pages[0].send({"op": "resign"})
        await here_pages[0].until(lambda m: "You resigned." in m, timeout=10)
        await lobby.until(lambda m: 'id="lobby-lists"' in m, timeout=10, since=heard)
        assert not any(page.closed.is_set() for page in pages), [(p.name, p.close_code) for p in pages]
        for page in pages:
            assert not page.went_back(), f"{page.name} went back: {page.versions}"
        for match in (here, across):
            fresh, moves = await stored(match.pk)
            assert fresh.state == GOMORI.dump(replayed(fresh, moves))
        # One line when Redis went and one when it came back, per process; no traceback.
        for server in (a, b):
            assert len(log_lines(server, "The channel layer (Redis) is unavailable")) == 1, server.log.read_text()
            assert len(log_lines(server, "The channel layer (Redis) is back after")) == 1, server.log.read_text()
        assert_quiet(a, b)
    finally:
        for page in pages:
            await page.close()
        await stop(a, b)


# -- 6. A page that leaves while its socket opens ---------------------------------------------------------------


async def _open_then_leave(server: Daphne, path: str, cookie: str) -> None:
    """A browser tab closed as its socket opens: the handshake done, the close sent before the page arrives."""
    sock = await websockets.connect(f"{server.ws}{path}", additional_headers={"Cookie": cookie}, origin=server.url)
    await sock.close()


async def test_a_page_that_leaves_while_its_socket_opens_logs_no_traceback(
    alice: Any, bob: Any, start_gomori: Any, tmp_path: Path,
) -> None:
    match = await database_sync_to_async(start_gomori)(alice, bob, seed=31)
    cookie = await database_sync_to_async(session_cookie)(alice)
    server = await start(server_env(), tmp_path / "daphne.log")
    try:
        for _ in range(20):
            await _open_then_leave(server, f"/ws/m/{match.pk}/", cookie)
            await _open_then_leave(server, "/ws/notify/?lobby=1", cookie)
        # The server is fine and the seat's presence was released each time: a page opens as usual.
        page = await table(server, match.pk, cookie, "alice")
        await page.close()
        await asyncio.sleep(1.0)
        log = server.log.read_text(errors="replace")
        assert "Disconnected" not in log and "Traceback" not in log, log[-6000:]
    finally:
        await stop(server)


async def test_a_send_to_a_page_that_left_during_its_opening_is_no_error(
    alice: Any, bob: Any, start_gomori: Any, caplog: pytest.LogCaptureFixture,
) -> None:
    """The race above, made certain: daphne raises autobahn's Disconnected for a send to a page whose close it has
    read but whose connection it has not yet dropped (a tab closed while its table was being drawn). The socket
    takes it as the page leaving: no error, and the seat's presence is released with the disconnect that follows."""
    from autobahn.exception import Disconnected

    from config.asgi import application
    from games.models import Presence

    match = await database_sync_to_async(start_gomori)(alice, bob, seed=32)
    cookie = await database_sync_to_async(session_cookie)(alice)
    inputs: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    sent: list[str] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message["type"])
        if message["type"] == "websocket.send":  # accepted, then the page is gone
            raise Disconnected("Attempt to send on a closed protocol")

    scope = {"type": "websocket", "path": f"/ws/m/{match.pk}/", "raw_path": f"/ws/m/{match.pk}/".encode(),
             "query_string": b"", "headers": [(b"origin", b"http://testserver"), (b"host", b"testserver"),
                                               (b"cookie", cookie.encode())],
             "subprotocols": [], "client": ["127.0.0.1", 5000], "server": ["testserver", 80]}
    app = asyncio.ensure_future(application(scope, inputs.get, send))
    await inputs.put({"type": "websocket.connect"})
    async with asyncio.timeout(10):
        while "websocket.send" not in sent:
            await asyncio.sleep(0.01)
    assert await database_sync_to_async(Presence.objects.filter(match_id=match.pk, seat=0).exists)()
    await inputs.put({"type": "websocket.disconnect", "code": 1001})
    await asyncio.wait_for(app, 10)  # ended cleanly: no exception came out of the consumer
    assert not await database_sync_to_async(Presence.objects.filter(match_id=match.pk).exists)()
    assert not [record for record in caplog.records if record.exc_info]


# -- 5. Bots ride through a process's death ---------------------------------------------------------------------


@pytest.mark.redis
@redis_only
async def test_a_match_against_a_site_bot_whose_process_died_is_played_on_by_the_other_process(
    alice: Any, tmp_path: Path, prefix: str,
) -> None:
    from urllib.request import urlopen

    from games.play.create import SeatSpec, create_match

    env = server_env(CHANNELS_REDIS_PREFIX=prefix)
    a = await start({**env, "GAMES_TEST_CRASH": "after-commit"}, tmp_path / "a.log")
    b = await start(env, tmp_path / "b.log")
    pages: list[Page] = []
    try:
        await asyncio.to_thread(lambda: urlopen(f"{b.url}/rules/gomori/", timeout=10).read())  # B's runner starts
        match = await database_sync_to_async(create_match)(
            creator=alice, game="gomori", players=2, seats=[SeatSpec("bot", "reference")], seed=6)
        cookie = await database_sync_to_async(session_cookie)(alice)
        rng = random.Random(8)
        async with asyncio.timeout(15):  # the person's turn (the bot may open)
            while (await next_move(match.pk, rng))[0] != 0:
                await asyncio.sleep(0.05)
        person = await table(a, match.pk, cookie, "alice on A")
        pages.append(person)
        _, action, version = await next_move(match.pk, rng)
        await person.send({"action": action, "version": version})
        await asyncio.to_thread(a.process.wait, 30)  # the move committed, A died before its bot timer was set
        # Nobody is connected anywhere; B's runner finds the bot due and plays its turn.
        async with asyncio.timeout(15):
            while True:
                fresh, moves = await stored(match.pk)
                if fresh.version > version + 1 and moves[-1][0] == 1:
                    break
                await asyncio.sleep(0.1)
        assert fresh.state == GOMORI.dump(replayed(fresh, moves))
        # The person's page reloaded onto B plays on against the bot.
        again = await table(b, match.pk, cookie, "alice on B")
        pages.append(again)
        assert again.version == fresh.version
        seat, action, version = await next_move(match.pk, rng)
        if seat == 0:
            await again.send({"action": action, "version": version})
            await again.until_version(version + 2, timeout=15)  # hers, and the bot's answer
        assert_quiet(b)
    finally:
        for page in pages:
            await page.close()
        await stop(a, b)
