"""Run the post-match analysis worker (games.review.worker): any number may run, on any machine sharing the
database; each job is claimed by one of them, and a killed worker's job is taken again after its lease."""

from __future__ import annotations

import datetime as dt
import signal
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from games.analysis import Budget
from games.review.worker import Worker


def parse_budget(text: str) -> Budget | None:
    """ "default", or "CANDIDATES,SCREEN,SAMPLES" for every game (e.g. "3,2,4": seconds a match, noisy)."""
    if text == "default":
        return None
    try:
        candidates, screen, samples = (int(part) for part in text.split(","))
    except ValueError:
        raise CommandError('--budget is "default" or three whole numbers: CANDIDATES,SCREEN,SAMPLES') from None
    if candidates < 2 or screen < 0 or samples < 1:
        raise CommandError("--budget needs at least 2 candidates, 0 screening and 1 evaluation sample")
    return Budget(candidates=candidates, screen=screen, samples=samples)


class Command(BaseCommand):
    help = "Analyse finished matches from the queue of analysis jobs, forever (a worker beside the servers)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--once", action="store_true", help="run the claimable jobs, then exit")
        parser.add_argument("--budget", default="default",
                            help='play-outs per decision: "default" (each game\'s, bench/ANALYSIS.md) or '
                                 "CANDIDATES,SCREEN,SAMPLES for every game")
        parser.add_argument("--lease", type=float, default=120.0,
                            help="seconds a claimed job stays this worker's without news from it (default 120); "
                                 "a killed worker's job is taken again after that")
        parser.add_argument("--poll", type=float, default=1.0, help="seconds between looks at an empty queue")

    def say(self, text: str) -> None:
        self.stdout.write(text)
        self.stdout.flush()  # a log read as it happens (./dev run's terminal, a test reading the pipe)

    def handle(self, *args: Any, once: bool = False, budget: str = "default", lease: float = 120.0,
               poll: float = 1.0, **options: Any) -> None:
        if lease <= 0:
            raise CommandError("--lease must be positive")
        worker = Worker(lease=dt.timedelta(seconds=lease), budget=parse_budget(budget), say=self.say)

        def stop(signum: int, frame: Any) -> None:
            worker.stopping = True

        signal.signal(signal.SIGTERM, stop)
        signal.signal(signal.SIGINT, stop)
        if once:
            count = worker.drain()
            self.stdout.write(f"{count} job(s) run.")
            return
        self.say(f"Analysis worker {worker.token} started (Ctrl-C stops).")
        worker.forever(poll)
        self.stdout.write("Analysis worker stopped.")
