"""The queue of analysis jobs: one row per match (models.AnalysisJob), made when a rated match finishes or on
request, claimed by workers, renewed while they run, stored when done.

A claim is the leased queue's (games.core.leases): the row goes to a worker's token only if it is still queued, or
running under a lease that ran out (its worker was killed). Every later write of the worker (progress, result,
failure, release) also names its token, so a worker that lost its lease (paused past it, then woke up) writes
nothing: a job is never finished twice, and never lost while a worker is alive or dead.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import F, Q
from django.utils import timezone

from ..core.leases import claim_first
from ..models import AnalysisJob, Match
from ..play.snapshot import Snapshot, Status

State = AnalysisJob.State
DEFAULT_LEASE = dt.timedelta(seconds=120)  # far above one decision's seconds (bench/ANALYSIS.md: at most ~2 s)
MAX_ERROR = 300


class NotAnalysable(ValueError):
    """A match that cannot be analysed; the message says why, in the site's words."""


def refusal(match: Match) -> str:
    """Why this match can't be analysed, or "" when it can: only a finished match of two or more players."""
    if match.status != Match.Status.FINISHED:
        return "Only a finished match can be analysed."
    if match.players < 2:
        return "A solo game has no opponent to weigh its moves against."
    if not match.move_count:
        return "This match has no moves to analyse."
    return ""


# ---------------------------------------------------------------------------------------------------------
# Making jobs


def enqueue(match: Match, *, by: Any = None) -> AnalysisJob:
    """The match's analysis job, made if it has none (idempotent: asking twice, or two people at once, gives the
    one job). A failed job is queued again. NotAnalysable unless the match is finished and has an opponent."""
    why = refusal(match)
    if why:
        raise NotAnalysable(why)
    job = AnalysisJob.objects.filter(match_id=match.pk).first()
    if job is None:
        try:
            with transaction.atomic():
                job = AnalysisJob.objects.create(match_id=match.pk, requested_by=by if by and by.pk else None)
        except IntegrityError:  # someone else's request made it first
            job = AnalysisJob.objects.get(match_id=match.pk)
    if job.state == State.FAILED:
        AnalysisJob.objects.filter(pk=job.pk, state=State.FAILED).update(
            state=State.QUEUED, error="", worker="", lease_until=None, done=0, total=0, updated_at=timezone.now())
        job.refresh_from_db()
    return job


def enqueue_finished(match_id: int, *, rated: bool, players: int, people: int) -> None:
    """A rated match with a person in it gets its analysis queued. One INSERT, nothing analysed here: the move that
    ended the match is not slowed by its analysis."""
    if not rated or players < 2 or people < 1:
        return
    AnalysisJob.objects.bulk_create([AnalysisJob(match_id=match_id)], ignore_conflicts=True)


def on_end(snap: Snapshot) -> None:
    """A match ended (inside the transaction that writes the end, games.play.events): a finished one is queued."""
    if snap.status == Status.FINISHED:
        enqueue_finished(snap.id, rated=snap.rated, players=snap.players,
                         people=sum(1 for seat in snap.seats if seat.player and not seat.player.is_bot))


# ---------------------------------------------------------------------------------------------------------
# A worker's side


@dataclass(frozen=True)
class Claimed:
    """A job a worker holds: its row, the match, and the token its writes name."""

    id: int
    match_id: int
    worker: str
    attempts: int


def _claimable(now: dt.datetime) -> Q:
    return Q(state=State.QUEUED) | Q(state=State.RUNNING, lease_until__lt=now)


def claim(worker: str, *, lease: dt.timedelta = DEFAULT_LEASE) -> Claimed | None:
    """Take the oldest claimable job for this worker (queued, or running past its lease), or None."""

    def take(picked: int, now: dt.datetime) -> int:
        return AnalysisJob.objects.filter(_claimable(now), pk=picked).update(
            state=State.RUNNING, worker=worker, lease_until=now + lease, attempts=F("attempts") + 1,
            started_at=now, done=0, updated_at=now,
        )

    picked = claim_first(lambda now: [AnalysisJob.objects.filter(_claimable(now)).order_by("created_at", "id")],
                         "id", take)
    if picked is None:
        return None
    row = AnalysisJob.objects.values("match_id", "attempts").get(pk=picked)
    return Claimed(picked, row["match_id"], worker, row["attempts"])


def _mine(job: Claimed) -> Any:
    return AnalysisJob.objects.filter(pk=job.id, worker=job.worker, state=State.RUNNING)


def progress(job: Claimed, done: int, total: int, *, lease: dt.timedelta = DEFAULT_LEASE) -> bool:
    """Write how far the job is and renew its lease; False when the job is no longer this worker's."""
    now = timezone.now()
    return bool(_mine(job).update(done=done, total=total, lease_until=now + lease, updated_at=now))


def complete(job: Claimed, result: dict[str, Any], accuracy: list[float | None], *, version: int) -> bool:
    """Store the result; False (and nothing written) when the job is no longer this worker's."""
    now = timezone.now()
    return bool(_mine(job).update(
        state=State.DONE, result=result, accuracy=accuracy, version=version, done=F("total"), lease_until=None,
        finished_at=now, updated_at=now, error="",
    ))


def fail(job: Claimed, error: str) -> bool:
    """The job can't be done (the match does not replay, or is not finished): stored as failed, with why."""
    now = timezone.now()
    return bool(_mine(job).update(state=State.FAILED, error=error[:MAX_ERROR], lease_until=None, finished_at=now,
                                  updated_at=now))


def release(job: Claimed) -> bool:
    """Give the job back to the queue (a worker told to stop): the next worker starts it at once."""
    now = timezone.now()
    return bool(_mine(job).update(state=State.QUEUED, worker="", lease_until=None, done=0, updated_at=now))
