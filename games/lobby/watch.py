"""The lobby's "Watch" list: public matches in progress with their players' ratings, the best-rated tables first
(lichess's "current games"). Redrawn with the lobby's lists as matches start and finish."""

from __future__ import annotations

from statistics import fmean

from accounts.models import Viewer

from ..models import Match, Seat
from ..ratings.read import ratings_of
from .queries import _with_seat_list

SCANNED = 100  # the most recent matches in progress, of which the best-rated are listed


def watchable_matches(user: Viewer, limit: int = 20) -> list[Match]:
    """Public matches in progress (the person's own are listed elsewhere), each with seat_ratings (seat index ->
    the player's rating in the game, whole), best-rated first: by their players' mean rating.

    Four queries and one a game: the candidates' ids, their seated players, those people's ratings in each game
    (a bot's is its level's, games.ratings.read), then the listed matches and their seats with their players."""
    matches = Match.objects.filter(status=Match.Status.ACTIVE, is_public=True)
    if user.is_authenticated:
        matches = matches.exclude(seats__user=user)
    candidates = dict(matches.order_by("-started_at").values_list("pk", "game")[:SCANNED])
    if not candidates:
        return []
    seated = list(Seat.objects.filter(match_id__in=list(candidates), user__isnull=False).select_related("user")
                  .only("match_id", "index", "user__id", "user__is_bot", "user__bot_level"))
    players = [(seat.match_id, seat.index, seat.user) for seat in seated if seat.user is not None]
    ratings: dict[str, dict[int, float]] = {
        game: ratings_of(game, {user for match_id, _, user in players if candidates[match_id] == game})
        for game in set(candidates.values())}
    by_match: dict[int, dict[int, int]] = {}
    for match_id, index, user in players:
        by_match.setdefault(match_id, {})[index] = round(ratings[candidates[match_id]][user.pk])
    order = list(candidates)  # newest first: the tie-break
    best = sorted(order, key=lambda pk: (-fmean(by_match[pk].values()) if by_match.get(pk) else 0.0,
                                         order.index(pk)))[:limit]
    rows = {match.pk: match for match in _with_seat_list(Match.objects.filter(pk__in=best))}
    listed = [rows[pk] for pk in best if pk in rows]
    for match in listed:
        match.seat_ratings = by_match.get(match.pk, {})
        match.mean_rating = fmean(match.seat_ratings.values()) if match.seat_ratings else 0.0
    return listed
