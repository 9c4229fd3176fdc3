"""Challenges (games.challenges and its views): made from a profile, seen after a reload, accepted into a
match for both, declined, withdrawn, expired, refused by a person's setting; one match however often accepted."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone
from factories import make_user

from games.challenges import services as challenges
from games.challenges.queries import open_challenges
from games.models import Challenge, Match, Seat, Seek
from games.play.snapshot import ServiceError
from games.pool import pairing

pytestmark = pytest.mark.django_db


def person(name: str, **fields: Any) -> Any:
    return make_user(name, display_name=name.title(), **fields)


def signed_in(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_a_challenge_from_the_profile_is_shown_to_the_other_on_every_page_and_accepting_starts_the_match() -> None:
    alice, bob = person("alice"), person("bob")
    profile = signed_in(alice).get(f"/u/{bob.username}/")
    assert 'action="/challenge/bob/"' in profile.content.decode()
    assert 'href="/u/bob/#challenge">Challenge Bob</a>' in signed_in(alice).get("/u/bob/history/").content.decode()
    response = signed_in(alice).post("/challenge/bob/", {"game": "rummy", "clock": "turn"})
    assert response.status_code == 302
    made = Challenge.objects.get()
    assert (made.game, made.clock, made.status) == ("rummy", {"kind": "turn", "seconds": 30}, "open")
    page = signed_in(bob).get("/history/").content.decode()  # any page, after a reload
    assert "Alice</a> challenges you" in page and f"/challenges/{made.pk}/accept/" in page
    assert "challenges you" not in signed_in(alice).get("/history/").content.decode()
    lobby = signed_in(alice).get("/play/").content.decode()
    assert "You challenged" in lobby and f"/challenges/{made.pk}/withdraw/" in lobby

    accepted = signed_in(bob).post(f"/challenges/{made.pk}/accept/", HTTP_HX_REQUEST="true")
    match = Match.objects.get()
    assert accepted.headers["HX-Redirect"] == f"/m/{match.pk}/"
    assert match.status == Match.Status.ACTIVE and match.game == "rummy" and match.clock["kind"] == "turn"
    assert set(Seat.objects.filter(match=match).values_list("user_id", flat=True)) == {alice.pk, bob.pk}
    made.refresh_from_db()
    assert made.status == "accepted" and made.match_id == match.pk
    with pytest.raises(ServiceError, match="accepted already"):  # a second tab's Accept makes no second match
        challenges.accept(bob, made.pk)
    assert Match.objects.count() == 1


def test_declined_withdrawn_and_expired_challenges_make_no_match() -> None:
    alice, bob = person("alice"), person("bob")
    first = challenges.challenge(alice, bob, game="gomori", clock="none")
    with pytest.raises(ServiceError, match="not yours"):
        challenges.decline(alice, first.pk)
    response = signed_in(bob).post(f"/challenges/{first.pk}/decline/", HTTP_HX_REQUEST="true")
    assert response.status_code == 200 and "challenges you" not in response.content.decode()
    assert Challenge.objects.get(pk=first.pk).status == "declined"

    second = challenges.challenge(alice, bob, game="gomori", clock="live")
    challenges.withdraw(alice, second.pk)
    with pytest.raises(ServiceError, match="withdrawn"):
        challenges.accept(bob, second.pk)

    now = timezone.now()
    third = challenges.challenge(alice, bob, game="gomori", clock="none", now=now)
    assert open_challenges(bob, now + timedelta(minutes=4))
    assert not open_challenges(bob, now + timedelta(minutes=challenges.CHALLENGE_MINUTES))
    with pytest.raises(ServiceError, match="expired"):
        challenges.accept(bob, third.pk, now=now + timedelta(minutes=challenges.CHALLENGE_MINUTES, seconds=1))
    assert not Match.objects.exists()


def test_a_person_may_refuse_all_challenges_and_bots_and_oneself_are_not_challenged() -> None:
    alice, bob = person("alice"), person("bob", refuse_challenges=True)
    with pytest.raises(ServiceError, match="does not take challenges"):
        challenges.challenge(alice, bob, game="gomori", clock="none")
    assert "does not take challenges" in signed_in(alice).get("/u/bob/").content.decode()
    with pytest.raises(ServiceError):
        challenges.challenge(alice, alice, game="gomori", clock="none")
    with pytest.raises(ServiceError):
        challenges.challenge(alice, person("robot", is_bot=True), game="gomori", clock="none")
    with pytest.raises(ServiceError):
        challenges.challenge(alice, person("carol"), game="gomori", clock="blitz-9000")
    # The setting is the profile form's.
    edit = signed_in(alice).post("/accounts/profile/",
                                 {"display_name": "Alice", "email": "", "refuse_challenges": "on"})
    assert edit.status_code == 302
    alice.refresh_from_db()
    assert alice.refuse_challenges


def test_accepting_withdraws_the_two_people_s_seeks() -> None:
    alice, bob = person("alice"), person("bob")
    made = challenges.challenge(alice, bob, game="gomori", clock="none")
    pairing.seek(alice, "rummy-2-none")
    challenges.accept(bob, made.pk)
    assert not Seek.objects.filter(match__isnull=True).exists()
