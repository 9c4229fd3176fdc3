"""The lobby's "Watch" list: public matches in progress with their players' ratings, the best-rated tables first
(lichess's "current games"). Redrawn with the lobby's lists as matches start and finish."""

from __future__ import annotations

from statistics import fmean

from accounts.models import Viewer

from ..models import Match, PlayerStats
from ..ratings import glicko2
from .queries import _with_seat_list

SCANNED = 100  # the most recent matches in progress, of which the best-rated are listed


def watchable_matches(user: Viewer, limit: int = 20) -> list[Match]:
    """Public matches in progress (the person's own are listed elsewhere), each with seat_ratings (seat index ->
    the player's rating in the game, whole), best-rated first: by their players' mean rating (two queries)."""
    matches = Match.objects.filter(status=Match.Status.ACTIVE, is_public=True)
    if user.is_authenticated:
        matches = matches.exclude(seats__user=user)
    rows = list(_with_seat_list(matches.order_by("-started_at"))[:SCANNED])
    users = {seat.user_id for match in rows for seat in match.seat_list if seat.user_id is not None}
    games = {match.game for match in rows}
    ratings = {(user_id, game): rating for user_id, game, rating in
               PlayerStats.objects.filter(user_id__in=users, game__in=games).values_list("user_id", "game", "rating")}
    for match in rows:
        match.seat_ratings = {seat.index: round(ratings.get((seat.user_id, match.game), glicko2.START_RATING))
                              for seat in match.seat_list if seat.user_id is not None}
        match.mean_rating = fmean(match.seat_ratings.values()) if match.seat_ratings else 0.0
    rows.sort(key=lambda match: (-match.mean_rating, -(match.started_at.timestamp() if match.started_at else 0)))
    return rows[:limit]
