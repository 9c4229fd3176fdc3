"""Reads: lobby lists and match lookups. No state changes here."""

from __future__ import annotations

from typing import Any

from django.db.models import Prefetch, Q, QuerySet

from .models import Match, Seat


def _with_seats(matches: QuerySet[Match]) -> QuerySet[Match]:
    return matches.prefetch_related(Prefetch("seats", queryset=Seat.objects.select_related("user").order_by("index")))


def open_matches(user: Any, limit: int = 30) -> list[Match]:
    """Public matches waiting for players that this person could join (an open seat, not theirs)."""
    matches = Match.objects.filter(status=Match.Status.WAITING, is_public=True, seats__user__isnull=True,
                                   seats__invite_only=False)
    if user.is_authenticated:
        matches = matches.exclude(seats__user=user)
    return list(_with_seats(matches.distinct().order_by("-created_at"))[:limit])


def my_matches(user: Any, limit: int = 30) -> list[Match]:
    """This person's matches that are waiting or in progress."""
    if not user.is_authenticated:
        return []
    matches = Match.objects.filter(
        seats__user=user, status__in=[Match.Status.WAITING, Match.Status.ACTIVE]
    ).distinct().order_by("-updated_at")
    rows = list(_with_seats(matches)[:limit])
    for match in rows:  # what the list offers besides opening it (the services decide again on the click)
        others = [seat for seat in match.seats.all() if seat.user_id != user.pk]
        match.can_cancel = match.status == Match.Status.WAITING and match.created_by_id == user.pk
        match.can_abandon = (not match.can_cancel and bool(others)
                             and all(seat.user is not None and seat.user.is_bot for seat in others))
    return rows


def lobby_lists(user: Any) -> dict[str, list[Match]]:
    """The lobby's three lists for this person (the page, and its socket as matches open and fill)."""
    return {
        "open_matches": open_matches(user), "my_matches": my_matches(user), "watch_matches": watchable_matches(user),
    }


def watchable_matches(user: Any, limit: int = 20) -> list[Match]:
    """Public matches in progress, newest first (the person's own are listed elsewhere)."""
    matches = Match.objects.filter(status=Match.Status.ACTIVE, is_public=True)
    if user.is_authenticated:
        matches = matches.exclude(seats__user=user)
    return list(_with_seats(matches.order_by("-started_at"))[:limit])


def recent_finished(user: Any, limit: int = 10) -> list[Match]:
    matches = Match.objects.filter(status=Match.Status.FINISHED)
    matches = matches.filter(seats__user=user) if user.is_authenticated else matches.filter(is_public=True)
    return list(_with_seats(matches.distinct().order_by("-finished_at"))[:limit])


def match_for_viewer(match_id: int) -> Match | None:
    return _with_seats(Match.objects.filter(pk=match_id)).select_related("rematch").first()


def can_watch(match: Match, user: Any, code: str) -> bool:
    if match.is_public or (code and code == match.invite_code):
        return True
    return user.is_authenticated and any(seat.user_id == user.pk for seat in match.seats.all())


def visible_to(user: Any) -> Q:
    """Matches a person may look at: public ones and their own."""
    if user.is_authenticated:
        return Q(is_public=True) | Q(seats__user=user)
    return Q(is_public=True)
