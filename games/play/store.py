"""The database side of a match being played: a snapshot read from its rows, and decided changes written.

`commit` writes a batch of changes in one transaction, each as `UPDATE match ... WHERE id = ? AND version = ?`
plus its Move row; a change whose fence fails is not written, and its caller reloads and decides again. Plain
moves (most of what a live match writes) go through a plain-SQL group writer. A change that agrees a rematch
creates it in the same transaction, dealt at once.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any

import orjson
from django.db import connection, transaction
from django.db.models import F, Window
from django.db.models.functions import RowNumber
from django.utils import timezone

from ..models import Match, Move, Seat
from . import events
from .seating import start_if_full
from .snapshot import NOTES_KEPT, Change, Player, SeatInfo, ServiceError, Snapshot, State, Status, must_act_of

log = logging.getLogger(__name__)


def snapshot_of(
    match: Match, seats: list[Seat], notes: tuple[tuple[int, str], ...] = (), moved: tuple[int, ...] = (),
) -> Snapshot:
    return Snapshot(
        id=match.pk, game=match.game, players=match.players, options=match.options or {}, seed=match.seed,
        status=match.status, version=match.version, move_count=match.move_count, state=match.state,
        is_public=match.is_public,
        rated=match.rated, invite_code=match.invite_code, started_at=match.started_at,
        finished_at=match.finished_at, turn_started_at=match.turn_started_at, bot_due_at=match.bot_due_at,
        result=match.result, rematch_votes=list(match.rematch_votes or []), rematch_id=match.rematch_id,
        seats=tuple(
            SeatInfo(s.index, Player.of(s.user) if s.user else None, s.invite_only, s.joined_at, s.final_score,
                     s.place, Player.of(s.substitute) if s.substitute else None)
            for s in seats
        ),
        notes=notes, created_by_id=match.created_by_id, rematch_declined=match.rematch_declined,
        handovers=list(match.handovers or []), moved=moved, clock=dict(match.clock or {}),
        clock_left=list(match.clock_left or []), clock_due_at=match.clock_due_at, stats_due=match.stats_due,
    )


def load(match_id: int) -> Snapshot | None:
    """The match as it is in the database now (four queries), or None if there is no such match."""
    # No ORDER BY over the wide rows: Django hashes every selected column to compile one (a third of a load's
    # time; the seats come with two users' columns), so the seats are put in order here.
    match = next(iter(Match.objects.filter(pk=match_id).order_by()), None)
    if match is None:
        return None
    seats = sorted(Seat.objects.filter(match_id=match_id).select_related("user", "substitute").order_by(),
                   key=lambda seat: seat.index)
    recent = list(Move.objects.filter(match_id=match_id).order_by("-number").values_list("seat", "note")[:NOTES_KEPT])
    moved = tuple(sorted(Move.objects.filter(match_id=match_id).order_by().values_list("seat", flat=True).distinct()))
    return snapshot_of(match, seats, tuple(reversed(recent)), moved)


def load_many(match_ids: Sequence[int]) -> dict[int, Snapshot]:
    """load() of several matches in four queries (those that exist): the tables a process opens at once."""
    ids = sorted(set(match_ids))
    matches = {match.pk: match for match in Match.objects.filter(pk__in=ids).order_by()}
    if not matches:
        return {}
    seats: dict[int, list[Seat]] = {match_id: [] for match_id in matches}
    for row in Seat.objects.filter(match_id__in=list(matches)).select_related("user", "substitute").order_by():
        seats[row.match_id].append(row)
    # Each match's last NOTES_KEPT notes: numbered from the newest within the match, the first ones kept.
    newest = Window(RowNumber(), partition_by=[F("match_id")], order_by=F("number").desc())
    notes: dict[int, list[tuple[int, int, str]]] = {match_id: [] for match_id in matches}
    rows = (Move.objects.filter(match_id__in=list(matches)).annotate(newest=newest).filter(newest__lte=NOTES_KEPT)
            .order_by().values_list("match_id", "number", "seat", "note"))
    for match_id, number, seat, note in rows:
        notes[match_id].append((number, seat, note))
    moved: dict[int, set[int]] = {match_id: set() for match_id in matches}
    seated = Move.objects.filter(match_id__in=list(matches)).order_by().values_list("match_id", "seat").distinct()
    for match_id, seat in seated:
        moved[match_id].add(seat)
    return {
        match_id: snapshot_of(match, sorted(seats[match_id], key=lambda row: row.index),
                              tuple((seat, note) for _, seat, note in sorted(notes[match_id])),
                              tuple(sorted(moved[match_id])))
        for match_id, match in matches.items()
    }


def stored_versions(match_ids: list[int]) -> dict[int, int]:
    """Each match's version in the database now (one query): a live copy behind it missed a change."""
    return dict(Match.objects.filter(pk__in=match_ids).order_by().values_list("pk", "version"))


# The match columns a change may write (everything else is fixed at creation). is_public is the administrator's
# privacy switch (games.play.create.set_public), a change like any other so that the live copies learn of it.
ROW_FIELDS = ("status", "version", "move_count", "state", "started_at", "finished_at", "turn_started_at", "bot_due_at",
              "result", "rematch_votes", "rematch_id", "rematch_declined", "handovers", "clock_left", "clock_due_at",
              "stats_due", "is_public")


def commit(changes: list[Change]) -> None:
    """Write changes of different matches in one transaction; each is written only if its fence holds
    (its `written` says so). A change that fails on the way (a bug, a constraint) is rolled back alone."""
    now = timezone.now()
    moves = [change for change in changes if _is_plain_move(change)]
    with transaction.atomic():
        _write_moves(moves, now)
        for change in changes:
            if _is_plain_move(change):
                continue
            try:
                with transaction.atomic():  # a savepoint: one bad change does not undo the others
                    change.written = write(change, now)
            except ServiceError as refusal:  # refused on the way (a player may not sit now): said, not logged
                change.written, change.refused = False, refusal
            except Exception:
                log.exception("change of match %s could not be written", change.before.id)
                change.written = False


def _is_plain_move(change: Change) -> bool:
    """A move that changes no seat and ends nothing: most of what a live match writes."""
    return (change.move is not None and not change.seats_changed and not change.make_rematch
            and change.after.status == change.before.status == Status.ACTIVE)


# The columns a plain move changes, and the statements that write it. Plain SQL with each field's own
# conversion: building the ORM's UPDATE and INSERT cost several times the writes themselves (commit() of a
# batch of 10 Gomori moves on SQLite: 1.35 ms a move through the ORM, 0.15 ms so).
_MOVE_COLUMNS = ("version", "move_count", "state", "turn_started_at", "bot_due_at", "rematch_votes", "clock_left",
                 "clock_due_at", "waiting_on", "updated_at")


_JSON_COLUMNS = frozenset({"state", "rematch_votes", "clock_left", "waiting_on"})


def waiting_on(snap: Snapshot, state: State | None) -> list[int]:
    """The seats the game waits on after a change (Match.waiting_on): none unless it is in progress."""
    return sorted(must_act_of(snap, state))


def _column(change: Change, name: str) -> Any:
    return waiting_on(change.after, change.state) if name == "waiting_on" else getattr(change.after, name)


def _json_text(value: Any) -> str:
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()


def _json_param(value: Any) -> Any:
    """A JSON column's value, encoded by orjson: the state is most of what a move writes, and the standard
    library's encoder was a tenth of a move's cost at 100 matches."""
    if connection.vendor == "postgresql":
        # Imported here: psycopg is loaded only by a process that runs on PostgreSQL.
        from psycopg.types.json import Jsonb

        return Jsonb(value, dumps=_json_text)
    return _json_text(value)


def _write_moves(changes: list[Change], now: datetime) -> None:
    if not changes:
        return
    ops = connection.ops
    match_fields = {f.name: f for f in Match._meta.concrete_fields}
    sets = ", ".join(f"{ops.quote_name(match_fields[name].column or name)} = %s" for name in _MOVE_COLUMNS)
    update = f"UPDATE {ops.quote_name(Match._meta.db_table)} SET {sets} WHERE id = %s AND version = %s"
    insert = (f"INSERT INTO {ops.quote_name(Move._meta.db_table)} (match_id, number, seat, action, note, created_at) "
              "VALUES (%s, %s, %s, %s, %s, %s)")
    stamp = match_fields["updated_at"].get_db_prep_save(now, connection)
    rows = []
    with connection.cursor() as cursor:
        for change in changes:
            after = change.after
            values = [_json_param(_column(change, name)) if name in _JSON_COLUMNS
                      else match_fields[name].get_db_prep_save(_column(change, name), connection)
                      for name in _MOVE_COLUMNS[:-1]]
            cursor.execute(update, [*values, stamp, after.id, change.before.version])
            change.written = cursor.rowcount == 1
            if change.written:
                seat, action, note = change.move  # type: ignore[misc]
                rows.append([after.id, after.move_count, seat, _json_param(action), note, stamp])
        if rows:
            cursor.executemany(insert, rows)


def write(change: Change, now: datetime) -> bool:
    after = change.after
    if change.make_rematch:
        after = change.after = replace(after, rematch_id=create_rematch(change.before).pk)
    values = {name: getattr(after, name) for name in ROW_FIELDS}
    values["waiting_on"] = waiting_on(after, change.state)
    fence = Match.objects.filter(pk=after.id, version=change.before.version)
    if change.records_stats:
        # The flag is part of the claim: a rebuild that cleared it (rebuild_stats, an annulment's recompute)
        # without moving the version must not let the statistics be counted twice.
        fence = fence.filter(stats_due=True)
    if not fence.update(**values, updated_at=now):
        if change.make_rematch:
            raise _FenceFailed  # undo the rematch made above (the savepoint rolls back)
        return False
    if change.move is not None:
        seat, action, note = change.move
        Move.objects.create(match_id=after.id, number=after.move_count, seat=seat, action=action, note=note)
    if change.seats_changed:
        for old, new in zip(change.before.seats, after.seats, strict=True):
            if old != new:
                Seat.objects.filter(match_id=after.id, index=new.index).update(
                    user_id=new.user_id, joined_at=new.joined_at, final_score=new.final_score, place=new.place,
                    substitute_id=new.substitute.user_id if new.substitute else None,
                )
    if change.records_stats:
        additions = events.recorded(after.id)
        if additions:  # the result box shows what the match did to each rating: it travels with the result
            result = {**(after.result or {}), **additions}
            Match.objects.filter(pk=after.id).update(result=result)
            change.after = replace(after, result=result)
    if change.before.status == Status.WAITING and change.after.status == Status.ACTIVE:
        events.started(change.after)
    if change.before.status not in _ENDED and change.after.status in _ENDED:
        events.ended(change.after)
    if _annulled(change.after) and not _annulled(change.before):
        events.annulled(change.after)
    return True


_ENDED = frozenset({Status.FINISHED, Status.ABORTED})


def _annulled(snap: Snapshot) -> bool:
    return bool((snap.result or {}).get("annulled"))


def fenced_update(match_id: int, version: int, **values: Any) -> bool:
    """Write these columns of a match that no decider changes (a result box a rebuild of the ratings rewrites)
    behind the same fence as a change: only if the match is still at `version`, and moving it to the next, so that
    a live copy reloads and a change decided on the old version is refused. False when another change came first:
    the caller reads the match again and lays its columns on what that change wrote, never over it."""
    return bool(Match.objects.filter(pk=match_id, version=version).update(**values, version=version + 1))


class _FenceFailed(Exception):
    pass


def create_rematch(old: Snapshot) -> Match:
    """The next game of a finished match: same players, seats rotated, a new seed, dealt at once."""
    rematch = Match.objects.create(
        game=old.game, players=old.players, options=old.options, seed=secrets.randbits(48),
        is_public=old.is_public, rated=old.rated, created_by_id=old.seats[0].user_id, clock=old.clock,
    )
    now = timezone.now()
    for seat in old.seats:  # a player who left is not asked back: the bot that finished their game is
        Seat.objects.create(match=rematch, index=(seat.index + 1) % old.players,
                            user_id=seat.actor.user_id if seat.actor else None, joined_at=now)
    deal(rematch.pk)
    return rematch


def deal(match_id: int) -> None:
    """Start a match created with every seat filled (its first state, version 0)."""
    snap = load(match_id)
    assert snap is not None
    started, state = start_if_full(snap, timezone.now())
    if started is not snap:
        Match.objects.filter(pk=match_id).update(**{name: getattr(started, name) for name in ROW_FIELDS},
                                                 waiting_on=waiting_on(started, state))
        events.started(started)


