#!/usr/bin/env python3
"""Bot API benchmark: one bot account plays M Gomori matches at once over the API against M people on
WebSockets (issue 39's figure).

Starts daphne on a fresh SQLite database (or DATABASE_URL). The bot reads each match's stream
(/api/v1/matches/<id>/stream) and moves with POST /api/v1/matches/<id>/move, as a bot program would; each person
plays from a real WebSocket. Reported per M: the moves per second the bot sustains over all its matches, and the
latency from the bot's move sent to the opponent's page showing it (p50/p99). Two runs per M: the site's default
token bucket (a burst of 60, then 20 requests a second per token: that is the ceiling a single bot meets by
design), and the bucket opened wide (the server's own capacity).

    .venv/bin/python bench/api.py -m 1 20 [--moves 40] [--rounds N]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from live import bench_env, free_port, recv_until, server_cpu, start_daphne  # noqa: E402


def setup(count: int, run: str) -> tuple[str, list[dict[str, Any]]]:  # count: every match of the run
    """The bot, its token, M people with sessions, and M started matches bot against person."""
    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.sessions.backends.db import SessionStore
    from django.core.management import call_command

    from accounts.models import User
    from games.api.tokens import create_bot, make_token
    from games.models import Match
    from games.play.create import create_table

    call_command("migrate", verbosity=0)
    owner = User.objects.create_user(f"owner-{run}", password=None)
    bot = create_bot(owner, f"bot-{run}")
    _, key = make_token(bot, name="bench")
    matches = []
    for i in range(count):
        person = User.objects.create_user(f"person-{run}-{i}", password=None)
        session = SessionStore()
        session[SESSION_KEY] = str(person.pk)
        session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
        session[HASH_SESSION_KEY] = person.get_session_auth_hash()
        session.create()
        match = create_table(game="gomori", people=[bot, person], rated=False)
        match = Match.objects.get(pk=match.pk)
        seats = {s.user_id: s.index for s in match.seats.all()}
        matches.append({"id": match.pk, "seed": match.seed, "state": match.state, "version": match.version,
                        "bot_seat": seats[bot.pk], "cookie": f"{settings.SESSION_COOKIE_NAME}={session.session_key}"})
    return key, matches


async def post(port: int, path: str, token: str, body: dict[str, Any]) -> tuple[int, bytes]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    data = json.dumps(body).encode()
    writer.write(f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}\r\n"
                 f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\nConnection: close\r\n\r\n"
                 .encode() + data)
    await writer.drain()
    raw = await reader.read()
    writer.close()
    head, _, payload = raw.partition(b"\r\n\r\n")
    return int(head.split(b" ", 2)[1]), payload


class Stream:
    """A match's NDJSON stream over a raw connection (chunked transfer decoded)."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer, self.buffer = reader, writer, b""

    @classmethod
    async def open(cls, port: int, path: str, token: str) -> Stream:
        while True:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}\r\n"
                         "\r\n".encode())
            await writer.drain()
            head = await reader.readuntil(b"\r\n\r\n")
            if b" 429 " not in head.split(b"\r\n", 1)[0]:
                return cls(reader, writer)
            length = next((int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")
                           if line.lower().startswith(b"content-length:")), 0)
            body = await reader.readexactly(length)  # the token's bucket: wait as told, then again
            writer.close()
            await asyncio.sleep(float(json.loads(body).get("retry_after", 1.0)))

    async def line(self) -> dict[str, Any]:
        while True:
            if b"\n" in self.buffer:
                raw, _, self.buffer = self.buffer.partition(b"\n")
                if raw.strip():
                    return dict(json.loads(raw))
                continue
            size = int((await self.reader.readline()).strip(), 16)
            if size == 0:
                raise EOFError
            self.buffer += await self.reader.readexactly(size)
            await self.reader.readexactly(2)

    async def version(self, at_least: int) -> dict[str, Any]:
        while True:
            item = await self.line()
            if item.get("type") == "state" and item["version"] >= at_least:
                return item

    def close(self) -> None:
        self.writer.close()


async def play(port: int, token: str, match: dict[str, Any], moves: int, latencies: list[float],
               bot_moves: list[int]) -> None:
    import websockets

    from games.engines import get_engine

    engine = get_engine("gomori")
    state = engine.load(match["state"])
    rng, version, bot = random.Random(match["seed"]), match["version"], match["bot_seat"]
    ws = await websockets.connect(f"ws://127.0.0.1:{port}/ws/m/{match['id']}/", origin=f"http://127.0.0.1:{port}",
                                  additional_headers={"Cookie": match["cookie"]}, max_size=2**22)
    stream = await Stream.open(port, f"/api/v1/matches/{match['id']}/stream", token)
    try:
        await recv_until(ws, lambda m: 'id="board"' in m)
        await stream.version(version)
        for _ in range(moves):
            if engine.is_over(state):
                break
            seat = engine.to_act(state)[0]
            action = rng.choice(engine.legal_actions(state, seat))
            state = engine.apply(state, seat, action)
            if seat == bot:
                start = time.perf_counter()
                status, body = await post(port, f"/api/v1/matches/{match['id']}/move", token,
                                          {"action": action, "version": version})
                while status == 429:  # the token's bucket: wait as told (the body's exact wait), as a bot must
                    await asyncio.sleep(float(json.loads(body).get("retry_after", 1.0)))
                    status, body = await post(port, f"/api/v1/matches/{match['id']}/move", token,
                                              {"action": action, "version": version})
                assert status == 200, body[:300]
                await recv_until(ws, lambda m: 'id="board"' in m)  # the person's page shows the bot's move
                latencies.append(time.perf_counter() - start)
                bot_moves[0] += 1
            else:
                await ws.send(json.dumps({"action": action, "version": version}))
                await recv_until(ws, lambda m: 'id="board"' in m)
            version += 1
            await stream.version(version)  # the bot hears every change on its stream before it acts again
    finally:
        stream.close()
        await ws.close()


def run(database: str, count: int, moves: int, wide: bool, rounds: int) -> None:
    """One measurement: a fresh daphne on the run's database (one per bench process: Django's connection is set
    up once), a bot and M people of this run's own."""
    env = bench_env(database)
    if wide:
        env.update(GAMES_API_BURST="1000000", GAMES_API_RATE="1000000")
    token, matches = setup(count * rounds, f"{count}-{'wide' if wide else 'site'}")
    port = free_port()
    server = start_daphne("config.asgi:application", port, env)
    try:
        latencies: list[float] = []
        bot_moves = [0]
        cpu = server_cpu(server.pid)
        spy = None
        if os.environ.get("BENCH_PROFILE_OUT") and wide:
            from live import start_profiler

            spy = start_profiler(server.pid, os.environ["BENCH_PROFILE_OUT"])

        async def all_matches() -> float:
            start = time.perf_counter()
            async def slot(index: int) -> None:  # M matches at once; a slot's rounds one after another
                for match in matches[index::count]:
                    await play(port, token, match, moves, latencies, bot_moves)

            await asyncio.gather(*(slot(index) for index in range(count)))
            return time.perf_counter() - start

        elapsed = asyncio.run(all_matches())
        cpu = server_cpu(server.pid) - cpu
        if spy is not None:  # BENCH_PROFILE_OUT=<file>: py-spy's raw samples of the wide run, for print_profile
            spy.send_signal(2)
            spy.wait(timeout=60)
    finally:
        server.terminate()
        server.wait()
    ordered = sorted(latencies)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    bucket = "bucket opened wide" if wide else "the site's token bucket (60, then 20/s)"
    print(f"M={count:<3} x{rounds:<2} {bucket:<40} bot moves {bot_moves[0]:>4} in {elapsed:5.1f} s: "
          f"{bot_moves[0] / elapsed:6.1f} moves/s; move sent -> opponent's view p50 "
          f"{statistics.median(ordered) * 1000:6.1f} ms, p99 {p99 * 1000:6.1f} ms; server CPU {cpu:.1f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-m", "--matches", type=int, nargs="+", default=[1, 20])
    parser.add_argument("--moves", type=int, default=40, help="moves per match at most (both seats')")
    parser.add_argument("--rounds", type=int, default=0,
                        help="matches each slot plays one after another (default: 10 at M=1, else 1)")
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    with tempfile.TemporaryDirectory() as tmp:
        database = f"sqlite:///{tmp}/bench.sqlite3"
        print(f"database {os.environ.get('DATABASE_URL', database).split(':')[0]}, channel layer "
              f"{'redis' if os.environ.get('REDIS_URL') else 'in-memory'}, at most {args.moves} moves a match")
        for count in args.matches:
            for wide in (False, True):
                run(database, count, args.moves, wide, args.rounds or (10 if count == 1 else 1))


if __name__ == "__main__":
    main()
