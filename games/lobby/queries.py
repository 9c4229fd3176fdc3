"""The lobby's reads: its three lists for a person (their matches, those waiting for players, those to watch, the
best-rated first)."""

from __future__ import annotations

from dataclasses import dataclass
from statistics import fmean

from django.db.models import QuerySet

from accounts.models import PERSON_FIELDS, PersonRow, Viewer

from ..models import Match, Seat
from ..play.wording import distinct_names
from ..ratings.read import ratings_by_game

# What the lobby's lists show of a match and its players: its game, status, players and links. The rest (the
# state, options, result and clock JSON, decoded for every match listed; the players' passwords and emails)
# stays in the database: the lists read 56 matches for every lobby page and every redraw of its socket.
LIST_FIELDS = ("id", "game", "players", "status", "is_public", "created_by", "created_at", "updated_at",
               "started_at", "waiting_on")
LIST_SEAT_FIELDS = ("match_id", "index", "user_id", "invite_only", "user__bot_level",
                    *(f"user__{name}" for name in PERSON_FIELDS))


@dataclass(frozen=True)
class ListPlayer(PersonRow):
    """A seat's player as the lists show them, with the bot level Watch rates a bot by."""

    bot_level: str = ""


@dataclass(frozen=True)
class ListSeat:
    """One seat of a listed match, as plain values (match.list_seats): the lists read every seat of up to 150
    matches for every lobby page, and building a Seat and a User for each was half the page's time (issue 47)."""

    index: int
    user_id: int | None
    invite_only: bool
    user: ListPlayer | None


def _seats_of(match_ids: list[int]) -> dict[int, list[ListSeat]]:
    """Every seat of these matches with its player, by match, in seat order (one query)."""
    seats: dict[int, list[ListSeat]] = {match_id: [] for match_id in match_ids}
    rows = Seat.objects.filter(match_id__in=match_ids).order_by("match_id", "index").values(*LIST_SEAT_FIELDS)
    for row in rows:
        user_id = row["user_id"]
        player = None if user_id is None else ListPlayer(
            pk=user_id, username=row["user__username"], display_name=row["user__display_name"],
            avatar=row["user__avatar"], avatar_choice=row["user__avatar_choice"], is_bot=row["user__is_bot"],
            program=row["user__program"], bot_level=row["user__bot_level"] or "")
        seats[row["match_id"]].append(ListSeat(row["index"], user_id, row["invite_only"], player))
    return seats


def _with_seats(matches: QuerySet[Match]) -> list[Match]:
    """The matches (read with .only(*LIST_FIELDS)) with their seats and players as match.list_seats (two queries)."""
    listed = list(matches)
    seats = _seats_of([match.pk for match in listed])
    for match in listed:
        match.list_seats = seats[match.pk]
    return listed


def open_matches(user: Viewer, limit: int = 30) -> list[Match]:
    """Public matches waiting for players that this person could join (an open seat, not theirs)."""
    matches = Match.objects.filter(status=Match.Status.WAITING, is_public=True, seats__user__isnull=True,
                                   seats__invite_only=False)
    if user.is_authenticated:
        matches = matches.exclude(seats__user=user)
    return _with_seats(matches.distinct().order_by("-created_at").only(*LIST_FIELDS)[:limit])


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
    rows = _with_seats(matches.only(*LIST_FIELDS)[:limit])
    for match in rows:  # what the list offers besides opening it (the deciders decide again on the click)
        others = [seat for seat in match.list_seats if seat.user_id != user.pk]
        mine = next((seat for seat in match.list_seats if seat.user_id == user.pk), None)
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
    seats = {seat.index: (position, seat) for position, seat in enumerate(match.list_seats)}
    given = distinct_names([seat.user.name if seat.user else "" for seat in match.list_seats])
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
        match.seat_names = distinct_names([seat.user.name if seat.user else "" for seat in match.list_seats])
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
    seat_lists = _seats_of(list(candidates))
    ratings = ratings_by_game((candidates[match_id], seat.user) for match_id, seats in seat_lists.items()
                              for seat in seats if seat.user is not None)
    by_match: dict[int, dict[int, int]] = {}
    for match_id, seats in seat_lists.items():
        for seat in seats:
            if seat.user is not None:
                by_match.setdefault(match_id, {})[seat.index] = round(ratings[candidates[match_id], seat.user.pk])
    order = list(candidates)  # newest first: the tie-break
    best = sorted(order, key=lambda pk: (-fmean(by_match[pk].values()) if by_match.get(pk) else 0.0,
                                         order.index(pk)))[:limit]
    rows = {match.pk: match for match in Match.objects.filter(pk__in=best).only(*LIST_FIELDS)}
    listed = [rows[pk] for pk in best if pk in rows]
    for match in listed:
        match.list_seats = seat_lists.get(match.pk, [])
        match.seat_ratings = by_match.get(match.pk, {})
        match.mean_rating = fmean(match.seat_ratings.values()) if match.seat_ratings else 0.0
    return listed
