"""Run the mail worker (games.notify.mail.worker): any number may run, on any machine sharing the database; each
person's notices are claimed by one of them, and a killed worker's are taken again after its lease."""

from __future__ import annotations

import datetime as dt
import signal
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from games.notify.mail.worker import Worker


class Command(BaseCommand):
    help = "Send the queued email notifications, forever (a worker beside the servers)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--once", action="store_true", help="send what is due, then exit")
        parser.add_argument("--lease", type=float, default=60.0,
                            help="seconds claimed notices stay this worker's (default 60); a killed worker's are "
                                 "taken again after that")
        parser.add_argument("--poll", type=float, default=1.0, help="seconds between looks at an empty queue")

    def say(self, text: str) -> None:
        self.stdout.write(text)
        self.stdout.flush()  # a log read as it happens (./dev run's terminal, a test reading the pipe)

    def handle(self, *args: Any, once: bool = False, lease: float = 60.0, poll: float = 1.0, **options: Any) -> None:
        if lease <= 0:
            raise CommandError("--lease must be positive")
        worker = Worker(lease=dt.timedelta(seconds=lease), say=self.say)

        def stop(signum: int, frame: Any) -> None:
            worker.stopping = True

        signal.signal(signal.SIGTERM, stop)
        signal.signal(signal.SIGINT, stop)
        if once:
            count = worker.drain()
            self.say(f"{count} person(s) claimed, {worker.sent} mail(s) sent.")
            return
        self.say(f"Mail worker {worker.token} started (Ctrl-C stops).")
        worker.forever(poll)
        self.say(f"Mail worker stopped ({worker.sent} mail(s) sent).")
