"""The history's reads: a player's results and every finished match a viewer may see (with the filters built
once for both), the players a typed name may mean and the names that begin with what is typed, and a match read
with its seats (the replay and the export)."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from django.db.models import Prefetch, Q, QuerySet, Value
from django.db.models.functions import Lower
from django.utils import timezone

from accounts.models import NameKey, User, Viewer
from accounts.names import name_keys, same_name, skeleton

from ..models import FinishedMatch, Match, PlayerResult, Seat
from ..play.wording import undistinct_name

# At most this many players are listed for a name several people share, and suggested for what is typed.
CANDIDATES = 10
SUGGESTIONS = 10
# A choice among people who share a name names one by their username too: "Bob B. (@bob)" (a username has no
# space, so no username is written so).
_CHOSEN = re.compile(r"^(?P<name>.*\S) \(@(?P<username>[^\s()]+)\)$")


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


def player_results(*, subject: User, viewer: Viewer, filters: dict[str, Any],
                   opponent: User | None = None) -> QuerySet[PlayerResult]:
    """The subject's results, newest first (only those against `opponent`, when given); another viewer sees the
    private ones they played in too."""
    results = PlayerResult.objects.filter(user=subject)
    if opponent is not None:
        results = results.filter(match_id__in=Seat.objects.filter(user=opponent).values("match_id"))
    if not (viewer.is_authenticated and viewer.pk == subject.pk):
        results = results.filter(_visible_results(viewer))
    if filters.get("result"):
        results = results.filter(outcome=filters["result"])
    return results.filter(_history_filters(filters, bots_field="vs_bots")).order_by("-finished_at", "-match_id")


def finished_matches(*, viewer: Viewer, filters: dict[str, Any]) -> QuerySet[FinishedMatch]:
    """Every finished match the viewer may see (public ones and their own), newest first."""
    listings = FinishedMatch.objects.filter(_visible_results(viewer))
    return listings.filter(_history_filters(filters, bots_field="with_bots")).order_by("-finished_at", "-match_id")


def _people() -> QuerySet[User]:
    return User.objects.annotate(username_lower=Lower("username"), display_lower=Lower("display_name"))


def players_named(text: str) -> list[User]:
    """The players a typed name may mean, oldest account first (at most CANDIDATES): its shown name (the display
    name, a bot's "Ruhd Regular (bot)"), its username, in any case, or a name that would be taken for either
    (accounts.names); a name as a history row numbers it ("Ruhd Regular 2 (bot)") finds its player, and
    "Name (@username)" names one of those who share a name. None for a blank name; several only where names
    were shared before they were compared (accounts/migrations/0005): the page then lists them rather than guess.

    One query (two for a numbered name or a choice): the name keys' unique index, and Lower() on both sides of
    the username and display name, so that both databases use the user_username_lower and
    user_display_name_lower indexes (SQLite's LIKE and PostgreSQL's UPPER() each scanned the users table). The
    three are a union rather than one OR: PostgreSQL cannot combine an index with a subquery's IN, and walked
    every user in id order."""
    name = " ".join(text.split())
    if not name:
        return []
    chosen = _CHOSEN.match(name)
    if chosen is not None:
        person = _people().filter(Q(username_lower=Lower(Value(chosen["username"])))).order_by("pk").first()
        if person is not None and same_name(person.name, chosen["name"]):
            return [person]
    lowered = Lower(Value(name))
    arms = [_people().filter(Q(username_lower=lowered)), _people().filter(Q(display_lower=lowered))]
    keys = name_keys(name)
    if keys:
        arms.append(_people().filter(pk__in=NameKey.objects.filter(key__in=keys).values("user_id")))
    found = list(arms[0].union(*arms[1:]).order_by("pk")[:CANDIDATES])
    unnumbered = undistinct_name(name) if not found else None
    return players_named(unnumbered) if unnumbered else found


def name_suggestions(text: str) -> list[User]:
    """The people (and bots) whose shown name or username begins with what is typed, in any case and look-alikes
    folded as accounts.names folds them, alphabetically, at most SUGGESTIONS; none for a blank text.

    One query: a range of the name keys' unique index (each name's lower-case key begins as the typed text's
    lower-case skeleton begins), with the users joined; suspended people are left out."""
    start = skeleton(text, str.casefold)
    if not start:
        return []
    keys = (NameKey.objects.filter(key__gte=start, key__lt=start + "\U0010ffff", key__startswith=start,
                                   user__is_active=True)
            .select_related("user").only("key", "user__username", "user__display_name", "user__avatar",
                                         "user__avatar_choice", "user__is_bot", "user__program")
            .order_by("key")[:SUGGESTIONS * 4])  # a person holds up to four keys
    people: dict[int, User] = {}
    for key in keys:
        people.setdefault(key.user_id, key.user)
    return list(people.values())[:SUGGESTIONS]
