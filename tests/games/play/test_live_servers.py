"""The live core as deployed: real daphne processes on the test database, real WebSocket clients.

- kill -9 of the server in the middle of twenty matches: every acknowledged move survives, and play
  goes on after a restart (SQLite, and PostgreSQL + Redis in the scale-out CI pass);
- two processes on PostgreSQL + Redis: players on different processes play a whole match, a bot moves
  exactly once a turn, and a rename shows on both;
- kill -9 between a match's end and its statistics (PostgreSQL): counted exactly once after the restart; what
  hears the end with it (games/endings.py: the history, a tournament, the analysis queue) was written with it.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
from pathlib import Path
from typing import Any

import psycopg
import pytest
import websockets
from channels.db import database_sync_to_async
from django.contrib.auth import get_user_model
from django.db import connection
from django.utils import timezone
from openings import play_openings
from servers import Daphne, database_url, server_env, session_cookie, until

from games.engines import get_engine
from games.models import AnalysisJob, Entrant, FinishedMatch, Match, Move, PlayerResult, PlayerStats
from games.play import stats_due
from games.play.create import SeatSpec, create_match
from games.ratings.rebuild import rebuild_all
from games.tournaments import services as tournament_services

pytestmark = pytest.mark.django_db(transaction=True)

GOMORI = get_engine("gomori")


async def start(env: dict[str, str], log: Path) -> Daphne:
    return await asyncio.to_thread(Daphne, env, log)


async def connect(server: Daphne, match_id: int, cookie: str | None) -> Any:
    headers = {"Cookie": cookie} if cookie else {}
    sock = await websockets.connect(f"{server.ws}/ws/m/{match_id}/", additional_headers=headers,
                                    origin=server.url, max_size=2**22)
    await until(sock, lambda m: 'id="board"' in m)  # the whole page, first
    return sock


@database_sync_to_async
def stored(match_id: int) -> tuple[Match, list[tuple[int, dict[str, Any]]]]:
    match = Match.objects.get(pk=match_id)
    return match, list(Move.objects.filter(match_id=match_id).order_by("number").values_list("seat", "action"))


def replayed(match: Match, moves: list[tuple[int, dict[str, Any]]]) -> Any:
    state = GOMORI.new_game(2, seed=match.seed)
    for seat, action in moves:
        state = GOMORI.apply(state, seat, action)
    return state


async def test_kill_9_in_the_middle_of_twenty_matches_loses_no_acknowledged_move(
    alice: Any, bob: Any, start_gomori: Any, tmp_path: Path
) -> None:
    matches = [await database_sync_to_async(start_gomori)(alice, bob, seed=seed) for seed in range(20)]
    cookies = [await database_sync_to_async(session_cookie)(user) for user in (alice, bob)]
    env = server_env()
    server = await start(env, tmp_path / "daphne.log")
    acknowledged: dict[int, int] = {match.pk: 0 for match in matches}  # moves each match's players saw applied

    async def play(match: Match) -> None:
        socks = [await connect(server, match.pk, cookie) for cookie in cookies]
        state, version, rng = GOMORI.load(match.state), match.version, random.Random(match.pk)
        try:
            while not GOMORI.is_over(state):
                (seat,) = GOMORI.to_act(state)
                action = rng.choice(GOMORI.legal_actions(state, seat))
                await socks[seat].send(json.dumps({"action": action, "version": version}))
                # The server's answer: the new position (earlier updates of this socket are passed over).
                await until(socks[seat], lambda m, v=version + 1: f'name="version" value="{v}"' in m)
                state, version = GOMORI.apply(state, seat, action), version + 1
                acknowledged[match.pk] += 1
                await asyncio.sleep(0.02)
        except (websockets.ConnectionClosed, OSError, TimeoutError):
            return  # the server died under us
        finally:
            for sock in socks:
                await sock.close()

    players = [asyncio.create_task(play(match)) for match in matches]
    # Killed in the middle of play: once the matches are under way (a loaded machine takes longer to get there).
    async with asyncio.timeout(60):
        while sum(acknowledged.values()) < 40:
            await asyncio.sleep(0.05)
    await asyncio.sleep(0.5)
    await asyncio.to_thread(server.kill)
    await asyncio.gather(*players, return_exceptions=True)
    assert sum(acknowledged.values()) >= 20, "the matches were being played when the server died"

    for match in matches:
        fresh, moves = await stored(match.pk)
        # Every acknowledged move is stored; at most the one in flight when the server died is there too.
        assert acknowledged[match.pk] <= fresh.move_count <= acknowledged[match.pk] + 1
        assert len(moves) == fresh.move_count
        assert fresh.state == GOMORI.dump(replayed(fresh, moves))

    # After a restart every match is where it was, and play goes on.
    server = await start(env, tmp_path / "daphne-restarted.log")
    try:
        for match in matches:
            fresh, moves = await stored(match.pk)
            if fresh.status != Match.Status.ACTIVE:
                continue
            state = GOMORI.load(fresh.state)
            (seat,) = GOMORI.to_act(state)
            sock = await websockets.connect(f"{server.ws}/ws/m/{match.pk}/",
                                            additional_headers={"Cookie": cookies[seat]}, origin=server.url)
            page = await until(sock, lambda m: 'id="board"' in m)
            assert f'name="version" value="{fresh.version}"' in page  # the stored position, not an older one
            action = GOMORI.legal_actions(state, seat)[0]
            await sock.send(json.dumps({"action": action, "version": fresh.version}))
            await until(sock, lambda m, v=fresh.version + 1: f'name="version" value="{v}"' in m)
            await sock.close()
            assert (await stored(match.pk))[0].move_count == fresh.move_count + 1
    finally:
        await asyncio.to_thread(server.stop)


redis_only = pytest.mark.skipif(not os.environ.get("REDIS_URL") or connection.vendor != "postgresql",
                                reason="two processes need PostgreSQL + Redis: the scale-out CI pass runs it")


@pytest.mark.redis
@redis_only
async def test_two_processes_play_a_whole_match_a_bot_moves_once_a_turn_and_a_rename_shows_on_both(
    alice: Any, bob: Any, carol: Any, start_gomori: Any, tmp_path: Path, settings: Any
) -> None:
    prefix = settings.CHANNEL_LAYERS["default"]["CONFIG"]["prefix"]  # this test's own, shared with the servers
    env = server_env(CHANNELS_REDIS_PREFIX=prefix)
    one, two = await start(env, tmp_path / "one.log"), await start(env, tmp_path / "two.log")
    try:
        match = await database_sync_to_async(start_gomori)(alice, bob, seed=11)
        cookies = {user.pk: await database_sync_to_async(session_cookie)(user) for user in (alice, bob, carol)}
        black = await connect(one, match.pk, cookies[alice.pk])
        red = await connect(two, match.pk, cookies[bob.pk])
        watcher = await connect(two, match.pk, cookies[carol.pk])
        await asyncio.sleep(0.5)
        state, version, rng = GOMORI.load(match.state), match.version, random.Random(3)
        socks = {0: black, 1: red}
        while not GOMORI.is_over(state):
            (seat,) = GOMORI.to_act(state)
            action = rng.choice(GOMORI.legal_actions(state, seat))
            await socks[seat].send(json.dumps({"action": action, "version": version}))
            state, version = GOMORI.apply(state, seat, action), version + 1
            for sock in (black, red, watcher):  # each process shows the new position to its own sockets
                page = await until(sock, lambda m, v=version: f'value="{v}"' in m or "outcome" in m)
                assert "moved on" not in page
        fresh, moves = await stored(match.pk)
        assert fresh.status == Match.Status.FINISHED and fresh.state == GOMORI.dump(replayed(fresh, moves))

        # A person against a bot, the person on one process and a spectator on the other: both hold the
        # match and both run a bot timer, yet each bot turn is one move (the version fence).
        bot_match = await database_sync_to_async(create_match)(
            creator=alice, game="gomori", players=2, seats=[SeatSpec("bot", "reference")], seed=5)
        person = await connect(one, bot_match.pk, cookies[alice.pk])
        watching = await connect(two, bot_match.pk, cookies[carol.pk])
        for _ in range(6):
            fresh, moves = await stored(bot_match.pk)
            if fresh.status != Match.Status.ACTIVE:
                break
            state = GOMORI.load(fresh.state)
            if GOMORI.to_act(state) != [0]:
                await asyncio.sleep(0.1)
                continue
            await person.send(json.dumps({"action": GOMORI.legal_actions(state, 0)[0], "version": fresh.version}))
            await asyncio.sleep(0.8)
        fresh, moves = await stored(bot_match.pk)
        assert fresh.state == GOMORI.dump(replayed(fresh, moves))
        assert len(moves) == fresh.move_count and any(seat == 1 for seat, _ in moves)

        # A rename shows at once on both processes' tables.
        alice.display_name = "Alicia"
        await database_sync_to_async(alice.save)()
        for sock in (watching, person):
            await until(sock, lambda m: "Alicia" in m, timeout=5)
        for sock in (black, red, watcher, person, watching):
            await sock.close()
    finally:
        await asyncio.to_thread(one.stop)
        await asyncio.to_thread(two.stop)


postgres_only = pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="holding the statistics back while the end commits needs a table lock: PostgreSQL (the scale-out CI "
           "pass); SQLite's sweep and rebuild are tested in test_stats_after_end.py")


@postgres_only
async def test_kill_9_between_a_match_s_end_and_its_statistics_counts_them_once_after_a_restart(
    alice: Any, bob: Any, start_gomori: Any, tmp_path: Path,
) -> None:
    match = await database_sync_to_async(lambda: play_openings(start_gomori(alice, bob)))()
    cookies = [await database_sync_to_async(session_cookie)(user) for user in (alice, bob)]
    env = server_env()
    server = await start(env, tmp_path / "daphne.log")
    # Another client holds the results' table: the end commits and is shown, its statistics wait behind it.
    locker = await psycopg.AsyncConnection.connect(database_url(connection.settings_dict))
    try:
        await locker.execute(f"LOCK TABLE {PlayerResult._meta.db_table} IN ACCESS EXCLUSIVE MODE")
        sock = await connect(server, match.pk, cookies[1])
        await sock.send(json.dumps({"op": "resign"}))
        await until(sock, lambda m: "You resigned." in m)  # the end, acknowledged
        await asyncio.sleep(0.3)
        await asyncio.to_thread(server.kill)
    finally:
        await locker.rollback()
        await locker.close()
    # Ended, shown and listed in the history; no statistics: the process died first.
    assert await counted(match.pk) == (True, 1, 0, [])

    server = await start(env, tmp_path / "daphne-restarted.log")
    try:
        sock = await connect(server, match.pk, cookies[0])  # (the first connection starts the runner)
        # The runner's sweep writes them, and the page open on the match is shown the rating changes.
        await until(sock, lambda m: "rating-changes" in m, timeout=30)
        assert await counted(match.pk) == (False, 1, 2, [1, 1])
        await sock.close()
    finally:
        await asyncio.to_thread(server.stop)
    # Counted once: a later sweep finds nothing, and a rebuild from the records gives the same figures.
    assert await database_sync_to_async(stats_due.record_due)() == 0
    figures = await database_sync_to_async(ratings_of)()
    await database_sync_to_async(rebuild_all)()
    assert await database_sync_to_async(ratings_of)() == figures
    assert await counted(match.pk) == (False, 1, 2, [1, 1])


@postgres_only
async def test_a_match_s_end_is_heard_with_it_by_the_history_tournament_and_analysis_and_after_it_by_ratings(
    alice: Any, bob: Any, tmp_path: Path,
) -> None:
    """games/endings.py declares who hears a match's end and when: killed between the two moments, the subscribers
    of the end itself (the history's listing, the tournament's count, the analysis queue) are all written with it,
    the ratings not yet; after a restart the ratings count it once."""
    def arena_match() -> tuple[int, int]:
        staff = get_user_model().objects.create_user(username="staff", password="x", is_staff=True)
        arena = tournament_services.create_tournament(
            creator=staff, kind="arena", game="gomori", clock_key="5+3", minutes=30, starts_at=timezone.now(),
            table_size=2)
        for user in (alice, bob):
            tournament_services.join(tournament_id=arena.pk, user=user)
        tournament_services.tick()
        entrant = Entrant.objects.get(tournament=arena, user=alice)
        assert entrant.match_id is not None
        play_openings(Match.objects.get(pk=entrant.match_id))
        return arena.pk, entrant.match_id

    arena_id, match_id = await database_sync_to_async(arena_match)()
    cookies = [await database_sync_to_async(session_cookie)(user) for user in (alice, bob)]
    env = server_env()
    server = await start(env, tmp_path / "daphne.log")
    locker = await psycopg.AsyncConnection.connect(database_url(connection.settings_dict))
    try:
        await locker.execute(f"LOCK TABLE {PlayerResult._meta.db_table} IN ACCESS EXCLUSIVE MODE")
        sock = await connect(server, match_id, cookies[1])
        await sock.send(json.dumps({"op": "resign"}))
        await until(sock, lambda m: "You resigned." in m)
        await asyncio.sleep(0.3)
        await asyncio.to_thread(server.kill)
    finally:
        await locker.rollback()
        await locker.close()

    @database_sync_to_async
    def heard() -> tuple[int, list[str], list[str], bool, int]:
        sheets = {e.user_id: [line["r"] for line in e.sheet] for e in Entrant.objects.filter(tournament_id=arena_id)}
        return (FinishedMatch.objects.filter(match_id=match_id).count(), sheets[alice.pk], sheets[bob.pk],
                AnalysisJob.objects.filter(match_id=match_id).exists(),
                PlayerResult.objects.filter(match_id=match_id).count())

    # With the end: listed, counted in the tournament (Bob resigned), queued for analysis; the ratings not yet.
    assert await heard() == (1, ["w"], ["l"], True, 0)
    server = await start(env, tmp_path / "daphne-restarted.log")
    try:
        sock = await connect(server, match_id, cookies[0])
        await until(sock, lambda m: "rating-changes" in m, timeout=30)
        await sock.close()
    finally:
        await asyncio.to_thread(server.stop)
    # After it, once: and the end's own subscribers were not heard twice.
    assert await heard() == (1, ["w"], ["l"], True, 2)
    assert await counted(match_id) == (False, 1, 2, [1, 1])


@database_sync_to_async
def counted(match_id: int) -> tuple[bool, int, int, list[int]]:
    """(statistics still due, history listings, result rows, matches played by each player) of a match."""
    match = Match.objects.get(pk=match_id)
    assert match.status == Match.Status.FINISHED
    played = sorted(PlayerStats.objects.filter(game=match.game).values_list("played", flat=True))
    return (match.stats_due, FinishedMatch.objects.filter(match_id=match_id).count(),
            PlayerResult.objects.filter(match_id=match_id).count(), played)


def ratings_of() -> list[tuple[int, int, float, float]]:
    return list(PlayerStats.objects.order_by("user_id").values_list("user_id", "played", "rating", "deviation"))
