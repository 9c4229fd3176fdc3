"""The tournament's course: the start, settling what its state calls for now (pair, advance a Swiss round,
finish), and the runner's tick that every process runs each second."""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime

from django.db import transaction
from django.utils import timezone

from accounts.models import User

from ...models import Entrant, Match, Tournament, TournamentGame
from ...notify.mail import queue as mail
from ...play.snapshot import ServiceError
from .. import news
from .base import after_commit, ends_at, get_tournament, lock
from .pairing import announce, pair_arena, pair_swiss_round
from .scoring import place_finished, store_tiebreaks

log = logging.getLogger(__name__)


def start(tournament_id: int, *, now: datetime | None = None) -> None:
    """The start time came (or the creator of a private one started it early): an arena pairs whoever is there;
    a Swiss pairs its first round (or is cancelled with fewer than two players)."""
    now = now or timezone.now()
    made: list[tuple[Match, list[int]]] = []
    with transaction.atomic():
        lock(tournament_id)
        tournament = get_tournament(tournament_id)
        if tournament.status != Tournament.Status.UPCOMING:
            return
        tournament.status, tournament.started_at = Tournament.Status.RUNNING, now
        players = Entrant.objects.filter(tournament=tournament, withdrawn=False, paused=False).count()
        if tournament.kind == Tournament.Kind.SWISS and players < 2:
            tournament.status, tournament.finished_at = Tournament.Status.CANCELLED, now
        tournament.save(update_fields=["status", "started_at", "finished_at"])
        if tournament.status == Tournament.Status.RUNNING and tournament.kind == Tournament.Kind.SWISS:
            made = pair_swiss_round(tournament, now)
        after_commit(lambda: announce(tournament_id, made))
        after_commit(news.lists_changed)
        if tournament.status == Tournament.Status.RUNNING:
            mail.tournament_started(tournament_id)  # queued after the commit, for those who asked for it
    settle(tournament_id, now=now)


def start_early(*, tournament_id: int, user: User) -> None:
    """The creator of a private tournament starts it now (everyone they invited is there)."""
    tournament = get_tournament(tournament_id)
    if not tournament.is_private or tournament.created_by_id != user.pk:
        raise ServiceError("Only the creator of a private tournament may start it early.")
    if tournament.status != Tournament.Status.UPCOMING:
        raise ServiceError("It has started already.")
    Tournament.objects.filter(pk=tournament_id, status=Tournament.Status.UPCOMING).update(starts_at=timezone.now())
    start(tournament_id)


def settle(tournament_id: int, *, now: datetime | None = None) -> None:
    """Whatever the tournament's state calls for now: an arena pairs its free players (or, time up and every
    match over, finishes); a Swiss whose round is over pairs the next (or finishes after the last)."""
    now = now or timezone.now()
    tournament = Tournament.objects.filter(pk=tournament_id).first()
    if tournament is None or tournament.status != Tournament.Status.RUNNING:
        return
    if tournament.kind == Tournament.Kind.ARENA:
        end = ends_at(tournament)
        if end is not None and now >= end:
            _finish_if_over(tournament_id, now)
        else:
            pair_arena(tournament_id, now=now)
        return
    _advance_swiss(tournament_id, now)


def _advance_swiss(tournament_id: int, now: datetime) -> None:
    made: list[tuple[Match, list[int]]] = []
    with transaction.atomic():
        lock(tournament_id)
        tournament = get_tournament(tournament_id)
        if tournament.status != Tournament.Status.RUNNING or TournamentGame.objects.filter(
                tournament=tournament, round=tournament.round, counted_at__isnull=True).exists():
            return
        store_tiebreaks(tournament)
        active = Entrant.objects.filter(tournament=tournament, withdrawn=False, paused=False).count()
        if tournament.round >= (tournament.rounds or 0) or active < 2:
            _finish(tournament, now)
        else:
            made = pair_swiss_round(tournament, now)
        after_commit(lambda: announce(tournament_id, made))


def _finish_if_over(tournament_id: int, now: datetime) -> None:
    with transaction.atomic():
        lock(tournament_id)
        tournament = get_tournament(tournament_id)
        if tournament.status != Tournament.Status.RUNNING:
            return
        if not TournamentGame.objects.filter(tournament=tournament, counted_at__isnull=True).exists():
            _finish(tournament, now)
            after_commit(lambda: news.changed(tournament_id))


def _finish(tournament: Tournament, now: datetime) -> None:
    """The end: final places as the standings write them, kept forever; an entrant with no result (no counted
    game, no bye) has none (nobody is placed for games they never played)."""
    tournament.status, tournament.finished_at = Tournament.Status.FINISHED, now
    tournament.save(update_fields=["status", "finished_at"])
    place_finished(tournament)
    after_commit(news.lists_changed)


def tick(now: datetime | None = None) -> int:
    """The runner's round (every process, every second): start what is due, and settle every running tournament
    (after a restart, this is what goes on pairing). Returns how many tournaments it looked at."""
    now = now or timezone.now()
    due = list(Tournament.objects.filter(status=Tournament.Status.UPCOMING, starts_at__lte=now)
               .values_list("pk", flat=True))
    for tournament_id in due:
        _step(start, tournament_id, now)
    running = list(Tournament.objects.filter(status=Tournament.Status.RUNNING).values_list("pk", flat=True))
    for tournament_id in running:
        _step(settle, tournament_id, now)
    return len(due) + len(running)


def _step(step: Callable[..., None], tournament_id: int, now: datetime) -> None:
    """One tournament's step of the tick; its trouble is its own, and the tick goes on to the others."""
    try:
        step(tournament_id, now=now)
    except ServiceError as error:
        # The gate refused a table: another road seated an entrant between the pairing's look at the boards and
        # its claim. A Swiss round is paired whole or not at all (its plan is global), so it rolled back and the
        # next tick pairs it again, without them.
        log.info("tournament %s: pairing refused (%s); paired again at the next tick", tournament_id, error)
    except Exception:
        log.exception("tournament %s: its step of the tick failed", tournament_id)
