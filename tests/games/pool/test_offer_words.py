"""The offer after waiting alone says what is true: nobody else waits in the pool, or those who wait are too far
from the person's rating, or too few for a full table. Time is injected (`now`), never slept."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from factories import make_user

from games.models import PlayerStats
from games.pool import matchmaking, pairing
from games.pool.display import grid, quick_html

pytestmark = pytest.mark.django_db

NOBODY = "Nobody else is waiting in this pool right now."
FAR = "Nobody near your rating yet."
FEW = "Not enough players for a full table yet."


def person(name: str, rating: float, game: str = "gomori") -> Any:
    user = make_user(name, display_name=name.title())
    PlayerStats.objects.create(user=user, game=game, rating=rating, deviation=80, rated_matches=20)
    return user


def offer_words(user: Any, key: str, now: Any) -> str:
    (button,) = [b for row in grid(user, now) for b in row.buttons if b.key == key]
    assert button.offer
    return button.why_alone


def test_alone_in_the_pool_the_offer_says_nobody_else_waits() -> None:
    alice = person("alice", 1500)
    t0 = timezone.now()
    pairing.seek(alice, "gomori-2-none", now=t0)
    later = t0 + timedelta(seconds=matchmaking.ALONE_OFFER_AFTER)
    assert offer_words(alice, "gomori-2-none", later) == NOBODY
    html = quick_html(alice, later)
    assert NOBODY in html and "near your rating" not in html


def test_others_waiting_out_of_range_is_said_as_the_rating(monkeypatch: pytest.MonkeyPatch) -> None:
    # The offer coming due before anyone will do (a pool tuned so): Bob, 400 away, waits too, out of range.
    monkeypatch.setattr(matchmaking, "ALONE_OFFER_AFTER", 12.0)
    alice, bob = person("alice", 1500), person("bob", 1900)
    t0 = timezone.now()
    pairing.seek(alice, "gomori-2-none", now=t0)
    assert pairing.seek(bob, "gomori-2-none", now=t0 + timedelta(seconds=11)).match is None
    assert offer_words(alice, "gomori-2-none", t0 + timedelta(seconds=12)) == FAR


def test_too_few_for_a_full_table_is_said_so() -> None:
    # Ruhd's pool seats three: two near each other have waited long enough, and the table is not full.
    alice, bob = person("alice", 1500, "ruhd"), person("bob", 1520, "ruhd")
    t0 = timezone.now()
    pairing.seek(alice, "ruhd-3-none", now=t0)
    pairing.seek(bob, "ruhd-3-none", now=t0 + timedelta(seconds=1))
    later = t0 + timedelta(seconds=matchmaking.ALONE_OFFER_AFTER)
    assert offer_words(alice, "ruhd-3-none", later) == FEW
    assert "Start now, 2 players" in quick_html(alice, later)
