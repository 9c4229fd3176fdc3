"""Ratings' reads: the leaderboard, a player's figures and their rating history."""

from __future__ import annotations

import datetime as dt

from django.db.models import BooleanField, Case, Q, Value, When

from accounts.models import User

from ..models import PlayerResult, PlayerStats

LEADERBOARD_SIZE = 100


# A rating is provisional (shown with a "?", as lichess does) until it rests on this many rated matches and
# its deviation has come down to PROVISIONAL_DEVIATION (lichess's own threshold): about 10 matches against
# bots, 14 between new people.
LEADERBOARD_MIN_MATCHES = 10


PROVISIONAL_DEVIATION = 110.0


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
              "user__username", "user__display_name", "user__avatar", "user__is_bot")
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


