"""The tournament lists (the lists page's and the lobby's) and a person's tournaments (their profile), as
display-ready rows. One tournament's page is games.tournaments.display. Nothing here writes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from django.db.models import Count, Q, QuerySet
from django.utils import timezone

from accounts.models import User, Viewer

from ..catalog import GAMES
from ..models import Entrant, Tournament
from ..play.clock import clock_label
from . import services
from .places import Place

LIST_LIMIT = 30

# ---------------------------------------------------------------------------------------------------------------
# The lists


@dataclass(frozen=True)
class ListRow:
    """One tournament in a list: what it is, when, how many play, and whether the person is in it."""

    id: int
    url: str
    name: str
    game_name: str
    kind_label: str
    clock_label: str
    length: str  # "30 min" or "5 rounds"
    status: str
    starts_at: datetime
    ends_at: datetime | None
    finished_at: datetime | None
    players: int
    private: bool
    entered: bool
    may_join: bool  # a public one the person may enter from a list (a private one needs its page's invite)


def _listed(user: Viewer) -> QuerySet[Tournament]:
    shown = Q(is_private=False)
    if user.is_authenticated:
        shown |= Q(created_by=user) | Q(entrants__user=user)
    return (Tournament.objects.filter(pk__in=Tournament.objects.filter(shown).values("pk"))
            .annotate(players=Count("entrants", filter=Q(entrants__withdrawn=False))))


def _rows(tournaments: QuerySet[Tournament], user: Viewer) -> list[ListRow]:
    found = list(tournaments)
    entered: set[int] = set()
    if user.is_authenticated and found:
        entered = set(Entrant.objects.filter(user=user, withdrawn=False, tournament__in=[t.pk for t in found])
                      .values_list("tournament_id", flat=True))
    return [ListRow(
        id=t.pk, url=t.get_absolute_url(), name=t.name, game_name=GAMES[t.game].name,
        kind_label=t.get_kind_display(), clock_label=clock_label(t.clock), length=length_text(t),
        status=t.status, starts_at=t.starts_at, ends_at=services.ends_at(t), finished_at=t.finished_at,
        players=getattr(t, "players", 0), private=t.is_private, entered=t.pk in entered,
        may_join=(user.is_authenticated and not t.is_private and t.pk not in entered and _open(t, timezone.now())),
    ) for t in found]


def _open(t: Tournament, now: datetime) -> bool:
    """Taking new players: before its start, or an arena before its end (services.join's rule)."""
    if t.status == Tournament.Status.UPCOMING:
        return True
    end = services.ends_at(t)
    return t.status == Tournament.Status.RUNNING and end is not None and now < end


def length_text(t: Tournament) -> str:
    if t.kind == Tournament.Kind.ARENA:
        return f"{t.minutes} min"
    return f"{t.rounds} round{'s' if t.rounds != 1 else ''}"


def tournament_lists(user: Viewer, *, finished: bool = True) -> dict[str, list[ListRow]]:
    """Upcoming (soonest first), running, and (with `finished`) the latest finished tournaments this person may
    see: the public ones, and the private ones they made or entered."""
    listed = _listed(user)
    lists = {
        "upcoming": _rows(listed.filter(status=Tournament.Status.UPCOMING).order_by("starts_at")[:LIST_LIMIT], user),
        "running": _rows(listed.filter(status=Tournament.Status.RUNNING).order_by("starts_at")[:LIST_LIMIT], user),
    }
    if finished:
        lists["finished"] = _rows(listed.filter(status=Tournament.Status.FINISHED)
                                  .order_by("-finished_at")[:LIST_LIMIT], user)
    return lists


# ---------------------------------------------------------------------------------------------------------------
# A person's tournaments (their profile)


@dataclass(frozen=True)
class Entry:
    """A tournament someone played in, with their place (or how it stands)."""

    url: str
    name: str
    game_name: str
    kind_label: str
    status: str
    when: datetime
    place: Place
    players: int
    score: int


def tournaments_of(person: User, viewer: Viewer, limit: int = 20) -> list[Entry]:
    """A person's tournaments, newest first: the public ones to anyone, the private ones on their own profile."""
    entries = (Entrant.objects.filter(user=person)
               .exclude(tournament__status=Tournament.Status.CANCELLED)
               .select_related("tournament").order_by("-tournament__starts_at")
               .annotate(players=Count("tournament__entrants")))
    if not (viewer.is_authenticated and viewer.pk == person.pk):
        entries = entries.filter(tournament__is_private=False)
    found = list(entries[:limit])
    shared = _shared(found)
    rows = []
    for entrant in found:
        t = entrant.tournament
        rows.append(Entry(
            url=t.get_absolute_url(), name=t.name, game_name=GAMES[t.game].name, kind_label=t.get_kind_display(),
            status=t.status, when=t.finished_at or t.starts_at,
            place=Place(entrant.place, (t.pk, entrant.place) in shared),
            players=getattr(entrant, "players", 0), score=entrant.score,
        ))
    return rows


def _shared(entries: Sequence[Entrant]) -> set[tuple[int, int | None]]:
    """(tournament, place) pairs held by more than one entrant, for these entries' places: one query."""
    placed = [e for e in entries if e.place is not None]
    if not placed:
        return set()
    found = (Entrant.objects.filter(tournament_id__in={e.tournament_id for e in placed},
                                    place__in={e.place for e in placed})
             .values("tournament_id", "place").annotate(holders=Count("pk")).filter(holders__gt=1))
    return {(row["tournament_id"], row["place"]) for row in found}
