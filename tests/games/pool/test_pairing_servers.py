"""Quick pairing as deployed for scale: two daphne processes on PostgreSQL + Redis, fifty people clicking the
same pool at once, half on each process. Each must end in exactly one match, every match full, nobody left
waiting, and every page told where to go (the pairing decision is one claim in the database: the pool's advisory
lock and the seeks' row locks; no lock in memory could hold across the two processes)."""

from __future__ import annotations

import asyncio
import json
import os
import random
from pathlib import Path
from typing import Any

import pytest
import websockets
from channels.db import database_sync_to_async
from django.db import connection
from django.db.models import Count
from django.test import Client
from factories import make_user
from servers import Daphne, database_url

from games.models import Match, PlayerStats, Seat, Seek

pytestmark = pytest.mark.django_db(transaction=True)

PEOPLE = 50
POOL = "gomori-2-none"

redis_only = pytest.mark.skipif(not os.environ.get("REDIS_URL") or connection.vendor != "postgresql",
                                reason="two processes need PostgreSQL + Redis: the scale-out CI pass runs it")


def cookie(user: Any) -> str:
    client = Client()
    client.force_login(user)
    return f"sessionid={client.cookies['sessionid'].value}"


def people() -> list[tuple[Any, str]]:
    rng = random.Random(5)
    made = []
    for i in range(PEOPLE):
        user = make_user(f"seeker{i:02d}")
        # Ratings within one range of each other: everyone may be seated at once, nearest first.
        PlayerStats.objects.create(user=user, game="gomori", rating=1500 + rng.uniform(-45, 45))
        made.append((user, cookie(user)))
    return made


@pytest.mark.redis
@redis_only
async def test_fifty_people_clicking_at_once_on_two_processes_each_land_in_exactly_one_match(
    tmp_path: Path, settings: Any
) -> None:
    prefix = settings.CHANNEL_LAYERS["default"]["CONFIG"]["prefix"]
    env = {
        "DATABASE_URL": database_url(connection.settings_dict), "DJANGO_DEBUG": "true",
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost", "CHANNELS_REDIS_PREFIX": prefix,
    }
    one, two = await asyncio.gather(asyncio.to_thread(Daphne, env, tmp_path / "one.log"),
                                    asyncio.to_thread(Daphne, env, tmp_path / "two.log"))
    sockets: list[Any] = []
    try:
        crowd = await database_sync_to_async(people)()
        for i, (_, session) in enumerate(crowd):
            server = one if i % 2 else two
            sockets.append(await websockets.connect(f"{server.ws}/ws/notify/?lobby=1", origin=server.url,
                                                    additional_headers={"Cookie": session}, max_size=2**22))

        async def go(sock: Any) -> str:
            async with asyncio.timeout(30):
                while True:
                    message = await sock.recv()
                    if "data-go=" in message:
                        return message.split('data-go="', 1)[1].split('"', 1)[0]

        waiting = [asyncio.ensure_future(go(sock)) for sock in sockets]
        frame = json.dumps({"op": "seek", "pool": POOL})
        await asyncio.gather(*(sock.send(frame) for sock in sockets))  # all at once
        urls = await asyncio.gather(*waiting)

        def stored() -> tuple[list[int], list[int], int, int]:
            users = [user.pk for user, _ in crowd]
            per_person = list(Seat.objects.filter(user_id__in=users).values("user_id")
                              .annotate(n=Count("match_id", distinct=True)).values_list("n", flat=True))
            sizes = list(Match.objects.annotate(n=Count("seats__user")).values_list("n", flat=True))
            return per_person, sizes, Match.objects.count(), Seek.objects.filter(match__isnull=True).count()

        per_person, sizes, matches, still_waiting = await database_sync_to_async(stored)()
        assert len(per_person) == PEOPLE and set(per_person) == {1}  # everyone in exactly one match
        assert matches == PEOPLE // 2 and set(sizes) == {2} and still_waiting == 0
        # Each page was sent to its person's match.
        seat_of = await database_sync_to_async(
            lambda: dict(Seat.objects.filter(user__isnull=False).values_list("user_id", "match_id")))()
        assert urls == [f"/m/{seat_of[user.pk]}/" for user, _ in crowd]
        logs = (tmp_path / "one.log").read_text() + (tmp_path / "two.log").read_text()
        assert "Traceback" not in logs, logs[-3000:]
    finally:
        for sock in sockets:
            await sock.close()
        await asyncio.gather(asyncio.to_thread(one.stop), asyncio.to_thread(two.stop))
