"""An arena across a kill -9: a real daphne process ends tournament matches (counting them and pairing the freed
players in its own transactions), dies in the middle of play, and after a restart the standings are exactly what
they were, nothing is counted twice, and pairing goes on (SQLite, and PostgreSQL + Redis in the scale-out pass)."""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path
from typing import Any

import pytest
import websockets
from channels.db import database_sync_to_async
from django.core.management import call_command
from django.utils import timezone
from factories import make_user
from servers import Daphne, server_env, session_cookie, until

from games.engines import get_engine
from games.models import Entrant, Match, Tournament
from games.tournaments import services

pytestmark = pytest.mark.django_db(transaction=True)

GOMORI = get_engine("gomori")


def standings(tournament_id: int) -> dict[int, tuple[int, list[Any], int]]:
    return {e.user_id: (e.score, e.sheet, e.streak) for e in Entrant.objects.filter(tournament_id=tournament_id)}


def table_of(tournament_id: int, user_id: int) -> int | None:
    return Entrant.objects.get(tournament_id=tournament_id, user_id=user_id).match_id


async def play_out(server: Daphne, match_id: int, cookies: dict[int, str], *, stop_after: int | None = None) -> int:
    """Both players play random legal moves over their sockets (to the end, or `stop_after` acknowledged moves);
    the number of moves acknowledged."""
    match = await database_sync_to_async(Match.objects.get)(pk=match_id)
    seats = await database_sync_to_async(
        lambda: list(match.seats.order_by("index").values_list("user_id", flat=True)))()
    socks = []
    for user_id in seats:
        sock = await websockets.connect(f"{server.ws}/ws/m/{match_id}/", origin=server.url, max_size=2**22,
                                        additional_headers={"Cookie": cookies[user_id]})
        await until(sock, lambda m: 'id="board"' in m)
        socks.append(sock)
    state, version, rng, done = GOMORI.load(match.state), match.version, random.Random(match_id), 0
    try:
        while not GOMORI.is_over(state) and (stop_after is None or done < stop_after):
            (seat,) = GOMORI.to_act(state)
            action = rng.choice(GOMORI.legal_actions(state, seat))
            await socks[seat].send(json.dumps({"action": action, "version": version}))
            await until(socks[seat], lambda m, v=version + 1: f'name="version" value="{v}"' in m)
            state, version, done = GOMORI.apply(state, seat, action), version + 1, done + 1
    finally:
        for sock in socks:
            await sock.close()
    return done


async def wait_for(predicate: Any, timeout: float = 20) -> None:
    async with asyncio.timeout(timeout):
        while not await database_sync_to_async(predicate)():
            await asyncio.sleep(0.1)


async def test_a_kill_9_in_the_middle_of_an_arena_loses_nothing_counts_nothing_twice_and_pairing_goes_on(
    tmp_path: Path,
) -> None:
    def setup() -> tuple[int, list[Any], dict[int, str]]:
        staff = make_user("staff", is_staff=True)
        t = services.create_tournament(creator=staff, kind="arena", game="gomori", clock_key="5+3", minutes=60,
                                       starts_at=timezone.now())
        people = [make_user(f"p{n}", display_name=f"P{n}") for n in range(6)]
        for user in people:
            services.join(tournament_id=t.pk, user=user)
        services.tick()
        return t.pk, people, {u.pk: session_cookie(u) for u in people}

    tournament_id, people, cookies = await database_sync_to_async(setup)()
    first_tables = sorted({await database_sync_to_async(table_of)(tournament_id, u.pk) for u in people})
    assert len(first_tables) == 3 and None not in first_tables
    env = server_env()
    server = await asyncio.to_thread(Daphne, env, tmp_path / "daphne.log")
    try:
        # Two matches end in the server's process: counted there, and their four players paired again there.
        for match_id in first_tables[:2]:
            await play_out(server, match_id, cookies)

        def counted_and_repaired() -> bool:
            rows = Entrant.objects.filter(tournament_id=tournament_id)
            return sum(len(e.sheet) for e in rows) == 4 and rows.filter(match__isnull=False).count() == 6

        await wait_for(counted_and_repaired)
        before = await database_sync_to_async(standings)(tournament_id)
        # The third is being played when the server dies.
        third = first_tables[2]
        played = await play_out(server, third, cookies, stop_after=6)
        assert played == 6
    finally:
        await asyncio.to_thread(server.kill)

    assert await database_sync_to_async(standings)(tournament_id) == before  # nothing lost, nothing half-written
    server = await asyncio.to_thread(Daphne, env, tmp_path / "daphne-restarted.log")
    try:
        await asyncio.sleep(2.5)  # the restarted process's runner has settled the arena a few times
        assert await database_sync_to_async(standings)(tournament_id) == before  # counted nothing twice
        await database_sync_to_async(call_command)("rebuild_tournament", str(tournament_id), verbosity=0)
        assert await database_sync_to_async(standings)(tournament_id) == before  # the matches say the same
        # Play goes on: the third match ends in the new process, counts once, and its players are paired again.
        await play_out(server, third, cookies)
        third_players = await database_sync_to_async(
            lambda: list(Match.objects.get(pk=third).seats.values_list("user_id", flat=True)))()

        def third_counted() -> bool:
            rows = {e.user_id: e for e in Entrant.objects.filter(tournament_id=tournament_id)}
            return all(len(rows[u].sheet) == 1 for u in third_players)

        await wait_for(third_counted)
        after = await database_sync_to_async(standings)(tournament_id)
        assert {u: v for u, v in after.items() if u not in third_players} == {
            u: v for u, v in before.items() if u not in third_players}
        assert sorted(after[u][0] for u in third_players) in ([0, 2], [1, 1])
        tournament = await database_sync_to_async(Tournament.objects.get)(pk=tournament_id)
        assert tournament.status == Tournament.Status.RUNNING
    finally:
        await asyncio.to_thread(server.stop)
