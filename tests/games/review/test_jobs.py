"""The queue of analysis jobs: made once per finished match (automatically for rated ones, in the transaction
that finishes them; on request for the others), claimed by exactly one worker, taken again after a dead
worker's lease, and never stored by a worker that lost its claim."""

from __future__ import annotations

import datetime as dt
import threading
import time
from typing import Any

import pytest
from history_helpers import start_match
from review_helpers import TINY, finished_match

from games.models import AnalysisJob, Match
from games.review import jobs
from games.review.worker import Worker

State = AnalysisJob.State


@pytest.mark.django_db
def test_a_rated_match_is_queued_as_it_finishes_and_not_before(alice: Any, bob: Any) -> None:
    match = start_match("gomori", [alice, bob], seed=11)
    assert not AnalysisJob.objects.exists()
    with pytest.raises(jobs.NotAnalysable, match="Only a finished match"):
        jobs.enqueue(match, by=alice)
    match = finished_match([alice, bob])
    job = AnalysisJob.objects.get(match=match)
    assert job.state == State.QUEUED and job.requested_by is None and job.result is None


@pytest.mark.django_db
def test_an_unrated_match_waits_for_a_request_and_asking_twice_makes_one_job(alice: Any, bob: Any) -> None:
    match = finished_match([alice, bob], rated=False)
    assert not AnalysisJob.objects.filter(match=match).exists()
    first = jobs.enqueue(match, by=alice)
    second = jobs.enqueue(match, by=bob)
    assert first.pk == second.pk and AnalysisJob.objects.filter(match=match).count() == 1
    assert second.requested_by_id == alice.pk and second.state == State.QUEUED


@pytest.mark.django_db
def test_a_solo_game_is_not_analysable(alice: Any) -> None:
    match = Match(status=Match.Status.FINISHED, players=1, move_count=5)
    assert "solo" in jobs.refusal(match)


@pytest.mark.django_db
def test_a_failed_job_asked_for_again_is_queued_again(alice: Any, bob: Any) -> None:
    match = finished_match([alice, bob], rated=False)
    jobs.enqueue(match, by=alice)
    claimed = jobs.claim("w1")
    assert claimed is not None and jobs.fail(claimed, "boom")
    assert AnalysisJob.objects.get(match=match).state == State.FAILED
    again = jobs.enqueue(match, by=bob)
    assert again.state == State.QUEUED and again.error == ""


@pytest.mark.django_db(transaction=True)
def test_two_claimers_at_once_take_each_job_exactly_once() -> None:
    """Two threads (two database connections) start claiming at the same moment and claim until the queue is
    empty: every job goes to exactly one of them."""
    matches = [Match.objects.create(game="gomori", players=2, seed=n, status=Match.Status.FINISHED, move_count=1)
               for n in range(20)]
    AnalysisJob.objects.bulk_create(AnalysisJob(match=match) for match in matches)
    got: dict[str, list[int]] = {"w1": [], "w2": []}
    barrier = threading.Barrier(2)

    def claimer(name: str) -> None:
        from django.db import connection

        try:
            barrier.wait(timeout=10)
            while (job := jobs.claim(name)) is not None:
                got[name].append(job.match_id)
        finally:
            connection.close()

    threads = [threading.Thread(target=claimer, args=(name,)) for name in got]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    taken = got["w1"] + got["w2"]
    assert sorted(taken) == sorted(m.pk for m in matches), got
    rows = list(AnalysisJob.objects.filter(match__in=matches))
    assert {row.state for row in rows} == {State.RUNNING} and {row.attempts for row in rows} == {1}
    assert all(row.match_id in got[row.worker] for row in rows)


@pytest.mark.django_db
def test_a_dead_workers_job_is_taken_again_after_its_lease_and_the_dead_one_stores_nothing(
        alice: Any, bob: Any) -> None:
    match = finished_match([alice, bob], rated=False)
    jobs.enqueue(match, by=alice)
    lease = dt.timedelta(seconds=0.3)
    dead = jobs.claim("dead", lease=lease)
    assert dead is not None
    assert jobs.claim("alive", lease=lease) is None  # still leased: nobody else takes it
    time.sleep(0.4)
    alive = jobs.claim("alive", lease=lease)
    assert alive is not None and alive.match_id == match.pk and alive.attempts == 2
    # The first worker wakes up: nothing it writes counts any more.
    assert not jobs.progress(dead, 3, 10, lease=lease)
    assert not jobs.complete(dead, {"decisions": []}, [], version=1)
    assert jobs.progress(alive, 3, 10, lease=lease)
    assert jobs.complete(alive, {"decisions": []}, [90.0, 80.0], version=1)
    row = AnalysisJob.objects.get(match=match)
    assert row.state == State.DONE and row.worker == "alive" and row.accuracy == [90.0, 80.0]


@pytest.mark.django_db
def test_a_renewed_lease_keeps_the_job(alice: Any, bob: Any) -> None:
    match = finished_match([alice, bob], rated=False)
    jobs.enqueue(match, by=alice)
    lease = dt.timedelta(seconds=0.3)
    job = jobs.claim("w1", lease=lease)
    assert job is not None
    for _ in range(3):
        time.sleep(0.15)
        assert jobs.progress(job, 1, 5, lease=lease)
    assert jobs.claim("w2", lease=lease) is None


@pytest.mark.django_db
def test_the_worker_stores_the_analysis_once_with_each_seats_accuracy(alice: Any, bob: Any) -> None:
    match = finished_match([alice, bob], rated=True)
    said: list[str] = []
    worker = Worker(token="w1", budget=TINY, say=said.append)
    assert worker.drain() == 1
    assert worker.drain() == 0
    job = AnalysisJob.objects.get(match=match)
    assert job.state == State.DONE and job.done == job.total > 0
    result = job.result
    assert result is not None and result["game"] == "gomori" and len(result["decisions"]) == job.total
    assert len(job.accuracy) == 2 and all(0 <= a <= 100 for a in job.accuracy)
    assert [s["accuracy"] for s in result["seats"]] == job.accuracy
    for decision in result["decisions"]:
        if decision["mark"]:
            assert decision["played_text"].startswith(f"{{s{decision['seat']}}}")
            assert decision["better_text"].startswith(f"{{s{decision['seat']}}}")
    assert sum("Analysed match" in line for line in said) == 1


@pytest.mark.django_db
def test_the_worker_refuses_a_match_not_finished(alice: Any, bob: Any) -> None:
    """A job for a match still being played (never made by the site; a row written by hand) fails in the worker
    before anything is analysed."""
    match = start_match("gomori", [alice, bob], seed=11)
    AnalysisJob.objects.create(match=match)
    Worker(token="w1", budget=TINY, say=lambda _: None).drain()
    job = AnalysisJob.objects.get(match=match)
    assert job.state == State.FAILED and job.result is None and "finished" in job.error


@pytest.mark.django_db
def test_a_bug_in_the_analysis_fails_that_job_and_the_worker_goes_on(alice: Any, bob: Any,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    first = finished_match([alice, bob], seed=11)
    second = finished_match([alice, bob], seed=12)
    from games.review import worker as worker_module

    real = worker_module.analyse

    def broken_for_the_first(game: str, players: int, seed: int, *args: Any, **kw: Any) -> Any:
        if seed == first.seed:
            raise KeyError("a bug")
        return real(game, players, seed, *args, **kw)

    monkeypatch.setattr(worker_module, "analyse", broken_for_the_first)
    assert Worker(token="w1", budget=TINY, say=lambda _: None).drain() == 2
    assert AnalysisJob.objects.get(match=first).state == State.FAILED
    assert "KeyError" in AnalysisJob.objects.get(match=first).error
    assert AnalysisJob.objects.get(match=second).state == State.DONE
