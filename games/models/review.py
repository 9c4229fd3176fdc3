"""The analysis of a finished match: one job per match, run by a worker (games.review)."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from .match import Match


class AnalysisJob(models.Model):
    """The analysis of one finished match: a queue entry while it waits or runs, then its stored result.

    One row per match, so a match is analysed once. Workers (manage.py run_analysis) claim a queued row, or a
    running one whose lease ran out (its worker died), by a conditional UPDATE naming the worker's token
    (games.review.jobs); the running worker renews the lease, writes its progress, and stores the result only
    while the row is still its own, so a job is neither lost nor finished twice.
    """

    class State(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    match = models.OneToOneField(Match, on_delete=models.CASCADE, related_name="analysis_job")
    state = models.CharField(max_length=10, choices=State.choices, default=State.QUEUED)
    # Who asked for it; None: queued automatically as a rated match finished.
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # Decisions analysed so far, of total (0 of 0 until a worker counted them).
    done = models.PositiveIntegerField(default=0)
    total = models.PositiveIntegerField(default=0)
    # The claim: the worker holding it (host:pid:random) and until when; a running row past its lease is free.
    worker = models.CharField(max_length=100, blank=True)
    lease_until = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    # The analysis's version (games.analysis.ANALYSIS_VERSION) that made the result.
    version = models.PositiveSmallIntegerField(default=0)
    # MatchAnalysis.to_json(candidates=False); None until done.
    result = models.JSONField(null=True, blank=True)
    # Each seat's accuracy (0-100, None for a seat without a decision), for the history's rows without the result.
    accuracy = models.JSONField(default=list, blank=True)
    error = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        indexes = [
            models.Index(fields=["state", "created_at"], name="analysis_queue"),
            models.Index(fields=["state", "lease_until"], name="analysis_lease"),
        ]

    def __str__(self) -> str:
        return f"analysis of {self.match_id}: {self.state}"

    @property
    def pending(self) -> bool:
        return self.state in (self.State.QUEUED, self.State.RUNNING)

    @property
    def percent(self) -> int:
        return round(100 * self.done / self.total) if self.total else 0


# Quick pairing and challenges (games.pool.pairing, games.challenges)
