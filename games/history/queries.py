"""The history's reads: a player's results and every finished match a viewer may see (with the filters built
once for both), a player by username, and a match read with its seats (the replay and the export)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import Prefetch, Q, QuerySet, Value
from django.db.models.functions import Lower
from django.utils import timezone

from accounts.models import User, Viewer

from ..models import FinishedMatch, Match, PlayerResult, Seat


def _with_seats(matches: QuerySet[Match]) -> QuerySet[Match]:
    return matches.prefetch_related(Prefetch("seats", queryset=Seat.objects.select_related("user").order_by("index")))


def match_for_viewer(match_id: int) -> Match | None:
    return _with_seats(Match.objects.filter(pk=match_id)).select_related("rematch").first()


def _day_start(day: dt.date) -> dt.datetime:
    return timezone.make_aware(dt.datetime.combine(day, dt.time.min))


def _visible_results(viewer: Viewer) -> Q:
    """The finished matches a viewer may see in a history: the public ones, and the private ones they played."""
    visible = Q(is_public=True)
    if viewer.is_authenticated:
        # Their seats, not their results: a match is listed from its end, its results written a moment later.
        visible |= Q(match_id__in=Seat.objects.filter(user=viewer).values("match_id"))
    return visible


def _history_filters(filters: dict[str, Any], *, bots_field: str) -> Q:
    """The history form's filters (game, opponents, dates) as one condition, for either listing."""
    condition = Q()
    if filters.get("game"):
        condition &= Q(game=filters["game"])
    if filters.get("opponents"):
        condition &= Q(**{bots_field: filters["opponents"] == "bots"})
    if filters.get("date_from"):
        condition &= Q(finished_at__gte=_day_start(filters["date_from"]))
    if filters.get("date_to"):
        condition &= Q(finished_at__lt=_day_start(filters["date_to"] + dt.timedelta(days=1)))
    return condition


def player_results(*, subject: User, viewer: Viewer, filters: dict[str, Any]) -> QuerySet[PlayerResult]:
    """The subject's results, newest first; another viewer sees the private ones they played in too."""
    results = PlayerResult.objects.filter(user=subject)
    if not (viewer.is_authenticated and viewer.pk == subject.pk):
        results = results.filter(_visible_results(viewer))
    if filters.get("result"):
        results = results.filter(outcome=filters["result"])
    return results.filter(_history_filters(filters, bots_field="vs_bots")).order_by("-finished_at", "-match_id")


def finished_matches(*, viewer: Viewer, filters: dict[str, Any]) -> QuerySet[FinishedMatch]:
    """Every finished match the viewer may see (public ones and their own), newest first."""
    listings = FinishedMatch.objects.filter(_visible_results(viewer))
    return listings.filter(_history_filters(filters, bots_field="with_bots")).order_by("-finished_at", "-match_id")


def find_player(*, username: str) -> User | None:
    """The user with this username (any case), or None.

    Lower() on both sides, rather than __iexact, so that both databases use the user_username_lower
    index (SQLite's LIKE and PostgreSQL's UPPER() each scanned the users table)."""
    name = username.strip()
    if not name:
        return None
    users = get_user_model().objects.annotate(username_lower=Lower("username"))
    return users.filter(username_lower=Lower(Value(name))).order_by("pk").first()


