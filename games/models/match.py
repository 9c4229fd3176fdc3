"""A match, its seats and its moves, who is at its table and its chat. The database is the source of truth for every
match: the live core (games.play) is the only writer of a match's row."""

from __future__ import annotations

import secrets
from typing import Any

from django.conf import settings
from django.db import models
from django.urls import reverse

from ..engines import SLUGS

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
    # The fence: every change of the match moves it on and is written only if it is still the one the change
    # was decided on (UPDATE ... WHERE version = ?), so two racing changes never both apply.
    version = models.PositiveIntegerField(default=0)
    # The number of moves applied (Move rows, numbered 1..moves).
    move_count = models.PositiveIntegerField(default=0)
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
    # The seats the game waits on now (none unless in progress), written with every change: the lobby, the header's
    # "your turn" and the notification sockets read it without loading the game.
    waiting_on = models.JSONField(default=list, blank=True)
    # {"scores": [...], "winners": [...], "draw": bool, "reason": a games.results.Termination, ...}: read it with
    # games.results.Outcome.of
    result = models.JSONField(null=True, blank=True)
    # Seats whose players asked for a rematch; once all human seats have, the rematch is made.
    rematch_votes = models.JSONField(default=list, blank=True)
    # The seat whose player turned the rematch down (the offer is then closed).
    rematch_declined = models.PositiveSmallIntegerField(null=True, blank=True)
    # Seats handed to a bot while their player was away, in order, on the record:
    # [{"seat", "bot": name, "move": first move the bot made, "log": log entries before it,
    #   "until_move"/"until_log": when the player took the seat back, or absent}]
    handovers = models.JSONField(default=list, blank=True)
    # The clock chosen at creation: {} (none), {"kind": "fischer", "base": s, "increment": s} or
    # {"kind": "turn", "seconds": s}; each seat's seconds left as of turn_started_at; when the first
    # seat the game waits on runs out (the runner checks it like a bot's turn).
    clock = models.JSONField(default=dict, blank=True)
    clock_left = models.JSONField(default=list, blank=True)
    clock_due_at = models.DateTimeField(null=True, blank=True)
    # A finished match whose statistics and ratings are not written yet: the end is written and shown first, its
    # statistics in a transaction of their own just after (games.play.store), or by the runner's sweep after a
    # crash between the two (games.play.scheduler); `rebuild_stats` clears it.
    stats_due = models.BooleanField(default=False)
    # The match's next game, once a rematch was agreed.
    rematch = models.OneToOneField("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")

    # Not columns: what the selectors that list matches attach (prefetches' to_attr, the lobby's offers), and
    # the lobby's links.
    seat_list: list[Seat]
    # The lobby's lists: seats and players as plain values (games.lobby.queries.ListSeat, which the models, below
    # every feature, do not import).
    list_seats: list[Any]
    occupied: list[Seat]
    bot_seats: list[Seat]  # games.history.listing's rebuild
    replay_moves: list[Move]
    page_url: str
    join_url: str
    join_refusal: str  # the lobby's "Join": why the gate (games.boards) would refuse this person, else ""
    cancel_url: str
    abandon_url: str
    can_cancel: bool
    can_abandon: bool
    my_turn: bool
    turn_text: str
    seat_names: list[str]  # the lobby's lists: its seats' names as the table gives them
    seat_ratings: dict[int, int]  # the lobby's "Watch" (games.lobby.queries)
    mean_rating: float

    class Meta:
        verbose_name_plural = "matches"
        # The admin's moderation actions, each its own permission (games/admin/match.py); "change" is the privacy
        # switch, "add" the import.
        permissions = [
            ("abort_match", "Can abort a match waiting or in progress"),
            ("annul_result", "Can annul a finished match's result"),
        ]
        indexes = [
            models.Index(fields=["status", "-finished_at"], name="match_status_finished"),
            models.Index(fields=["game", "status", "-finished_at"], name="match_game_status_finished"),
            models.Index(fields=["status", "bot_due_at"], name="match_bot_due"),
            models.Index(fields=["status", "clock_due_at"], name="match_clock_due"),
            models.Index(fields=["status", "is_public", "-created_at"], name="match_lobby"),
            models.Index(fields=["finished_at"], name="match_stats_due", condition=models.Q(stats_due=True)),
        ]

    def __str__(self) -> str:
        return f"{self.get_game_display()} #{self.pk}"

    def get_absolute_url(self) -> str:
        return reverse("match", args=[self.pk])


class Seat(models.Model):
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="seats")
    index = models.PositiveSmallIntegerField()
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="seats"
    )
    # An invite-only seat waits for someone with the invite link; an open seat for anyone in the lobby.
    invite_only = models.BooleanField(default=False)
    # A bot playing the seat since its player left (user stays the player: the record keeps who sat here).
    substitute = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    joined_at = models.DateTimeField(null=True, blank=True)
    # When a socket for this seat last opened or closed (its absence clock runs from there; see Presence).
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
        """Whether a bot plays the seat now (a bot's own seat, or a player's seat handed to a bot)."""
        return self.substitute_id is not None or bool(self.user and self.user.is_bot)


class Process(models.Model):
    """A server process that holds sockets, and when it last said it is alive (games.play.liveness): one write
    per process per interval, whatever the number of its sockets."""

    key = models.CharField(max_length=64, primary_key=True)
    last_seen = models.DateTimeField()

    def __str__(self) -> str:
        return self.key


class Presence(models.Model):
    """One open socket of a seat, in any process: written when it opens, deleted when it closes.

    Presence lives here, never in the match row (which only a change of the match writes). A socket counts while
    the later of its opening (last_seen) and its process's pulse (Process.last_seen) is recent: the sockets of a
    killed process stop counting after snapshot.PRESENCE_STALE_SECONDS."""

    socket = models.CharField(max_length=200, primary_key=True)
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="+")
    seat = models.PositiveSmallIntegerField(null=True, blank=True)  # None: a spectator
    last_seen = models.DateTimeField()
    process = models.CharField(max_length=64, blank=True, default="", db_index=True)  # Process.key

    class Meta:
        indexes = [models.Index(fields=["match", "seat"], name="presence_match_seat")]

    def __str__(self) -> str:
        return f"{self.match_id} seat {self.seat}: {self.socket}"


class ChatMessage(models.Model):
    """A line of a match's chat: the players' room or the spectators' room, never both."""

    class Room(models.TextChoices):
        PLAYERS = "players", "Players"
        SPECTATORS = "spectators", "Spectators"

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="chat")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    room = models.CharField(max_length=10, choices=Room.choices)
    text = models.CharField(max_length=300)
    created_at = models.DateTimeField(auto_now_add=True)
    hidden = models.BooleanField(default=False)
    hidden_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["id"]
        indexes = [models.Index(fields=["match", "room", "-id"], name="chat_match_room")]
        # A line is evidence and never edited; hiding it is its own permission (the admin's action).
        permissions = [("hide_chatmessage", "Can hide chat lines from every page")]

    def __str__(self) -> str:
        return f"{self.match_id} {self.room}: {self.text[:40]}"


class ChatMute(models.Model):
    """In one match, one person no longer sees another's chat lines."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="+")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    muted = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["match", "user", "muted"], name="one_mute")]

    def __str__(self) -> str:
        return f"{self.match_id}: {self.user_id} mutes {self.muted_id}"


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


# ---------------------------------------------------------------------------------------------
# History, statistics and ratings (kept by games.ratings.stats as each match finishes)
