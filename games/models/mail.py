"""Notifications by email: one row per thing to tell a person (games.notify.mail), queued after the commit that
caused it and sent by a worker (manage.py run_mail) outside every request and the live core."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from .lobby import Challenge
from .match import Match
from .tournaments import Tournament


class Notice(models.Model):
    """One thing to tell one person by email: your turn in a correspondence match, a challenge, a tournament
    starting, an analysis ready, or the link that verifies an address.

    `key` says what it is about (e.g. "turn:<match>:<version>"), unique per person, so the same news queued twice
    is one row. A worker claims all of a person's queued rows at once (their earliest one due: several arriving
    within the gathering window leave in one email) with a lease naming its token, like the analysis jobs: a
    worker killed mid-send leaves its rows "claimed" until the lease runs out, then another takes them.
    """

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        CLAIMED = "claimed", "Being sent"
        SENT = "sent", "Sent"
        DROPPED = "dropped", "Dropped"  # no longer to be sent: opted out, unverified, moved already, gone
        FAILED = "failed", "Failed"  # refused by the mail server for good, or too many attempts

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=12)  # games.notify.mail.kinds: turn, challenge, tournament, analysis, verify
    key = models.CharField(max_length=120)
    match = models.ForeignKey(Match, null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    challenge = models.ForeignKey(Challenge, null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    tournament = models.ForeignKey(Tournament, null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    # The address a verification link is for (kind "verify"): sent only while it is still the person's email.
    address = models.EmailField(blank=True)
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.QUEUED)
    created_at = models.DateTimeField()
    # When it may leave: its creation plus the gathering window, later after a failed attempt (the backoff).
    next_try_at = models.DateTimeField()
    attempts = models.PositiveSmallIntegerField(default=0)
    claimed_by = models.CharField(max_length=80, blank=True)
    lease_until = models.DateTimeField(null=True, blank=True)
    sent_at = models.DateTimeField(null=True, blank=True)
    error = models.CharField(max_length=300, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "key"], name="one_notice_per_person_and_key")]
        indexes = [
            models.Index(fields=["status", "next_try_at"], name="notice_due"),
            models.Index(fields=["user", "status"], name="notice_person"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} for {self.user_id} ({self.status})"
