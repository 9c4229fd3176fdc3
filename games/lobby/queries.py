"""The lobby's reads: its three lists for a person (their matches, those waiting for players, those to watch)."""

from __future__ import annotations

from django.db.models import Prefetch, QuerySet

from accounts.models import Viewer

from ..models import Match, Seat

# What the lobby's lists show of a match and its players: its game, status, players and links. The rest (the
# state, options, result and clock JSON, decoded for every match listed; the players' passwords and emails)
# stays in the database: the lists read 56 matches for every lobby page and every redraw of its socket.
LIST_FIELDS = ("id", "game", "players", "status", "is_public", "created_by", "created_at", "updated_at",
               "started_at")
LIST_SEAT_FIELDS = ("id", "match_id", "index", "user_id", "invite_only", "user__id", "user__username",
                    "user__display_name", "user__avatar", "user__is_bot")


def _with_seat_list(matches: QuerySet[Match]) -> QuerySet[Match]:
    """Seats and players as a plain list, match.seat_list: the lists read them for every match, and each
    match.seats.all() on a prefetched manager clones a queryset."""
    seats = Seat.objects.select_related("user").only(*LIST_SEAT_FIELDS).order_by("index")
    # The attribute is declared on Match (for the code that reads it), which the stubs' plugin sees as a redefinition.
    return matches.only(*LIST_FIELDS).prefetch_related(  # type: ignore[no-redef]
        Prefetch("seats", queryset=seats, to_attr="seat_list"))


def open_matches(user: Viewer, limit: int = 30) -> list[Match]:
    """Public matches waiting for players that this person could join (an open seat, not theirs)."""
    matches = Match.objects.filter(status=Match.Status.WAITING, is_public=True, seats__user__isnull=True,
                                   seats__invite_only=False)
    if user.is_authenticated:
        matches = matches.exclude(seats__user=user)
    return list(_with_seat_list(matches.distinct().order_by("-created_at"))[:limit])


def my_matches(user: Viewer, limit: int = 30) -> list[Match]:
    """This person's matches that are waiting or in progress."""
    if not user.is_authenticated:
        return []
    matches = Match.objects.filter(
        seats__user=user, status__in=[Match.Status.WAITING, Match.Status.ACTIVE]
    ).distinct().order_by("-updated_at")
    rows = list(_with_seat_list(matches)[:limit])
    for match in rows:  # what the list offers besides opening it (the services decide again on the click)
        others = [seat for seat in match.seat_list if seat.user_id != user.pk]
        match.can_cancel = match.status == Match.Status.WAITING and match.created_by_id == user.pk
        match.can_abandon = (not match.can_cancel and bool(others)
                             and all(seat.user is not None and seat.user.is_bot for seat in others))
    return rows


def lobby_lists(user: Viewer) -> dict[str, list[Match]]:
    """The lobby's three lists for this person (the page, and its socket as matches open and fill)."""
    return {
        "open_matches": open_matches(user), "my_matches": my_matches(user), "watch_matches": watchable_matches(user),
    }


def watchable_matches(user: Viewer, limit: int = 20) -> list[Match]:
    """Public matches in progress, newest first (the person's own are listed elsewhere)."""
    matches = Match.objects.filter(status=Match.Status.ACTIVE, is_public=True)
    if user.is_authenticated:
        matches = matches.exclude(seats__user=user)
    return list(_with_seat_list(matches.order_by("-started_at"))[:limit])


