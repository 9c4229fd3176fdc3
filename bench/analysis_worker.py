#!/usr/bin/env python3
"""The analysis through the site, end to end: Shark-against-Shark matches recorded as rated matches (queued for
analysis as they finish, as a live match is), then analysed by the worker (games.review.worker: claim, progress
written to the row, analysis, the marks' words, the result stored). Prints, per game, the seconds per match the
worker took, and what the finishing transaction pays for queueing (one INSERT).

    heavy .venv/bin/python bench/analysis_worker.py [--games gomori,ruhd,rummy,columbo] [--matches 1]
                                                    [--budget C,S,N] [--db /tmp/cardclub-bench-analysis.sqlite3]

Runs on a fresh SQLite database of its own (deleted first), never the site's.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", default="gomori,ruhd,rummy,columbo")
    parser.add_argument("--matches", type=int, default=1)
    parser.add_argument("--first-seed", type=int, default=100)
    parser.add_argument("--budget", default="default")
    parser.add_argument("--db", default="/tmp/cardclub-bench-analysis.sqlite3")
    args = parser.parse_args()

    for suffix in ("", "-wal", "-shm"):
        Path(args.db + suffix).unlink(missing_ok=True)
    os.environ["DATABASE_URL"] = f"sqlite:///{args.db}"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import transaction
    from django.utils import timezone

    call_command("migrate", verbosity=0)
    from accounts.models import User
    from games.analysis.selfplay import bots_of, play_match
    from games.engines import get_engine
    from games.management.commands.run_analysis import parse_budget
    from games.models import AnalysisJob, Match
    from games.play.create import Imported, store_imported
    from games.results import Termination
    from games.review import jobs
    from games.review.worker import Worker

    person = User.objects.create_user("bench-person", password=None)
    budget = parse_budget(args.budget)
    worker = Worker(token="bench", budget=budget, say=lambda _: None)
    print(f"budget: {args.budget}")
    for game in args.games.split(","):
        engine = get_engine(game)
        shark = list(bots_of(game).values())[-1]
        bot = User.objects.filter(is_bot=True, username__startswith=f"bot-{game}-").order_by("-username").first()
        options = {"rounds": 4} if game == "columbo" else {}
        seconds, decisions = [], []
        for i in range(args.matches):
            seed = args.first_seed + i
            actions, final = play_match(game, [shark, shark], seed, options=options or None)
            match = store_imported(Imported(
                game=game, players=2, seed=seed, options=options, state=engine.dump(final), actions=actions,
                users=[person, bot], is_public=True, rated=True, creator=person, started_at=timezone.now(),
                outcome=engine.result(final), loser=None, reason=Termination.NORMAL))
            assert AnalysisJob.objects.filter(match=match, state=AnalysisJob.State.QUEUED).exists()
            started = time.perf_counter()
            assert worker.drain() == 1
            seconds.append(time.perf_counter() - started)
            job = AnalysisJob.objects.get(match=match)
            decisions.append(job.total)
            print(f"{game} seed {seed}: {len(actions)} actions, {job.total} decisions, {seconds[-1]:.1f} s, "
                  f"accuracy {job.accuracy}, {sum(1 for d in job.result['decisions'] if d['mark'])} marks")
        print(f"== {game}: {statistics.mean(seconds):.1f} s per match (mean of {len(seconds)}), "
              f"{sum(seconds) / max(1, sum(decisions)):.2f} s per decision")

    # What queueing costs the transaction that finishes a match: one INSERT (rolled back here).
    match = Match.objects.filter(status=Match.Status.FINISHED).first()
    assert match is not None
    AnalysisJob.objects.all().delete()
    times = []
    for _ in range(200):
        with transaction.atomic():
            started = time.perf_counter()
            jobs.enqueue_finished(match.pk, rated=True, players=2, people=1)
            times.append(time.perf_counter() - started)
            transaction.set_rollback(True)
    times.sort()
    print(f"queueing at the finish: p50 {1000 * times[100]:.3f} ms, p99 {1000 * times[197]:.3f} ms (200 runs)")


if __name__ == "__main__":
    main()
