#!/usr/bin/env python3
"""Notifications by email: the mail worker's throughput, and what a correspondence move adds to a move's road.

On a fresh SQLite database (or DATABASE_URL), with a real SMTP server in this process (aiosmtpd, a sink that
accepts everything):

1. throughput: N notices queued (one person each, or --per-person P gathered into one mail), then W workers
   (threads in this process, each the worker of manage.py run_mail: claim a person, word, send over SMTP, mark)
   drain the queue; notices/s and mails/s.
2. the move road: moves through games.play.sync.run_change (the road of views and commands; the sockets' group
   commit calls the same subscriber after its commit) alternating between a correspondence match of two people
   who asked for turn emails and the same game without the days clock; the time of each move, and the time of
   the after-commit subscriber alone (games.notify.mail.queue.on_committed) for each kind of change.

    .venv/bin/python bench/mail.py [--notices 2000] [--per-person 1] [--workers 1] [--moves 400]
"""

from __future__ import annotations

import argparse
import logging
import os
import socket
import statistics
import sys
import tempfile
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DAYS = {"kind": "days", "days": 3, "seconds": 3 * 86400}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def setup(database: str) -> None:
    os.environ.setdefault("DATABASE_URL", database)
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
    os.environ.setdefault("DJANGO_DEBUG", "false")
    os.environ.setdefault("DJANGO_SECRET_KEY", "bench-" + "x" * 50)
    os.environ["DJANGO_LOG_LEVEL"] = "WARNING"
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


class Sink:
    def __init__(self) -> None:
        self.count = 0

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.count += 1
        return "250 OK"


def person(name: str, kinds: list[str]) -> Any:
    from accounts.models import User

    email = f"{name}@example.org"
    return User.objects.create(username=name, email=email, email_verified=email, mail_kinds=kinds)


def throughput(notices: int, per_person: int, workers: int, port: int, sink: Sink) -> dict[str, float]:
    from django.conf import settings
    from django.db import connection
    from django.utils import timezone

    from games.models import Challenge, Notice
    from games.notify.mail import queue
    from games.notify.mail.worker import Worker

    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT, settings.EMAIL_USE_TLS = "127.0.0.1", port, False
    stamp = int(time.time())
    challenger = person(f"c{stamp}", [])
    now = timezone.now()
    people = [person(f"t{stamp}-{n}", ["challenge"]) for n in range(notices // per_person)]
    for who in people:
        for _ in range(per_person):
            made = Challenge.objects.create(challenger=challenger, challenged=who, game="gomori", clock={},
                                            created_at=now, expires_at=now + timezone.timedelta(hours=1))
            queue.notify([who.pk], "challenge", f"challenge:{made.pk}", challenge_id=made.pk)
    queued = Notice.objects.filter(status=Notice.Status.QUEUED).count()
    before = sink.count
    sent: list[int] = []

    def run() -> None:
        worker = Worker(say=lambda text: None)
        worker.drain()
        sent.append(worker.sent)
        connection.close()

    started = time.perf_counter()
    threads = [threading.Thread(target=run) for _ in range(workers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    seconds = time.perf_counter() - started
    mails = sink.count - before
    assert mails == sum(sent) == len(people), (mails, sent, len(people))
    assert Notice.objects.filter(status=Notice.Status.SENT).count() >= queued
    return {"notices": queued, "mails": mails, "seconds": seconds, "notices_s": queued / seconds,
            "mails_s": mails / seconds}


def move_road(moves: int) -> dict[str, Any]:
    from games.models import Match
    from games.notify.mail import queue
    from games.play import decide, seating
    from games.play.create import SeatSpec, create_match
    from games.play.snapshot import Player, engine_of, must_act_of, state_of
    from games.play.store import load
    from games.play.sync import run_change

    serial = iter(range(10**9))
    stamp = int(time.time())

    def new_match(correspondence: bool) -> int:
        a, b = (person(f"m{stamp}-{next(serial)}", ["turn"]) for _ in range(2))
        match = create_match(creator=a, game="gomori", players=2, seats=[SeatSpec("open")], seed=next(serial))
        run_change(match.pk, seating.decide_join, player=Player.of(b), invite_code=match.invite_code,
                   seat_index=None)
        if correspondence:  # set on the row: the days clock's own creation is another branch's
            Match.objects.filter(pk=match.pk).update(clock=DAYS, clock_left=[DAYS["seconds"]] * 2)
        return match.pk

    def one_move(match_id: int) -> float | None:
        snap = load(match_id)
        assert snap is not None
        if snap.status != "active":
            return None
        state = state_of(snap)
        seat = sorted(must_act_of(snap, state))[0]
        action = engine_of(snap).legal_actions(state, seat)[0]
        started = time.perf_counter()
        run_change(match_id, decide.decide_move, seat=seat, action=action, user_id=snap.seats[seat].user_id)
        return time.perf_counter() - started

    timings: dict[str, list[float]] = {"correspondence": [], "real-time": []}
    current = {"correspondence": new_match(True), "real-time": new_match(False)}
    while min(len(t) for t in timings.values()) < moves:
        for kind in timings:  # alternating, so that the machine's moods fall on both alike
            took = one_move(current[kind])
            if took is None:
                current[kind] = new_match(kind == "correspondence")
                continue
            timings[kind].append(took)

    # The subscriber alone, on a change of each kind (the correspondence one inserts a notice: a new key each
    # time, as a new turn would be).
    def a_change(correspondence: bool) -> Any:
        match_id = new_match(correspondence)
        snap = load(match_id)
        assert snap is not None
        state = state_of(snap)
        seat = sorted(must_act_of(snap, state))[0]
        action = engine_of(snap).legal_actions(state, seat)[0]
        return decide.decide_move(snap, state, seat=seat, action=action, user_id=snap.seats[seat].user_id)

    subscriber: dict[str, float] = {}
    for kind, correspondence in (("real-time", False), ("correspondence", True)):
        change = a_change(correspondence)
        change.written = True
        rounds = 100000 if not correspondence else 300
        started = time.perf_counter()
        for number in range(rounds):
            if correspondence:  # a new turn each time (a new key), as a real one would be
                change.after = replace(change.after, version=10**6 + number)
            queue.on_committed([change])
        subscriber[kind] = (time.perf_counter() - started) / rounds
    return {"timings": timings, "subscriber": subscriber}


def summary(values: list[float]) -> str:
    ordered = sorted(values)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return f"p50 {statistics.median(ordered) * 1000:.2f} ms, mean {statistics.fmean(ordered) * 1000:.2f} ms, " \
           f"p99 {p99 * 1000:.2f} ms (n={len(ordered)})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--notices", type=int, default=2000)
    parser.add_argument("--per-person", type=int, default=1, help="notices a person gets (gathered into one mail)")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--moves", type=int, default=400, help="moves of each kind on the move road")
    parser.add_argument("--skip-throughput", action="store_true")
    parser.add_argument("--skip-moves", action="store_true")
    args = parser.parse_args()

    folder = tempfile.mkdtemp(prefix="mailbench-")
    setup(f"sqlite:///{folder}/bench.sqlite3")
    from aiosmtpd.controller import Controller

    logging.getLogger("mail.log").setLevel(logging.WARNING)  # aiosmtpd's every command, otherwise
    sink = Sink()
    port = free_port()
    controller = Controller(sink, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        print(f"database: {os.environ['DATABASE_URL'].split('@')[-1]}")
        if not args.skip_throughput:
            found = throughput(args.notices, args.per_person, args.workers, port, sink)
            print(f"worker throughput ({args.workers} worker(s), {args.per_person} notice(s) a person): "
                  f"{found['notices']} notices in {found['mails']} mails, {found['seconds']:.2f} s: "
                  f"{found['notices_s']:.0f} notices/s, {found['mails_s']:.0f} mails/s")
        if not args.skip_moves:
            road = move_road(args.moves)
            corr, real = road["timings"]["correspondence"], road["timings"]["real-time"]
            print(f"move road, correspondence: {summary(corr)}")
            print(f"move road, real-time:      {summary(real)}")
            ratio = statistics.median(corr) / statistics.median(real)
            print(f"ratio of medians (correspondence / real-time): {ratio:.2f}")
            sub = road["subscriber"]
            print(f"after-commit subscriber alone: real-time change {sub['real-time'] * 1e9:.0f} ns, "
                  f"correspondence change {sub['correspondence'] * 1000:.2f} ms")
    finally:
        controller.stop()


if __name__ == "__main__":
    main()
