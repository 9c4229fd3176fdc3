"""Work queued in the database and taken under a lease (the analysis jobs, games.review.jobs; the mail,
games.notify.mail.worker): the claim, the worker's loop, and the management command that runs it.

A claim is one transaction: the first candidate row picked (on PostgreSQL with ``SELECT ... FOR UPDATE SKIP
LOCKED``, so workers never wait on each other's candidate; SQLite has no row locks, one writer at a time, and the
conditional UPDATE alone is the claim there), then a conditional UPDATE that takes it for the worker's token only
if it is still claimable; if another worker came first, the next candidate. Every later write of the worker names
its token, so a worker that lost its lease (killed, or paused past it) writes nothing afterwards.

Self-contained: Django only, nothing of the games.
"""

from __future__ import annotations

import datetime as dt
import os
import secrets
import signal
import socket
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from django.core.management.base import BaseCommand, CommandError
from django.db import close_old_connections, connection, transaction
from django.db.models import QuerySet
from django.utils import timezone

CLAIM_TRIES = 20  # another worker may take each candidate first: the next one is tried, this many times


def new_worker_token() -> str:
    """A worker's name in the rows it claims: where it runs, and a random part so that two never share one."""
    return f"{socket.gethostname()[:40]}:{os.getpid()}:{secrets.token_hex(4)}"


def claim_first(candidates: Callable[[dt.datetime], Iterable[QuerySet[Any]]], key: str,
                take: Callable[[Any, dt.datetime], int]) -> Any | None:
    """The key of what was claimed, or None when nothing is claimable. `candidates(now)`: the queries that pick a
    candidate, in order of preference, each ordered (the first with a row gives the candidate); `key`: the column
    the candidate is named by; `take(picked, now)`: the conditional UPDATE taking it, how many rows it took."""
    skip_locked = connection.features.has_select_for_update_skip_locked
    for _ in range(CLAIM_TRIES):
        now = timezone.now()
        with transaction.atomic():
            picked = None
            for query in candidates(now):
                if skip_locked:
                    query = query.select_for_update(skip_locked=True)
                picked = query.values_list(key, flat=True).first()
                if picked is not None:
                    break
            if picked is None:
                return None
            taken = take(picked, now)
        if taken:
            return picked
    return None


@dataclass
class LeaseWorker(ABC):
    """A worker's loop: claim and do one piece of work (run_one, the queue's own), until told to stop."""

    token: str = field(default_factory=new_worker_token)
    say: Callable[[str], None] = print
    stopping: bool = False

    @abstractmethod
    def run_one(self) -> bool:
        """Claim and do one piece of work; False when nothing was claimable."""

    def idle(self) -> None:
        """Nothing to do for now, or done: what the worker holds open between pieces of work is let go."""
        return None  # a worker that holds nothing open lets nothing go

    def drain(self) -> int:
        """Work until nothing is claimable; how many pieces were claimed."""
        count = 0
        try:
            while not self.stopping and self.run_one():
                count += 1
        finally:
            self.idle()
        return count

    def forever(self, poll: float = 1.0) -> None:
        try:
            while not self.stopping:
                close_old_connections()  # a long-lived process: a connection the database dropped is made again
                if not self.run_one():
                    self.idle()
                    time.sleep(poll)
        finally:
            self.idle()


class WorkerCommand(BaseCommand, ABC):
    """The shell of a worker's management command: --once, --lease, --poll; SIGTERM and Ctrl-C stop the worker
    between two steps of its work (it gives back what it holds), and it says when it starts and stops."""

    worker_name = "A"  # as its lines name it: "Mail worker ... started"
    default_lease = 60.0
    once_help = ""
    lease_help = ""

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--once", action="store_true", help=self.once_help)
        parser.add_argument("--lease", type=float, default=self.default_lease, help=self.lease_help)
        parser.add_argument("--poll", type=float, default=1.0, help="seconds between looks at an empty queue")

    def say(self, text: str) -> None:
        self.stdout.write(text)
        self.stdout.flush()  # a log read as it happens (./dev run's terminal, a test reading the pipe)

    @abstractmethod
    def worker(self, lease: dt.timedelta, **options: Any) -> LeaseWorker:
        """The command's worker, made from its options."""

    @abstractmethod
    def drained(self, worker: LeaseWorker, count: int) -> str:
        """What --once says at the end."""

    def stopped(self, worker: LeaseWorker) -> str:
        return f"{self.worker_name} worker stopped."

    def handle(self, *args: Any, once: bool = False, lease: float = 60.0, poll: float = 1.0, **options: Any) -> None:
        if lease <= 0:
            raise CommandError("--lease must be positive")
        worker = self.worker(dt.timedelta(seconds=lease), **options)

        def stop(signum: int, frame: Any) -> None:
            worker.stopping = True

        signal.signal(signal.SIGTERM, stop)
        signal.signal(signal.SIGINT, stop)
        if once:
            self.say(self.drained(worker, worker.drain()))
            return
        self.say(f"{self.worker_name} worker {worker.token} started (Ctrl-C stops).")
        worker.forever(poll)
        self.say(self.stopped(worker))
