"""Creating a tournament and entering it: join (with a private one's invite code), pause, come back, withdraw."""

from __future__ import annotations

import hmac
import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.models import User

from ...catalog import GAMES
from ...models import Entrant, Tournament
from ...play.clock import is_correspondence
from ...play.snapshot import ServiceError
from ...ratings.read import rating_of
from .. import news
from .base import (
    ARENA_IS_REAL_TIME,
    ARENA_MINUTES,
    SWISS_ROUNDS,
    after_commit,
    changed,
    clock_of,
    ends_at,
    get_tournament,
    lock,
)
from .ticks import settle

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class NewTournament:
    """A tournament's settings, checked (games.tournaments.services.check_new)."""

    name: str
    kind: str
    game: str
    table_size: int
    clock: dict[str, Any]
    starts_at: datetime
    minutes: int | None
    rounds: int | None


def check_new(
    *, creator: User | None, kind: str, game: str, clock_key: str, starts_at: datetime, table_size: int = 2,
    minutes: int | None = None, rounds: int | None = None, name: str = "", is_private: bool = False,
) -> NewTournament:
    """The settings of a new tournament, or ServiceError with what is wrong (the admin's form shows it too)."""
    if game not in GAMES:
        raise ServiceError("Choose one of the four games.")
    if kind not in Tournament.Kind.values:
        raise ServiceError("A tournament is an arena or a Swiss.")
    if creator is not None and (creator.is_bot or not creator.is_active):
        raise ServiceError("Only people may create tournaments.")
    if creator is not None and not creator.is_staff and not is_private:
        raise ServiceError("Only the club's staff schedule public tournaments: make yours private.")
    engine = GAMES[game].engine
    if not max(2, engine.min_players) <= table_size <= engine.max_players:
        raise ServiceError(f"{engine.name} is for tables of {max(2, engine.min_players)} to {engine.max_players}.")
    clock = clock_of(clock_key)
    if kind == Tournament.Kind.ARENA and is_correspondence(clock):
        raise ServiceError(ARENA_IS_REAL_TIME)
    if kind == Tournament.Kind.ARENA:
        if minutes is None or not ARENA_MINUTES[0] <= minutes <= ARENA_MINUTES[1]:
            raise ServiceError(f"An arena lasts {ARENA_MINUTES[0]} to {ARENA_MINUTES[1]} minutes.")
        rounds = None
    else:
        if rounds is None or not SWISS_ROUNDS[0] <= rounds <= SWISS_ROUNDS[1]:
            raise ServiceError(f"A Swiss has {SWISS_ROUNDS[0]} to {SWISS_ROUNDS[1]} rounds.")
        minutes = None
    now = timezone.now()
    if starts_at < now - timedelta(minutes=1):
        raise ServiceError("Choose a start in the future.")
    if starts_at > now + timedelta(days=60):
        raise ServiceError("Choose a start within the next 60 days.")
    name = " ".join(name.split())[:80] or f"{GAMES[game].name} {Tournament.Kind(kind).label}"
    return NewTournament(name, kind, game, table_size, clock, starts_at, minutes, rounds)


def create_tournament(
    *, creator: User | None, kind: str, game: str, clock_key: str, starts_at: datetime, table_size: int = 2,
    minutes: int | None = None, rounds: int | None = None, name: str = "", is_private: bool = False,
    rated: bool = True, series: str = "",
) -> Tournament:
    """A new tournament. Staff (and the scheduling command, creator None) make listed ones; anyone signed in makes
    a private one, joined with its invite link."""
    new = check_new(creator=creator, kind=kind, game=game, clock_key=clock_key, starts_at=starts_at,
                    table_size=table_size, minutes=minutes, rounds=rounds, name=name, is_private=is_private)
    try:
        with transaction.atomic():
            tournament = Tournament.objects.create(
                name=new.name, kind=new.kind, game=new.game, table_size=new.table_size, clock=new.clock,
                starts_at=new.starts_at, minutes=new.minutes, rounds=new.rounds, rated=rated, is_private=is_private,
                series=series, created_by=creator,
            )
    except IntegrityError:
        raise ServiceError("That series already has a tournament at that time.") from None
    after_commit(news.lists_changed)
    return tournament


def may_enter(tournament: Tournament, code: str) -> bool:
    """A private tournament is entered with its invite link only."""
    return not tournament.is_private or hmac.compare_digest(code.encode(), tournament.invite_code.encode())


def join(*, tournament_id: int, user: User, code: str = "", now: datetime | None = None) -> Entrant:
    """Enter a tournament (before it starts; an arena also while it runs), or come back after withdrawing."""
    now = now or timezone.now()
    if user.is_bot or not user.is_active or not user.is_authenticated:
        raise ServiceError("Sign in to play in tournaments.")
    if user.program:  # lichess's rule: tournaments are for people (README, the Bot API)
        raise ServiceError("Bots play by challenge only: tournaments are for people.")
    with transaction.atomic():
        lock(tournament_id)
        tournament = get_tournament(tournament_id)
        entrant = Entrant.objects.filter(tournament=tournament, user=user).first()
        if entrant is None and not may_enter(tournament, code):
            raise ServiceError("This tournament is private: ask for its invite link.")
        if tournament.status in (Tournament.Status.FINISHED, Tournament.Status.CANCELLED):
            raise ServiceError("This tournament is over.")
        if tournament.status == Tournament.Status.RUNNING:
            if tournament.kind == Tournament.Kind.SWISS and entrant is None:
                raise ServiceError("This Swiss has started: it takes no new players.")
            end = ends_at(tournament)
            if end is not None and now >= end:
                raise ServiceError("This arena's time is up.")
        if entrant is None:
            entrant = Entrant.objects.create(tournament=tournament, user=user, joined_at=now,
                                             rating=rating_of(user, tournament.game), free_since=now)
        elif entrant.withdrawn or entrant.paused:
            entrant.withdrawn = entrant.paused = False
            entrant.free_since = now
            entrant.save(update_fields=["withdrawn", "paused", "free_since"])
        after_commit(lambda: settle(tournament_id))
        after_commit(lambda: changed(tournament_id, lists=True))
    return entrant


def _entrant_of(tournament_id: int, user: User) -> Entrant:
    entrant = Entrant.objects.select_for_update().filter(tournament_id=tournament_id, user=user).first()
    if entrant is None:
        raise ServiceError("You are not in this tournament.")
    return entrant


def pause(*, tournament_id: int, user: User) -> None:
    """Not paired again until they come back (the match they are at, if any, goes on)."""
    with transaction.atomic():
        lock(tournament_id)
        entrant = _entrant_of(tournament_id, user)
        if not entrant.paused and not entrant.withdrawn:
            entrant.paused = True
            entrant.save(update_fields=["paused"])
        after_commit(lambda: news.changed(tournament_id))


def resume(*, tournament_id: int, user: User, now: datetime | None = None) -> None:
    """Back from a pause: free to be paired again at once."""
    join(tournament_id=tournament_id, user=user, now=now)


def withdraw(*, tournament_id: int, user: User) -> None:
    """Leave the tournament: before its start the entry goes; after, the results stay on the standings and
    they are paired no more (a match they are at goes on: leaving it loses it)."""
    with transaction.atomic():
        lock(tournament_id)
        tournament = get_tournament(tournament_id)
        entrant = _entrant_of(tournament_id, user)
        if tournament.status == Tournament.Status.UPCOMING:
            entrant.delete()
        elif not entrant.withdrawn:
            entrant.withdrawn, entrant.paused = True, False
            entrant.save(update_fields=["withdrawn", "paused"])
        after_commit(lambda: settle(tournament_id))
        after_commit(lambda: changed(tournament_id, lists=True))
