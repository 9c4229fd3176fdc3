"""Matches, their seats and their moves. The database is the source of truth for every match."""

from __future__ import annotations

import secrets

from django.conf import settings
from django.db import models
from django.urls import reverse

from .engines import SLUGS

GAME_CHOICES = [(slug, slug.title()) for slug in SLUGS]


def new_invite_code() -> str:
    return secrets.token_urlsafe(12)


class Match(models.Model):
    class Status(models.TextChoices):
        WAITING = "waiting", "Waiting for players"
        ACTIVE = "active", "In progress"
        FINISHED = "finished", "Finished"
        ABORTED = "aborted", "Aborted"

    game = models.CharField(max_length=20, choices=GAME_CHOICES)
    options = models.JSONField(default=dict, blank=True)
    players = models.PositiveSmallIntegerField()
    seed = models.BigIntegerField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.WAITING)
    # The engine's dump() after the last move; equals replaying seed + options + moves.
    state = models.JSONField(null=True, blank=True)
    # The number of moves applied: every change checks it, so two racing actions never both apply.
    version = models.PositiveIntegerField(default=0)
    invite_code = models.CharField(max_length=32, unique=True, default=new_invite_code)
    is_public = models.BooleanField(default=True)
    rated = models.BooleanField(default=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)
    # When the game started waiting on its current decision (abandonment clock, bot pause, solo timing).
    turn_started_at = models.DateTimeField(null=True, blank=True)
    # When a bot seat should next be asked to act; None when no bot is to act.
    bot_due_at = models.DateTimeField(null=True, blank=True)
    # {"scores": [...], "winners": [...], "draw": bool, "reason": "normal"|"resign"|"abandon"|"aborted", ...}
    result = models.JSONField(null=True, blank=True)
    # Seats whose players asked for a rematch; once all human seats have, the rematch is made.
    rematch_votes = models.JSONField(default=list, blank=True)
    # The match's next game, once a rematch was agreed.
    rematch = models.OneToOneField("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")

    class Meta:
        verbose_name_plural = "matches"
        indexes = [
            models.Index(fields=["status", "-finished_at"], name="match_status_finished"),
            models.Index(fields=["game", "status", "-finished_at"], name="match_game_status_finished"),
            models.Index(fields=["status", "bot_due_at"], name="match_bot_due"),
            models.Index(fields=["status", "is_public", "-created_at"], name="match_lobby"),
        ]

    def __str__(self) -> str:
        return f"{self.get_game_display()} #{self.pk}"

    def get_absolute_url(self) -> str:
        return reverse("match", args=[self.pk])

    @property
    def is_live(self) -> bool:
        return self.status == self.Status.ACTIVE


class Seat(models.Model):
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="seats")
    index = models.PositiveSmallIntegerField()
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="seats"
    )
    # An invite-only seat waits for someone with the invite link; an open seat for anyone in the lobby.
    invite_only = models.BooleanField(default=False)
    joined_at = models.DateTimeField(null=True, blank=True)
    # Presence: sockets open for this seat (all processes) and the last heartbeat or disconnect.
    connections = models.IntegerField(default=0)
    last_seen = models.DateTimeField(null=True, blank=True)
    final_score = models.IntegerField(null=True, blank=True)
    place = models.PositiveSmallIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["index"]
        constraints = [models.UniqueConstraint(fields=["match", "index"], name="one_seat_per_index")]
        indexes = [models.Index(fields=["user", "match"], name="seat_user_match")]

    def __str__(self) -> str:
        return f"{self.match} seat {self.index}: {self.user or 'open'}"

    @property
    def is_bot(self) -> bool:
        return bool(self.user and self.user.is_bot)


class Move(models.Model):
    """Append-only: one row per applied action, in order. Seed + options + moves replay the match."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="moves")
    number = models.PositiveIntegerField()
    seat = models.PositiveSmallIntegerField()
    action = models.JSONField()
    # A bot's one-line reason for its move ("gathers 3 clubs"), shown in bot-against-bot logs.
    note = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["number"]
        constraints = [models.UniqueConstraint(fields=["match", "number"], name="one_move_per_number")]

    def __str__(self) -> str:
        return f"{self.match} move {self.number}"
