#!/usr/bin/env python3
"""A club's load, not a stress loop: N matches of the four games played at a person's pace, with spectators,
lobby watchers and chat, against one daphne serving config.asgi (the server and its environment as
bench/live.py starts them).

Each match (the games in turn: Gomori, Columbo, Ruhd, Rummy; two players) is played by its two seats' own
WebSockets, signed in as the browser is: every 1-5 s (drawn at random) the seat the game waits on plays the move
the game's reference bot chooses from that seat's own view (the client keeps the match's state, loaded from the
database when the match opens, and follows it move by move; it asks the engine only for that seat's view and
legal actions), sent as the page sends it ({"action", "version"}). Each player's page also has its notification
socket open (/ws/notify/?here=<match>), as every page does. One match in three has 1-3 spectators (signed out);
N/5 people watch the lobby (/ws/notify/?lobby=1); each match's players write a chat line a minute. A match
that ends is followed by its rematch (both players ask for it; the pages go where the server sends them).

Latencies, each from the client's send of the message that caused it:
    ack        the move's update reaching the mover's own page (the new version's board)
    opponent   the same update reaching the other player
    spectator  ... reaching each spectator of the match
    turn cue   the "your turn" badge redrawn on the opponent's notification socket
    lobby      a match's ending move until each lobby watcher's lists are redrawn (the lobby socket waits 0.5 s
               on purpose to gather a busy club's changes into one redraw: that pause is in the figure)
    chat       a chat line reaching the other player
over a measuring window after a warm-up (the sockets open during the first half of the warm-up), with the
server's CPU share (of one core) and memory (RSS) over that window, and the client processes' own CPU, so that
a reader can tell whether the load generator kept up.

--find-max looks for the largest N served with p99 <= 50 ms for every kind (the lobby's beyond its 0.5 s pause;
--criterion play: only the kinds that answer a person's own action, ack, opponent, spectator and chat) and no
move lost: N doubles from -n until it fails, then bisects, each step a short window on a fresh server
over the same database (the club grows as needed).

    .venv/bin/python bench/club.py -n 100                       # SQLite in /tmp, in-memory channel layer
    .venv/bin/python bench/club.py -n 1000 --clients 2 --warmup 40
    .venv/bin/python bench/club.py --find-max -n 50 --max-minutes 10
    .venv/bin/python bench/club.py --find-max -n 50 --processes 2 --database-url ... --redis-url ...
    .venv/bin/python bench/club.py -n 100 --database-url postgres://postgres@127.0.0.1:5432/x \\
        --redis-url redis://127.0.0.1:6379/5   # (or DATABASE_URL / REDIS_URL): the bench's own database,
                                                # cardclub_club on that server, is dropped and created anew
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import contextlib
import functools
import json
import multiprocessing
import os
import random
import re
import resource
import sys
import tempfile
import time
from collections.abc import Hashable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.live import bench_env, free_port, print_profile, server_cpu, start_daphne, start_profiler  # noqa: E402
from games.core import lag  # noqa: E402  (no Django: the server's monitor, and the clients' own)

GAMES = ("gomori", "columbo", "ruhd", "rummy")
KINDS = ("ack", "opponent", "spectator", "turn cue", "lobby", "chat")
# --find-max's criteria: every kind (the lobby's beyond its pause), or those that answer a person's own action.
CRITERIA = {"all": KINDS, "play": ("ack", "opponent", "spectator", "chat")}
LOBBY_PAUSE = 0.5  # games.lobby.socket.LobbyLists._send_lobby's gathering pause
P99_LIMIT = 0.050
STALLS_SHOWN = 6  # the server's stalls printed, most frequent first (every one is in --json)
MOVE_TIMEOUT = 15.0
DATABASE_NAME = "cardclub_club"

VERSION = re.compile(r'data-move="(\d+)"')
GOTO = re.compile(r'data-goto="[^"]*?/m/(\d+)/')
CHAT = re.compile(r"club-chat-\d+-\d+")


# ---------------------------------------------------------------------------------------------
# The club in the database (this process, before the server starts)


def bench_database(url: str) -> str:
    """The bench's own database on the server named (PostgreSQL), made anew; SQLite: the file named."""
    if not url.startswith(("postgres://", "postgresql://")):
        return url
    import psycopg

    parts = urlsplit(url)
    with psycopg.connect(urlunsplit(parts._replace(path="/postgres")), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{DATABASE_NAME}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{DATABASE_NAME}"')
    return urlunsplit(parts._replace(path=f"/{DATABASE_NAME}"))


def session_cookie(user: Any) -> str:
    """A signed-in session for the user, as the cookie its browser would send."""
    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.sessions.backends.db import SessionStore

    session = SessionStore()
    session[SESSION_KEY] = str(user.pk)
    session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session.create()
    return f"{settings.SESSION_COOKIE_NAME}={session.session_key}"


@dataclass
class Slot:
    """One table of the club: its two players (user id, cookie), the match they are at now, its spectators."""

    index: int
    users: list[tuple[int, str]]
    match: int
    spectators: int


@dataclass
class Club:
    slots: list[Slot] = field(default_factory=list)
    watchers: list[str] = field(default_factory=list)  # the lobby watchers' cookies


def watchers_of(n: int, share: float) -> int:
    return max(1, round(n * share)) if share > 0 else 0


def grow_club(club: Club, matches: int, watchers: int, seed: int) -> None:
    """Add tables (started two-player matches, the games in turn) and lobby watchers up to these numbers."""
    from accounts.models import User
    from games.play.create import SeatSpec, create_match
    from games.play.seating import decide_join
    from games.play.snapshot import Player
    from games.play.sync import run_change

    rng = random.Random(seed)
    for i in range(len(club.slots), matches):
        users = [User.objects.create_user(f"club{i}-{seat}", password=None) for seat in range(2)]
        match = create_match(creator=users[0], game=GAMES[i % len(GAMES)], players=2, seats=[SeatSpec("open")],
                             seed=rng.randrange(2**40))
        run_change(match.pk, decide_join, player=Player.of(users[1]))
        club.slots.append(Slot(i, [(u.pk, session_cookie(u)) for u in users], match.pk,
                               rng.randint(1, 3) if i % 3 == 0 else 0))
    for j in range(len(club.watchers), watchers):
        club.watchers.append(session_cookie(User.objects.create_user(f"watcher{j}", password=None)))


def load_match(match_id: int) -> tuple[str, str, int, Any, dict[int, int]]:
    """The match as the client follows it: game, status, version, state (dumped), each user's seat."""
    from django.db import close_old_connections

    from games.models import Match, Seat

    close_old_connections()
    match = Match.objects.get(pk=match_id)
    seats = dict(Seat.objects.filter(match_id=match_id).values_list("user_id", "index"))
    return match.game, match.status, match.version, match.state, seats


# ---------------------------------------------------------------------------------------------
# The client: many sockets in one asyncio loop per client process


class Refused(Exception):
    """The server answered a move with an error instead of its update."""


class Sock:
    """One WebSocket and what its reader has seen: futures for the messages awaited, the lobby redraws' times."""

    def __init__(self, ws: Any, stats: dict[str, int], page: bool) -> None:
        self.ws = ws
        self.stats = stats
        self.waiters: dict[Hashable, asyncio.Future[Any]] = {}
        self.lobby: list[float] = []
        self.page = self.expect("page") if page else None  # the whole page a match socket opens with
        self.reader = asyncio.ensure_future(self._read())

    def expect(self, key: Hashable) -> asyncio.Future[Any]:
        future = self.waiters.get(key)
        if future is None or future.done():
            future = self.waiters[key] = asyncio.get_running_loop().create_future()
        return future

    def _resolve(self, key: Hashable, value: Any) -> None:
        future = self.waiters.pop(key, None)
        if future is not None and not future.done():
            future.set_result(value)

    async def _read(self) -> None:
        with contextlib.suppress(Exception):
            async for message in self.ws:
                now = time.perf_counter()
                self.stats["messages"] += 1
                self.stats["bytes"] += len(message)
                if 'id="lobby-lists"' in message:
                    self.lobby.append(now)
                if not self.waiters:
                    continue
                if 'id="board"' in message:
                    self._resolve("page", now)
                for version in VERSION.findall(message):
                    self._resolve(("v", int(version)), now)
                if 'id="turn-cue"' in message:
                    self._resolve("cue", now)
                if "club-chat-" in message and 'id="chat-lines"' in message:
                    for token in CHAT.findall(message):
                        self._resolve(("chat", token), now)
                if "data-goto=" in message and (goto := GOTO.search(message)):
                    self._resolve("goto", int(goto.group(1)))
                if '<p class="error">' in message:
                    self.stats["errors"] += 1
                    for key in [k for k in self.waiters if isinstance(k, tuple) and k[0] == "v"]:
                        future = self.waiters.pop(key)
                        if not future.done():
                            future.set_exception(Refused(message[:300]))
        for future in self.waiters.values():  # closed: nothing more will come
            if not future.done():
                future.cancel()

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await self.ws.close()
        self.reader.cancel()
        with contextlib.suppress(BaseException):
            await self.reader


class Client:
    """One client process's share of the club, run over [start, stop] (perf_counter times, shared by every
    process on Linux) and measured over [measure_from, stop]."""

    def __init__(self, ports: list[int], slots: list[Slot], watchers: list[str], start: float, ramp: float,
                 measure_from: float, stop: float, seed: int, pace: tuple[float, float] = (1.0, 5.0),
                 chat_every: float = 60.0) -> None:
        self.ports, self.slots, self.watchers, self.pace = ports, slots, watchers, pace
        self.chat_every = chat_every
        self.start, self.ramp, self.measure_from, self.stop = start, ramp, measure_from, stop
        self.seed = seed
        self.samples: dict[str, list[float]] = {kind: [] for kind in KINDS if kind != "lobby"}
        self.endings: list[float] = []  # when each match-ending move was sent (the lobby's redraw is for it)
        self.stats = {"messages": 0, "bytes": 0, "errors": 0, "moves": 0, "lost": 0, "matches": 0, "sockets": 0,
                      "refused": 0, "handshakes refused": 0, "pages late": 0, "tables opened": 0,
                      "tables never opened": 0, "tables cut off": 0}
        self.opened: set[int] = set()  # the tables whose match opened at least once
        self.lost: list[str] = []
        self.lag_file: str | None = None

    @property
    def stopping(self) -> bool:
        return time.perf_counter() >= self.stop

    def record(self, kind: str, sent: float, arrived: float) -> None:
        if self.measure_from <= sent <= self.stop:
            self.samples[kind].append(arrived - sent)

    def cue_arrived(self, sent: float, future: asyncio.Future[float]) -> None:
        if not future.cancelled() and future.exception() is None:
            self.record("turn cue", sent, future.result())

    def port_for(self, path: str, cookie: str | None) -> int:
        """The process a socket goes to, as the README's proxy sends it: a match's sockets (its table's and its
        players' notification sockets, `here=<match>`) by the match's number, the others by who opens them."""
        found = MATCH_IN_PATH.search(path)
        key = int(found.group(1) or found.group(2)) if found else sum((cookie or path).encode())
        return self.ports[key % len(self.ports)]

    async def connect(self, path: str, cookie: str | None, page: bool = False) -> Sock:
        import websockets

        headers = {"Cookie": cookie} if cookie else {}
        port = self.port_for(path, cookie)
        try:
            ws = await websockets.connect(f"ws://127.0.0.1:{port}{path}", additional_headers=headers,
                                          origin=f"http://127.0.0.1:{port}", max_size=2**23, open_timeout=60,
                                          ping_interval=None, compression=None, close_timeout=2)
        except Exception:
            # Refused at the handshake (daphne drops one its application has not answered within 5 s) or timed out.
            self.stats["handshakes refused"] += 1
            raise
        self.stats["sockets"] += 1
        return Sock(ws, self.stats, page)

    async def sleep_until(self, moment: float) -> None:
        await asyncio.sleep(max(0.0, moment - time.perf_counter()))

    async def pause(self, rng: random.Random) -> None:
        """A person's pause between actions, cut short by the run's end (an idle club: --pace 1e6 1e6)."""
        await self.sleep_until(min(time.perf_counter() + rng.uniform(*self.pace), self.stop))

    async def run(self) -> dict[str, Any]:
        monitor = lag.start_if_asked(self.lag_file) if self.lag_file else None
        cpu = 0.0
        tasks = [asyncio.ensure_future(self.table(slot)) for slot in self.slots]
        watchers = [asyncio.ensure_future(self.watch(cookie)) for cookie in self.watchers]
        await self.sleep_until(self.measure_from)
        if monitor is not None:
            monitor.reset()
        cpu = time.process_time()
        await self.sleep_until(self.stop)
        cpu = time.process_time() - cpu
        own_lag = monitor.summary() if monitor is not None else None
        lobby = await asyncio.gather(*watchers, return_exceptions=True)
        # A table still opening (or waiting out a refusal) when the run stops is cut off after a grace: the run
        # reports what it saw rather than wait for an overloaded server.
        _, late = await asyncio.wait(tasks, timeout=MOVE_TIMEOUT + 5) if tasks else (set(), set())
        for task in late:
            task.cancel()
        self.stats["tables cut off"] = len(late)
        if late:  # their sockets' closing handshakes, bounded too
            await asyncio.wait(late, timeout=10)
        done = [task.exception() if task.done() and not task.cancelled() else None for task in tasks]
        self.stats["tables opened"] = len(self.opened)
        self.stats["tables never opened"] = len(self.slots) - len(self.opened)
        for slot, outcome in zip(self.slots, done, strict=True):
            if isinstance(outcome, BaseException):
                self.lost.append(f"table {slot.index}: {outcome!r}")
        return {"samples": self.samples, "endings": self.endings, "stats": self.stats, "cpu": cpu, "lag": own_lag,
                "lobby": [times for times in lobby if isinstance(times, list)], "lost": self.lost[:5],
                "matches": {slot.index: slot.match for slot in self.slots}}

    async def watch(self, cookie: str) -> list[float]:
        rng = random.Random(cookie)
        await self.sleep_until(self.start + rng.uniform(0, self.ramp))
        sock = await self.connect("/ws/notify/?lobby=1", cookie)
        await self.sleep_until(self.stop)
        await sock.close()
        return sock.lobby

    async def table(self, slot: Slot) -> None:
        """A table's life: its match played at a person's pace, then its rematch, until the run stops."""
        rng = random.Random(self.seed * 100_003 + slot.index)
        await self.sleep_until(self.start + rng.uniform(0, self.ramp))
        chat: asyncio.Task[None] | None = None
        failures = 0  # in a row: the pause before opening the match again doubles, as a browser's does
        while not self.stopping:
            socks: list[Sock] = []
            try:
                game, status, version, dumped, seats = await asyncio.to_thread(load_match, slot.match)
                players: dict[int, Sock] = {}
                notify: dict[int, Sock] = {}
                for user_id, cookie in slot.users:
                    seat = seats[user_id]
                    players[seat] = await self.connect(f"/ws/m/{slot.match}/", cookie, page=True)
                    socks.append(players[seat])
                    notify[seat] = await self.connect(f"/ws/notify/?here={slot.match}", cookie)
                    socks.append(notify[seat])
                spectators = []
                for _ in range(slot.spectators):
                    spectators.append(await self.connect(f"/ws/m/{slot.match}/", None, page=True))
                    socks.append(spectators[-1])
                pages = [sock.page for sock in [*players.values(), *spectators] if sock.page is not None]
                try:
                    await asyncio.wait_for(asyncio.gather(*pages), MOVE_TIMEOUT * 2)
                except TimeoutError:
                    self.stats["pages late"] += 1
                    raise
                self.stats["matches"] += 1
                self.opened.add(slot.index)
                if chat is None:
                    chat = asyncio.ensure_future(self.chat(slot, rng.uniform(0, self.chat_every)))
                slot_players[slot.index] = players
                failures = 0
                next_match = await self.play(slot, rng, game, status, version, dumped, players, notify, spectators)
                if next_match is not None:
                    slot.match = next_match
            except (Exception, asyncio.CancelledError) as error:  # a socket refused, closed, or a move unanswered
                if isinstance(error, asyncio.CancelledError) and asyncio.current_task().cancelling():  # type: ignore[union-attr]
                    raise
                self.stats["lost"] += 1
                self.lost.append(f"table {slot.index} match {slot.match}: {type(error).__name__} {error}"[:400])
                # Then the table opens its match again from the database, after a pause drawn up to a limit that
                # doubles with each failure in a row (full jitter, as the pages' WebSocket extension reconnects).
                failures += 1
                await self.sleep_until(min(time.perf_counter() + rng.uniform(0, min(64.0, 2.0**failures)), self.stop))
            finally:
                slot_players.pop(slot.index, None)
                for sock in socks:
                    await sock.close()
        if chat is not None:
            chat.cancel()
            with contextlib.suppress(BaseException):
                await chat

    async def play(self, slot: Slot, rng: random.Random, game: str, status: str, version: int, dumped: Any,
                   players: dict[int, Sock], notify: dict[int, Sock], spectators: list[Sock]) -> int | None:
        """Play the match to its end (or the run's), then ask for the rematch; its id, or None."""
        from games.catalog import kit
        from games.engines import get_engine

        engine = get_engine(game)
        bot = kit(game).bots["reference"]
        state = engine.load(dumped) if dumped is not None else None
        while status == "active" and state is not None and not engine.is_over(state):
            await self.pause(rng)
            if self.stopping:
                return None
            waiting = engine.must_act(state) or engine.to_act(state)
            seat = rng.choice(waiting)
            legal = engine.legal_actions(state, seat)
            try:
                action, _ = bot(engine.view(state, seat), legal, rng)
            except Exception:
                action = None
            if action is None:
                action = rng.choice(legal)
            after = engine.apply(state, seat, action)
            new = version + 1
            others = [sock for index, sock in players.items() if index != seat]
            waits: list[tuple[str, asyncio.Future[Any]]] = [("ack", players[seat].expect(("v", new)))]
            waits += [("opponent", sock.expect(("v", new))) for sock in others]
            waits += [("spectator", sock.expect(("v", new))) for sock in spectators]
            # The opponent's other pages hear that it has become their turn.
            turned = set(engine.must_act(after)) - set(engine.must_act(state)) - {seat}
            cues = [notify[index].expect("cue") for index in turned if index in notify]
            sent = time.perf_counter()
            await players[seat].ws.send(json.dumps({"action": action, "version": version}))
            if engine.is_over(after):
                self.endings.append(sent)
            try:
                arrived = await asyncio.wait_for(asyncio.gather(*(future for _, future in waits)), MOVE_TIMEOUT)
            except Refused:
                self.stats["refused"] += 1
                raise
            for (kind, _), moment in zip(waits, arrived, strict=True):
                self.record(kind, sent, moment)
            for cue in cues:  # not waited on: the next move does not depend on it
                cue.add_done_callback(functools.partial(self.cue_arrived, sent))
            self.stats["moves"] += self.measure_from <= sent <= self.stop
            state, version = after, new
        if self.stopping:
            return None
        # Over: both ask for the rematch, a person's pause apart; every page then goes to the new match.
        gotos = [sock.expect("goto") for sock in players.values()]
        for sock in players.values():
            await self.pause(rng)
            if self.stopping:
                return None
            await sock.ws.send(json.dumps({"op": "rematch"}))
        ids = await asyncio.wait_for(asyncio.gather(*gotos), MOVE_TIMEOUT)
        return int(ids[0])

    async def chat(self, slot: Slot, delay: float) -> None:
        """A line a minute from one of the table's players, timed to the other's page."""
        rng = random.Random(slot.index)
        await asyncio.sleep(delay)
        n = 0
        while not self.stopping:
            players = slot_players.get(slot.index)
            if players is not None and len(players) == 2:
                seat = rng.choice(list(players))
                other = players[1 - seat]
                n += 1
                token = f"club-chat-{slot.index}-{n}"
                future = other.expect(("chat", token))
                sent = time.perf_counter()
                with contextlib.suppress(Exception):
                    await players[seat].ws.send(json.dumps({"op": "chat", "text": f"nice one ({token})"}))
                    self.record("chat", sent, await asyncio.wait_for(future, MOVE_TIMEOUT))
            await asyncio.sleep(self.chat_every * rng.uniform(0.9, 1.1))


slot_players: dict[int, dict[int, Sock]] = {}  # each table's player sockets while its match is open


MATCH_IN_PATH = re.compile(r"/ws/m/(\d+)/|[?&]here=(\d+)")


def run_client(ports: list[int], slots: list[Slot], watchers: list[str], start: float, ramp: float, measure_from: float,
               stop: float, seed: int, pace: tuple[float, float], chat_every: float,
               lag_file: str | None = None) -> dict[str, Any]:
    import gc

    import django

    django.setup()
    # The client measures the server, not its own pauses: what it loaded is out of the collections, and they run
    # rarely (its sockets' messages are short-lived); its own loop's lag is measured and reported beside the server's.
    gc.collect()
    gc.freeze()
    gc.set_threshold(50_000, 50, 100)
    client = Client(ports, slots, watchers, start, ramp, measure_from, stop, seed, pace, chat_every)
    client.lag_file = lag_file
    return asyncio.run(client.run())


# ---------------------------------------------------------------------------------------------
# One measured run


FRAME = re.compile(r'File "([^"]+)", line (\d+), in (\S+)')


def where(stack: str, frames: int = 5) -> str:
    """A stall's stack in a line: its innermost frames first, as file:line function."""
    found = [f"{Path(path).name}:{line} {function}" for path, line, function in FRAME.findall(stack)]
    return " <- ".join(reversed(found[-frames:]))


def percentile(ordered: list[float], share: float) -> float:
    return ordered[min(len(ordered) - 1, int(len(ordered) * share))]


def rss_of(pid: int) -> tuple[int, int]:
    """The process's resident memory now and at its peak, bytes (Linux /proc)."""
    values = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, rest = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            values[key] = int(rest.split()[0]) * 1024
    return values.get("VmRSS", 0), values.get("VmHWM", 0)


@dataclass
class Result:
    n: int
    window: float
    latencies: dict[str, list[float]]
    server_cpu: float  # share of one core over the window
    rss: int
    rss_peak: int
    client_cpu: list[float]  # each client process's share of one core
    stats: dict[str, int]
    lost: list[str]
    watchers: int
    pace: tuple[float, float] = (1.0, 5.0)
    server_lag: dict[str, Any] | None = None  # the server's event loop over the window (games.core.lag)
    client_lag: list[dict[str, Any]] = field(default_factory=list)  # each client process's own
    server_cpus: list[float] = field(default_factory=list)  # each server process's share (--processes)
    other_lags: list[dict[str, Any] | None] = field(default_factory=list)  # the loops of servers 2..K

    def p(self, kind: str, share: float) -> float | None:
        values = sorted(self.latencies[kind])
        return percentile(values, share) if values else None

    def passes(self, criterion: str = "all") -> tuple[bool, str]:
        """p99 <= 50 ms for every kind of the criterion (the lobby's beyond its pause), and no table lost a move."""
        failing = []
        for kind in CRITERIA[criterion]:
            p99 = self.p(kind, 0.99)
            if p99 is None:  # none in a short window (no match ended, no line said): nothing to hold it to
                if kind in ("ack", "opponent"):
                    failing.append(f"no {kind} sample")
                continue
            limit = P99_LIMIT + (LOBBY_PAUSE if kind == "lobby" else 0)
            if p99 > limit:
                failing.append(f"{kind} p99 {p99 * 1000:.0f} ms")
        if self.stats["lost"]:
            failing.append(f"{self.stats['lost']} tables lost a move or a connection")
        return not failing, ", ".join(failing)

    def summary(self) -> dict[str, Any]:
        """The figures as JSON (--json): seconds, shares of a core, bytes."""
        kinds = {}
        for kind in KINDS:
            values = sorted(self.latencies[kind])
            kinds[kind] = {"samples": len(values), "p50": percentile(values, 0.5) if values else None,
                           "p99": percentile(values, 0.99) if values else None, "max": values[-1] if values else None}
        return {"n": self.n, "window": self.window, "kinds": kinds, "server_cpu": self.server_cpu, "rss": self.rss,
                "rss_peak": self.rss_peak, "client_cpu": self.client_cpu, "stats": self.stats, "lost": self.lost,
                "watchers": self.watchers, "passes": {name: self.passes(name)[0] for name in CRITERIA},
                "server_lag": self.server_lag, "client_lag": self.client_lag, "server_cpus": self.server_cpus,
                "other_lags": self.other_lags}

    def print(self) -> None:
        moves = self.stats["moves"]
        print(f"N={self.n}: {moves} moves in the {self.window:.0f} s window ({moves / self.window:.1f}/s; "
              f"a move every {sum(self.pace) / 2:g} s a match would be {self.n * 2 / sum(self.pace):.0f}/s), "
              f"{self.stats['sockets']} sockets opened ({self.watchers} lobby watchers), "
              f"{self.stats['messages']} messages received ({self.stats['bytes'] / 2**20:.0f} MiB) over the run, "
              f"{self.stats['matches']} matches opened, {self.stats['errors']} error fragments, "
              f"{self.stats['lost']} tables' sockets refused or moves unanswered (each opened again)")
        print(f"  tables opened {self.stats.get('tables opened', 0)} of {self.n} "
              f"({self.stats.get('tables never opened', 0)} never, {self.stats.get('tables cut off', 0)} cut off at "
              f"the end), {self.stats.get('handshakes refused', 0)} handshakes refused, "
              f"{self.stats.get('pages late', 0)} tables' pages not sent within {MOVE_TIMEOUT * 2:.0f} s")
        print(f"  {'kind':<10} {'samples':>8} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8}")
        for kind in KINDS:
            values = sorted(self.latencies[kind])
            if not values:
                print(f"  {kind:<10} {0:>8} {'-':>8} {'-':>8} {'-':>8}")
                continue
            print(f"  {kind:<10} {len(values):>8} {percentile(values, 0.5) * 1000:8.1f} "
                  f"{percentile(values, 0.99) * 1000:8.1f} {values[-1] * 1000:8.1f}")
        clients = " + ".join(f"{share:.1%}" for share in self.client_cpu)
        if len(self.server_cpus) > 1:
            print("  server processes' CPU: " + " + ".join(f"{share:.1%}" for share in self.server_cpus)
                  + " of a core; RSS summed below")
        print(f"  server CPU {self.server_cpu:.1%} of a core, RSS {self.rss / 2**20:.0f} MiB "
              f"(peak {self.rss_peak / 2**20:.0f} MiB); client CPU {clients} of a core")
        if self.server_lag:
            loop = self.server_lag
            print(f"  server loop lag: p50 {loop['p50_ms']} ms, p99 {loop['p99_ms']} ms, max {loop['max_ms']} ms; "
                  f"{loop['over_20ms']} ticks over 20 ms, {loop['over_50ms']} over 50 ms; in its stalls over 20 ms "
                  f"the loop's thread waited {loop.get('stall_waiting_ms', 0)} ms for a CPU")
            if "gc" in loop:
                print("  server collections: " + ", ".join(
                    f"generation {g}: {c['count']} ({c['ms']} ms, longest {c['max_ms']} ms)"
                    for g, c in loop["gc"].items()))
            for stall in loop["stalls"][:STALLS_SHOWN]:
                waiting = stall.get("waiting_ms", 0)
                print(f"    {stall['count']:>4} stalls, {stall['ms']:>7.1f} ms ({waiting:.1f} waiting for a CPU): "
                      f"{where(stall['stack'])}")
        for index, other in enumerate(self.other_lags, start=2):
            if other:
                print(f"  server {index} loop lag: p50 {other['p50_ms']} ms, p99 {other['p99_ms']} ms, max "
                      f"{other['max_ms']} ms; {other['over_20ms']} ticks over 20 ms, {other['over_50ms']} over 50 ms")
        for index, own in enumerate(self.client_lag):
            print(f"  client {index} loop lag: p50 {own['p50_ms']} ms, p99 {own['p99_ms']} ms, max {own['max_ms']} "
                  f"ms; {own['over_20ms']} ticks over 20 ms")
        if self.lost:
            print("  lost: " + "; ".join(self.lost))


def measure(club: Club, n: int, env: dict[str, str], *, warmup: float, window: float, clients: int, seed: int,
            pace: tuple[float, float] = (1.0, 5.0), chat_every: float = 60.0, lobby_share: float = 0.2,
            profile: str | None = None, processes: int = 1) -> Result:
    from django.db import connections

    slots, watchers = club.slots[:n], club.watchers[:watchers_of(n, lobby_share)]
    connections.close_all()  # the client processes are forked: none of them may share this one's connections
    for connection in connections.all():
        # Nor its pool (PostgreSQL): a forked copy has the pool's connections but not its worker threads, and its
        # threads' loads of the tables waited for a connection that never came (the clients gave up at N=1000).
        if getattr(connection, "_connection_pools", {}).get(connection.alias) is not None:
            connection.close_pool()
    ports = [free_port() for _ in range(processes)]
    lag_dir = Path(tempfile.mkdtemp(prefix="club-lag-"))
    lag_files = [lag_dir / f"server{k}.json" for k in range(processes)]
    servers = [start_daphne("config.asgi:application", port, {**env, "GAMES_LAG_MONITOR": str(lag_file)})
               for port, lag_file in zip(ports, lag_files, strict=True)]
    server = servers[0]  # the one --profile samples
    try:
        start = time.perf_counter() + 1.0
        measure_from, stop = start + warmup, start + warmup + window
        ramp = warmup / 2
        context = multiprocessing.get_context("fork")
        with context.Pool(clients) as pool:
            pending = [pool.apply_async(run_client, (ports, slots[i::clients], watchers[i::clients], start, ramp,
                                                     measure_from, stop, seed, pace, chat_every,
                                                     str(lag_dir / f"client{i}.json")))
                       for i in range(clients)]
            time.sleep(max(0.0, measure_from - time.perf_counter()))
            for lag_file in lag_files:  # each server's monitor counts the window only
                lag_file.with_name(lag_file.name + ".reset").touch()
            spy = start_profiler(server.pid, profile) if profile else None
            cpus = [server_cpu(one.pid) for one in servers]
            time.sleep(max(0.0, stop - time.perf_counter()))
            cpus = [server_cpu(one.pid) - before for one, before in zip(servers, cpus, strict=True)]
            memory = [rss_of(one.pid) for one in servers]
            rss, peak = sum(m[0] for m in memory), sum(m[1] for m in memory)
            time.sleep(lag.WRITE_SECONDS + 0.5)  # the monitors' summaries of the window, written since
            server_lags = [json.loads(f.read_text()) if f.exists() else None for f in lag_files]
            if spy is not None:
                spy.send_signal(2)
                spy.wait(timeout=120)
            outcomes = [job.get(timeout=MOVE_TIMEOUT * 4 + 60) for job in pending]
    finally:
        for one in servers:
            one.terminate()
        for one in servers:
            one.wait()
    latencies: dict[str, list[float]] = {kind: [] for kind in KINDS}
    stats: dict[str, int] = {}
    lost: list[str] = []
    endings: list[float] = []
    redraws: list[list[float]] = []
    for outcome in outcomes:
        for kind, values in outcome["samples"].items():
            latencies[kind] += values
        for key, value in outcome["stats"].items():
            stats[key] = stats.get(key, 0) + value
        lost += outcome["lost"]
        endings += outcome["endings"]
        redraws += outcome["lobby"]
        for index, match in outcome["matches"].items():
            club.slots[index].match = match
    # The lobby: each ending move in the window, until each watcher's first redraw after it.
    for sent in endings:
        if measure_from <= sent <= stop:
            for times in redraws:
                at = bisect.bisect_right(times, sent)
                if at < len(times):
                    latencies["lobby"].append(times[at] - sent)
    return Result(n, window, latencies, sum(cpus) / window, rss, peak,
                  [outcome["cpu"] / window for outcome in outcomes], stats, lost, len(watchers), pace,
                  server_lags[0], [outcome["lag"] for outcome in outcomes if outcome.get("lag")],
                  [cpu / window for cpu in cpus], server_lags[1:])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-n", "--matches", type=int, default=100,
                        help="matches (tables) in play; --find-max starts here")
    parser.add_argument("--warmup", type=float, default=None, help="seconds before measuring (default 15 + N/25)")
    parser.add_argument("--window", type=float, default=45.0, help="measuring window, seconds")
    parser.add_argument("--clients", type=int, default=1, help="client processes (asyncio, many sockets each)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--pace", type=float, nargs=2, default=(1.0, 5.0), metavar=("LOW", "HIGH"),
                        help="seconds between a match's moves, drawn in [LOW, HIGH] (a person's: 1 5)")
    parser.add_argument("--lobby-share", type=float, default=0.2, help="lobby watchers per match (N/5)")
    parser.add_argument("--chat-every", type=float, default=60.0, help="seconds between a table's chat lines")
    parser.add_argument("--find-max", action="store_true", help="the largest N with every p99 <= 50 ms")
    parser.add_argument("--criterion", choices=sorted(CRITERIA), default="all",
                        help="--find-max: p99 <= 50 ms for every kind (all: the lobby's beyond its 0.5 s pause) or "
                             "for those answering a person's own action (play: ack, opponent, spectator, chat)")
    parser.add_argument("--step-window", type=float, default=20.0, help="--find-max: each step's window")
    parser.add_argument("--max-minutes", type=float, default=15.0, help="--find-max: stop searching after this")
    parser.add_argument("--database-url", help="PostgreSQL server to use (its database cardclub_club, made anew)")
    parser.add_argument("--redis-url", help="Redis channel layer (e.g. redis://127.0.0.1:6379/5)")
    parser.add_argument("--profile", action="store_true", help="py-spy the server over the window")
    parser.add_argument("--json", help="also write each step's figures to this file (a JSON list)")
    parser.add_argument("--processes", type=int, default=1,
                        help="server processes (daphne), each match's sockets sent to one by its number as the "
                             "README's proxy does; more than one needs PostgreSQL and Redis")
    args = parser.parse_args()

    # Thousands of sockets: the soft limit on open files up to the hard one (the server inherits it).
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    if args.database_url:
        os.environ["DATABASE_URL"] = args.database_url
    if args.redis_url:
        os.environ["REDIS_URL"] = args.redis_url
    if args.processes > 1 and not (os.environ.get("DATABASE_URL") and os.environ.get("REDIS_URL")):
        parser.error("--processes above 1 needs PostgreSQL and Redis (--database-url, --redis-url)")
    if os.environ.get("DATABASE_URL"):
        os.environ["DATABASE_URL"] = bench_database(os.environ["DATABASE_URL"])
    # This run's own channel-layer keys, should Redis be shared with other runs or tests.
    os.environ.setdefault("CHANNELS_REDIS_PREFIX", f"club{os.getpid()}")

    with tempfile.TemporaryDirectory() as tmp:
        env = bench_env(f"sqlite:///{tmp}/club.sqlite3")
        import django

        django.setup()
        from django.core.management import call_command

        call_command("migrate", verbosity=0)
        database = env["DATABASE_URL"].split(":")[0]
        layer = "redis" if env.get("REDIS_URL") else "in-memory"
        club = Club()
        profile = os.environ.get("BENCH_PROFILE_OUT", f"{tmp}/profile.txt") if args.profile else None
        results: list[dict[str, Any]] = []

        def step(n: int, window: float) -> Result:
            began = time.perf_counter()
            grow_club(club, n, watchers_of(n, args.lobby_share), args.seed)
            built = time.perf_counter() - began
            warmup = args.warmup if args.warmup is not None else 15 + n / 25
            print(f"-- N={n}: database {database}, channel layer {layer}, club built/grown in {built:.0f} s, "
                  f"warm-up {warmup:.0f} s, window {window:.0f} s, {args.clients} client process(es), "
                  f"{args.processes} server process(es)", flush=True)
            result = measure(club, n, env, warmup=warmup, window=window, clients=args.clients, seed=args.seed,
                             pace=tuple(args.pace), chat_every=args.chat_every, lobby_share=args.lobby_share,
                             profile=profile, processes=args.processes)
            result.print()
            if args.json:
                results.append(result.summary())
                Path(args.json).write_text(json.dumps(results, indent=1))
            if profile:
                print_profile(profile)
            sys.stdout.flush()
            return result

        if not args.find_max:
            step(args.matches, args.window)
            return
        deadline = time.monotonic() + args.max_minutes * 60
        good, bad = 0, 0
        n = args.matches
        while time.monotonic() < deadline:
            ok, why = step(n, args.step_window).passes(args.criterion)
            print(f"   {'passes' if ok else 'fails: ' + why}", flush=True)
            if ok:
                good = n
            else:
                bad = n
            if not bad:
                n *= 2
            elif bad - good <= max(10, good // 10):
                break
            else:
                n = (good + bad) // 2 if good else max(1, bad // 2)
        if bad and bad - good <= max(10, good // 10):
            print(f"largest N with p99 <= 50 ms ({args.criterion}): {good} (fails at {bad})")
        else:
            print(f"largest N with p99 <= 50 ms ({args.criterion}): at least {good}"
                  + (f", fails at {bad}" if bad else "") + " (stopped at --max-minutes)")


if __name__ == "__main__":
    main()
