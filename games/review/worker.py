"""The analysis worker (manage.py run_analysis): claims a job, analyses its match (games.analysis.analyse)
writing its progress to the row and to the replay pages, stores the result, and takes the next.

Killed at any moment (kill -9), it loses nothing: its job stays "running" under a lease that nobody renews, and
the next worker to look (this one restarted, or another) claims it once the lease ran out and analyses it
from the start; the killed worker can never store it afterwards (every write names its token). Told to stop
(SIGTERM, Ctrl-C) it gives its job back to the queue at once.
"""

from __future__ import annotations

import datetime as dt
import logging
import time
from dataclasses import dataclass
from typing import Any

from ..analysis import ANALYSIS_VERSION, DEFAULT_BUDGETS, AnalysisError, Budget, analyse
from ..core.leases import LeaseWorker
from ..models import Match, Move
from ..notify.mail import queue as mail
from . import display, jobs, news

log = logging.getLogger(__name__)

MAX_ATTEMPTS = 3  # a job whose worker died this many times (a match that kills it?) is given up
PROGRESS_SECONDS = 0.25  # the row and the pages hear of progress at most this often (and at the start and end)


class LeaseLost(Exception):
    """The job is no longer this worker's (its lease ran out and another worker took it)."""


class Stop(Exception):
    """The worker was told to stop in the middle of a job."""


@dataclass
class Worker(LeaseWorker):
    lease: dt.timedelta = jobs.DEFAULT_LEASE
    budget: Budget | None = None  # None: each game's default (bench/ANALYSIS.md)

    def budget_for(self, game: str) -> Budget:
        return self.budget or DEFAULT_BUDGETS[game]

    def run_one(self) -> bool:
        """Claim and run one job; False when there was none to claim."""
        job = jobs.claim(self.token, lease=self.lease)
        if job is None:
            return False
        try:
            self.run(job)
        except Exception as error:  # a bug must cost one job, not the worker (and every job after it)
            log.exception("analysis of match %s failed", job.match_id)
            self._fail(job, f"The analysis failed ({type(error).__name__}).")
        return True

    def run(self, job: jobs.Claimed) -> None:
        match = Match.objects.filter(pk=job.match_id).first()
        if match is None:  # deleted meanwhile: the job row went with it (cascade)
            return
        why = jobs.refusal(match)
        if why:  # never analysed before the end (a job is made only after it, but the worker checks again)
            self._fail(job, why)
            return
        if job.attempts > MAX_ATTEMPTS:
            self._fail(job, f"Gave up after {MAX_ATTEMPTS} attempts.")
            return
        actions = [(seat, action) for seat, action in
                   Move.objects.filter(match_id=match.pk).order_by("number").values_list("seat", "action")]
        self.say(f"Analysing match {match.pk} ({match.game}, {len(actions)} moves, attempt {job.attempts}).")
        last = 0.0

        def progress(done: int, total: int) -> None:
            nonlocal last
            if self.stopping:
                raise Stop
            now = time.monotonic()
            if done in (0, total) or now - last >= PROGRESS_SECONDS:
                last = now
                if not jobs.progress(job, done, total, lease=self.lease):
                    raise LeaseLost
                news.publish(match.pk)

        started = time.monotonic()
        try:
            result = analyse(match.game, match.players, match.seed, match.options or None, actions,
                             budget=self.budget_for(match.game), analysis_seed=match.seed, progress=progress)
        except Stop:
            jobs.release(job)
            news.publish(match.pk)
            self.say(f"Stopped: match {match.pk} is back in the queue.")
            return
        except LeaseLost:
            self.say(f"Match {match.pk}: the job was taken over by another worker; dropped.")
            return
        except (AnalysisError, ValueError) as error:
            self._fail(job, str(error))
            return
        data: dict[str, Any] = result.to_json(candidates=False)
        display.word_marks(match.game, match.players, match.seed, match.options, actions, data["decisions"])
        accuracy = [s.accuracy if s.accuracy is None else round(s.accuracy, 1) for s in result.seats]
        if jobs.complete(job, data, accuracy, version=ANALYSIS_VERSION):
            news.publish(match.pk)
            try:
                mail.analysis_ready(match.pk)  # for those who asked for it, by email
            except Exception:  # the analysis is stored: a notice lost must not fail it
                log.exception("could not queue the analysis notices of match %s", match.pk)
            self.say(f"Analysed match {match.pk}: {len(result.decisions)} decisions in "
                     f"{time.monotonic() - started:.1f} s.")
        else:
            self.say(f"Match {match.pk}: the job was taken over by another worker; result dropped.")

    def _fail(self, job: jobs.Claimed, why: str) -> None:
        if jobs.fail(job, why):
            news.publish(job.match_id)
        self.say(f"Match {job.match_id} can't be analysed: {why}")
