"""A tournament match ended: its points go to the standings in the same transaction (so a match is counted once,
with its end, whatever process ends it), and after the commit the tournament goes on (games.tournaments.services).
A tournament match's result annulled: the standings are counted again without it, in the annulment's transaction."""

from __future__ import annotations

import logging
from functools import partial

from django.db import transaction
from django.utils import timezone

from ..play.snapshot import Snapshot
from . import news, services

log = logging.getLogger(__name__)


def on_end(snap: Snapshot) -> None:
    """A match ended (inside the transaction that writes the end, games.play.events): a tournament match counts."""
    tournament_id = services.count_ended(
        snap.id, result=snap.result, seat_users=[seat.user_id for seat in snap.seats],
        places=[seat.place for seat in snap.seats], now=snap.finished_at or timezone.now(),
    )
    if tournament_id is not None:
        def go_on() -> None:
            try:
                services.settle(tournament_id)
            except Exception:
                log.exception("tournament %s could not go on after match %s", tournament_id, snap.id)
            # The standings changed even when nobody was paired again (the pages gather the two messages).
            news.changed(tournament_id)
        transaction.on_commit(go_on)


def on_annulled(snap: Snapshot) -> None:
    """A match's result was annulled (inside the transaction that writes it, games.play.events): the standings of
    a tournament it was played in are rebuilt without it, and its pages told after the commit."""
    for tournament_id in services.tournaments_of_match([snap.id]):
        services.rebuild(tournament_id)
        transaction.on_commit(partial(news.changed, tournament_id))
