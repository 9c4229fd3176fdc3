"""Pairing, under the tournament's lock in the transaction that creates the matches: an arena seats whoever is
free (games.tournaments.arena decides who sits with whom), a Swiss its next round (games.tournaments.swiss)."""

from __future__ import annotations

import logging
from datetime import datetime

from django.db import transaction
from django.utils import timezone

from ... import boards
from ...models import Entrant, Match, Tournament, TournamentBye, TournamentGame
from ...notify.goto import send_to_match
from ...play.create import create_table
from ...play.snapshot import ServiceError
from .. import arena, news, points, swiss
from .base import after_commit, ends_at, get_tournament, lock, min_table

log = logging.getLogger(__name__)


def _make_table(tournament: Tournament, entrants: list[Entrant], *, round: int, now: datetime) -> Match:
    """One tournament match, full and dealt, in the caller's transaction; its entrants are no longer free."""
    match = create_table(game=tournament.game, people=[e.user for e in entrants], clock=tournament.clock,
                         rated=tournament.rated, is_public=not tournament.is_private)
    # Stamped when made: `now` may have been read before the lock was taken, and a player freed meanwhile would
    # seem seated before their last match ended.
    TournamentGame.objects.create(tournament=tournament, match=match, round=round,
                                  created_at=max(now, timezone.now()))
    ids = [e.pk for e in entrants]
    claimed = Entrant.objects.filter(pk__in=ids, match__isnull=True).update(match=match)
    if claimed != len(ids):  # cannot happen under the lock: never seat anyone twice
        raise RuntimeError(f"tournament {tournament.pk} lost {len(ids) - claimed} claimed entrants")
    for entrant in entrants:
        others = [e.user_id for e in entrants if e.pk != entrant.pk]
        Entrant.objects.filter(pk=entrant.pk).update(last_opponents=others)
    return match


def announce(tournament_id: int, made: list[tuple[Match, list[int]]]) -> None:
    for match, user_ids in made:
        send_to_match(match, user_ids)
    news.changed(tournament_id)


def pair_arena(tournament_id: int, *, now: datetime | None = None) -> list[Match]:
    """Seat every free arena player who can be seated now (games.tournaments.arena's rule); the matches made."""
    now = now or timezone.now()
    made: list[tuple[Match, list[int]]] = []
    with transaction.atomic():
        lock(tournament_id)
        tournament = get_tournament(tournament_id)
        end = ends_at(tournament)
        if tournament.kind != Tournament.Kind.ARENA or tournament.status != Tournament.Status.RUNNING or (
                end is not None and now >= end):
            return []
        entrants = Entrant.objects.filter(tournament=tournament)
        free = {e.user_id: e for e in entrants.filter(match__isnull=True, paused=False, withdrawn=False,
                                                       user__is_active=True)
                .select_related("user").select_for_update(of=("self",))}
        for user_id in boards.holders(free):  # seated elsewhere: paused here until that match ends
            del free[user_id]
        if len(free) < min_table(tournament.game):
            return []
        anyone_playing = entrants.filter(match__isnull=False).exists()
        rows = [arena.Free(e.user_id, e.score, e.rating, e.free_since or e.joined_at, frozenset(e.last_opponents))
                for e in free.values()]
        for table in arena.tables(rows, tournament.table_size, min_table=min_table(tournament.game), now=now,
                                  anyone_playing=anyone_playing):
            seated = [free[user_id] for user_id in table]
            try:
                with transaction.atomic():  # a savepoint: a table the gate refuses is not made, the others are
                    made.append((_make_table(tournament, seated, round=0, now=now), table))
            except ServiceError:  # one of them was seated by another road at this very moment
                log.info("arena %s: a table was refused by the gate", tournament_id)
        if made:
            after_commit(lambda: announce(tournament_id, made))
    return [match for match, _ in made]


def _met(tournament: Tournament) -> dict[int, set[int]]:
    """Who has played whom in this tournament (user ids): the tables on the sheets, so an aborted match (a no-show)
    or an annulled one is no meeting, as it is no game in the standings, and its players may be paired again."""
    tables: dict[int, list[int]] = {}
    for user_id, sheet in Entrant.objects.filter(tournament=tournament).values_list("user_id", "sheet"):
        for line in sheet:
            if line.get("m"):
                tables.setdefault(int(line["m"]), []).append(user_id)
    met: dict[int, set[int]] = {}
    for users in tables.values():
        for user_id in users:
            met.setdefault(user_id, set()).update(u for u in users if u != user_id)
    return met


def pair_swiss_round(tournament: Tournament, now: datetime) -> list[tuple[Match, list[int]]]:
    """The next Swiss round: tables (games.tournaments.swiss) and byes, written in the caller's transaction."""
    entrants = {e.user_id: e for e in Entrant.objects.filter(tournament=tournament, paused=False, withdrawn=False,
                                                             user__is_active=True)
                .select_related("user").select_for_update(of=("self",))}
    # Seated elsewhere: sits this round out (no bye: not the Swiss's doing). Not for a correspondence round, which
    # binds no one: a real-time match elsewhere ends long before its days do.
    for user_id in boards.holders(entrants) if boards.is_clocked(tournament.clock) else ():
        del entrants[user_id]
    met = _met(tournament)
    byes: dict[int, int] = {}
    for user_id in TournamentBye.objects.filter(tournament=tournament).values_list("user_id", flat=True):
        byes[user_id] = byes.get(user_id, 0) + 1
    plan = swiss.pair_round(
        [swiss.Entrant(e.user_id, e.score, e.rating, frozenset(met.get(e.user_id, ())), byes.get(e.user_id, 0))
         for e in entrants.values()],
        table_size=tournament.table_size, min_table=min_table(tournament.game),
    )
    tournament.round += 1
    tournament.save(update_fields=["round"])
    made = []
    for table in plan.tables:
        made.append((_make_table(tournament, [entrants[u] for u in table], round=tournament.round, now=now), table))
    for user_id in plan.byes:
        TournamentBye.objects.create(tournament=tournament, user_id=user_id, round=tournament.round)
        entrant = entrants[user_id]
        scored, entrant.streak = points.score(points.BYE, entrant.streak, arena=False)
        entrant.sheet = [*entrant.sheet, {"m": None, "r": points.BYE, "p": scored.points, "x": False,
                                          "round": tournament.round}]
        entrant.score += scored.points
        entrant.save(update_fields=["sheet", "streak", "score"])
    return made
