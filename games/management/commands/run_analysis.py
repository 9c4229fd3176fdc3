"""Run the post-match analysis worker (games.review.worker): any number may run, on any machine sharing the
database; each job is claimed by one of them, and a killed worker's job is taken again after its lease."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.core.management.base import CommandError

from games.analysis import Budget
from games.core.leases import LeaseWorker, WorkerCommand
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


class Command(WorkerCommand):
    help = "Analyse finished matches from the queue of analysis jobs, forever (a worker beside the servers)."
    worker_name = "Analysis"
    once_help = "run the claimable jobs, then exit"
    default_lease = 120.0
    lease_help = ("seconds a claimed job stays this worker's without news from it (default 120); a killed worker's "
                  "job is taken again after that")

    def add_arguments(self, parser: Any) -> None:
        super().add_arguments(parser)
        parser.add_argument("--budget", default="default",
                            help='play-outs per decision: "default" (each game\'s, bench/ANALYSIS.md) or '
                                 "CANDIDATES,SCREEN,SAMPLES for every game")

    def worker(self, lease: dt.timedelta, *, budget: str = "default", **options: Any) -> Worker:
        return Worker(lease=lease, budget=parse_budget(budget), say=self.say)

    def drained(self, worker: LeaseWorker, count: int) -> str:
        return f"{count} job(s) run."
