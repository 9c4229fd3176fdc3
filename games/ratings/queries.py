"""Ratings' reads: the leaderboard, a player's figures and their rating history."""

from __future__ import annotations

import datetime as dt

from django.db.models import BooleanField, Case, Count, Q, Value, When
from django.urls import reverse

from accounts.models import User

from ..models import PlayerResult, PlayerStats
from .rules import LEADERBOARD_MIN_MATCHES, PROVISIONAL_DEVIATION, bot_rating, is_provisional

LEADERBOARD_SIZE = 100


ESTABLISHED = Q(rated_matches__gte=LEADERBOARD_MIN_MATCHES, deviation__lte=PROVISIONAL_DEVIATION)


def leaderboard(*, game: str, limit: int = LEADERBOARD_SIZE) -> list[PlayerStats]:
    """The top people of a game by rating (one query): those with an established rating first, as on
    lichess's leaderboard, then those whose rating is still provisional. People need one rated match to be
    listed; bots and suspended people (inactive) never are."""
    return list(
        PlayerStats.objects.filter(game=game, rated_matches__gt=0, user__is_bot=False, user__is_active=True)
        .annotate(provisional=Case(When(ESTABLISHED, then=Value(False)), default=Value(True),
                                   output_field=BooleanField()))
        .select_related("user")
        .only("user_id", "game", "rating", "deviation", "rated_matches", "won", "lost", "drawn",
              "user__username", "user__display_name", "user__avatar", "user__avatar_choice", "user__is_bot",
              "user__program")
        .order_by("provisional", "-rating", "user_id")[:limit]
    )


def player_stats(*, user: User) -> dict[str, PlayerStats]:
    """A player's figures per game they have a row for."""
    return {row.game: row for row in PlayerStats.objects.filter(user=user)}


def rating_history(*, user: User) -> list[tuple[str, dt.datetime, float]]:
    """(game, when, rating after) of each rated match of a player, oldest first."""
    rows = (PlayerResult.objects.filter(user=user, rated=True)
            .order_by("finished_at", "match_id").values_list("game", "finished_at", "rating_after"))
    return [(game, when, rating) for game, when, rating in rows if rating is not None]




def leaderboard_ranks(rows: list[PlayerStats], user: User) -> dict[str, int]:
    """Where each of this person's rows stands on its game's leaderboard (established ratings first, then
    provisional ones, each by rating), counted over every listed person, not only the top LEADERBOARD_SIZE; games
    where they are not listed are left out. One query for all their games."""
    if user.is_bot or not user.is_active:
        return {}
    listed = [row for row in rows if row.rated_matches > 0]
    if not listed:
        return {}
    counts = {}
    for row in listed:
        established = not is_provisional(row)
        ahead = Q(rating__gt=row.rating) | Q(rating=row.rating, user_id__lt=row.user_id)
        counts[row.game] = Count("id", filter=Q(game=row.game) & ((ESTABLISHED & ahead) if established
                                                                  else (ESTABLISHED | ahead)))
    found = (PlayerStats.objects.filter(game__in=list(counts), rated_matches__gt=0, user__is_bot=False,
                                        user__is_active=True).aggregate(**counts))
    return {game: (found[game] or 0) + 1 for game in counts}


def best_wins(*, user: User) -> dict[str, tuple[str, str, float]]:
    """Per game, the highest-rated opponent this person beat in a rated match, rated as they were then
    (a bot at its level's rating): (name, profile URL, rating). One query."""
    won = PlayerResult.objects.filter(user=user, rated=True, outcome=PlayerResult.Outcome.WON).values("match_id")
    rows = (PlayerResult.objects.filter(match_id__in=won).exclude(user=user).exclude(outcome=PlayerResult.Outcome.WON)
            .values_list("game", "rating_before", "is_bot", "user__bot_level", "user__username", "user__display_name"))
    best: dict[str, tuple[str, str, float]] = {}
    for game, before, is_bot, level, username, display in rows:
        rating = bot_rating(game, level) if is_bot else before
        if rating is None:
            continue
        if game not in best or rating > best[game][2]:
            best[game] = (display or username, reverse("profile", args=[username]), rating)
    return best
