"""What every tournament service shares: the tournament's lock, its clocks and limits, when an arena ends, and
running a follow-up after the commit."""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from django.db import transaction

from ...catalog import GAMES
from ...core.locks import advisory_xact_lock
from ...models import Tournament
from ...play.clock import clock_spec, correspondence_clocks
from ...play.snapshot import ServiceError
from .. import news

log = logging.getLogger(__name__)


_LOCK_NAMESPACE = 0x70A7  # the advisory locks' first key: tournaments, apart from the quick-pairing pools


CLOCKS: dict[str, tuple[str, dict[str, Any]]] = {
    "1+1": ("1 min + 1 s", {"kind": "fischer", "minutes": 1, "increment": 1}),
    "3+2": ("3 min + 2 s", {"kind": "fischer", "minutes": 3, "increment": 2}),
    "5+3": ("5 min + 3 s", {"kind": "fischer", "minutes": 5, "increment": 3}),
    "turn30": ("30 s a turn", {"kind": "turn", "turn_seconds": 30}),
    # Correspondence, for a Swiss only (an arena is real time): a round lasts as long as its slowest match.
    **{key: (label, {"kind": "days", "days": clock["days"]}) for key, label, clock in correspondence_clocks()},
}

# The keys of the correspondence clocks above ("1d" ... "7d").
CORRESPONDENCE_KEYS = tuple(key for key, _, _ in correspondence_clocks())

ARENA_IS_REAL_TIME = "An arena is played in real time: days a move are for a Swiss."


ARENA_MINUTES = (3, 480)


SWISS_ROUNDS = (1, 15)


def clock_of(key: str) -> dict[str, Any]:
    if key not in CLOCKS:
        raise ServiceError("Choose one of the tournament clocks.")
    spec = CLOCKS[key][1]
    return clock_spec(spec["kind"], minutes=spec.get("minutes", 0), increment=spec.get("increment", 0),
                      turn_seconds=spec.get("turn_seconds", 0), days=spec.get("days", 0))


def ends_at(tournament: Tournament) -> datetime | None:
    """When an arena stops pairing (its matches then finish and count); None for a Swiss."""
    if tournament.kind != Tournament.Kind.ARENA or tournament.minutes is None:
        return None
    return (tournament.started_at or tournament.starts_at) + timedelta(minutes=tournament.minutes)


def min_table(game: str) -> int:
    return max(2, GAMES[game].engine.min_players)


def lock(tournament_id: int) -> None:
    advisory_xact_lock(_LOCK_NAMESPACE, tournament_id)


def after_commit(fn: Callable[[], Any]) -> None:
    """Run `fn` after the commit; a failure there is logged, never raised into whoever committed."""
    def run() -> None:
        try:
            fn()
        except Exception:
            log.exception("tournament follow-up failed")
    transaction.on_commit(run)


def changed(tournament_id: int, *, lists: bool = False) -> None:
    """The tournament's pages redraw (and with `lists`, the lobbies' lists: its count of players changed)."""
    news.changed(tournament_id)
    if lists:
        news.lists_changed()


def get_tournament(tournament_id: int) -> Tournament:
    tournament = Tournament.objects.filter(pk=tournament_id).first()
    if tournament is None:
        raise ServiceError("There is no such tournament.")
    return tournament
