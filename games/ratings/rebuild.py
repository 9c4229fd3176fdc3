"""The statistics and ratings recomputed from the match records, with the same pure step a finishing match is
counted with (games.ratings.stats.apply_match), match by match in the order they finished, so a rebuild gives
exactly what the incremental updates gave.

`rebuild_all()` recomputes everything (manage.py rebuild_stats); `recompute_game(game, since=...)` one game, after
a result was annulled (on_annulled, heard as games/endings.py says): an annulled match (result["annulled"]) counts
for nothing, here and in a rebuild. Both rewrite the rating changes a later match's result box shows where they
changed, behind each match's version fence.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db import transaction
from django.db.models import Prefetch, Q, QuerySet

from ..catalog import GAMES
from ..models import Match, Move, PlayerResult, PlayerStats, Seat
from ..play.snapshot import Snapshot
from ..play.store import fenced_update
from .facts import MatchFacts
from .stats import STATS_FIELDS, apply_match, match_facts, new_stats, rating_changes

# A result box to rewrite: the match's version and result as read, and the rating changes it is to say.
Box = tuple[int, dict[str, Any] | None, list[dict[str, Any]]]

# How often a box is laid again on a match another change wrote meanwhile before the rebuild gives up (a finished
# match changes rarely: a rematch vote, an annulment).
ATTEMPTS = 20


def _box(result: dict[str, Any] | None, changes: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The match's result with these rating changes, or None when it already says them (a result box stays true
    after an earlier match stopped counting: an annulment, rebuild_stats)."""
    boxed = dict(result or {})
    if (boxed.get("ratings") or []) == changes:
        return None
    if changes:
        boxed["ratings"] = changes
    else:
        boxed.pop("ratings", None)
    return boxed


def _write_boxes(boxes: dict[int, Box]) -> None:
    """Each box behind its match's version fence (games.play.store.fenced_update): a new version, so that a live
    copy of a finished match reloads its result; when another change of the match came first, the box is laid on
    the result that change wrote (never written back over it)."""
    for match_id, (version, result, changes) in boxes.items():
        for _ in range(ATTEMPTS):
            boxed = _box(result, changes)
            if boxed is None or fenced_update(match_id, version, result=boxed):
                break
            version, result = Match.objects.filter(pk=match_id).values_list("version", "result").get()
        else:
            raise RuntimeError(f"match {match_id} kept changing: its result box could not be written")


def counted_matches() -> QuerySet[Match]:
    """The finished matches that count in the statistics, in the order they finished: all but the annulled."""
    return (
        Match.objects.filter(status=Match.Status.FINISHED, finished_at__isnull=False)
        # has_key too: without it, SQL's NULL for a missing key would exclude every match that has none.
        .exclude(Q(result__has_key="annulled") & Q(result__annulled=True))
        .order_by("finished_at", "pk")
    )


def _with_seats_and_moves(matches: QuerySet[Match]) -> QuerySet[Match]:
    occupied = Seat.objects.filter(user__isnull=False).select_related("user").order_by("index")
    needs_moves = [slug for slug, game in GAMES.items() if game.stats_needs_moves]
    replayed = Move.objects.filter(match__game__in=needs_moves).only("match_id", "seat", "action").order_by("number")
    # The attributes are declared on Match (for the code that reads them), which the stubs' plugin sees as
    # redefinitions.
    return matches.prefetch_related(  # type: ignore[no-redef]
        Prefetch("seats", queryset=occupied, to_attr="occupied"),
        # Only the replayed games' moves come back: one query per batch of matches.
        Prefetch("moves", queryset=replayed, to_attr="replay_moves"),
    )


def _facts_of(match: Match) -> MatchFacts:
    recorded = [(move.seat, move.action) for move in match.replay_moves]
    return match_facts(match, match.occupied, lambda: recorded)


def rebuild_all(*, batch_size: int = 1000) -> tuple[int, int]:
    """Recompute every result row and statistics row from the finished matches; (matches, rows) counted."""
    stats: dict[str, dict[int, PlayerStats]] = {}
    matches = _with_seats_and_moves(counted_matches())
    count = 0
    with transaction.atomic():
        # Every finished match is counted here, those whose statistics were still due too (a crash between a
        # match's end and its statistics): none is left for the sweep to count again. Every result box gets the
        # rating changes counted now where they differ from those it shows (its own statistics step never ran, or
        # an earlier match stopped counting).
        Match.objects.filter(stats_due=True).update(stats_due=False)
        boxes: dict[int, Box] = {}
        PlayerResult.objects.all().delete()
        PlayerStats.objects.all().delete()
        pending: list[PlayerResult] = []
        for match in matches.iterator(chunk_size=batch_size):
            seats = match.occupied
            count += 1
            if seats:
                results = apply_match(_facts_of(match), stats.setdefault(match.game, {}))
                pending.extend(results)
                changes = rating_changes(results, stats[match.game])
                if _box(match.result, changes) is not None:
                    boxes[match.pk] = (match.version, match.result, changes)
            if len(pending) >= batch_size:
                PlayerResult.objects.bulk_create(pending, batch_size=batch_size)
                pending = []
        PlayerResult.objects.bulk_create(pending, batch_size=batch_size)
        rows = [row for per_game in stats.values() for row in per_game.values()]
        PlayerStats.objects.bulk_create(rows, batch_size=batch_size)
        _write_boxes(boxes)
    return count, len(rows)


def recompute_game(game: str, *, since: tuple[datetime, int] | None = None, batch_size: int = 1000) -> int:
    """Recompute one game's results and statistics from its counted matches, after one stopped counting
    (an annulled result); the number of players whose figures changed.

    A rating depends on every earlier rated match of the game, the opponents' too, so the figures are
    replayed from the game's first match with the same pure step as a rebuild, and equal what they would
    have been had the annulled match never counted. Only what can have changed is written: the result rows
    of the matches finished at or after `since` (the annulled match's (finished_at, id)), and the
    statistics rows that differ. The game's statistics rows are locked first, so a match of this game that
    finishes meanwhile waits, then adds itself on top of the recomputed figures (record_finished).
    """
    with transaction.atomic():
        locked = PlayerStats.objects.select_for_update(of=("self",)).filter(game=game).select_related("user")
        current = {row.user_id: row for row in locked.order_by("user_id")}
        stats: dict[int, PlayerStats] = {}
        pending: list[PlayerResult] = []
        boxes: dict[int, Box] = {}
        # A match whose statistics are still due adds itself later, on top (record_finished), as one finishing now.
        counted = counted_matches().filter(game=game, stats_due=False)
        for match in _with_seats_and_moves(counted).iterator(chunk_size=batch_size):
            if not match.occupied:
                continue
            results = apply_match(_facts_of(match), stats)
            if since is None or (match.finished_at, match.pk) >= since:
                pending.extend(results)
                # The later result boxes say what the match did to the ratings, counted without the annulled one.
                changes = rating_changes(results, stats)
                if _box(match.result, changes) is not None:
                    boxes[match.pk] = (match.version, match.result, changes)
        stale = PlayerResult.objects.filter(game=game)
        if since is not None:
            stale = stale.filter(Q(finished_at__gt=since[0]) | Q(finished_at=since[0], match_id__gte=since[1]))
        stale.delete()
        PlayerResult.objects.bulk_create(pending, batch_size=batch_size)
        changed = 0
        for user_id, old in current.items():
            # A player whose only matches stopped counting goes back to a fresh start.
            new = stats.pop(user_id, None) or new_stats(user_id, game, old.user.is_bot, old.user.bot_level)
            if any(getattr(old, name) != getattr(new, name) for name in STATS_FIELDS):
                new.pk = old.pk
                new.save(update_fields=STATS_FIELDS)
                changed += 1
        # Rows missing only if a match finished in between: written anew.
        PlayerStats.objects.bulk_create(stats.values(), batch_size=batch_size)
        _write_boxes(boxes)
        return changed + len(stats)


def on_annulled(snap: Snapshot) -> None:
    """A finished match's result was annulled (games.play.events, in the annulment's transaction): its game's
    figures are recomputed as if it had never counted, from the match it was on."""
    assert snap.finished_at is not None  # only a finished match's result is annulled
    recompute_game(snap.game, since=(snap.finished_at, snap.id))
