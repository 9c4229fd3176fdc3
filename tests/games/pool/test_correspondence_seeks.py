"""A correspondence seek waits for days with its page closed (nobody sits at a screen for a match played over
days); a real-time seek lives only while the socket that made it keeps it fresh. Each beside the other, so the
test tells them apart."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from factories import make_user

from games.models import Seek
from games.pool import pairing
from games.pool.display import waiting_counts

pytestmark = pytest.mark.django_db

CORR, LIVE = "gomori-2-3d", "rummy-2-live"


def person(name: str) -> Any:
    return make_user(name, display_name=name.title())


def test_a_correspondence_seek_outlives_its_page_and_is_paired_a_day_later() -> None:
    ana, ben, cas, dee = (person(n) for n in ("ana", "ben", "cas", "dee"))
    now = timezone.now()
    assert pairing.seek(ana, CORR, socket="lobby-socket-of-ana", now=now).match is None
    assert pairing.seek(ben, LIVE, socket="lobby-socket-of-ben", now=now).match is None
    pairing.withdraw(socket="lobby-socket-of-ana")  # both close the lobby
    pairing.withdraw(socket="lobby-socket-of-ben")
    assert Seek.objects.filter(user=ana, match__isnull=True).exists()
    assert not Seek.objects.filter(user=ben).exists()

    pairing.seek(cas, LIVE, socket="lobby-socket-of-cas", now=now)  # never touched again: its process died
    day = now + timedelta(days=1)
    counts = waiting_counts(day)
    assert counts.get(CORR) == 1 and not counts.get(LIVE)
    seated = pairing.seek(dee, CORR, socket="lobby-socket-of-dee", now=day)
    assert seated.match is not None
    assert {s.user_id for s in seated.match.seats.all()} == {ana.pk, dee.pk}
    assert seated.match.clock == {"kind": "days", "days": 3, "seconds": 3 * 86400}


def test_a_correspondence_seek_is_dropped_after_a_week_or_by_a_second_click() -> None:
    ana, ben = person("ana"), person("ben")
    now = timezone.now()
    pairing.seek(ana, CORR, socket="s1", now=now)
    later = now + timedelta(days=pairing.CORRESPONDENCE_SEEK_DAYS, seconds=1)
    assert not waiting_counts(later).get(CORR)
    assert pairing.seek(ben, CORR, socket="s2", now=later).match is None  # nobody left to pair with
    assert not Seek.objects.filter(user=ana).exists()
    pairing.withdraw(ben)
    assert not Seek.objects.filter(user=ben).exists()
