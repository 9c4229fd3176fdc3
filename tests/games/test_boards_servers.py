"""One person, one board, as deployed for scale: two daphne processes on PostgreSQL + Redis, and four roads to a
seat racing for the same people at the same moment: an arena starting (each process's tournament tick), quick
pairing (seeks on both processes' sockets), challenges accepted over HTTP, and seats taken at clocked lobby tables.
Whoever wins, nobody ends at two clocked matches, every board row names the one match its person plays, and each
refused road answered (a redirect back to its page; the reason's words there are tested on one process in
test_boards.py). The gate decides in the transaction that seats: games.boards."""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import urllib.error
import urllib.request
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import websockets
from channels.db import database_sync_to_async
from django.db import connection
from django.test import Client
from django.utils import timezone
from factories import make_user
from servers import Daphne, database_url

from games.challenges import services as challenges
from games.models import Board, Challenge, Match, PlayerStats, Seat, Tournament
from games.play.create import SeatSpec, create_match
from games.tournaments import services as tournaments

pytestmark = pytest.mark.django_db(transaction=True)

PEOPLE = 24
POOL = "gomori-2-live"
LIVE = {"kind": "fischer", "base": 300.0, "increment": 3}
START_IN = 4.0  # seconds until the arena's start: every road fires then

redis_only = pytest.mark.skipif(not os.environ.get("REDIS_URL") or connection.vendor != "postgresql",
                                reason="two processes need PostgreSQL + Redis: the scale-out CI pass runs it")


def cookie(user: Any) -> str:
    client = Client()
    client.force_login(user)
    return client.cookies["sessionid"].value


def setting_up() -> tuple[list[tuple[Any, str]], list[int], list[int], Any]:
    staff = make_user("staff", is_staff=True)
    start = timezone.now() + timedelta(seconds=START_IN)
    arena = tournaments.create_tournament(creator=staff, kind="arena", game="gomori", clock_key="5+3", minutes=30,
                                          starts_at=start, table_size=2, name="Race Arena")
    crowd = []
    for i in range(PEOPLE):
        user = make_user(f"racer{i:02d}", display_name=f"Racer {i}")
        PlayerStats.objects.create(user=user, game="gomori", rating=1500 + i)
        tournaments.join(tournament_id=arena.pk, user=user)
        crowd.append((user, cookie(user)))
    # Each odd person is challenged by the even one before them (a clocked challenge, to be accepted at the start).
    asked = [challenges.challenge(crowd[i][0], crowd[i + 1][0], game="gomori", clock="live").pk
             for i in range(0, PEOPLE, 2)]
    # Each even person is also about to take the free seat of a clocked lobby table a host opened.
    tables = []
    for i in range(0, PEOPLE, 2):
        host = make_user(f"host{i:02d}")
        tables.append(create_match(creator=host, game="gomori", players=2, seats=[SeatSpec("open")],
                                   clock=LIVE).pk)
    return crowd, asked, tables, start


def post(server: Any, path: str, session: str) -> tuple[int, str]:
    token = secrets.token_hex(16)  # 32 characters: Django's CSRF secret, sent as cookie and header alike
    request = urllib.request.Request(f"{server.url}{path}", data=b"", method="POST", headers={
        "Cookie": f"sessionid={session}; csrftoken={token}", "X-CSRFToken": token, "Referer": f"{server.url}/",
    })

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args: Any, **kwargs: Any) -> None:
            return None

    try:
        with urllib.request.build_opener(NoRedirect).open(request, timeout=30) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


@pytest.mark.redis
@redis_only
async def test_four_roads_racing_on_two_processes_seat_each_person_at_one_clocked_board(
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
        crowd, asked, tables, start = await database_sync_to_async(setting_up)()
        for i, (_, session) in enumerate(crowd):
            server = one if i % 2 else two
            sockets.append(await websockets.connect(f"{server.ws}/ws/notify/?lobby=1", origin=server.url,
                                                    additional_headers={"Cookie": f"sessionid={session}"},
                                                    max_size=2**22))
        await asyncio.sleep(max(0.0, (start - timezone.now()).total_seconds()))
        frame = json.dumps({"op": "seek", "pool": POOL})
        accepts = [asyncio.to_thread(post, one if n % 2 else two, f"/challenges/{challenge_id}/accept/",
                                     crowd[2 * n + 1][1]) for n, challenge_id in enumerate(asked)]
        joins = [asyncio.to_thread(post, two if n % 2 else one, f"/m/{table}/join/", crowd[2 * n][1])
                 for n, table in enumerate(tables)]
        answers = await asyncio.gather(*accepts, *joins, *(sock.send(frame) for sock in sockets))
        for status, _ in answers[:len(asked) + len(joins)]:
            assert status in (302, 303), status  # accepted, or refused with the reason on the page it goes back to
        await asyncio.sleep(6)  # both processes' ticks have started the arena and paired whoever was free

        def stored() -> tuple[dict[int, list[int]], dict[int, int], list[int], str]:
            users = [user.pk for user, _ in crowd]
            clocked = Match.objects.filter(status=Match.Status.ACTIVE, seats__user_id__in=users).exclude(
                clock={}).distinct()
            at: dict[int, list[int]] = {}
            for user_id, match_id in Seat.objects.filter(match__in=clocked, user_id__in=users).values_list(
                    "user_id", "match_id"):
                at.setdefault(user_id, []).append(match_id)
            board = dict(Board.objects.filter(user_id__in=users).values_list("user_id", "match_id"))
            sizes = [Seat.objects.filter(match=m, user__isnull=False).count() for m in clocked]
            status = Tournament.objects.get(name="Race Arena").status
            return at, board, sizes, status

        at, board, sizes, status = await database_sync_to_async(stored)()
        assert status == Tournament.Status.RUNNING
        assert all(len(matches) == 1 for matches in at.values()), at  # nobody at two clocked matches
        assert {user_id: matches[0] for user_id, matches in at.items()} == board  # each board names its match
        # Everyone seated (an odd one out may wait); every table full (a lobby table holds its host and one racer).
        assert len(at) >= PEOPLE - 1 and set(sizes) == {2}
        still_open = await database_sync_to_async(
            lambda: Challenge.objects.filter(status=Challenge.Status.OPEN).count())()
        answered = [body for status, body in answers[:len(asked)]]
        assert len(answered) == len(asked) and still_open <= len(asked)  # a refused acceptance leaves it open
        logs = (tmp_path / "one.log").read_text() + (tmp_path / "two.log").read_text()
        assert "Traceback" not in logs, logs[-3000:]
    finally:
        for sock in sockets:
            await sock.close()
        await asyncio.gather(asyncio.to_thread(one.stop), asyncio.to_thread(two.stop))


postgres_only = pytest.mark.skipif(connection.vendor != "postgresql",
                                   reason="the deadlock of two claims is PostgreSQL's (SQLite serialises writers)")


@postgres_only
def test_two_roads_each_holding_a_key_the_other_wants_end_with_one_refused_and_the_other_seated() -> None:
    """The CI's deadlock (an arena's pairing seats several tables in one transaction, so a road racing it for the
    same people may take their keys in the other order): PostgreSQL ends one insert, and that road is refused with
    the gate's words instead of failing with a traceback; the other seats both people."""
    import threading

    from django.db import connections, transaction

    from games import boards
    from games.play.snapshot import ServiceError

    ann, ben = make_user("ann"), make_user("ben")
    matches = [create_match(creator=make_user(f"host{i}"), game="gomori", players=2, seats=[SeatSpec("open")],
                            clock=LIVE) for i in range(4)]
    both_hold_one = threading.Barrier(2, timeout=30)
    outcomes: dict[str, str] = {}

    def road(name: str, first: Any, second: Any, tables: list[Any]) -> None:
        try:
            with transaction.atomic():
                boards.claim(tables[0].pk, tables[0].clock, [first.pk])
                both_hold_one.wait()
                boards.claim(tables[1].pk, tables[1].clock, [second.pk])
            outcomes[name] = "seated"
        except ServiceError as refused:
            outcomes[name] = str(refused)
        except Exception as error:
            outcomes[name] = f"failed: {error!r}"
        finally:
            connections.close_all()

    threads = [threading.Thread(target=road, args=("one", ann, ben, matches[:2])),
               threading.Thread(target=road, args=("two", ben, ann, matches[2:]))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert sorted(outcomes.values()) == ["A player just sat down at another match.", "seated"], outcomes
    winner = matches[:2] if outcomes["one"] == "seated" else matches[2:]
    assert dict(Board.objects.values_list("user_id", "match_id")) == (
        {ann.pk: winner[0].pk, ben.pk: winner[1].pk} if outcomes["one"] == "seated"
        else {ben.pk: winner[0].pk, ann.pk: winner[1].pk})
