"""One change of a match from sync code (views, the admin's actions, commands): the road the live match takes,
without a copy in memory. Load, decide, commit with the version as the fence; if another change came first,
decide again on the new version; then tell the live pages (games.play.news.publish)."""

from __future__ import annotations

from functools import partial
from typing import Any

from django.db import transaction

from ..core.faults import crash_point
from . import events
from .decide import Decider, follow_end
from .news import publish
from .snapshot import Change, ServiceError, Snapshot, state_of
from .store import commit, load

ATTEMPTS = 20


def run_change(match_id: int, decide: Decider, /, **kw: Any) -> Snapshot:
    """decide(snapshot, state, **kw) on the match as it is now, written; returns the snapshot after it (the
    current one when there was nothing to do). Raises what the decider raises to refuse, and ServiceError when
    there is no such match."""
    after = _run_change(match_id, decide, **kw)
    # The statistics in a transaction of their own once the end is written (and, outside any caller's
    # transaction, shown).
    with follow_end(after) as stats:
        if stats is not None:
            after = _run_change(match_id, stats)
    return after


def _run_change(match_id: int, decide: Decider, /, **kw: Any) -> Snapshot:
    for _ in range(ATTEMPTS):
        # One transaction for the read and the write: the snapshot is read whole (on SQLite the write lock is
        # taken at its start, so the match's rows can't change between the queries that read them).
        with transaction.atomic():
            snap = load(match_id)
            if snap is None:
                raise ServiceError("There is no such match.")
            change = decide(snap, state_of(snap), **kw)
            if change is None:
                return snap
            commit([change])
            if change.refused is not None:
                raise change.refused
            if change.written:
                transaction.on_commit(partial(_committed, change, snap))
                return change.after
    raise ServiceError("The match is too busy right now: try again.")


def _committed(change: Change, before: Snapshot) -> None:
    """After the commit: the live pages told, then whoever hears committed changes (games.play.events)."""
    crash_point("after-commit", match=change.after.id)  # the tests' kill -9 before anyone is told
    publish(change.after, before)
    events.committed([change])
