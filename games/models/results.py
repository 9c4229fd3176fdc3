"""What finished matches came to, per player: each seat's result, the site-wide history's listing, and every
player's statistics and rating per game (games.ratings keeps them)."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from .match import GAME_CHOICES, Match


class PlayerResult(models.Model):
    """One seat's outcome in one finished match, written in the transaction that finishes it.

    It is the index the history pages filter on (so they never join seats and users), the record the
    statistics are rebuilt from, and, for rated matches, one point of the player's rating history.
    """

    class Outcome(models.TextChoices):
        WON = "won", "Won"
        LOST = "lost", "Lost"
        DRAWN = "drawn", "Draw"
        SOLO = "solo", "Solo"

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="player_results")
    seat = models.PositiveSmallIntegerField()
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="match_results")
    # Copies of the match's fields, so a player's history is one index range on this table.
    game = models.CharField(max_length=20, choices=GAME_CHOICES)
    finished_at = models.DateTimeField()
    is_public = models.BooleanField(default=True)
    outcome = models.CharField(max_length=5, choices=Outcome.choices)
    is_bot = models.BooleanField(default=False)
    # Whether another seat of the match was a bot ("against bots" in this player's history).
    vs_bots = models.BooleanField(default=False)
    score = models.IntegerField(null=True, blank=True)
    place = models.PositiveSmallIntegerField(null=True, blank=True)
    # Filled for a rated result only: the rating before and after this match (the chart's points).
    rated = models.BooleanField(default=False)
    rating_before = models.FloatField(null=True, blank=True)
    rating_after = models.FloatField(null=True, blank=True)
    deviation_after = models.FloatField(null=True, blank=True)

    class Meta:
        ordering = ["-finished_at", "-match_id"]
        constraints = [models.UniqueConstraint(fields=["match", "seat"], name="one_result_per_seat")]
        indexes = [
            models.Index(fields=["user", "-finished_at", "-match"], name="result_user_recent"),
            models.Index(fields=["user", "game", "-finished_at", "-match"], name="result_user_game_recent"),
            models.Index(fields=["user", "outcome", "-finished_at"], name="result_user_outcome"),
        ]

    def __str__(self) -> str:
        return f"{self.match} seat {self.seat}: {self.get_outcome_display()}"


class FinishedMatch(models.Model):
    """A finished match as the site-wide history lists it, written in the transaction that finishes it.

    Its indexes hold every column the history filters on, so counting and paging 100,000 matches reads
    only an index; "with_bots" lives nowhere else without joining seats to users.
    """

    match = models.OneToOneField(Match, on_delete=models.CASCADE, primary_key=True, related_name="listing")
    game = models.CharField(max_length=20, choices=GAME_CHOICES)
    finished_at = models.DateTimeField()
    is_public = models.BooleanField(default=True)
    with_bots = models.BooleanField(default=False)

    class Meta:
        ordering = ["-finished_at", "-match"]
        indexes = [
            models.Index(fields=["-finished_at", "-match", "is_public", "with_bots", "game"],
                         name="listing_recent"),
            models.Index(fields=["game", "-finished_at", "-match", "is_public", "with_bots"],
                         name="listing_game_recent"),
        ]

    def __str__(self) -> str:
        return f"{self.match_id} ({self.game}, {self.finished_at:%Y-%m-%d})"


class PlayerStats(models.Model):
    """One player's running figures in one game, updated as each of their matches finishes.

    The best_* figures are in the game's own terms: best_score is the highest final score where higher
    is better and the lowest where lower is (Rummy's penalty points, Columbo's totals).
    """

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="game_stats")
    game = models.CharField(max_length=20, choices=GAME_CHOICES)
    played = models.PositiveIntegerField(default=0)
    won = models.PositiveIntegerField(default=0)
    lost = models.PositiveIntegerField(default=0)
    drawn = models.PositiveIntegerField(default=0)
    solo_played = models.PositiveIntegerField(default=0)
    # Wins in a row, now and at best (a draw or a loss ends a run).
    streak = models.PositiveIntegerField(default=0)
    best_streak = models.PositiveIntegerField(default=0)
    # Final scores of the matches played to their end (not resigned or abandoned), for the average.
    score_total = models.BigIntegerField(default=0)
    scored = models.PositiveIntegerField(default=0)
    best_score = models.IntegerField(null=True, blank=True)
    # The game's own figures, by its kit's Figure keys (games/kits/<game>.py): Columbo's lowest round score and best
    # solo score, Ruhd's best single placement. A fifth game brings its own without a column here.
    extras = models.JSONField(default=dict, blank=True)
    # Glicko-2 (games.ratings.glicko2); bots keep their level's fixed rating.
    rating = models.FloatField(default=1500.0)
    deviation = models.FloatField(default=350.0)
    volatility = models.FloatField(default=0.06)
    rated_matches = models.PositiveIntegerField(default=0)
    peak_rating = models.FloatField(null=True, blank=True)
    last_played_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name_plural = "player stats"
        constraints = [models.UniqueConstraint(fields=["user", "game"], name="one_stats_row_per_game")]
        indexes = [models.Index(fields=["game", "-rating"], name="stats_leaderboard")]

    def __str__(self) -> str:
        return f"{self.user} in {self.get_game_display()}"

    @property
    def decided(self) -> int:
        """Matches against others that ended in a win, a loss or a draw."""
        return self.won + self.lost + self.drawn

    @property
    def win_rate(self) -> float | None:
        """Wins per match against others, 0..1; None before the first one."""
        return self.won / self.decided if self.decided else None

    @property
    def average_score(self) -> float | None:
        return self.score_total / self.scored if self.scored else None


# ---------------------------------------------------------------------------------------------
# Post-match analysis (games.review runs it; games.analysis is the pure core)
