"""Reads of the analyses: a match's job, whether a socket may follow one, and accuracies for the history."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..models import AnalysisJob, Match, Seat
from ..play.access import may_watch


def job_of(match_id: int) -> AnalysisJob | None:
    return AnalysisJob.objects.filter(match_id=match_id).first()


def followable(match_id: int, user: Any, code: str) -> tuple[bool, tuple[str, int, int] | None]:
    """Whether this person's socket may join the match's analysis group (a finished match they may watch: nothing
    of an analysis reaches anyone before the end), and the job's (state, done, total) now, None without one."""
    match = Match.objects.filter(pk=match_id).only("id", "status", "is_public", "invite_code").first()
    if match is None or match.status != Match.Status.FINISHED:
        return False, None
    seated = bool(user is not None and user.is_authenticated
                  and Seat.objects.filter(match_id=match_id, user_id=user.pk).exists())
    if not may_watch(is_public=match.is_public, seated=seated, invite_code=match.invite_code, given=code):
        return False, None
    row = AnalysisJob.objects.filter(match_id=match_id).values_list("state", "done", "total").first()
    return True, (row[0], row[1], row[2]) if row else None


def accuracies(match_ids: Iterable[int]) -> dict[int, list[float | None]]:
    """Each analysed match's per-seat accuracy (one query, the small column only)."""
    rows = AnalysisJob.objects.filter(match_id__in=list(match_ids), state=AnalysisJob.State.DONE)
    return {match_id: list(accuracy or []) for match_id, accuracy in rows.values_list("match_id", "accuracy")}
