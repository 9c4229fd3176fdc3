"""The site-wide history's listing of a finished match (FinishedMatch): written with the end, in the transaction
that writes it (games.play.events), so the history lists a match as soon as its end is shown; taken off with an
annulment, in its transaction; rebuilt from the records by manage.py rebuild_stats."""

from __future__ import annotations

from django.db.models import Prefetch

from ..models import FinishedMatch, Seat
from ..play.snapshot import Snapshot, Status
from ..ratings.rebuild import counted_matches


def on_end(snap: Snapshot) -> None:
    """A finished match is listed (an aborted one never is)."""
    if snap.status != Status.FINISHED or snap.finished_at is None:
        return
    FinishedMatch(match_id=snap.id, game=snap.game, finished_at=snap.finished_at, is_public=snap.is_public,
                  with_bots=any(seat.player is not None and seat.player.is_bot for seat in snap.seats),
                  ).save(force_insert=True)


def on_annulled(snap: Snapshot) -> None:
    """An annulled result is in no history list (its page stays, marked)."""
    FinishedMatch.objects.filter(match_id=snap.id).delete()


def rebuild_listings(*, batch_size: int = 1000) -> int:
    """Every finished match listed again but the annulled ones (inside the caller's transaction); how many."""
    FinishedMatch.objects.all().delete()
    bots = Seat.objects.filter(user__is_bot=True).only("match_id")
    # The attribute is declared on Match (for the code that reads it), which the stubs' plugin sees as a redefinition.
    matches = counted_matches().only("id", "game", "finished_at", "is_public").prefetch_related(  # type: ignore[no-redef]
        Prefetch("seats", queryset=bots, to_attr="bot_seats"))
    rows = []
    for match in matches.iterator(chunk_size=batch_size):
        assert match.finished_at is not None  # counted matches are finished
        rows.append(FinishedMatch(match_id=match.pk, game=match.game, finished_at=match.finished_at,
                                  is_public=match.is_public, with_bots=bool(match.bot_seats)))
    FinishedMatch.objects.bulk_create(rows, batch_size=batch_size)
    return len(rows)
