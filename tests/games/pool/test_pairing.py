"""Quick pairing as a service (games.pool.pairing): seeks in the database, the one pairing decision, the offer
after waiting alone, and the bot level offered. Time is injected (`now`), never slept."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from factories import make_match, make_user

import games.bots
from games.models import Match, PlayerStats, Seat, Seek
from games.play.snapshot import ServiceError
from games.pool import pairing
from games.pool.pools import POOLS

pytestmark = pytest.mark.django_db

GOMORI = "gomori-2-none"


def person(name: str, rating: float | None = None, game: str = "gomori") -> Any:
    user = make_user(name, display_name=name.title())
    if rating is not None:
        PlayerStats.objects.create(user=user, game=game, rating=rating, deviation=80, rated_matches=20)
    return user


def seated(user: Any) -> list[int]:
    return list(Seat.objects.filter(user=user).values_list("match_id", flat=True))


def test_two_people_near_in_rating_are_seated_at_one_match_dealt_with_the_pool_s_clock() -> None:
    alice, bob = person("alice", 1500), person("bob", 1560)
    now = timezone.now()
    first = pairing.seek(alice, "gomori-2-live", now=now)
    assert first.match is None and Seek.objects.get(user=alice).match_id is None
    second = pairing.seek(bob, "gomori-2-live", now=now + timedelta(seconds=1))
    assert second.match is not None
    match = Match.objects.get(pk=second.match.pk)
    assert match.status == Match.Status.ACTIVE and match.rated and match.is_public
    assert match.clock == POOLS["gomori-2-live"].clock
    assert sorted(Seat.objects.filter(match=match).values_list("user_id", flat=True)) == sorted([alice.pk, bob.pk])
    assert set(Seek.objects.filter(match=match).values_list("user_id", flat=True)) == {alice.pk, bob.pk}
    assert not Seek.objects.filter(match__isnull=True).exists()


def test_the_range_widens_with_the_clock_of_the_decision() -> None:
    alice, bob = person("alice", 1500), person("bob", 1690)
    t0 = timezone.now()
    pairing.seek(alice, GOMORI, now=t0)
    assert pairing.seek(bob, GOMORI, now=t0).match is None  # 190 apart: more than ±100
    assert pairing.pair_pool(GOMORI, now=t0 + timedelta(seconds=9.9)) == []
    made = pairing.pair_pool(GOMORI, now=t0 + timedelta(seconds=10))
    assert len(made) == 1 and seated(alice) == seated(bob) == [made[0].pk]


def test_anyone_after_30_seconds_and_a_seek_nobody_keeps_fresh_is_dropped() -> None:
    alice, bob = person("alice", 1200), person("bob", 2100)
    t0 = timezone.now()
    pairing.seek(alice, GOMORI, now=t0)
    pairing.seek(bob, GOMORI, now=t0 + timedelta(seconds=20))
    assert pairing.pair_pool(GOMORI, now=t0 + timedelta(seconds=29)) == []
    assert len(pairing.pair_pool(GOMORI, now=t0 + timedelta(seconds=30))) == 1

    carol, dave = person("carol", 1500), person("dave", 1500)
    pairing.seek(carol, GOMORI, now=t0)
    # Carol's socket died with its process: nobody kept her seek fresh; Dave is not seated with a ghost.
    assert pairing.seek(dave, GOMORI, now=t0 + timedelta(seconds=pairing.SEEK_STALE_SECONDS + 1)).match is None
    assert not Seek.objects.filter(user=carol).exists()


def test_the_same_two_are_not_seated_again_while_a_third_waits() -> None:
    alice, bob, carol = person("alice", 1500), person("bob", 1500), person("carol", 2000)
    make_match(creator=alice, joiners=[bob])  # their latest Gomori match
    t0 = timezone.now()
    pairing.seek(carol, GOMORI, now=t0)
    pairing.seek(alice, GOMORI, now=t0 + timedelta(seconds=1))
    assert pairing.seek(bob, GOMORI, now=t0 + timedelta(seconds=2)).match is None  # Carol waits: not again
    assert Seek.objects.filter(match__isnull=True).count() == 3
    made = pairing.pair_pool(GOMORI, now=t0 + timedelta(seconds=30))  # Carol's range reaches them
    assert len(made) == 1
    players = set(Seat.objects.filter(match=made[0]).values_list("user_id", flat=True))
    assert carol.pk in players and players != {alice.pk, bob.pk}


def test_the_same_two_may_play_again_when_nobody_else_waits() -> None:
    alice, bob = person("alice", 1500), person("bob", 1500)
    make_match(creator=alice, joiners=[bob])
    t0 = timezone.now()
    pairing.seek(alice, GOMORI, now=t0)
    assert pairing.seek(bob, GOMORI, now=t0).match is not None


def test_one_pool_at_a_time_a_second_click_gets_up_and_bots_do_not_wait() -> None:
    alice = person("alice")
    t0 = timezone.now()
    pairing.seek(alice, GOMORI, now=t0)
    pairing.seek(alice, "rummy-2-turn", now=t0)
    assert list(Seek.objects.filter(user=alice).values_list("pool", flat=True)) == ["rummy-2-turn"]
    assert pairing.withdraw(alice) == 1 and not Seek.objects.filter(user=alice).exists()
    with pytest.raises(ServiceError):
        pairing.seek(alice, "no-such-pool", now=t0)
    bot = make_user("robot", is_bot=True)
    with pytest.raises(ServiceError):
        pairing.seek(bot, GOMORI, now=t0)


def test_withdrawing_by_socket_leaves_other_sockets_seeks() -> None:
    alice, bob = person("alice", 1000), person("bob", 2000)
    t0 = timezone.now()
    pairing.seek(alice, GOMORI, socket="one", now=t0)
    pairing.seek(bob, GOMORI, socket="two", now=t0)
    assert pairing.withdraw(socket="one") == 1
    assert list(Seek.objects.values_list("user_id", flat=True)) == [bob.pk]
    assert pairing.withdraw() == 0  # neither a person nor a socket: nothing


def test_play_a_bot_instead_after_30_seconds_at_a_level_near_the_rating() -> None:
    weak, strong = person("weak", 1050), person("strong", 1790)
    t0 = timezone.now()
    pairing.seek(weak, GOMORI, now=t0)
    with pytest.raises(ServiceError, match="Wait a little longer"):
        pairing.start_now(weak, GOMORI, bots=True, now=t0 + timedelta(seconds=29))
    match = pairing.start_now(weak, GOMORI, bots=True, now=t0 + timedelta(seconds=30))
    bots = Seat.objects.filter(match=match, user__is_bot=True).values_list("user__bot_level", flat=True)
    assert list(bots) == ["random"] and Match.objects.get(pk=match.pk).status == Match.Status.ACTIVE
    assert Seek.objects.get(user=weak).match_id == match.pk
    pairing.seek(strong, GOMORI, now=t0)
    match = pairing.start_now(strong, GOMORI, bots=True, now=t0 + timedelta(seconds=31))
    assert list(Seat.objects.filter(match=match, user__is_bot=True).values_list("user__bot_level", flat=True)) == [
        "search"]


def test_a_smaller_table_or_bots_in_the_empty_seats_for_columbo() -> None:
    pool = "columbo-4-none"
    alice, bob = person("alice", 1500, "columbo"), person("bob", 1500, "columbo")
    t0 = timezone.now()
    pairing.seek(alice, pool, now=t0)
    pairing.seek(bob, pool, now=t0 + timedelta(seconds=5))
    smaller = pairing.start_now(alice, pool, bots=False, now=t0 + timedelta(seconds=31))
    assert smaller.players == 2
    assert set(Seat.objects.filter(match=smaller).values_list("user_id", flat=True)) == {alice.pk, bob.pk}

    carol = person("carol", 1500, "columbo")
    pairing.seek(carol, pool, now=t0)
    with pytest.raises(ServiceError, match="Nobody else"):
        pairing.start_now(carol, pool, bots=False, now=t0 + timedelta(seconds=31))
    filled = pairing.start_now(carol, pool, bots=True, now=t0 + timedelta(seconds=31))
    assert filled.players == 4 and Seat.objects.filter(match=filled, user__is_bot=True).count() == 3


def test_play_a_bot_instead_offers_the_level_of_nearest_measured_rating() -> None:
    """The offer comes from the bots' measured ratings (games.bots.LEVEL_RATINGS, bench/bot_ratings.py)."""
    for game, levels in games.bots.LEVEL_RATINGS.items():
        for level, rating in levels.items():
            assert pairing.level_near(game, rating + 1) == level
    assert pairing.level_near("gomori", 1000) == "random"
    assert pairing.level_near("rummy", 2500) == "strong"
