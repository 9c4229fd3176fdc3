#!/usr/bin/env python3
"""Live-play benchmark: M concurrent Gomori matches between scripted clients over real WebSockets.

Starts daphne on a fresh SQLite database (or DATABASE_URL), then for each match two clients (one per
seat) play MOVES moves, one move in flight per match. Latency is from one client sending an action
until the other seat's client has received its update; every move is persisted and each seat's
fragments rendered. In the same run a bare Channels relay (bench/relay_asgi.py) is driven by the same
clients on the same channel layer, and the ratio is printed. With --profile, py-spy samples the Card
Club server during the run and the bench prints where its time went (parse, engine, views, database,
rendering, sending, ...).

    .venv/bin/python bench/live.py [-m 100] [--moves 50] [--profile]
    .venv/bin/python bench/live.py -m 1 --rounds 10      # latency at low load, the figure a player feels
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_daphne(app: str, port: int, env: dict[str, str]) -> subprocess.Popen[bytes]:
    """daphne serving app; its log goes to BENCH_SERVER_LOG if set (else nowhere)."""
    log_path = os.environ.get("BENCH_SERVER_LOG", os.devnull)
    with open(log_path, "ab") as log:  # the child keeps its own copy of the descriptor
        proc = subprocess.Popen(
            [str(ROOT / ".venv/bin/daphne"), "-b", "127.0.0.1", "-p", str(port), app],
            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=log,
        )
    for _ in range(200):
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return proc
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise SystemExit("daphne did not start (set BENCH_SERVER_LOG=<file> to keep its log)")


def bench_env(default_database: str) -> dict[str, str]:
    """The server's environment (DATABASE_URL as set, else `default_database`), measured as deployed: debug
    off (no query logging), plain HTTP on loopback; this process's Django is set up on the same settings."""
    env = dict(os.environ)
    env.setdefault("DATABASE_URL", default_database)
    env["DJANGO_SETTINGS_MODULE"] = "config.settings"
    env["DJANGO_LOG_LEVEL"] = "WARNING"
    env.setdefault("DJANGO_DEBUG", "false")
    env.setdefault("DJANGO_SECRET_KEY", "bench-" + "x" * 50)
    env.setdefault("DJANGO_SECURE_SSL_REDIRECT", "false")
    env.setdefault("DJANGO_ALLOWED_HOSTS", "127.0.0.1,localhost")
    keys = ("DATABASE_URL", "DJANGO_SETTINGS_MODULE", "DJANGO_LOG_LEVEL", "DJANGO_DEBUG", "DJANGO_SECRET_KEY",
            "DJANGO_SECURE_SSL_REDIRECT", "DJANGO_ALLOWED_HOSTS")
    os.environ.update({k: env[k] for k in keys})
    return env


def setup_matches(count: int) -> list[dict]:
    """Users, sessions and started Gomori matches in the benchmark database."""
    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.sessions.backends.db import SessionStore
    from django.core.management import call_command

    from accounts.models import User
    from games.models import Match
    from games.play.create import SeatSpec, create_match
    from games.play.seating import decide_join
    from games.play.snapshot import Player
    from games.play.sync import run_change

    call_command("migrate", verbosity=0)
    matches = []
    for i in range(count):
        users = []
        for seat in range(2):
            user = User.objects.create_user(f"bench{i}-{seat}", password=None)
            session = SessionStore()
            session[SESSION_KEY] = str(user.pk)
            session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
            session[HASH_SESSION_KEY] = user.get_session_auth_hash()
            session.create()
            users.append((user, session.session_key))
        match = create_match(
            creator=users[0][0], game="gomori", players=2, seats=[SeatSpec("open")], seed=i
        )
        run_change(match.pk, decide_join, player=Player.of(users[1][0]))
        match = Match.objects.get(pk=match.pk)
        cookies = [f"{settings.SESSION_COOKIE_NAME}={key}" for _, key in users]
        matches.append({"id": match.pk, "seed": i, "cookies": cookies, "version": match.version})
    return matches


async def recv_until(ws, predicate, timeout: float = 30.0) -> str:
    deadline = time.perf_counter() + timeout
    while True:
        message = await asyncio.wait_for(ws.recv(), timeout=max(0.01, deadline - time.perf_counter()))
        if predicate(message):
            return message


async def play_match(port: int, match: dict, moves: int, latencies: list[float], done: list[int]) -> None:
    import websockets

    from games.engines import get_engine

    engine = get_engine("gomori")
    state = engine.new_game(2, seed=match["seed"])
    rng = random.Random(match["seed"])
    url = f"ws://127.0.0.1:{port}/ws/m/{match['id']}/"
    origin = f"http://127.0.0.1:{port}"
    socks = [
        await websockets.connect(url, additional_headers={"Cookie": cookie}, origin=origin, max_size=2**22)
        for cookie in match["cookies"]
    ]
    try:
        for ws in socks:  # the full page state every connect sends
            await recv_until(ws, lambda m: 'id="board"' in m)
        await asyncio.sleep(0.2)
        for ws in socks:  # drain presence broadcasts
            while True:
                try:
                    await asyncio.wait_for(ws.recv(), timeout=0.3)
                except TimeoutError:
                    break
        for move in range(moves):
            if engine.is_over(state):
                break
            seat = engine.to_act(state)[0]
            action = rng.choice(engine.legal_actions(state, seat))
            state = engine.apply(state, seat, action)
            other = socks[1 - seat]
            start = time.perf_counter()
            await socks[seat].send(json.dumps({"action": action, "version": match["version"] + move}))
            await recv_until(other, lambda m: 'id="board"' in m)
            latencies.append(time.perf_counter() - start)
            if engine.is_over(state):  # the match-ending move also writes the statistics
                ENDING.append(latencies[-1])
            await recv_until(socks[seat], lambda m: 'id="board"' in m)
            done[0] += 1
    finally:
        for ws in socks:
            await ws.close()


async def relay_room(port: int, room: int, moves: int, latencies: list[float], done: list[int]) -> None:
    import websockets

    url = f"ws://127.0.0.1:{port}/ws/relay/{room}/"
    socks = [await websockets.connect(url) for _ in range(2)]
    try:
        await asyncio.sleep(0.2)
        for n in range(moves):
            seat = n % 2
            start = time.perf_counter()
            payload = json.dumps({"action": {"type": "play", "n": n}, "version": n})
            await socks[seat].send(payload)
            await recv_until(socks[1 - seat], payload.__eq__)
            latencies.append(time.perf_counter() - start)
            await recv_until(socks[seat], payload.__eq__)
            done[0] += 1
    finally:
        for ws in socks:
            await ws.close()


def server_cpu(pid: int) -> float:
    """CPU seconds a process has used, all its threads (Linux /proc; 0 where there is none)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


# Where a sample of the server's time goes: the first rule, from the innermost frame out, whose path mark
# (and function name, where one is given) matches the frame.
CATEGORIES: list[tuple[str, tuple[str, ...], tuple[str, ...]]] = [
    ("idle", ("selectors.py", "threading.py", "concurrent/futures/thread.py", "queue.py"), ()),
    ("database", ("sqlite3", "psycopg", "django/db/"), ()),
    ("engine", ("games/engines/",), ()),
    ("rendering", ("django/template", "template_partials", "jinja2/", "markupsafe", "templates/jinja2",
                   "games/jinja", "games/presenters", "games/play/page", "games/play/meta", "games/play/wording",
                   "django/utils/html",
                   "django/utils/safestring", "django/urls"), ()),
    ("parse", ("json/",), ()),
    ("parse", ("games/play/frames", "games/play/socket"), ("MatchConsumer.receive", "MatchConsumer.handle",
                                                           "read_frame", "parse_json", "json_field", "int_field")),
    ("sending", ("autobahn", "twisted", "daphne/"), ()),
    ("channel layer", ("channels/layers", "channels_redis", "redis/"), ()),
    ("thread hop", ("asgiref/",), ()),
    ("live core", ("games/play/", "orjson"), ()),
]


def _is_view(frame: str) -> bool:
    name, _, where = frame.partition(" (")
    return name.rpartition(".")[2] in ("view", "legal_actions") and "games/engines/" in where


def _category(frame: str) -> str | None:
    name, _, where = frame.partition(" (")
    for category, paths, names in CATEGORIES:
        if any(mark in where for mark in paths) and (not names or name in names):
            return category
    return None


def start_profiler(pid: int, path: str) -> subprocess.Popen[bytes] | None:
    """py-spy sampling every thread of the server (None where py-spy can't attach)."""
    spy = ROOT / ".venv/bin/py-spy"
    if not spy.exists():
        return None
    # --gil: only the thread holding the GIL is sampled, so a thread waiting for it (the event loop while the
    # database thread runs Python) is not counted where it happens to wait.
    gil = ["--gil"] if os.environ.get("BENCH_PROFILE_GIL") else []
    return subprocess.Popen([str(spy), "record", "--pid", str(pid), "--format", "raw", "--rate", "250", *gil,
                             "--output", path, "--nonblocking"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def print_profile(path: str) -> None:
    """The share of the server's busy samples in each category (idle waits left out)."""
    totals: dict[str, int] = {}
    try:
        lines = Path(path).read_text().splitlines()
    except OSError:
        print("profile: py-spy could not attach (it needs ptrace)")
        return
    for line in lines:
        stack, _, count = line.rpartition(" ")
        frames = stack.split(";")
        category = next((found for frame in reversed(frames) if (found := _category(frame))), "other")
        if category == "engine" and any(_is_view(frame) for frame in frames):
            category = "views"  # the engine's work inside view(): making each viewer's view
        totals[category] = totals.get(category, 0) + int(count)
    busy = sum(n for name, n in totals.items() if name != "idle")
    if not busy:
        print("profile: no samples")
        return
    shares = sorted(((n, name) for name, n in totals.items() if name != "idle"), reverse=True)
    print("where the server's busy time went: " + ", ".join(f"{name} {n / busy:.0%}" for n, name in shares))


ENDING: list[float] = []  # latencies of the moves that ended a match


def report(name: str, latencies: list[float], done: int, elapsed: float, cpu: float) -> float:
    ordered = sorted(latencies)
    p50 = ordered[len(ordered) // 2] * 1000
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1000
    rate = done / elapsed
    # Server CPU per move varies less than throughput on a shared machine: the two compete with the clients.
    print(f"{name:<22} {rate:8.0f} moves/s   p50 {p50:6.1f} ms   p99 {p99:6.1f} ms   "
          f"server CPU {cpu / done * 1000:.2f} ms/move   "
          f"({done} moves in {elapsed:.1f} s, mean {statistics.fmean(latencies) * 1000:.1f} ms)")
    return rate


async def run_all(coros) -> float:
    start = time.perf_counter()
    await asyncio.gather(*coros)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("-m", "--matches", type=int, default=100)
    parser.add_argument("--moves", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=1,
                        help="matches each of the M clients' pairs plays one after another (more samples at -m 1)")
    parser.add_argument("--profile", action="store_true", help="sample the server with py-spy; print where time went")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        env = bench_env(f"sqlite:///{tmp}/bench.sqlite3")
        matches = setup_matches(args.matches * args.rounds)
        print(f"{args.matches} matches x {args.moves} moves, database {env['DATABASE_URL'].split(':')[0]}, "
              f"channel layer {'redis' if env.get('REDIS_URL') else 'in-memory'}")

        port = free_port()
        server = start_daphne("bench.relay_asgi:application", port, env)
        try:
            latencies: list[float] = []
            done = [0]
            rooms = (relay_room(port, i, args.moves, latencies, done) for i in range(args.matches))
            cpu = server_cpu(server.pid)
            elapsed = asyncio.run(run_all(rooms))
            cpu = server_cpu(server.pid) - cpu
            relay_rate = report("bare Channels relay", latencies, done[0], elapsed, cpu)
        finally:
            server.terminate()
            server.wait()

        port = free_port()
        server = start_daphne("config.asgi:application", port, env)
        try:
            latencies = []
            done = [0]
            profile = os.environ.get("BENCH_PROFILE_OUT", f"{tmp}/profile.txt")
            spy = start_profiler(server.pid, profile) if args.profile else None
            cpu = server_cpu(server.pid)
            async def pair(slot: int) -> None:
                for match in matches[slot::args.matches]:
                    await play_match(port, match, args.moves, latencies, done)

            elapsed = asyncio.run(run_all(pair(slot) for slot in range(args.matches)))
            cpu = server_cpu(server.pid) - cpu
            if spy is not None:
                spy.send_signal(2)  # SIGINT: py-spy writes what it sampled
                spy.wait(timeout=60)
            game_rate = report("Card Club (Gomori)", latencies, done[0], elapsed, cpu)
            if ENDING:
                others = sorted(latencies)
                for latency in ENDING:
                    others.remove(latency)
                print(f"{'':<22} without the {len(ENDING)} match-ending moves: p99 "
                      f"{others[min(len(others) - 1, int(len(others) * 0.99))] * 1000:.1f} ms; the ending moves' "
                      f"median {sorted(ENDING)[len(ENDING) // 2] * 1000:.1f} ms")
            if args.profile:
                print_profile(profile)
        finally:
            server.terminate()
            server.wait()
        print(f"ratio: {game_rate / relay_rate:.2f} of the bare relay's throughput")


if __name__ == "__main__":
    main()
