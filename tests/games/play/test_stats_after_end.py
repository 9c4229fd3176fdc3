"""A finished match's statistics and ratings are written after its end, in a transaction of their own.

The end (result, seats, places) is written and shown first, so the move that ends a match is acknowledged as
fast as any other; the statistics follow in a change of their own (games.play.decide.decide_stats), and a
crash between the two leaves Match.stats_due, which the runner's sweep (games.play.stats_due) or
`rebuild_stats` completes, counting the match exactly once. The kill -9 between the two, with real servers, is
in test_live_servers.py.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from openings import play_openings

from games.models import FinishedMatch, Match, PlayerResult, PlayerStats
from games.play import stats_due
from games.play.decide import decide_resign, decide_stats
from games.play.snapshot import Snapshot, state_of
from games.play.store import commit, load
from games.play.sync import run_change
from games.ratings.rebuild import rebuild_all

pytestmark = pytest.mark.django_db


def end_without_statistics(match: Any, loser: Any) -> Snapshot:
    """The match's end written alone, as when the process died before its statistics: resigned by `loser`."""
    snap = load(match.pk)
    assert snap is not None
    change = decide_resign(snap, state_of(snap), user_id=loser.pk)
    commit([change])
    assert change.written
    return change.after


def counted(match: Any) -> tuple[int, int, list[int]]:
    """(history listings, result rows, matches played by each player) of this match's game."""
    played = sorted(PlayerStats.objects.filter(game=match.game).values_list("played", flat=True))
    return (FinishedMatch.objects.filter(match_id=match.pk).count(),
            PlayerResult.objects.filter(match_id=match.pk).count(), played)


def test_the_end_is_written_without_statistics_and_they_follow_once(alice: Any, bob: Any, start_gomori: Any) -> None:
    match = play_openings(start_gomori(alice, bob))
    ended = end_without_statistics(match, bob)
    stored = Match.objects.get(pk=match.pk)
    assert stored.status == Match.Status.FINISHED and stored.stats_due and ended.stats_due
    assert "ratings" not in stored.result
    # The end's transaction lists it in the history; nothing of the statistics is written with it.
    assert counted(match) == (1, 0, [])

    after = run_change(match.pk, decide_stats)
    stored = Match.objects.get(pk=match.pk)
    assert not stored.stats_due and after.version == ended.version + 1 == stored.version
    assert [r["seat"] for r in stored.result["ratings"]] == [0, 1]  # the result box's rating changes
    assert counted(match) == (1, 2, [1, 1])

    # Asked again (a second process, the sweep): nothing to do, nothing counted twice.
    assert run_change(match.pk, decide_stats).version == stored.version
    assert counted(match) == (1, 2, [1, 1])


def test_a_stale_copy_cannot_count_the_statistics_after_a_rebuild_counted_them(
    alice: Any, bob: Any, start_gomori: Any,
) -> None:
    match = play_openings(start_gomori(alice, bob))
    ended = end_without_statistics(match, bob)
    rebuild_all()  # counts every finished match, this one too, clears its flag and gives it its rating changes
    stored = Match.objects.get(pk=match.pk)
    assert counted(match) == (1, 2, [1, 1]) and not stored.stats_due
    assert [r["seat"] for r in stored.result["ratings"]] == [0, 1] and stored.version == ended.version + 1
    change = decide_stats(ended, state_of(ended))  # a live copy that still holds the flag
    assert change is not None
    commit([change])
    assert not change.written
    assert counted(match) == (1, 2, [1, 1])


def test_the_sweep_writes_what_a_crash_left_once_and_leaves_a_fresh_end_to_its_process(
    alice: Any, bob: Any, carol: Any, start_gomori: Any,
) -> None:
    crashed = play_openings(start_gomori(alice, bob, seed=1))
    fresh = play_openings(start_gomori(carol, bob, seed=2))
    end_without_statistics(crashed, bob)
    end_without_statistics(fresh, bob)
    Match.objects.filter(pk=crashed.pk).update(
        finished_at=timezone.now() - timedelta(seconds=stats_due.GRACE_SECONDS + 1))

    assert stats_due.record_due() == 1
    assert not Match.objects.get(pk=crashed.pk).stats_due
    assert Match.objects.get(pk=fresh.pk).stats_due  # within its grace: its own process writes it
    assert PlayerResult.objects.filter(match_id=crashed.pk).count() == 2
    assert "ratings" in Match.objects.get(pk=crashed.pk).result

    assert stats_due.record_due() == 0
    assert PlayerResult.objects.filter(match_id=crashed.pk).count() == 2
    assert PlayerStats.objects.get(game="gomori", user=alice).played == 1


def test_the_live_core_writes_the_statistics_right_after_the_end(alice: Any, bob: Any, start_gomori: Any) -> None:
    match = play_openings(start_gomori(alice, bob))
    after = run_change(match.pk, decide_resign, user_id=bob.pk)  # the site's own road: end, then statistics
    assert not after.stats_due and after.status == Match.Status.FINISHED
    assert counted(match) == (1, 2, [1, 1])
