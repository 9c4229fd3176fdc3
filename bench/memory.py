#!/usr/bin/env python3
"""What an idle match and an idle socket cost in memory.

A match: 1,000 started two-player matches (the four games in turn, freshly dealt) opened in this process's hub
(games.play.hub: the live copy a socket's server holds, its snapshot, state, presence and channel-layer group),
measured with tracemalloc (the Python objects allocated, per game) and as the process's RSS growth.

A socket: one daphne serving config.asgi (as bench/live.py starts it); 1,000 idle sockets of each kind opened
on it, the server's RSS before and after: notification sockets (/ws/notify/, signed in, as every page opens),
and match sockets of spectators (signed out, ten per match over 100 matches, each page drawn once at connect).
RSS counts everything the server allocated for them (daphne's and Twisted's protocol objects, the consumer, its
page state, the channel layer's groups and queues), and what the allocator keeps: a rough figure, not to a byte.

    .venv/bin/python bench/memory.py [--count 1000]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.club import GAMES, Club, grow_club, rss_of  # noqa: E402
from bench.live import bench_env, free_port, start_daphne  # noqa: E402


def rss_self() -> int:
    return rss_of(os.getpid())[0]


async def open_matches(ids: list[int]) -> int:
    from games.play.hub import hub

    for match_id in ids:
        assert await hub().get(match_id) is not None
    return len(hub().matches)


def idle_matches(club: Club, count: int) -> None:
    """The first `count` tables' matches measured; the 8 after them opened first, to load the code paths."""
    by_game: dict[str, list[int]] = {game: [] for game in GAMES}
    for slot in club.slots[:count]:
        by_game[GAMES[slot.index % len(GAMES)]].append(slot.match)
    ids = [slot.match for slot in club.slots[:count]]
    warm = [slot.match for slot in club.slots[count:count + 8]]

    async def rss_pass() -> tuple[int, int]:
        await open_matches(warm)  # the first copies load the code paths: not what a match costs
        gc.collect()
        before = rss_self()
        held = await open_matches(ids)
        gc.collect()
        return rss_self() - before, held

    grown, held = asyncio.run(rss_pass())

    async def traced() -> dict[str, int]:
        await open_matches(warm)
        sizes = {}
        for game, group in by_game.items():
            gc.collect()
            tracemalloc.start()
            before = tracemalloc.get_traced_memory()[0]
            await open_matches(group)
            gc.collect()
            sizes[game] = tracemalloc.get_traced_memory()[0] - before
            tracemalloc.stop()
        return sizes

    sizes = asyncio.run(traced())
    total = sum(sizes.values())
    print(f"idle matches in the hub ({held} held): tracemalloc {total / len(ids):,.0f} bytes a match; "
          f"RSS {grown / len(ids):,.0f} bytes a match")
    for game, size in sizes.items():
        print(f"  {game:<8} {size / len(by_game[game]):>9,.0f} bytes a match (tracemalloc, {len(by_game[game])})")


async def open_sockets(port: int, paths: list[tuple[str, str | None]]) -> list[object]:
    import websockets

    socks = []
    for path, cookie in paths:
        headers = {"Cookie": cookie} if cookie else {}
        ws = await websockets.connect(f"ws://127.0.0.1:{port}{path}", additional_headers=headers,
                                      origin=f"http://127.0.0.1:{port}", max_size=2**23, ping_interval=None)
        socks.append(ws)
        if path.startswith("/ws/m/"):
            await ws.recv()  # its page: the socket is in the match now
    return socks


async def measure_sockets(port: int, pid: int, paths: list[tuple[str, str | None]]) -> tuple[int, int, int]:
    """The server's RSS before and after opening these sockets (some opened first: code loaded, matches held)."""
    warm = await open_sockets(port, paths[:20] + paths[-100:])
    await asyncio.sleep(2.0)
    before = rss_of(pid)[0]
    socks = await open_sockets(port, paths)
    await asyncio.sleep(3.0)  # the last connects' work done
    after = rss_of(pid)[0]
    for ws in socks + warm:
        await ws.close()  # type: ignore[attr-defined]
    return before, after, len(socks)


def idle_sockets(club: Club, env: dict[str, str], count: int) -> None:
    from django.db import connections

    connections.close_all()
    kinds = {
        "notification": [("/ws/notify/", club.watchers[i % len(club.watchers)]) for i in range(count)],
        "spectator": [(f"/ws/m/{club.slots[i % 100].match}/", None) for i in range(count)],
    }
    for kind, paths in kinds.items():
        port = free_port()
        server = start_daphne("config.asgi:application", port, env)
        try:
            before, after, opened = asyncio.run(measure_sockets(port, server.pid, paths))
        finally:
            server.terminate()
            server.wait()
        print(f"idle {kind} sockets ({opened} open): server RSS {before / 2**20:.0f} -> {after / 2**20:.0f} MiB, "
              f"{(after - before) / opened:,.0f} bytes a socket")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--count", type=int, default=1000, help="matches and sockets of each kind")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        env = bench_env(f"sqlite:///{tmp}/memory.sqlite3")
        import django

        django.setup()
        from django.core.management import call_command

        call_command("migrate", verbosity=0)
        club = Club()
        began = time.perf_counter()
        grow_club(club, max(args.count, 100) + 8, 100, seed=0)
        print(f"{len(club.slots)} matches built in {time.perf_counter() - began:.0f} s "
              f"(database {env['DATABASE_URL'].split(':')[0]})")
        idle_matches(club, args.count)
        idle_sockets(club, env, args.count)


if __name__ == "__main__":
    main()
