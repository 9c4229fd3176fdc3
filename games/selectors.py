"""Reads: lobby lists, match lookups, presence, the matches due for their bots or clocks, the histories, the
leaderboard and a player's figures. Keyword-only, and no writes here."""

from __future__ import annotations

import datetime as dt
import hmac
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db.models import BooleanField, Case, Prefetch, Q, QuerySet, Value, When
from django.db.models.functions import Lower
from django.utils import timezone

from accounts.models import User, Viewer

from . import models
from .models import FinishedMatch, Match, PlayerResult, PlayerStats, Seat

PRESENCE_STALE_SECONDS = 45  # a socket without a heartbeat for this long is gone


def _with_seats(matches: QuerySet[Match]) -> QuerySet[Match]:
    return matches.prefetch_related(Prefetch("seats", queryset=Seat.objects.select_related("user").order_by("index")))


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


def match_for_viewer(match_id: int) -> Match | None:
    return _with_seats(Match.objects.filter(pk=match_id)).select_related("rematch").first()


def code_matches(given: object, invite_code: str) -> bool:
    """Whether a visitor's code is the match's invite code: compared in constant time, and as UTF-8 bytes, so
    any text a visitor sends is a plain "no" (compare_digest refuses non-ASCII str)."""
    return (isinstance(given, str) and bool(given) and bool(invite_code)
            and hmac.compare_digest(given.encode(), invite_code.encode()))


def may_watch(*, is_public: bool, seated: bool, invite_code: str, given: str) -> bool:
    """The one rule for looking at a match (its page, socket, replay and export): it is public, the person holds
    a seat in it (even one a bot plays since they left), or they have its invite code."""
    return is_public or seated or code_matches(given, invite_code)


def can_watch(match: Match, user: Viewer, code: str) -> bool:
    seated = user.is_authenticated and any(seat.user_id == user.pk for seat in match.seats.all())
    return may_watch(is_public=match.is_public, seated=seated, invite_code=match.invite_code, given=code)


@dataclass(frozen=True)
class Presence:
    """A seat's presence, read from the Presence table: sockets whose heartbeat is recent."""

    present: bool
    away_since: datetime | None  # the last sign of life of an absent seat


def away_seconds_left(presence: Presence | None, waiting_since: datetime | None, now: datetime | None = None) -> int:
    """Seconds before an absent player's seat may be claimed; 0 once it may; the full wait if present.

    The clock runs while the player is away *and* the game waits on them: from the later of their last
    sign of life and waiting_since (the match's turn_started_at), so a player who left during the
    opponent's long turn still gets the full wait once it is their turn."""
    wait = settings.GAMES_ABANDON_SECONDS
    if presence is None or presence.present:
        return wait
    since = max((t for t in (presence.away_since, waiting_since) if t is not None), default=None)
    if since is None:
        return 0
    elapsed = ((now or timezone.now()) - since).total_seconds()
    return max(0, int(wait - elapsed + 0.999))



def presence_of(match_id: int) -> dict[int, Presence]:
    """Each seat's presence now (two small queries)."""
    return attendance(match_id)[0]


def attendance(match_id: int) -> tuple[dict[int, Presence], int]:
    """Each seat's presence now, and how many spectators watch (two small queries)."""
    now = timezone.now()
    fresh_after = now - timedelta(seconds=PRESENCE_STALE_SECONDS)
    seen: dict[int, list[datetime]] = {}
    watchers = 0
    for seat, last_seen in models.Presence.objects.filter(match_id=match_id).values_list("seat", "last_seen"):
        if seat is None:
            watchers += last_seen > fresh_after
        else:
            seen.setdefault(seat, []).append(last_seen)
    out = {}
    for seat, left, joined in Seat.objects.filter(match_id=match_id).values_list("index", "last_seen", "joined_at"):
        times = seen.get(seat, [])
        present = any(t > fresh_after for t in times)
        away_since = max((t for t in (*times, left or joined) if t is not None), default=None)
        out[seat] = Presence(present, None if present else away_since)
    return out, watchers



def due_bot_matches(limit: int = 50) -> list[tuple[int, int]]:
    """(match id, version) of active matches whose bots are due to act or whose clock ran out."""
    now = timezone.now()
    active = Match.objects.filter(status=Match.Status.ACTIVE)
    bots = active.filter(bot_due_at__lte=now).order_by("bot_due_at").values_list("id", "version")[:limit]
    clocks = active.filter(clock_due_at__lte=now).order_by("clock_due_at").values_list("id", "version")[:limit]
    return list(dict.fromkeys([*clocks, *bots]))


# ---------------------------------------------------------------------------------------------
# Writing


# The match columns a change may write (everything else is fixed at creation).


# ---------------------------------------------------------------------------------------------
# History, leaderboard and statistics

LEADERBOARD_SIZE = 100
# A rating is provisional (shown with a "?", as lichess does) until it rests on this many rated matches and
# its deviation has come down to PROVISIONAL_DEVIATION (lichess's own threshold): about 10 matches against
# bots, 14 between new people.
LEADERBOARD_MIN_MATCHES = 10
PROVISIONAL_DEVIATION = 110.0
ESTABLISHED = Q(rated_matches__gte=LEADERBOARD_MIN_MATCHES, deviation__lte=PROVISIONAL_DEVIATION)


def _day_start(day: dt.date) -> dt.datetime:
    return timezone.make_aware(dt.datetime.combine(day, dt.time.min))


def _visible_results(viewer: Viewer) -> Q:
    """The finished matches a viewer may see in a history: the public ones, and the private ones they played."""
    visible = Q(is_public=True)
    if viewer.is_authenticated:
        visible |= Q(match_id__in=PlayerResult.objects.filter(user=viewer).values("match_id"))
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


def find_player(*, username: str) -> Any:
    """The user with this username (any case), or None.

    Lower() on both sides, rather than __iexact, so that both databases use the user_username_lower
    index (SQLite's LIKE and PostgreSQL's UPPER() each scanned the users table)."""
    name = username.strip()
    if not name:
        return None
    users = get_user_model().objects.annotate(username_lower=Lower("username"))
    return users.filter(username_lower=Lower(Value(name))).order_by("pk").first()


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
