"""Tournaments (games.tournaments): the event, its entrants, the matches it made and its byes."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.urls import reverse

from .match import GAME_CHOICES, Match, new_invite_code


class Tournament(models.Model):
    """An arena (pair whoever is free, for a set time) or a Swiss (a set number of rounds) of one game and clock.

    Pairing and standings are decided in the database (games.tournaments.services): the entrants' rows say who
    is free, and the tournament's games say which matches were counted, so any process may pair and a restart
    loses nothing."""

    class Kind(models.TextChoices):
        ARENA = "arena", "Arena"
        SWISS = "swiss", "Swiss"

    class Status(models.TextChoices):
        UPCOMING = "upcoming", "Upcoming"
        RUNNING = "running", "Running"
        FINISHED = "finished", "Finished"
        CANCELLED = "cancelled", "Cancelled"

    name = models.CharField(max_length=80)
    kind = models.CharField(max_length=5, choices=Kind.choices)
    game = models.CharField(max_length=20, choices=GAME_CHOICES)
    table_size = models.PositiveSmallIntegerField(default=2)
    clock = models.JSONField(default=dict)  # games.play.clock.clock_spec's: a tournament always has a clock
    starts_at = models.DateTimeField()
    minutes = models.PositiveSmallIntegerField(null=True, blank=True)  # an arena's length
    rounds = models.PositiveSmallIntegerField(null=True, blank=True)  # a Swiss's rounds
    round = models.PositiveSmallIntegerField(default=0)  # the Swiss round being played (0: not started)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.UPCOMING)
    rated = models.BooleanField(default=True)
    # A private tournament is listed nowhere and joined with its invite link (a club evening).
    is_private = models.BooleanField(default=False)
    invite_code = models.CharField(max_length=32, unique=True, default=new_invite_code)
    # The scheduled series it belongs to ("hourly-gomori"), so the command that makes them never makes one twice.
    series = models.CharField(max_length=40, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [
            models.Index(fields=["status", "starts_at"], name="tournament_status_start"),
        ]
        constraints = [
            models.UniqueConstraint(fields=["series", "starts_at"], condition=~models.Q(series=""),
                                    name="one_tournament_per_series_slot"),
        ]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("tournament", args=[self.pk])


class Entrant(models.Model):
    """One person in a tournament: their standing (recomputable from the tournament's games: rebuild_tournament)
    and whether they are free to be paired (match is NULL) or paused or gone."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="entrants")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="entries")
    joined_at = models.DateTimeField()
    rating = models.FloatField()  # their rating in the game when they joined: the seeding after the score
    score = models.IntegerField(default=0)
    # The results in order: [{"m": match id or None for a bye, "r": "w"|"d"|"m"|"l"|"b", "p": points, "x": doubled}]
    sheet = models.JSONField(default=list, blank=True)
    streak = models.PositiveSmallIntegerField(default=0)  # wins in a row now (the arena's flame from 2)
    tiebreak = models.JSONField(default=list, blank=True)  # Swiss: [Buchholz, Sonneborn-Berger], at each round's end
    paused = models.BooleanField(default=False)
    withdrawn = models.BooleanField(default=False)
    # The tournament match they sit at now; NULL when free. Set only under the tournament's pairing lock.
    match = models.ForeignKey(Match, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    # Since when they have been free (joined, back from a match or a pause): the pairing's wait is measured from it.
    free_since = models.DateTimeField(null=True, blank=True)
    last_opponents = models.JSONField(default=list, blank=True)  # who they sat with in their latest match
    place = models.PositiveSmallIntegerField(null=True, blank=True)  # their final place

    class Meta:
        constraints = [models.UniqueConstraint(fields=["tournament", "user"], name="one_entry_per_person")]
        indexes = [models.Index(fields=["tournament", "match"], name="entrant_free")]

    def __str__(self) -> str:
        return f"{self.user_id} in {self.tournament_id}: {self.score}"


class TournamentGame(models.Model):
    """A match played in a tournament. `counted_at` is set once, in the transaction that ends the match, by the
    one statement that claims it (UPDATE ... WHERE counted_at IS NULL): no match is counted twice."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="games")
    match = models.OneToOneField(Match, on_delete=models.CASCADE, related_name="tournament_game")
    round = models.PositiveSmallIntegerField(default=0)  # the Swiss round (0 in an arena)
    created_at = models.DateTimeField()
    counted_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["tournament", "round", "counted_at"], name="tournament_game_round")]

    def __str__(self) -> str:
        return f"{self.tournament_id}: {self.match_id}"


class TournamentBye(models.Model):
    """A Swiss round's bye: a win's points for the one left without a table."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="byes")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    round = models.PositiveSmallIntegerField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["tournament", "user", "round"], name="one_bye_per_round")]

    def __str__(self) -> str:
        return f"{self.tournament_id}: bye for {self.user_id} in round {self.round}"
