"""Every change of a tournament: create, join, pause, come back, withdraw, pair, count a finished match, start,
advance a Swiss round, finish, rebuild.

Pairing is decided in one place per tournament, under its lock (PostgreSQL: a transaction-level advisory lock on
the tournament's id, so processes decide one after the other, each seeing what the other seated; SQLite: the
IMMEDIATE transaction already serialises writers). An entrant is free while their row's `match` is NULL; a
pairing sets it (only where it is still NULL) in the transaction that creates the match, and the transaction that
ends the match clears it and writes the points (games.tournaments.record). Nothing lives in memory: a restart
loses nothing, and every process's runner (`tick`) goes on pairing where the last one stopped.
"""

from __future__ import annotations

import hmac
import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.models import User

from ..catalog import GAMES
from ..locks import advisory_xact_lock
from ..models import Entrant, Match, Seat, Tournament, TournamentBye, TournamentGame
from ..notify.goto import send_to_match
from ..play.clock import clock_spec
from ..play.create import create_table
from ..play.snapshot import ServiceError
from ..ratings.read import rating_of
from ..results import Outcome
from . import arena, news, points, swiss

log = logging.getLogger(__name__)

_LOCK_NAMESPACE = 0x70A7  # the advisory locks' first key: tournaments, apart from the quick-pairing pools

# The clocks a tournament may have (never none: an absent player must not hold everyone).
CLOCKS: dict[str, tuple[str, dict[str, Any]]] = {
    "1+1": ("1 min + 1 s", {"kind": "fischer", "minutes": 1, "increment": 1}),
    "3+2": ("3 min + 2 s", {"kind": "fischer", "minutes": 3, "increment": 2}),
    "5+3": ("5 min + 3 s", {"kind": "fischer", "minutes": 5, "increment": 3}),
    "turn30": ("30 s a turn", {"kind": "turn", "turn_seconds": 30}),
}
ARENA_MINUTES = (3, 480)
SWISS_ROUNDS = (1, 15)


def clock_of(key: str) -> dict[str, Any]:
    if key not in CLOCKS:
        raise ServiceError("Choose one of the tournament clocks.")
    spec = CLOCKS[key][1]
    return clock_spec(spec["kind"], minutes=spec.get("minutes", 0), increment=spec.get("increment", 0),
                      turn_seconds=spec.get("turn_seconds", 0))


def ends_at(tournament: Tournament) -> datetime | None:
    """When an arena stops pairing (its matches then finish and count); None for a Swiss."""
    if tournament.kind != Tournament.Kind.ARENA or tournament.minutes is None:
        return None
    return (tournament.started_at or tournament.starts_at) + timedelta(minutes=tournament.minutes)


def min_table(game: str) -> int:
    return max(2, GAMES[game].engine.min_players)


def _lock(tournament_id: int) -> None:
    advisory_xact_lock(_LOCK_NAMESPACE, tournament_id)


def _after_commit(fn: Callable[[], Any]) -> None:
    """Run `fn` after the commit; a failure there is logged, never raised into whoever committed."""
    def run() -> None:
        try:
            fn()
        except Exception:
            log.exception("tournament follow-up failed")
    transaction.on_commit(run)


# ---------------------------------------------------------------------------------------------------------------
# Creating and entering


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
    _after_commit(news.lists_changed)
    return tournament


def _changed(tournament_id: int, *, lists: bool = False) -> None:
    """The tournament's pages redraw (and with `lists`, the lobbies' lists: its count of players changed)."""
    news.changed(tournament_id)
    if lists:
        news.lists_changed()


def _get(tournament_id: int) -> Tournament:
    tournament = Tournament.objects.filter(pk=tournament_id).first()
    if tournament is None:
        raise ServiceError("There is no such tournament.")
    return tournament


def may_enter(tournament: Tournament, code: str) -> bool:
    """A private tournament is entered with its invite link only."""
    return not tournament.is_private or hmac.compare_digest(code.encode(), tournament.invite_code.encode())


def join(*, tournament_id: int, user: User, code: str = "", now: datetime | None = None) -> Entrant:
    """Enter a tournament (before it starts; an arena also while it runs), or come back after withdrawing."""
    now = now or timezone.now()
    if user.is_bot or not user.is_active or not user.is_authenticated:
        raise ServiceError("Sign in to play in tournaments.")
    with transaction.atomic():
        _lock(tournament_id)
        tournament = _get(tournament_id)
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
        _after_commit(lambda: settle(tournament_id))
        _after_commit(lambda: _changed(tournament_id, lists=True))
    return entrant


def _entrant_of(tournament_id: int, user: User) -> Entrant:
    entrant = Entrant.objects.select_for_update().filter(tournament_id=tournament_id, user=user).first()
    if entrant is None:
        raise ServiceError("You are not in this tournament.")
    return entrant


def pause(*, tournament_id: int, user: User) -> None:
    """Not paired again until they come back (the match they are at, if any, goes on)."""
    with transaction.atomic():
        _lock(tournament_id)
        entrant = _entrant_of(tournament_id, user)
        if not entrant.paused and not entrant.withdrawn:
            entrant.paused = True
            entrant.save(update_fields=["paused"])
        _after_commit(lambda: news.changed(tournament_id))


def resume(*, tournament_id: int, user: User, now: datetime | None = None) -> None:
    """Back from a pause: free to be paired again at once."""
    join(tournament_id=tournament_id, user=user, now=now)


def withdraw(*, tournament_id: int, user: User) -> None:
    """Leave the tournament: before its start the entry goes; after, the results stay on the standings and
    they are paired no more (a match they are at goes on: leaving it loses it)."""
    with transaction.atomic():
        _lock(tournament_id)
        tournament = _get(tournament_id)
        entrant = _entrant_of(tournament_id, user)
        if tournament.status == Tournament.Status.UPCOMING:
            entrant.delete()
        elif not entrant.withdrawn:
            entrant.withdrawn, entrant.paused = True, False
            entrant.save(update_fields=["withdrawn", "paused"])
        _after_commit(lambda: settle(tournament_id))
        _after_commit(lambda: _changed(tournament_id, lists=True))


# ---------------------------------------------------------------------------------------------------------------
# Pairing


def _make_table(tournament: Tournament, entrants: list[Entrant], *, round: int, now: datetime) -> Match:
    """One tournament match, full and dealt, in the caller's transaction; its entrants are no longer free."""
    match = create_table(game=tournament.game, people=[e.user for e in entrants], clock=tournament.clock,
                         rated=tournament.rated, is_public=not tournament.is_private)
    TournamentGame.objects.create(tournament=tournament, match=match, round=round, created_at=now)
    ids = [e.pk for e in entrants]
    claimed = Entrant.objects.filter(pk__in=ids, match__isnull=True).update(match=match)
    if claimed != len(ids):  # cannot happen under the lock: never seat anyone twice
        raise RuntimeError(f"tournament {tournament.pk} lost {len(ids) - claimed} claimed entrants")
    for entrant in entrants:
        others = [e.user_id for e in entrants if e.pk != entrant.pk]
        Entrant.objects.filter(pk=entrant.pk).update(last_opponents=others)
    return match


def _announce(tournament_id: int, made: list[tuple[Match, list[int]]]) -> None:
    for match, user_ids in made:
        send_to_match(match, user_ids)
    news.changed(tournament_id)


def pair_arena(tournament_id: int, *, now: datetime | None = None) -> list[Match]:
    """Seat every free arena player who can be seated now (games.tournaments.arena's rule); the matches made."""
    now = now or timezone.now()
    made: list[tuple[Match, list[int]]] = []
    with transaction.atomic():
        _lock(tournament_id)
        tournament = _get(tournament_id)
        end = ends_at(tournament)
        if tournament.kind != Tournament.Kind.ARENA or tournament.status != Tournament.Status.RUNNING or (
                end is not None and now >= end):
            return []
        entrants = Entrant.objects.filter(tournament=tournament)
        free = {e.user_id: e for e in entrants.filter(match__isnull=True, paused=False, withdrawn=False)
                .select_related("user").select_for_update(of=("self",))}
        if len(free) < min_table(tournament.game):
            return []
        anyone_playing = entrants.filter(match__isnull=False).exists()
        rows = [arena.Free(e.user_id, e.score, e.rating, e.free_since or e.joined_at, frozenset(e.last_opponents))
                for e in free.values()]
        for table in arena.tables(rows, tournament.table_size, min_table=min_table(tournament.game), now=now,
                                  anyone_playing=anyone_playing):
            seated = [free[user_id] for user_id in table]
            made.append((_make_table(tournament, seated, round=0, now=now), table))
        if made:
            _after_commit(lambda: _announce(tournament_id, made))
    return [match for match, _ in made]


def _met(tournament: Tournament) -> dict[int, set[int]]:
    """Who has sat with whom in this tournament (user ids)."""
    seats = Seat.objects.filter(match__tournament_game__tournament=tournament).values_list("match_id", "user_id")
    tables: dict[int, list[int]] = {}
    for match_id, user_id in seats:
        if user_id is not None:
            tables.setdefault(match_id, []).append(user_id)
    met: dict[int, set[int]] = {}
    for users in tables.values():
        for user_id in users:
            met.setdefault(user_id, set()).update(u for u in users if u != user_id)
    return met


def _pair_swiss_round(tournament: Tournament, now: datetime) -> list[tuple[Match, list[int]]]:
    """The next Swiss round: tables (games.tournaments.swiss) and byes, written in the caller's transaction."""
    entrants = {e.user_id: e for e in Entrant.objects.filter(tournament=tournament, paused=False, withdrawn=False)
                .select_related("user").select_for_update(of=("self",))}
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


# ---------------------------------------------------------------------------------------------------------------
# The tournament's course


def start(tournament_id: int, *, now: datetime | None = None) -> None:
    """The start time came (or the creator of a private one started it early): an arena pairs whoever is there;
    a Swiss pairs its first round (or is cancelled with fewer than two players)."""
    now = now or timezone.now()
    made: list[tuple[Match, list[int]]] = []
    with transaction.atomic():
        _lock(tournament_id)
        tournament = _get(tournament_id)
        if tournament.status != Tournament.Status.UPCOMING:
            return
        tournament.status, tournament.started_at = Tournament.Status.RUNNING, now
        players = Entrant.objects.filter(tournament=tournament, withdrawn=False, paused=False).count()
        if tournament.kind == Tournament.Kind.SWISS and players < 2:
            tournament.status, tournament.finished_at = Tournament.Status.CANCELLED, now
        tournament.save(update_fields=["status", "started_at", "finished_at"])
        if tournament.status == Tournament.Status.RUNNING and tournament.kind == Tournament.Kind.SWISS:
            made = _pair_swiss_round(tournament, now)
        _after_commit(lambda: _announce(tournament_id, made))
        _after_commit(news.lists_changed)
    settle(tournament_id, now=now)


def start_early(*, tournament_id: int, user: User) -> None:
    """The creator of a private tournament starts it now (everyone they invited is there)."""
    tournament = _get(tournament_id)
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
        _lock(tournament_id)
        tournament = _get(tournament_id)
        if tournament.status != Tournament.Status.RUNNING or TournamentGame.objects.filter(
                tournament=tournament, round=tournament.round, counted_at__isnull=True).exists():
            return
        _store_tiebreaks(tournament)
        active = Entrant.objects.filter(tournament=tournament, withdrawn=False, paused=False).count()
        if tournament.round >= (tournament.rounds or 0) or active < 2:
            _finish(tournament, now)
        else:
            made = _pair_swiss_round(tournament, now)
        _after_commit(lambda: _announce(tournament_id, made))


def _finish_if_over(tournament_id: int, now: datetime) -> None:
    with transaction.atomic():
        _lock(tournament_id)
        tournament = _get(tournament_id)
        if tournament.status != Tournament.Status.RUNNING:
            return
        if not TournamentGame.objects.filter(tournament=tournament, counted_at__isnull=True).exists():
            _finish(tournament, now)
            _after_commit(lambda: news.changed(tournament_id))


def _finish(tournament: Tournament, now: datetime) -> None:
    """The end: final places by the tournament's order, kept forever; an entrant with no counted game has none
    (nobody is placed for games they never played)."""
    tournament.status, tournament.finished_at = Tournament.Status.FINISHED, now
    tournament.save(update_fields=["status", "finished_at"])
    placed = [entrant for entrant in ordered(tournament) if counted_games(entrant.sheet)]
    for place, entrant in enumerate(placed, start=1):
        Entrant.objects.filter(pk=entrant.pk).update(place=place)
    _after_commit(news.lists_changed)


def _store_tiebreaks(tournament: Tournament) -> None:
    """A Swiss's Buchholz and Sonneborn-Berger after a round, for the standings page."""
    entrants = list(Entrant.objects.filter(tournament=tournament))
    values = swiss.tiebreaks({e.user_id: e.score for e in entrants}, swiss_games(tournament))
    for entrant in entrants:
        entrant.tiebreak = list(values.get(entrant.user_id, (0.0, 0.0)))
    Entrant.objects.bulk_update(entrants, ["tiebreak"])


def swiss_games(tournament: Tournament) -> list[swiss.Game]:
    """Each counted table's points per person, for the tie-breaks."""
    games: dict[int, dict[int, int]] = {}
    for entrant in Entrant.objects.filter(tournament=tournament):
        for line in entrant.sheet:
            if line.get("m"):
                games.setdefault(line["m"], {})[entrant.user_id] = int(line["p"])
    return [swiss.Game(points=table) for table in games.values()]


def counted_games(sheet: list[dict[str, Any]]) -> int:
    """How many counted games a sheet holds (a bye is a result, not a game)."""
    return sum(1 for line in sheet if line.get("m"))


def ordered(tournament: Tournament) -> list[Entrant]:
    """The standings' order: an arena by score, then whoever played a counted game before whoever played none,
    then rating (the higher seed first), then who joined first; a Swiss by score, Buchholz, Sonneborn-Berger,
    rating (games.tournaments.swiss)."""
    entrants = list(Entrant.objects.filter(tournament=tournament).select_related("user"))
    if tournament.kind == Tournament.Kind.SWISS:
        by_user = {e.user_id: e for e in entrants}
        order = swiss.standing_order({e.user_id: e.score for e in entrants}, swiss_games(tournament),
                                     {e.user_id: e.rating for e in entrants})
        return [by_user[user_id] for user_id in order]
    return sorted(entrants, key=lambda e: (-e.score, not counted_games(e.sheet), -e.rating, e.joined_at, e.pk))


def tick(now: datetime | None = None) -> int:
    """The runner's round (every process, every second): start what is due, and settle every running tournament
    (after a restart, this is what goes on pairing). Returns how many tournaments it looked at."""
    now = now or timezone.now()
    due = list(Tournament.objects.filter(status=Tournament.Status.UPCOMING, starts_at__lte=now)
               .values_list("pk", flat=True))
    for tournament_id in due:
        start(tournament_id, now=now)
    running = list(Tournament.objects.filter(status=Tournament.Status.RUNNING).values_list("pk", flat=True))
    for tournament_id in running:
        settle(tournament_id, now=now)
    return len(due) + len(running)


# ---------------------------------------------------------------------------------------------------------------
# Counting a finished match (in the transaction that ends it: games.tournaments.record) and rebuilding


def match_results(match: Match | None, result: dict[str, Any] | None, places: list[int | None],
                  ) -> tuple[dict[int, str], int | None]:
    """Each seat's tournament result in an ended match, and the seat that never moved (absent when paired), if
    that is how it ended. A finished match gives every seat its place's result; an aborted one counts for
    nobody but the absent seat, who loses it."""
    outcome = Outcome.of(result)
    if outcome is None or (result or {}).get("annulled"):
        return {}, None
    if outcome.termination.counts:
        if any(place is None for place in places):
            return {}, None
        return dict(enumerate(points.table_results([int(p) for p in places if p is not None]))), None
    if outcome.why in ("away", "time") and outcome.absent is not None:
        return {outcome.absent: points.LOSS}, outcome.absent
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
        if seat == absent:  # absent when paired: paused after the loss, until they come back
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
        _lock(tournament_id)
        tournament = _get(tournament_id)
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
            _store_tiebreaks(tournament)
        if tournament.status == Tournament.Status.FINISHED:
            for place, entrant in enumerate(ordered(tournament), start=1):
                Entrant.objects.filter(pk=entrant.pk).update(place=place)
        _after_commit(lambda: news.changed(tournament_id))
    return len(changed)


def _line_key(item: tuple[tuple[Any, ...], dict[str, Any]]) -> tuple[Any, ...]:
    (round_, when, match_id), _ = item
    return (round_, when is None, when.timestamp() if when is not None else 0.0, match_id)


def tournaments_of_match(match_ids: Iterable[int]) -> list[int]:
    return list(TournamentGame.objects.filter(match_id__in=list(match_ids))
                .values_list("tournament_id", flat=True).distinct())
