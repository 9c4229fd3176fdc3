#!/usr/bin/env python3
"""Read pages at scale: builds a club of a given size, then times each read page against the sign-in page.

The club is built with bulk inserts on its own database (SQLite: a file in /tmp; with DATABASE_URL on
PostgreSQL: a database of its own next to the one named there, dropped and made again): USERS people,
MATCHES finished matches with their seats, results, listings, statistics and ratings, then REAL matches
played out with random legal moves and stored with every move (the replay page's subject), and a lobby's
worth of waiting and running matches. Bulk matches carry the final state of a real match of their game,
so reading a match row costs what it costs on a real site.

Then one daphne serves it (DEBUG off) and each page is fetched over HTTP, the pages taking turns so that
any noise falls on all of them alike: median and p90 of REQUESTS fetches, the number of queries (counted
in this process with the test client), and the ratio of the median to the sign-in page's.

    .venv/bin/python bench/pages.py                        # 20,000 matches on SQLite (about a minute to build)
    .venv/bin/python bench/pages.py --matches 200000       # the issue's size (a few minutes to build)
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/cardclub .venv/bin/python bench/pages.py
    .venv/bin/python bench/pages.py --reuse                # keep the club built by the last run of this size
    .venv/bin/python bench/pages.py --reuse --profile /history/   # cProfile of one page, in this process
    .venv/bin/python bench/pages.py --reuse --in-process   # through Django's handler in this process, no HTTP
    .venv/bin/python bench/pages.py --reuse --explain      # each page's queries; full scans of growing tables
    .venv/bin/python bench/pages.py --reuse --seeks 1000   # the lobby with 1,000 people waiting in its pools
"""

from __future__ import annotations

import argparse
import cProfile
import datetime as dt
import http.client
import io
import os
import pstats
import random
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SETTINGS = "bench.pages_settings"
GAMES = ("gomori", "columbo", "ruhd", "rummy")
CHUNK = 5000
# The bare page every other is compared with, read signed out (no query), as a visitor meets it.
SIGN_IN = "/accounts/login/"


def bench_database(matches: int) -> str:
    """The bench's own database URL: never the configured database itself, which it would fill."""
    configured = os.environ.get("DATABASE_URL", "")
    if configured.startswith(("postgres://", "postgresql://")):
        parts = urlsplit(configured)
        return urlunsplit(parts._replace(path=f"/cardclub_pages_{matches}"))
    return f"sqlite:////tmp/cardclub-pages-{matches}.sqlite3"


def reset_database(url: str) -> None:
    if url.startswith("sqlite:"):
        path = Path(url.removeprefix("sqlite:///"))
        for suffix in ("", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
        return
    import psycopg

    parts = urlsplit(url)
    name = parts.path.lstrip("/")
    with psycopg.connect(urlunsplit(parts._replace(path="/postgres")), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        conn.execute(f'CREATE DATABASE "{name}"')


# ---------------------------------------------------------------------------------------------
# Building the club


def play_out(game: str, players: int, seed: int, max_moves: int = 3000) -> list[tuple[int, Any]] | None:
    """A whole game of random legal moves (seat, action), or None if it did not end."""
    from games.engines import get_engine

    engine = get_engine(game)
    rng = random.Random(seed)
    state = engine.new_game(players, seed=seed)
    actions: list[tuple[int, Any]] = []
    for _ in range(max_moves):
        if engine.is_over(state):
            return actions
        seats = engine.must_act(state) or engine.to_act(state)
        choices = [(s, a) for s in seats for a in engine.legal_actions(state, s)]
        if not choices:
            choices = [(s, a) for s in engine.to_act(state) for a in engine.legal_actions(state, s)]
        if not choices:
            return None
        seat, action = rng.choice(choices)
        state = engine.apply(state, seat, action)
        actions.append((seat, action))
    return None


def build(args: argparse.Namespace) -> None:
    from django.db import transaction
    from django.utils import timezone

    from accounts.models import User
    from games.engines import get_engine
    from games.history import replay
    from games.models import FinishedMatch, Match, PlayerResult, PlayerStats, Seat
    from games.play.bot_accounts import ensure_bot_accounts
    from games.ratings import stats
    from games.results import Termination

    began = time.perf_counter()
    bots = ensure_bot_accounts()
    bots_by_game = {game: [b for b in bots if b.bot_game == game] for game in GAMES}
    User.objects.bulk_create(
        [User(username=f"player{i:04d}", display_name=f"Player {i}" if i % 3 else "", password="!")
         for i in range(args.users)], batch_size=2000)
    people = list(User.objects.filter(is_bot=False).order_by("pk"))
    rng = random.Random(7)

    # Real matches, every move stored: the replay page's subject, and the states the bulk matches copy.
    finals: dict[str, list[dict[str, Any]]] = {game: [] for game in GAMES}
    real = 0
    for i in range(args.real):
        game = GAMES[i % len(GAMES)]
        engine = get_engine(game)
        actions = play_out(game, 2, seed=1000 + i)
        if actions is None:
            continue
        first, second = rng.sample(people, 2)
        data = {"format": replay.EXPORT_FORMAT, "version": replay.EXPORT_VERSION, "game": game, "players": 2,
                "seed": 1000 + i, "options": {}, "is_public": True,
                "seats": [{"seat": 0, "username": first.username}, {"seat": 1, "username": second.username}],
                "actions": [{"number": n, "seat": s, "action": a} for n, (s, a) in enumerate(actions, start=1)],
                "result": {}}
        match = replay.import_match(data, creator=first, rated=True)
        finals[game].append(engine.dump(engine.load(match.state)))
        real += 1

    # Finished matches in bulk, a year of them, with results, listings and ratings as the site keeps them.
    start = timezone.now() - dt.timedelta(days=365)
    step = dt.timedelta(days=365) / max(1, args.matches)
    stats_rows: dict[str, dict[int, PlayerStats]] = {game: {} for game in GAMES}
    done = 0
    while done < args.matches:
        size = min(CHUNK, args.matches - done)
        plans = []
        matches = []
        for n in range(done, done + size):
            game = GAMES[rng.randrange(len(GAMES))]
            players = 2 if game in ("gomori", "rummy") or rng.random() < 0.6 else rng.choice((3, 4))
            seated = rng.sample(people, players)
            if rng.random() < 0.33:
                seated[-1] = rng.choice(bots_by_game[game])
            finished = start + step * n
            draw = rng.random() < 0.05
            winners = [] if draw else [rng.randrange(players)]
            scores = [rng.randrange(0, 120) for _ in range(players)]
            moves = rng.randrange(30, 250)
            state = rng.choice(finals[game]) if finals[game] else None
            matches.append(Match(
                game=game, players=players, seed=n, status=Match.Status.FINISHED, options={}, state=state,
                is_public=rng.random() > 0.14, rated=rng.random() > 0.2, version=moves + 1, move_count=moves,
                created_at=finished - dt.timedelta(minutes=20), started_at=finished - dt.timedelta(minutes=15),
                finished_at=finished,
                result={"scores": scores, "winners": winners, "draw": draw,
                        "reason": "resign" if rng.random() < 0.1 else "normal"},
            ))
            plans.append((seated, winners, scores))
        with transaction.atomic():
            seats = []
            places = []
            for match, (seated, winners, scores) in zip(matches, plans, strict=True):
                order = sorted(range(len(seated)), key=lambda s: (s not in winners, -scores[s]))
                # A draw places everyone first; otherwise the winner, then the others by score.
                places.append([1] * len(seated) if match.result["draw"]
                              else [order.index(index) + 1 for index in range(len(seated))])
                match.result["places"] = places[-1]
            matches = Match.objects.bulk_create(matches, batch_size=1000)
            for match, (seated, _winners, scores), place in zip(matches, plans, places, strict=True):
                for index, user in enumerate(seated):
                    seats.append(Seat(match=match, index=index, user=user, final_score=scores[index],
                                      place=place[index], joined_at=match.started_at))
            Seat.objects.bulk_create(seats, batch_size=2000)
            results = []
            listings = []
            for match, (seated, _winners, _scores), place in zip(matches, plans, places, strict=True):
                facts = stats.MatchFacts(
                    match_id=match.pk, game=match.game, players=match.players, finished_at=match.finished_at,
                    is_public=match.is_public, rated=match.rated, reason=Termination(match.result["reason"]),
                    places=place,
                    seats=[stats.SeatFacts(index=i, user_id=u.pk, is_bot=u.is_bot, bot_level=u.bot_level,
                                           score=match.result["scores"][i], place=place[i])
                           for i, u in enumerate(seated)],
                )
                results.extend(stats.apply_match(facts, stats_rows[match.game]))
                listings.append(FinishedMatch(match_id=match.pk, game=match.game, finished_at=match.finished_at,
                                              is_public=match.is_public, with_bots=any(u.is_bot for u in seated)))
            PlayerResult.objects.bulk_create(results, batch_size=2000)
            FinishedMatch.objects.bulk_create(listings, batch_size=2000)
        done += size
        print(f"  {done:,} matches", file=sys.stderr, end="\r")
    # The played-out matches recorded their players' figures as they finished; those rows are kept.
    existing = {(row.user_id, row.game) for row in PlayerStats.objects.all()}
    fresh = [row for rows in stats_rows.values() for row in rows.values() if (row.user_id, row.game) not in existing]
    PlayerStats.objects.bulk_create(fresh, batch_size=2000)

    # The lobby: waiting matches with an open seat, public matches being played, and the subject's own.
    subject = people[0]
    lobby = []
    now = timezone.now()
    for i in range(60):
        game = GAMES[i % len(GAMES)]
        waiting = i < 30
        state = finals[game][0] if finals[game] else None
        lobby.append((Match(game=game, players=2, seed=i, options={}, is_public=True,
                            status=Match.Status.WAITING if waiting else Match.Status.ACTIVE,
                            state=None if waiting else state, started_at=None if waiting else now,
                            created_by=people[1 + i]),
                      [people[1 + i], None if waiting else people[100 + i]]))
    for i in range(6):
        game = GAMES[i % len(GAMES)]
        state = finals[game][0] if finals[game] else None
        lobby.append((Match(game=game, players=2, seed=100 + i, options={}, is_public=True, created_by=subject,
                            status=Match.Status.ACTIVE, state=state, started_at=now),
                      [subject, bots_by_game[game][0] if i % 2 else people[200 + i]]))
    created = Match.objects.bulk_create([m for m, _ in lobby])
    Seat.objects.bulk_create([Seat(match=m, index=i, user=u, joined_at=now if u else None)
                              for m, (_, users) in zip(created, lobby, strict=True) for i, u in enumerate(users)])
    print(f"built {args.users:,} people, {args.matches:,} bulk matches, {real} played out, in "
          f"{time.perf_counter() - began:.0f} s", file=sys.stderr)


# ---------------------------------------------------------------------------------------------
# Measuring


def place_seeks(count: int) -> None:
    """Exactly `count` people waiting in the quick-pairing pools (one seek each, spread over the pools, ratings
    spread), fresh for the length of the run: what the lobby's grid counts on every page and redraw."""
    from django.utils import timezone

    from accounts.models import User
    from games.models import Seek
    from games.pool.pools import POOLS

    Seek.objects.all().delete()
    rng = random.Random(27)
    now = timezone.now()
    missing = count - User.objects.filter(is_bot=False).count()
    if missing > 0:  # the club's people, and as many more as it takes (they have played nothing)
        User.objects.bulk_create([User(username=f"waiting{i:05d}", password="!") for i in range(missing)])
    people = list(User.objects.filter(is_bot=False).order_by("-pk").values_list("pk", flat=True)[:count])
    pools = list(POOLS.values())
    Seek.objects.bulk_create(
        [Seek(user_id=user_id, pool=pools[i % len(pools)].key, game=pools[i % len(pools)].game,
              rating=rng.gauss(1500, 200), created_at=now, seen_at=now + dt.timedelta(hours=1))
         for i, user_id in enumerate(people)], batch_size=2000)


def pages_to_read() -> tuple[dict[str, str], str]:
    """(label -> path) of the pages measured, and the session key of the player they are read as."""
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.sessions.backends.db import SessionStore
    from django.db.models import Count

    from accounts.models import User
    from games.history.display import history_page
    from games.models import FinishedMatch, Match, PlayerResult

    # A player with a median number of matches, as the "a player with 363 matches".
    counts = list(PlayerResult.objects.filter(is_bot=False).values("user").annotate(n=Count("id")).order_by("n"))
    subject = User.objects.get(pk=counts[len(counts) // 2]["user"])
    other = User.objects.get(pk=counts[len(counts) // 3]["user"])
    session = SessionStore()
    session[SESSION_KEY] = str(subject.pk)
    session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    session[HASH_SESSION_KEY] = subject.get_session_auth_hash()
    session.create()
    played = Match.objects.filter(status=Match.Status.FINISHED, move_count__gt=0, moves__isnull=False).distinct()
    closest = min(played.values_list("pk", "move_count"), key=lambda row: abs(row[1] - 201), default=None)
    newest = FinishedMatch.objects.order_by("-finished_at").values_list("finished_at", flat=True).first()
    day = newest.date() if newest else dt.date.today()
    pages = {
        "sign-in": SIGN_IN,
        "history": "/history/",
        "history ?game": "/history/?game=rummy",
        "history ?opponents": "/history/?opponents=people",
        "history ?dates": f"/history/?date_from={day - dt.timedelta(days=60)}&date_to={day}",
        "history ?player": f"/history/?player={other.username.upper()}",
        "history ?result": "/history/?result=won",
        "history page 50": "/history/?page=50",
        # Page 50 as its Older link reaches it: after page 49's last row (keyset paging).
        "history page 50 (Older)": f"/history/?page=50&after={history_page(subject, {}, 49).after}",
        "player's history": f"/u/{other.username}/history/",
        "leaderboard": "/leaderboard/?game=gomori",
        "leaderboard rummy": "/leaderboard/?game=rummy",
        "lobby": "/play/",
        "profile": f"/u/{subject.username}/",
    }
    if closest is not None:
        pages[f"replay ({closest[1]} moves)"] = f"/m/{closest[0]}/replay/"
    return pages, session.session_key


def count_queries(pages: dict[str, str], cookie: tuple[str, str]) -> dict[str, int]:
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    client = Client()
    client.cookies[cookie[0]] = cookie[1]
    counts = {}
    for label, path in pages.items():
        if path == SIGN_IN:
            client = Client()
        client.get(path)
        with CaptureQueriesContext(connection) as captured:
            response = client.get(path)
        assert response.status_code == 200, (path, response.status_code)
        counts[label] = len(captured)
        if path == SIGN_IN:
            client = Client()
            client.cookies[cookie[0]] = cookie[1]
    return counts


# The tables that grow with every match played; a page may scan the others (people, statistics), which grow
# with the club's members only.
GROWING = ("games_match", "games_seat", "games_move", "games_playerresult", "games_finishedmatch")


def explain(pages: dict[str, str], cookie: tuple[str, str]) -> None:
    """Each page's queries with the database's plan, and any full scan of a table that grows with the matches
    played (SQLite: SCAN of the table itself, not of one of its indexes; PostgreSQL: a Seq Scan)."""
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    postgres = connection.vendor == "postgresql"
    for label, path in pages.items():
        client = Client()
        if path != SIGN_IN:
            client.cookies[cookie[0]] = cookie[1]
        client.get(path)
        with CaptureQueriesContext(connection) as captured:
            client.get(path)
        print(f"== {label} ({path}): {len(captured)} queries")
        for query in captured.captured_queries:
            sql = query["sql"]
            if not sql.lstrip().upper().startswith("SELECT"):
                continue
            with connection.cursor() as cursor:
                cursor.execute(("EXPLAIN " if postgres else "EXPLAIN QUERY PLAN ") + sql)
                plan = [row[0] if postgres else row[-1] for row in cursor.fetchall()]
            scans = [line.strip() for line in plan if any(
                (f"Seq Scan on {table} " in line or line.rstrip().endswith(f"Seq Scan on {table}")) if postgres
                else (line.startswith(f"SCAN {table}") and " INDEX " not in line) for table in GROWING)]
            print(f"  {query['time']}s  {sql[:150]}")
            for line in scans:  # a scan under a LIMIT stops there: bounded, whatever the table's size
                print(f"    {'scan up to the LIMIT' if ' LIMIT ' in sql else 'FULL SCAN'}: {line}")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve(env: dict[str, str]) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    log_path = os.environ.get("BENCH_SERVER_LOG", os.devnull)
    with open(log_path, "ab") as log:
        proc = subprocess.Popen([str(ROOT / ".venv/bin/daphne"), "-b", "127.0.0.1", "-p", str(port),
                                 "config.asgi:application"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=log)
    for _ in range(200):
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return proc, port
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise SystemExit("daphne did not start (set BENCH_SERVER_LOG=<file> to keep its log)")


def fetch(port: int, path: str, cookie: str) -> float:
    """Seconds from sending the request until the whole body has arrived (a fresh connection each time)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    began = time.perf_counter()
    conn.request("GET", path, headers={"Cookie": cookie, "Host": "127.0.0.1"} if cookie else {"Host": "127.0.0.1"})
    response = conn.getresponse()
    response.read()
    elapsed = time.perf_counter() - began
    conn.close()
    if response.status != 200:
        raise SystemExit(f"{path}: HTTP {response.status}")
    return elapsed


def measure(args: argparse.Namespace, env: dict[str, str], pages: dict[str, str],
            cookie: str) -> dict[str, list[float]]:
    proc, port = serve(env)
    try:
        for _ in range(3):  # warm: templates compiled, connections open, caches filled
            for path in pages.values():
                fetch(port, path, "" if path == SIGN_IN else cookie)
        times: dict[str, list[float]] = {label: [] for label in pages}
        for _ in range(args.requests):
            for label, path in pages.items():
                times[label].append(fetch(port, path, "" if path == SIGN_IN else cookie))
        return times
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def measure_in_process(args: argparse.Namespace, pages: dict[str, str],
                       cookie: tuple[str, str]) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """Each page through Django's handler in this process (the test client, DEBUG off): the site's own work
    without daphne's and the socket's, the same for every page, which over HTTP adds ~5 ms to each and so hides
    ratios. Wall time and this thread's CPU time (SQLite runs in it too): on a machine shared with other work
    the CPU time is what stays put from run to run."""
    from django.test import Client

    signed_in, visitor = Client(), Client()
    signed_in.cookies[cookie[0]] = cookie[1]

    def get(path: str) -> tuple[float, float]:
        client = visitor if path == SIGN_IN else signed_in
        began, cpu = time.perf_counter(), time.thread_time()
        response = client.get(path)
        elapsed, used = time.perf_counter() - began, time.thread_time() - cpu
        if response.status_code != 200:
            raise SystemExit(f"{path}: HTTP {response.status_code}")
        return elapsed, used

    for _ in range(3):
        for path in pages.values():
            get(path)
    times: dict[str, list[float]] = {label: [] for label in pages}
    cpu: dict[str, list[float]] = {label: [] for label in pages}
    for _ in range(args.requests):
        for label, path in pages.items():
            elapsed, used = get(path)
            times[label].append(elapsed)
            cpu[label].append(used)
    return times, cpu


def profile(path: str, cookie: tuple[str, str], rounds: int = 30) -> None:
    from django.test import Client

    client = Client()
    client.cookies[cookie[0]] = cookie[1]
    for _ in range(3):
        client.get(path)
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(rounds):
        client.get(path)
    profiler.disable()
    out = io.StringIO()
    report = pstats.Stats(profiler, stream=out)
    report.sort_stats("cumulative").print_stats(40)
    report.sort_stats("tottime").print_stats(25)
    print(out.getvalue())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--matches", type=int, default=20_000, help="finished matches made in bulk")
    parser.add_argument("--users", type=int, default=1_000)
    parser.add_argument("--real", type=int, default=40, help="matches played out with every move stored")
    parser.add_argument("--requests", type=int, default=20, help="timed fetches of each page")
    parser.add_argument("--reuse", action="store_true", help="keep the club the last run of this size built")
    parser.add_argument("--seeks", type=int, default=0, help="people waiting in the quick-pairing pools")
    parser.add_argument("--profile", metavar="PATH", help="profile one page in this process instead")
    parser.add_argument("--in-process", action="store_true",
                        help="time each page through Django's handler in this process instead of over HTTP")
    parser.add_argument("--explain", action="store_true",
                        help="print each page's queries and any full scan of a table that grows with the matches")
    args = parser.parse_args()

    url = bench_database(args.matches)
    marker = Path(f"/tmp/cardclub-pages-{args.matches}-{'pg' if url.startswith('postgres') else 'sqlite'}.built")
    if not (args.reuse and marker.exists()):
        marker.unlink(missing_ok=True)
        reset_database(url)
    os.environ["DATABASE_URL"] = url
    os.environ["DJANGO_SETTINGS_MODULE"] = SETTINGS
    os.environ.setdefault("DJANGO_SECRET_KEY", "bench-pages-" + "x" * 40)
    # Plain HTTP on loopback: with debug off the site would otherwise redirect every request to https.
    os.environ.setdefault("DJANGO_HTTPS", "false")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)  # a club kept with --reuse gets any index added since
    if not marker.exists():
        build(args)
        marker.touch()
    from django.conf import settings
    from django.db import connection

    place_seeks(args.seeks)
    if connection.vendor == "postgresql":
        # A site's tables carry statistics and a visibility map (autovacuum analyses and vacuums them, inserts
        # alone set it off); a bulk load's have neither yet: the planner then guesses 58 rows where a game has
        # 5,000, and an index-only scan reads the table's every row anyway.
        with connection.cursor() as cursor:
            cursor.execute("VACUUM ANALYZE")
    pages, session = pages_to_read()
    cookie = (settings.SESSION_COOKIE_NAME, session)
    if args.profile:
        profile(args.profile, cookie)
        return
    if args.explain:
        explain(pages, cookie)
        return
    if args.requests <= 0:  # only build (or check) the club
        return
    queries = count_queries(pages, cookie)
    cpu: dict[str, list[float]] = {}
    if args.in_process:
        times, cpu = measure_in_process(args, pages, cookie)
    else:
        connection.close()
        env = {**os.environ, "DJANGO_SETTINGS_MODULE": SETTINGS, "DATABASE_URL": url, "GAMES_BOT_DELAY": "0.8"}
        times = measure(args, env, pages, f"{cookie[0]}={cookie[1]}")
    base = statistics.median(times["sign-in"])
    engine = "PostgreSQL" if url.startswith("postgres") else "SQLite"
    print(f"{engine}, {args.matches:,} finished matches, {args.users:,} people, {args.seeks:,} waiting in the "
          f"quick-pairing pools; {args.requests} fetches a page, {'in process' if args.in_process else 'over HTTP'}")
    cpu_base = statistics.median(cpu["sign-in"]) if cpu else 0.0
    print(f"{'page':<24} {'median ms':>10} {'p90 ms':>8} {'queries':>8} {'x sign-in':>10}"
          + (f" {'CPU ms':>8} {'CPU x':>6}" if cpu else ""))
    for label, samples in times.items():
        ordered = sorted(samples)
        p90 = ordered[min(len(ordered) - 1, round(0.9 * (len(ordered) - 1)))]
        median = statistics.median(samples)
        line = f"{label:<24} {median * 1000:>10.1f} {p90 * 1000:>8.1f} {queries[label]:>8} {median / base:>10.1f}"
        if cpu:
            used = statistics.median(cpu[label])
            line += f" {used * 1000:>8.1f} {used / cpu_base:>6.1f}"
        print(line)


if __name__ == "__main__":
    main()
