"""The lobby's reads: its three lists for a person (their matches, those waiting for players, those to watch, the
best-rated first)."""

from __future__ import annotations

from statistics import fmean

from django.db.models import Prefetch, QuerySet

from accounts.models import Viewer

from ..models import Match, Seat
from ..play.wording import distinct_names
from ..ratings.read import ratings_by_game

# What the lobby's lists show of a match and its players: its game, status, players and links. The rest (the
# state, options, result and clock JSON, decoded for every match listed; the players' passwords and emails)
# stays in the database: the lists read 56 matches for every lobby page and every redraw of its socket.
LIST_FIELDS = ("id", "game", "players", "status", "is_public", "created_by", "created_at", "updated_at",
               "started_at", "waiting_on")
LIST_SEAT_FIELDS = ("id", "match_id", "index", "user_id", "invite_only", "user__id", "user__username",
                    "user__display_name", "user__avatar", "user__avatar_choice", "user__is_bot")


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
    # From the matches waiting or in progress (an index's range) to this person's seats, not from every seat they
    # ever had to its match: that read grew with each match they finished (issue 41).
    current = Match.objects.filter(status__in=[Match.Status.WAITING, Match.Status.ACTIVE]).values("pk")
    matches = Match.objects.filter(
        pk__in=Seat.objects.filter(user=user, match_id__in=current).values("match_id")
    ).order_by("-updated_at")
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
    return {
        "open_matches": named(open_matches(user)), "my_matches": named(my_matches(user)),
        "watch_matches": named(watchable_matches(user)),
    }


# ---------------------------------------------------------------------------------------------
# "Watch": public matches in progress with their players' ratings, the best-rated tables first (lichess's
# "current games")

SCANNED = 100  # the most recent matches in progress, of which the best-rated are listed


def watchable_matches(user: Viewer, limit: int = 20) -> list[Match]:
    """Public matches in progress (the person's own are listed elsewhere), each with seat_ratings (seat index ->
    the player's rating in the game, whole), best-rated first: by their players' mean rating.

    Four queries: the candidates' ids, their seats with their players, those people's ratings in every game (a
    bot's is its level's, games.ratings.read), then the listed matches, given the seats read already (a query a
    game, and the listed matches' seats read twice, took 8 queries and half the lobby's time; issue 41)."""
    matches = Match.objects.filter(status=Match.Status.ACTIVE, is_public=True)
    if user.is_authenticated:
        matches = matches.exclude(seats__user=user)
    candidates = dict(matches.order_by("-started_at").values_list("pk", "game")[:SCANNED])
    if not candidates:
        return []
    seats = list(Seat.objects.filter(match_id__in=list(candidates)).select_related("user")
                 .only(*LIST_SEAT_FIELDS, "user__bot_level").order_by("index"))
    ratings = ratings_by_game((candidates[seat.match_id], seat.user) for seat in seats if seat.user is not None)
    by_match: dict[int, dict[int, int]] = {}
    seat_lists: dict[int, list[Seat]] = {}
    for seat in seats:
        seat_lists.setdefault(seat.match_id, []).append(seat)
        if seat.user is not None:
            by_match.setdefault(seat.match_id, {})[seat.index] = round(ratings[candidates[seat.match_id], seat.user.pk])
    order = list(candidates)  # newest first: the tie-break
    best = sorted(order, key=lambda pk: (-fmean(by_match[pk].values()) if by_match.get(pk) else 0.0,
                                         order.index(pk)))[:limit]
    rows = {match.pk: match for match in Match.objects.filter(pk__in=best).only(*LIST_FIELDS)}
    listed = [rows[pk] for pk in best if pk in rows]
    for match in listed:
        match.seat_list = seat_lists.get(match.pk, [])
        match.seat_ratings = by_match.get(match.pk, {})
        match.mean_rating = fmean(match.seat_ratings.values()) if match.seat_ratings else 0.0
    return listed
