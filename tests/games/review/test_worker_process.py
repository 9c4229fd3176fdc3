"""`manage.py run_analysis` as a real process: killed with SIGKILL in the middle of a job, restarted, and the job
is finished exactly once (the killed worker's claim is taken again after its lease; nothing is stored twice)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from review_helpers import finished_match
from servers import BASE_DIR, database_url

from games.models import AnalysisJob

State = AnalysisJob.State
BUDGET = "3,2,4"  # a few seconds for a Gomori match: long enough to be caught in the middle
LEASE = "1.5"


def worker(log: Path, *args: str) -> subprocess.Popen[bytes]:
    from django.db import connection

    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", "PYTHONUNBUFFERED": "1",
           "DATABASE_URL": database_url(connection.settings_dict)}
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    with log.open("ab") as output:
        return subprocess.Popen(
            [sys.executable, "manage.py", "run_analysis", "--budget", BUDGET, "--lease", LEASE, *args],
            cwd=BASE_DIR, env=env, stdout=output, stderr=subprocess.STDOUT,
        )


def wait_for(check: Any, timeout: float, what: str, log: Path) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"{what} did not happen in {timeout} s; the worker said:\n{log.read_text()[-3000:]}")


@pytest.mark.django_db(transaction=True)
def test_a_worker_killed_mid_job_leaves_it_to_the_next_which_finishes_it_once(
        alice: Any, bob: Any, tmp_path: Path) -> None:
    match = finished_match([alice, bob], rated=True)
    job = AnalysisJob.objects.get(match=match)
    assert job.state == State.QUEUED
    log = tmp_path / "worker.log"

    first = worker(log)
    try:
        row = wait_for(lambda: AnalysisJob.objects.filter(pk=job.pk, state=State.RUNNING, done__gt=0).first(),
                       60, "progress from the first worker", log)
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=10)
    finally:
        if first.poll() is None:
            first.kill()
    killed = AnalysisJob.objects.get(pk=job.pk)
    assert killed.state == State.RUNNING and 0 < killed.done < killed.total, (killed.done, killed.total)
    assert killed.result is None and killed.attempts == 1 and killed.worker == row.worker

    # The restarted worker finds the job still leased to the dead one; once the lease ran out it takes it.
    assert killed.lease_until is not None
    wait_for(lambda: time.time() > killed.lease_until.timestamp() + 0.1, 10, "the lease's end", log)
    second = worker(log, "--once")
    assert second.wait(timeout=120) == 0, log.read_text()[-3000:]

    done = AnalysisJob.objects.get(pk=job.pk)
    assert done.state == State.DONE and done.attempts == 2 and done.worker != killed.worker
    assert done.result is not None and len(done.result["decisions"]) == done.total == done.done
    plies = [d["ply"] for d in done.result["decisions"]]
    assert plies == sorted(set(plies))  # each decision once: the killed run left nothing behind
    said = log.read_text()
    assert said.count(f"Analysing match {match.pk} ") == 2  # attempt 1 (killed), attempt 2
    assert said.count(f"Analysed match {match.pk}:") == 1
    assert "1 job(s) run." in said

    # A third worker finds nothing to do: the job is not analysed again.
    third = worker(log, "--once")
    assert third.wait(timeout=60) == 0
    assert log.read_text().count("0 job(s) run.") == 1
    assert AnalysisJob.objects.get(pk=job.pk).finished_at == done.finished_at
