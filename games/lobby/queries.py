"""The lobby's reads: its three lists for a person (their matches, those waiting for players, those to watch)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db.models import Prefetch, QuerySet

from accounts.models import Viewer

from ..catalog import GAMES
from ..models import Match, Seat
from ..play.wording import distinct_names

# What the lobby's lists show of a match and its players: its game, status, players and links. The rest (the
# state, options, result and clock JSON, decoded for every match listed; the players' passwords and emails)
# stays in the database: the lists read 56 matches for every lobby page and every redraw of its socket.
LIST_FIELDS = ("id", "game", "players", "status", "is_public", "created_by", "created_at", "updated_at",
               "started_at", "waiting_on")
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
    for match in rows:  # what the list offers besides opening it (the deciders decide again on the click)
        others = [seat for seat in match.seat_list if seat.user_id != user.pk]
        mine = next((seat for seat in match.seat_list if seat.user_id == user.pk), None)
        match.can_cancel = match.status == Match.Status.WAITING and match.created_by_id == user.pk
        match.can_abandon = (not match.can_cancel and bool(others)
                             and all(seat.user is not None and seat.user.is_bot for seat in others))
        match.my_turn = mine is not None and mine.index in (match.waiting_on or [])
        match.turn_text = _whose_turn(match, user)
    # The matches waiting on this person first, as lichess lists them.
    return sorted(rows, key=lambda match: not match.my_turn)


def _whose_turn(match: Match, user: Viewer) -> str:
    """Where a match of this person's stands: "Your turn", "Bob's turn", or its status."""
    if match.status != Match.Status.ACTIVE or not match.waiting_on:
        return match.get_status_display()
    seats = {seat.index: (position, seat) for position, seat in enumerate(match.seat_list)}
    given = distinct_names([seat.user.name if seat.user else "" for seat in match.seat_list])
    names = []
    for index in match.waiting_on:
        position, seat = seats.get(index, (None, None))
        player = seat.user if seat is not None else None
        names.append("you" if player is not None and player.pk == user.pk
                     else given[position] if player is not None and position is not None else f"Seat {index + 1}")
    if names == ["you"]:
        return "Your turn"
    if len(names) == 1:
        return f"{names[0]}’s turn"
    return "Waiting for " + " and ".join(names)


def named(matches: list[Match]) -> list[Match]:
    """Each match with seat_names, its seats' names as its table gives them (two Regular bots are "Ruhd Regular"
    and "Ruhd Regular 2": games.play.wording.distinct_names, the one naming)."""
    for match in matches:
        match.seat_names = distinct_names([seat.user.name if seat.user else "" for seat in match.seat_list])
    return matches


def lobby_lists(user: Viewer) -> dict[str, list[Match]]:
    """The lobby's three lists for this person (the page, and its socket as matches open and fill)."""
    from . import watch  # "Watch", best-rated first (it reads the lists' seats as these do)

    return {
        "open_matches": named(open_matches(user)), "my_matches": named(my_matches(user)),
        "watch_matches": named(watch.watchable_matches(user)),
    }


def watchable_matches(user: Viewer, limit: int = 20) -> list[Match]:
    """Public matches in progress, newest first (the person's own are listed elsewhere)."""
    matches = Match.objects.filter(status=Match.Status.ACTIVE, is_public=True)
    if user.is_authenticated:
        matches = matches.exclude(seats__user=user)
    return list(_with_seat_list(matches.order_by("-started_at"))[:limit])




@dataclass(frozen=True)
class Waiting:
    """A match in progress waiting on this person's move."""

    match_id: int
    game: str
    since: datetime | None  # when its turn began

    @property
    def game_name(self) -> str:
        return GAMES[self.game].name


def waiting_for(user: Viewer, *, besides: int | None = None) -> list[Waiting]:
    """The matches in progress that wait on this person, longest waiting first, but `besides` (one query, no game
    loaded: Match.waiting_on says whose move it is)."""
    if not user.is_authenticated:
        return []
    seats = Seat.objects.filter(user=user, substitute__isnull=True, match__status=Match.Status.ACTIVE)
    if besides is not None:
        seats = seats.exclude(match_id=besides)
    rows = (seats
            .values_list("index", "match_id", "match__game", "match__waiting_on", "match__turn_started_at"))
    waiting = [Waiting(match_id, game, since) for index, match_id, game, on, since in rows if index in (on or [])]
    return sorted(waiting, key=lambda w: (w.since is None, w.since, w.match_id))
