"""A person who can no longer play leaves every feature at once (games.departures): suspended during an arena,
deactivated by the admin's "active" box, deleted. (In a browser: tests/e2e/test_one_board_e2e.py.)
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from factories import make_user
from tournament_play import opponent

from games import moderation
from games.challenges import services as challenges
from games.models import Board, Challenge, Entrant, Match, PlayerStats, Seek, Tournament
from games.play.create import create_table
from games.pool import pairing
from games.tournaments import services

pytestmark = pytest.mark.django_db(transaction=True)

LIVE = {"kind": "fischer", "base": 300.0, "increment": 3}


def person(name: str) -> Any:
    user = make_user(name, display_name=name.title())
    PlayerStats.objects.create(user=user, game="gomori", rating=1500)
    return user


def arena() -> Tournament:
    staff = make_user("staff", is_staff=True)
    return services.create_tournament(creator=staff, kind="arena", game="gomori", clock_key="5+3", minutes=30,
                                      starts_at=timezone.now(), table_size=2, name="Friday Arena")


def test_a_suspension_during_an_arena_ends_the_game_for_the_opponent_and_is_never_paired_again() -> None:
    t = arena()
    alice, dave = person("alice"), person("dave")
    for user in (alice, dave):
        services.join(tournament_id=t.pk, user=user)
    services.tick()
    game = Entrant.objects.get(tournament=t, user=dave).match
    assert game is not None and opponent(game, dave) == alice
    pairing.seek(dave, "gomori-2-none")  # waiting in a pool too (a pool without a clock may be sought meanwhile)
    bob = person("bob")
    sent = challenges.challenge(dave, bob, game="gomori", clock="none")
    received = challenges.challenge(bob, dave, game="rummy", clock="none")

    done = moderation.suspend_user(dave)

    assert done["ended"] == 1 and done["tournaments"] == 1 and done["seeks"] == 1 and done["challenges"] == 2
    assert {c.status for c in Challenge.objects.filter(pk__in=[sent.pk, received.pk])} == {"cancelled"}
    ended = Match.objects.get(pk=game.pk)
    assert ended.status == Match.Status.FINISHED and ended.result["reason"] == "suspended"
    assert Entrant.objects.get(tournament=t, user=alice).score == 2  # counted for the opponent
    assert Entrant.objects.get(tournament=t, user=dave).withdrawn
    assert not Board.objects.filter(user=dave).exists()
    assert not Seek.objects.filter(user=dave, match__isnull=True).exists()
    # Another comes; time passes: Alice is paired with them, never with Dave.
    carl = person("carl")
    services.join(tournament_id=t.pk, user=carl)
    for seconds in (15, 60):
        services.tick(now=timezone.now() + timedelta(seconds=seconds))
    assert not Match.objects.filter(seats__user=dave).exclude(pk=game.pk).exists()
    assert opponent(Entrant.objects.get(tournament=t, user=alice).match, alice) == carl
    # Lifting the suspension does not enter them again.
    moderation.unsuspend_user(dave)
    services.tick(now=timezone.now() + timedelta(seconds=90))
    assert Entrant.objects.get(tournament=t, user=dave).withdrawn
    assert not Match.objects.filter(seats__user=dave).exclude(pk=game.pk).exists()


def test_the_admin_s_active_box_turned_off_does_the_same() -> None:
    t = arena()
    bob, eve = person("bob"), person("eve")
    services.join(tournament_id=t.pk, user=eve)
    match = create_table(game="gomori", people=[bob, eve], clock=LIVE)
    eve.is_active = False
    eve.save()
    finished = Match.objects.get(pk=match.pk)
    assert finished.status == Match.Status.FINISHED and finished.result["reason"] == "suspended"
    assert not Entrant.objects.filter(tournament=t, user=eve).exists()  # an upcoming tournament's entry goes
    assert not Board.objects.filter(user=eve).exists()


def test_a_deleted_account_loses_its_match_in_progress_first() -> None:
    bob, eve = person("bob"), person("eve")
    match = create_table(game="gomori", people=[bob, eve], clock=LIVE)
    eve.delete()
    finished = Match.objects.get(pk=match.pk)
    assert finished.status == Match.Status.FINISHED and finished.result["reason"] == "suspended"
    assert not Board.objects.exists()
    assert pairing.seek(bob, "gomori-2-live").match is None  # Bob is free again
