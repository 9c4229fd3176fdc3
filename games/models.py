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
    occupied: list[Seat]
    replay_moves: list[Move]
    page_url: str
    join_url: str
    cancel_url: str
    abandon_url: str
    can_cancel: bool
    can_abandon: bool
    my_turn: bool
    turn_text: str
    seat_names: list[str]  # the lobby's lists: its seats' names as the table gives them
    seat_ratings: dict[int, int]  # the lobby's "Watch" (games.lobby.watch)
    mean_rating: float

    class Meta:
        verbose_name_plural = "matches"
        # The admin's moderation actions, each its own permission (games/admin.py); "change" is the privacy
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


class Presence(models.Model):
    """One open socket of a seat, in any process: kept by its heartbeat, deleted when it closes.

    Presence lives here, never in the match row (which only a change of the match writes). A row whose
    heartbeat stopped (its process was killed) stops counting after selectors.PRESENCE_STALE_SECONDS."""

    socket = models.CharField(max_length=200, primary_key=True)
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="+")
    seat = models.PositiveSmallIntegerField(null=True, blank=True)  # None: a spectator
    last_seen = models.DateTimeField()

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


# Quick pairing and challenges (games.lobby.pairing, games.lobby.challenges)


class Seek(models.Model):
    """One person waiting in a quick-pairing pool (a game, its usual table size, a clock), then the record of
    the table it was paired into.

    A waiting seek (match is NULL) is claimed by the pairing decision under a row lock (SELECT ... FOR UPDATE
    SKIP LOCKED) in the transaction that creates the match, so two processes never seat one person twice.
    A paired row is kept (the latest per person and game) for "never the same two twice in a row"."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    pool = models.CharField(max_length=40)  # games.lobby.pools.Pool.key: "gomori-2-none"
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
    expired (games.lobby.challenges)."""

    class Status(models.TextChoices):
        OPEN = "open", "Open"
        ACCEPTED = "accepted", "Accepted"
        DECLINED = "declined", "Declined"
        WITHDRAWN = "withdrawn", "Withdrawn"

    challenger = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    challenged = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    game = models.CharField(max_length=20, choices=GAME_CHOICES)
    clock = models.JSONField(default=dict, blank=True)  # games.play.clock.clock_spec
    rated = models.BooleanField(default=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    created_at = models.DateTimeField()
    expires_at = models.DateTimeField()
    match = models.ForeignKey(Match, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")

    class Meta:
        indexes = [
            models.Index(fields=["challenged", "status", "expires_at"], name="challenge_to"),
            models.Index(fields=["challenger", "status", "expires_at"], name="challenge_from"),
        ]

    def __str__(self) -> str:
        return f"{self.challenger_id} challenges {self.challenged_id} ({self.game}, {self.status})"


# Tournaments (games.tournaments)


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
