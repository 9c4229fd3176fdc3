"""An annulment is an event (games.play.events.annulled) like a match's end: games/endings.py names who hears it,
and games.moderation only decides it. Heard once by each listener, in the transaction that writes it, after the
flag is written; with no listener, annulling writes the flag and nothing else (moderation undoes nothing itself)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection
from django.utils import timezone
from factories import finished_match

from games import moderation
from games.history import listing
from games.models import FinishedMatch, Match, PlayerResult, PlayerStats
from games.play import events
from games.play.snapshot import Snapshot
from games.ratings import rebuild, stats
from games.tournaments import record

pytestmark = pytest.mark.django_db

def figures() -> dict[tuple[int, str], list[Any]]:
    return {(r.user_id, r.game): [getattr(r, f) for f in stats.STATS_FIELDS] for r in PlayerStats.objects.all()}


def test_endings_names_every_listener_of_an_annulment() -> None:
    # connect() ran at start-up (games.apps): the one list, beside the end's.
    assert events._annulled == (listing.on_annulled, rebuild.on_annulled, record.on_annulled)


def test_each_listener_hears_the_annulment_once_with_the_flag_written(
    monkeypatch: pytest.MonkeyPatch, alice: Any, bob: Any
) -> None:
    match = finished_match([alice, bob], 0, timezone.now())
    heard: list[tuple[str, int, bool, bool]] = []

    def spying(listener: Callable[[Snapshot], None]) -> Callable[[Snapshot], None]:
        def spy(snap: Snapshot) -> None:
            stored = Match.objects.get(pk=snap.id).result
            heard.append((listener.__module__, snap.id, bool(snap.result and snap.result.get("annulled")),
                          bool(stored.get("annulled")) and connection.in_atomic_block))
            listener(snap)
        return spy

    monkeypatch.setattr(events, "_annulled", tuple(spying(listener) for listener in events._annulled))
    moderation.annul_result(match.pk)
    assert heard == [(name, match.pk, True, True) for name in
                     ("games.history.listing", "games.ratings.rebuild", "games.tournaments.record")]
    # What they did: out of the lists, counted for nothing.
    assert not FinishedMatch.objects.filter(match=match).exists()
    assert not PlayerResult.objects.filter(match=match).exists()
    assert PlayerStats.objects.get(user=alice).played == 0


def test_with_no_listener_an_annulment_writes_the_flag_and_nothing_else(
    monkeypatch: pytest.MonkeyPatch, alice: Any, bob: Any
) -> None:
    """Fails if games.moderation undoes anything itself, beside the event."""
    match = finished_match([alice, bob], 0, timezone.now())
    before = figures()
    monkeypatch.setattr(events, "_annulled", ())
    after = moderation.annul_result(match.pk)
    assert after.result is not None and after.result["annulled"] is True
    stored = Match.objects.get(pk=match.pk)
    assert stored.result["annulled"] is True and stored.version == match.version + 1
    assert FinishedMatch.objects.filter(match=match).exists()
    assert PlayerResult.objects.filter(match=match).count() == 2
    assert figures() == before


def test_a_listener_that_fails_leaves_nothing_annulled(monkeypatch: pytest.MonkeyPatch, alice: Any,
                                                       bob: Any) -> None:
    """Heard in the annulment's transaction: a crash in a listener cannot keep the flag without the recompute."""
    match = finished_match([alice, bob], 0, timezone.now())
    before = figures()

    def broken(snap: Snapshot) -> None:
        raise RuntimeError("a listener's bug")

    monkeypatch.setattr(events, "_annulled", (*events._annulled, broken))
    with pytest.raises(moderation.ServiceError):  # refused in the end: the change is never written
        moderation.annul_result(match.pk)
    stored = Match.objects.get(pk=match.pk)
    assert not stored.result.get("annulled") and stored.version == match.version
    assert FinishedMatch.objects.filter(match=match).exists() and figures() == before
