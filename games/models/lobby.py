"""The lobby's waiting rooms: a person waiting in a quick-pairing pool (games.pool), and a challenge from one person
to another (games.challenges)."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from .match import GAME_CHOICES, Match


class Seek(models.Model):
    """One person waiting in a quick-pairing pool (a game, its usual table size, a clock), then the record of
    the table it was paired into.

    A waiting seek (match is NULL) is claimed by the pairing decision under a row lock (SELECT ... FOR UPDATE
    SKIP LOCKED) in the transaction that creates the match, so two processes never seat one person twice.
    A paired row is kept (the latest per person and game) for "never the same two twice in a row"."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    pool = models.CharField(max_length=40)  # games.pool.pools.Pool.key: "gomori-2-none"
    game = models.CharField(max_length=20, choices=GAME_CHOICES)
    rating = models.FloatField()  # the person's rating in the game when they sat down to wait
    # Who they sat with in their latest match of the game (user ids): not paired with them again while a third waits.
    last_opponents = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField()
    # Kept fresh by the lobby socket that made the seek: a row whose socket's process died stops counting.
    seen_at = models.DateTimeField()
    # The notification socket the seek came from: closing it (leaving the page) withdraws the seek.
    socket = models.CharField(max_length=200, blank=True)
    match = models.ForeignKey(Match, null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    paired_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            # One pool at a time: a person is never waiting in two pools, so never paired twice at once.
            models.UniqueConstraint(fields=["user"], condition=models.Q(match__isnull=True), name="one_waiting_seek"),
        ]
        indexes = [models.Index(fields=["pool", "match", "created_at"], name="seek_pool_waiting")]

    def __str__(self) -> str:
        return f"{self.user_id} in {self.pool}" + (f" -> {self.match_id}" if self.match_id else "")


class Challenge(models.Model):
    """One person asks another to a match of a game with a clock; live until accepted, declined, withdrawn or
    expired (games.challenges)."""

    class Status(models.TextChoices):
        OPEN = "open", "Open"
        ACCEPTED = "accepted", "Accepted"
        DECLINED = "declined", "Declined"
        WITHDRAWN = "withdrawn", "Withdrawn"
        # Closed by the server: past expires_at (the runner's sweep), or one of the two can no longer play
        # (suspended, deactivated: games.departures).
        EXPIRED = "expired", "Expired"
        CANCELLED = "cancelled", "Cancelled"

    challenger = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    challenged = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    game = models.CharField(max_length=20, choices=GAME_CHOICES)
    clock = models.JSONField(default=dict, blank=True)  # games.play.clock.clock_spec
    rated = models.BooleanField(default=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    created_at = models.DateTimeField()
    expires_at = models.DateTimeField()
    match = models.ForeignKey(Match, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    # When it stopped being open (accepted, declined, withdrawn, expired, cancelled): the pages say a recent "no"
    # to the other person after a reload too.
    closed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [
            models.Index(fields=["challenged", "status", "expires_at"], name="challenge_to"),
            models.Index(fields=["challenger", "status", "expires_at"], name="challenge_from"),
        ]

    def __str__(self) -> str:
        return f"{self.challenger_id} challenges {self.challenged_id} ({self.game}, {self.status})"


class Board(models.Model):
    """The one clocked match a person plays now (games.boards, the gate every road to a seat asks): claimed in
    the transaction that seats them, released in the one that ends the match. The primary key is the person,
    so two roads racing to seat one person cannot both commit (the second insert fails on the key)."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, primary_key=True, on_delete=models.CASCADE,
                                related_name="board")
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="boards")
    since = models.DateTimeField()

    def __str__(self) -> str:
        return f"{self.user_id} at {self.match_id}"


# Tournaments (games.tournaments)
