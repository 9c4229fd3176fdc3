"""Counting a finished match (in the transaction that ends it: games.tournaments.record), the standings' order
and tie-breaks, and rebuilding the standings from the matches."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import transaction

from ...models import Entrant, Match, Tournament, TournamentBye, TournamentGame
from ...results import Outcome
from .. import news, points, swiss
from ..places import Place, assign_places
from .base import after_commit, get_tournament, lock

log = logging.getLogger(__name__)


def match_results(match: Match | None, result: dict[str, Any] | None, places: list[int | None],
                  ) -> tuple[dict[int, str], int | None]:
    """Each seat's tournament result in an ended match, and the seat that never moved (absent when paired), if
    that is how it ended. A finished match gives every seat its place's result; an aborted one gives nobody
    anything, whatever aborted it (the match page says it counts for nothing, and so do the standings): only
    its absent seat is named, to be paused."""
    outcome = Outcome.of(result)
    if outcome is None or (result or {}).get("annulled"):
        return {}, None
    if outcome.termination.counts:
        if any(place is None for place in places):
            return {}, None
        return dict(enumerate(points.table_results([int(p) for p in places if p is not None]))), None
    if outcome.why in ("away", "time") and outcome.absent is not None:
        return {}, outcome.absent
    return {}, None


def count_ended(match_id: int, *, result: dict[str, Any] | None, seat_users: list[int | None],
                places: list[int | None], now: datetime) -> int | None:
    """A tournament match ended: its points go to the standings and its players are free again, once. Runs in
    the transaction that ends the match; the tournament's id (to settle after the commit), or None."""
    claimed = TournamentGame.objects.filter(match_id=match_id, counted_at__isnull=True).update(counted_at=now)
    if not claimed:
        return None
    game = TournamentGame.objects.select_related("tournament").get(match_id=match_id)
    tournament = game.tournament
    results, absent = match_results(None, result, places)
    arena_scoring = tournament.kind == Tournament.Kind.ARENA
    entrants = {e.user_id: e for e in Entrant.objects.select_for_update()
                .filter(tournament=tournament, user_id__in=[u for u in seat_users if u is not None])}
    for seat, user_id in enumerate(seat_users):
        entrant = entrants.get(user_id) if user_id is not None else None
        if entrant is None:
            continue
        fields = ["match", "free_since"]
        if seat in results:
            scored, entrant.streak = points.score(results[seat], entrant.streak, arena=arena_scoring)
            entrant.sheet = [*entrant.sheet, {"m": match_id, "r": scored.result, "p": scored.points,
                                              "x": scored.doubled, "round": game.round}]
            entrant.score += scored.points
            fields += ["sheet", "streak", "score"]
        if seat == absent:  # absent when paired: paused (not paired again) until they come back
            entrant.paused = True
            fields.append("paused")
        if entrant.match_id == match_id:
            entrant.match = None
        entrant.free_since = now
        entrant.save(update_fields=fields)
    return tournament.pk


def rebuild(tournament_id: int) -> int:
    """Recompute every entrant's sheet, score and streak from the tournament's matches and byes (in the order
    the matches ended), and the final places of a finished tournament; returns how many entrants changed."""
    with transaction.atomic():
        lock(tournament_id)
        tournament = get_tournament(tournament_id)
        arena_scoring = tournament.kind == Tournament.Kind.ARENA
        lines: dict[int, list[tuple[tuple[Any, ...], dict[str, Any]]]] = {}
        games = (TournamentGame.objects.filter(tournament=tournament, counted_at__isnull=False)
                 .select_related("match").prefetch_related("match__seats"))
        for game in games:
            match = game.match
            seats = sorted(match.seats.all(), key=lambda s: s.index)
            results, _ = match_results(match, match.result, [s.place for s in seats])
            for seat in seats:
                if seat.user_id is not None and seat.index in results:
                    key = (game.round, match.finished_at or game.counted_at, match.pk)
                    lines.setdefault(seat.user_id, []).append(
                        (key, {"m": match.pk, "r": results[seat.index], "round": game.round}))
        for bye in TournamentBye.objects.filter(tournament=tournament):
            lines.setdefault(bye.user_id, []).append(((bye.round, None, 0), {"m": None, "r": points.BYE,
                                                                              "round": bye.round}))
        changed = []
        for entrant in Entrant.objects.filter(tournament=tournament):
            ordered_lines = [line for _, line in sorted(lines.get(entrant.user_id, []), key=_line_key)]
            scored, total, streak = points.sheet_total([line["r"] for line in ordered_lines], arena=arena_scoring)
            sheet = [{**line, "p": s.points, "x": s.doubled} for line, s in zip(ordered_lines, scored, strict=True)]
            sheet = [{"m": line["m"], "r": line["r"], "p": line["p"], "x": line["x"], "round": line["round"]}
                     for line in sheet]
            if (sheet, total, streak) != (entrant.sheet, entrant.score, entrant.streak):
                entrant.sheet, entrant.score, entrant.streak = sheet, total, streak
                changed.append(entrant)
        Entrant.objects.bulk_update(changed, ["sheet", "score", "streak"])
        if tournament.kind == Tournament.Kind.SWISS:
            store_tiebreaks(tournament)
        if tournament.status == Tournament.Status.FINISHED:
            place_finished(tournament)
        after_commit(lambda: news.changed(tournament_id))
    return len(changed)


def _line_key(item: tuple[tuple[Any, ...], dict[str, Any]]) -> tuple[Any, ...]:
    (round_, when, match_id), _ = item
    return (round_, when is None, when.timestamp() if when is not None else 0.0, match_id)


def tournaments_of_match(match_ids: Iterable[int]) -> list[int]:
    return list(TournamentGame.objects.filter(match_id__in=list(match_ids))
                .values_list("tournament_id", flat=True).distinct())


def has_result(sheet: list[dict[str, Any]]) -> bool:
    """A result on the sheet, a counted game or a bye: what earns a place (games.tournaments.places)."""
    return bool(sheet)


@dataclass(frozen=True)
class Ranked:
    """An entrant in the standings' order, with their place."""

    entrant: Entrant
    place: Place


def ranked(tournament: Tournament) -> list[Ranked]:
    """The standings: every entrant in the tournament's order with their place (games.tournaments.places), the one
    reading of it that the standings, the podium and the places stored at the end all take."""
    entrants = list(Entrant.objects.filter(tournament=tournament).select_related("user"))
    listed: list[tuple[Any, ...]]
    if tournament.kind == Tournament.Kind.SWISS:
        keys: dict[int, tuple[Any, ...]] = dict(swiss.standing_keys(
            {e.user_id: e.score for e in entrants}, swiss_games(tournament), {e.user_id: e.rating for e in entrants}))
        listed = [(keys[e.user_id], e.user_id) for e in entrants]
    else:
        keys = {e.user_id: (-e.score, -e.rating) for e in entrants}
        listed = [(keys[e.user_id], e.joined_at, e.pk) for e in entrants]
    # Whoever has a result before whoever has none (at 0 points, the least there is), then the order's keys.
    order = sorted(range(len(entrants)), key=lambda i: (not has_result(entrants[i].sheet), listed[i]))
    in_order = [entrants[i] for i in order]
    found = assign_places([keys[e.user_id] if has_result(e.sheet) else None for e in in_order])
    return [Ranked(entrant, place) for entrant, place in zip(in_order, found, strict=True)]


def ordered(tournament: Tournament) -> list[Entrant]:
    """The standings' order: whoever has a result (a counted game or a bye) before whoever has none; then an arena
    by score, rating (the higher seed first), who joined first; a Swiss by score, Buchholz, Sonneborn-Berger,
    rating (games.tournaments.swiss), then id."""
    return [row.entrant for row in ranked(tournament)]


def place_finished(tournament: Tournament) -> None:
    """The final places, as the standings write them (at its end, and again whenever it is rebuilt): an entrant
    with no result has none (nobody is placed for games they never played, nor for matches aborted or annulled);
    entrants equal on every tie-break hold the same place."""
    rows = ranked(tournament)
    for row in rows:
        row.entrant.place = row.place.number
    Entrant.objects.bulk_update([row.entrant for row in rows], ["place"])


def swiss_games(tournament: Tournament) -> list[swiss.Game]:
    """Each counted table's points per person, for the tie-breaks."""
    games: dict[int, dict[int, int]] = {}
    for entrant in Entrant.objects.filter(tournament=tournament):
        for line in entrant.sheet:
            if line.get("m"):
                games.setdefault(line["m"], {})[entrant.user_id] = int(line["p"])
    return [swiss.Game(points=table) for table in games.values()]


def store_tiebreaks(tournament: Tournament) -> None:
    """A Swiss's Buchholz and Sonneborn-Berger after a round, for the standings page."""
    entrants = list(Entrant.objects.filter(tournament=tournament))
    values = swiss.tiebreaks({e.user_id: e.score for e in entrants}, swiss_games(tournament))
    for entrant in entrants:
        entrant.tiebreak = list(values.get(entrant.user_id, (0.0, 0.0)))
    Entrant.objects.bulk_update(entrants, ["tiebreak"])
