#!/usr/bin/env python3
"""An arena of many players, simulated through the services (no browser, no socket): does everyone who is free
get a table within a second?

PLAYERS people join an arena of GAME; THREADS threads play its matches as bots would (each move chosen by the
game's bot LEVEL from the mover's own view, written through games.play.sync.run_change, the road every change of
a match takes), so tables end all the time and the freed players are paired by the services as on the site (the
match's ending transaction counts it; after its commit the arena pairs whoever is free; every second a runner
settles the arena as each server process does). When the time is up the matches in progress finish, then the
arena ends.

It prints, from the database afterwards: how many matches were played, each player's waits from becoming free
(joining, or their match ending) to their next table, and the longest time two players who could sit together
(not each other's last opponents) were both free at once: the pairing's latency when a partner is there.

    .venv/bin/python bench/tournament.py                          # 200 players, a 3-minute Gomori arena, SQLite
    .venv/bin/python bench/tournament.py --players 60 --seconds 40   # a quick look
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/cardclub .venv/bin/python bench/tournament.py
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from itertools import pairwise
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def database(tmp: str) -> str:
    from bench.pages import reset_database

    configured = os.environ.get("DATABASE_URL", "")
    if configured.startswith(("postgres://", "postgresql://")):
        url = urlunsplit(urlsplit(configured)._replace(path="/cardclub_bench_tournament"))
        reset_database(url)
        return url
    return f"sqlite:///{tmp}/tournament.sqlite3"


def setup(url: str) -> None:
    os.environ["DATABASE_URL"] = url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ.setdefault("DJANGO_DEBUG", "true")
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)


# ---------------------------------------------------------------------------------------------------------------
# Playing


def bot_move(match_id: int, level: str) -> bool:
    """The seat the game waits on plays its bot's choice (from its own view); False when there is nothing to do."""
    from games.catalog import kit
    from games.play import decide
    from games.play.snapshot import Status, engine_of, must_act_of, state_of
    from games.play.store import load
    from games.play.sync import run_change

    snap = load(match_id)
    if snap is None or snap.status != Status.ACTIVE:
        return False
    state = state_of(snap)
    waiting = sorted(must_act_of(snap, state))
    if not waiting:
        return False
    seat = waiting[0]
    engine = engine_of(snap)
    legal = engine.legal_actions(state, seat)
    rng = random.Random(f"{snap.seed}:{snap.move_count}:{seat}")
    action, _ = kit(snap.game).bots[level](engine.view(state, seat), legal, rng)
    run_change(match_id, decide.decide_move, seat=seat, action=action, user_id=snap.seats[seat].user_id,
               expected_version=snap.version)
    return True


class Players:
    """THREADS threads, each moving the arena's matches in progress (a shared list, refreshed as tables come)."""

    def __init__(self, tournament_id: int, threads: int, level: str) -> None:
        self.tournament_id, self.level = tournament_id, level
        self.stop = threading.Event()
        self.moves = 0
        self.lock = threading.Lock()
        self.threads = [threading.Thread(target=self.run, args=(n,), daemon=True) for n in range(threads)]
        self.runner = threading.Thread(target=self.tick, daemon=True)

    def start(self) -> None:
        for thread in [*self.threads, self.runner]:
            thread.start()

    def active(self) -> list[int]:
        from games.models import Match

        return list(Match.objects.filter(tournament_game__tournament_id=self.tournament_id,
                                         status=Match.Status.ACTIVE).values_list("pk", flat=True))

    def run(self, number: int) -> None:
        from django.db import connection

        rng = random.Random(number)
        try:
            while not self.stop.is_set():
                matches = [m for m in self.active() if m % len(self.threads) == number]
                if not matches:
                    time.sleep(0.05)
                    continue
                rng.shuffle(matches)
                for match_id in matches:
                    try:
                        if bot_move(match_id, self.level):
                            with self.lock:
                                self.moves += 1
                    except Exception as error:  # a fence lost to another writer: the next turn decides again
                        print(f"move in match {match_id}: {error!r}", file=sys.stderr)
        finally:
            connection.close()

    def tick(self) -> None:
        """Every process's runner: start what is due, settle the arena (pairs, ends it)."""
        from django.db import connection

        from games.tournaments import services

        try:
            while not self.stop.is_set():
                services.tick()
                time.sleep(1.0)
        finally:
            connection.close()

    def join(self) -> None:
        self.stop.set()
        for thread in [*self.threads, self.runner]:
            thread.join(timeout=30)


# ---------------------------------------------------------------------------------------------------------------
# Measuring, from the database afterwards


@dataclass
class Free:
    """One stretch of a player being free: from `since` until `until` (their next table, or None)."""

    user: int
    since: datetime
    until: datetime | None
    last: frozenset[int]  # who they had just played


def free_stretches(tournament_id: int) -> list[Free]:
    from games.models import Entrant, Seat, TournamentGame

    games = {g.match_id: g for g in TournamentGame.objects.filter(tournament_id=tournament_id).select_related("match")}
    tables: dict[int, list[int]] = {}
    for match_id, user_id in Seat.objects.filter(match_id__in=games).values_list("match_id", "user_id"):
        tables.setdefault(match_id, []).append(user_id)
    by_user: dict[int, list[int]] = {}
    for match_id, users in tables.items():
        for user_id in users:
            by_user.setdefault(user_id, []).append(match_id)
    stretches = []
    for entrant in Entrant.objects.filter(tournament_id=tournament_id).select_related("tournament"):
        start = max(entrant.joined_at, entrant.tournament.started_at or entrant.joined_at)
        since: datetime | None = start
        last = frozenset[int]()
        for match_id in sorted(by_user.get(entrant.user_id, []), key=lambda m: games[m].created_at):
            assert since is not None
            stretches.append(Free(entrant.user_id, since, games[match_id].created_at, last))
            since = games[match_id].match.finished_at  # None: still playing when the run stopped
            if since is None:
                break
            last = frozenset(u for u in tables[match_id] if u != entrant.user_id)
        if since is not None:
            stretches.append(Free(entrant.user_id, since, None, last))
    return stretches


def double_seated(tournament_id: int) -> int:
    """How many times a player sat at two of the tournament's matches at once (must be 0)."""
    from games.models import Seat, TournamentGame

    spans: dict[int, list[tuple[datetime, datetime]]] = {}
    games = {g.match_id: g for g in TournamentGame.objects.filter(tournament_id=tournament_id).select_related("match")}
    for match_id, user_id in Seat.objects.filter(match_id__in=games).values_list("match_id", "user_id"):
        game = games[match_id]
        spans.setdefault(user_id, []).append((game.created_at, game.match.finished_at or datetime.max.replace(
            tzinfo=game.created_at.tzinfo)))
    clashes = 0
    for intervals in spans.values():
        intervals.sort()
        clashes += sum(1 for (_, end), (start, _) in pairwise(intervals) if start < end)
    return clashes


def both_free_longest(stretches: list[Free], end: datetime) -> tuple[float, tuple[Any, ...]]:
    """The longest time two players who may sit together (arena rule: not just-played opponents, or both waited
    REMATCH_AFTER) were free at once, before the arena's end: what a partner-in-sight waited for a table."""
    from games.tournaments.arena import REMATCH_AFTER

    spans = sorted(((s.since, s.until or end, s) for s in stretches if s.since < end), key=lambda x: x[0])
    worst = 0.0
    example: tuple[Any, ...] = ()
    for i, (a_since, a_until, a) in enumerate(spans):
        for b_since, b_until, b in spans[i + 1:]:
            if b_since >= a_until:
                break
            if a.user == b.user:
                continue
            start, stop = max(a_since, b_since), min(a_until, b_until, end)
            if a.user in b.last or b.user in a.last:  # they may sit together again only after both waited
                start = max(start, a_since + timedelta(seconds=REMATCH_AFTER),
                            b_since + timedelta(seconds=REMATCH_AFTER))
            overlap = (stop - start).total_seconds()
            if overlap > worst:
                worst, example = overlap, (a.user, b.user, start, stop)
    return worst, example


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--seconds", type=int, default=180, help="the arena's length (default 3 minutes)")
    parser.add_argument("--game", default="gomori")
    parser.add_argument("--level", default="random", help="the bot level that plays every seat")
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        setup(database(tmp))
        result = run(args)
    report(result)
    if args.json:
        figures = {k: v for k, v in result.items() if k not in ("waits", "example")}
        figures.update(waits=len(result["waits"]), wait_max=max(result["waits"], default=0.0))
        Path(args.json).write_text(json.dumps(figures))


def run(args: argparse.Namespace) -> dict[str, Any]:
    from django.db import connection
    from django.db.models import F
    from django.utils import timezone

    from accounts.models import User
    from games.models import Entrant, Match, Tournament
    from games.tournaments import services

    staff = User.objects.create_user("staff", password=None, is_staff=True)
    minutes = max(services.ARENA_MINUTES[0], -(-args.seconds // 60))
    tournament = services.create_tournament(creator=staff, kind="arena", game=args.game, clock_key="5+3",
                                            minutes=minutes, starts_at=timezone.now() + timedelta(minutes=5))
    people = User.objects.bulk_create(User(username=f"p{n:04d}", display_name=f"P{n:04d}")
                                      for n in range(args.players))
    for user in people:
        services.join(tournament_id=tournament.pk, user=user)
    # The arena lasts `seconds`: it started (minutes*60 - seconds) ago, as far as its clock is concerned.
    started = timezone.now() - timedelta(seconds=minutes * 60 - args.seconds)
    Tournament.objects.filter(pk=tournament.pk).update(starts_at=started)
    began = time.perf_counter()
    services.start(tournament.pk, now=started)
    players = Players(tournament.pk, args.threads, args.level)
    players.start()
    try:
        while Tournament.objects.get(pk=tournament.pk).status == Tournament.Status.RUNNING:
            time.sleep(1.0)
            if time.perf_counter() - began > args.seconds + 600:
                raise SystemExit("the arena did not end within 10 minutes of its time")
    finally:
        players.join()
    elapsed = time.perf_counter() - began
    tournament.refresh_from_db()
    end = services.ends_at(tournament)
    assert end is not None
    stretches = free_stretches(tournament.pk)
    waits = [(s.until - s.since).total_seconds() for s in stretches if s.until is not None]
    worst, example = both_free_longest(stretches, end)
    matches = Match.objects.filter(tournament_game__tournament=tournament)
    # No place (no result) last: SQLite and PostgreSQL disagree on where NULL sorts.
    rows = list(Entrant.objects.filter(tournament=tournament).order_by(F("place").asc(nulls_last=True), "pk"))
    connection.close()
    return {
        "players": args.players, "seconds": args.seconds, "game": args.game, "threads": args.threads,
        "vendor": connection.vendor, "elapsed": elapsed, "moves": players.moves,
        "matches": matches.count(), "finished": matches.filter(status=Match.Status.FINISHED).count(),
        "aborted": matches.filter(status=Match.Status.ABORTED).count(),
        "waits": waits, "worst": worst, "example": example,
        "unpaired": sum(1 for s in stretches if s.until is None and s.since < end),
        "double_seated": double_seated(tournament.pk),
        "podium": [(e.place, e.user.username, e.score) for e in rows[:3]],
        "never_played": sum(1 for e in rows if not e.sheet),
    }


def report(r: dict[str, Any]) -> None:
    waits = r["waits"]
    print(f"arena: {r['players']} players, {r['seconds']} s of {r['game']}, {r['threads']} threads, {r['vendor']}")
    print(f"  {r['matches']} matches ({r['finished']} finished, {r['aborted']} aborted), {r['moves']} moves, "
          f"{r['elapsed']:.0f} s in all (the arena's end waits for its last matches)")
    print(f"  waits from free to the next table: {len(waits)}; median {statistics.median(waits):.3f} s, "
          f"p99 {percentile(waits, 0.99):.3f} s, max {max(waits):.3f} s")
    print(f"  the longest two who could sit together were both free: {r['worst']:.3f} s "
          f"({'within a second' if r['worst'] <= 1.0 else 'OVER A SECOND'}) {r['example'][:2]}")
    print(f"  free at the end, unpaired: {r['unpaired']}; never played: {r['never_played']}; "
          f"seated at two matches at once: {r['double_seated']}")
    print(f"  podium: {r['podium']}")


if __name__ == "__main__":
    main()
