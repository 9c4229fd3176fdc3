"""Reads: lobby lists and match lookups. No state changes here."""

from __future__ import annotations

from typing import Any

from django.db.models import Prefetch, Q, QuerySet

from .links import Link
from .models import Match, Seat


def _with_seats(matches: QuerySet[Match]) -> QuerySet[Match]:
    return matches.prefetch_related(Prefetch("seats", queryset=Seat.objects.select_related("user").order_by("index")))


def _with_seat_list(matches: QuerySet[Match]) -> QuerySet[Match]:
    """Seats and players as a plain list, match.seat_list: the lists read them for every match, and each
    match.seats.all() on a prefetched manager clones a queryset."""
    seats = Seat.objects.select_related("user").order_by("index")
    return matches.prefetch_related(Prefetch("seats", queryset=seats, to_attr="seat_list"))


# The lobby's lists show a match's game, status, players and links: its state, the largest JSON of the row
# (decoded for every match listed, a third of the lobby's reads), stays in the database.
LIST_DEFERRED = ("state",)


def open_matches(user: Any, limit: int = 30) -> list[Match]:
    """Public matches waiting for players that this person could join (an open seat, not theirs)."""
    matches = Match.objects.filter(status=Match.Status.WAITING, is_public=True, seats__user__isnull=True,
                                   seats__invite_only=False)
    if user.is_authenticated:
        matches = matches.exclude(seats__user=user)
    return list(_with_seat_list(matches.distinct().defer(*LIST_DEFERRED).order_by("-created_at"))[:limit])


def my_matches(user: Any, limit: int = 30) -> list[Match]:
    """This person's matches that are waiting or in progress."""
    if not user.is_authenticated:
        return []
    matches = Match.objects.filter(
        seats__user=user, status__in=[Match.Status.WAITING, Match.Status.ACTIVE]
    ).distinct().defer(*LIST_DEFERRED).order_by("-updated_at")
    rows = list(_with_seat_list(matches)[:limit])
    for match in rows:  # what the list offers besides opening it (the services decide again on the click)
        others = [seat for seat in match.seat_list if seat.user_id != user.pk]
        match.can_cancel = match.status == Match.Status.WAITING and match.created_by_id == user.pk
        match.can_abandon = (not match.can_cancel and bool(others)
                             and all(seat.user is not None and seat.user.is_bot for seat in others))
    return rows


def lobby_lists(user: Any) -> dict[str, list[Match]]:
    """The lobby's three lists for this person (the page, and its socket as matches open and fill), each
    match with the URLs its line links to (page_url, join_url: one reverse() per list, games.links)."""
    lists = {
        "open_matches": open_matches(user), "my_matches": my_matches(user), "watch_matches": watchable_matches(user),
    }
    page, join = Link("match", numeric=True), Link("join_match", numeric=True)
    for matches in lists.values():
        for match in matches:
            match.page_url, match.join_url = page(match.pk), join(match.pk)
    return lists


def watchable_matches(user: Any, limit: int = 20) -> list[Match]:
    """Public matches in progress, newest first (the person's own are listed elsewhere)."""
    matches = Match.objects.filter(status=Match.Status.ACTIVE, is_public=True)
    if user.is_authenticated:
        matches = matches.exclude(seats__user=user)
    return list(_with_seat_list(matches.defer(*LIST_DEFERRED).order_by("-started_at"))[:limit])


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
