"""An invite opened by a friend who is signed out (games/lobby/invites.py): "Take a seat" sends them to sign in
or sign up, and either one ends with them seated at that match; a seat that filled meanwhile is said so."""

from __future__ import annotations

import html
from typing import Any

import pytest
from django.test import Client
from factories import PASSWORD, make_match, make_user

from games.models import Match

pytestmark = pytest.mark.django_db


def invite_match(**kw: Any) -> Match:
    return make_match(game="gomori", seats=["invite"], is_public=False, **kw)


def take_a_seat_signed_out(client: Client, match: Match) -> str:
    """Open the invite, press "Take a seat" as the page's form posts it; the address it sends us to."""
    page = client.get(f"/m/{match.pk}/?code={match.invite_code}")
    assert page.status_code == 200 and f'action="/m/{match.pk}/join/"' in page.content.decode()
    response = client.post(f"/m/{match.pk}/join/", {"code": match.invite_code})
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/?next=")
    return response["Location"]


def test_signing_in_after_take_a_seat_lands_seated_at_the_match() -> None:
    match = invite_match()
    friend = make_user("friend")
    client = Client()
    login = take_a_seat_signed_out(client, match)
    shown = html.unescape(client.get(login).content.decode())
    assert "to take your seat" in shown and "Please sign in to see that page" not in shown
    assert Match.objects.get(pk=match.pk).seats.filter(user=friend).count() == 0  # nothing happens before sign-in
    response = client.post(login, {"username": "friend", "password": PASSWORD}, follow=True)
    assert response.redirect_chain[-1][0] == f"/m/{match.pk}/?code={match.invite_code}"
    match.refresh_from_db()
    assert match.status == Match.Status.ACTIVE and match.seats.get(index=1).user == friend
    assert "You took your seat." in html.unescape(response.content.decode())


def test_signing_up_instead_carries_the_invite_and_lands_seated() -> None:
    match = invite_match()
    client = Client()
    login = take_a_seat_signed_out(client, match)
    page = client.get(login).content.decode()
    signup = html.unescape(page.split('New here? <a href="')[1].split('"')[0])
    assert signup.startswith("/accounts/signup/?next=")
    response = client.post(signup, {"username": "newcomer", "password1": PASSWORD, "password2": PASSWORD},
                           follow=True)
    assert response.redirect_chain[-1][0] == f"/m/{match.pk}/?code={match.invite_code}"
    assert Match.objects.get(pk=match.pk).seats.get(index=1).user.username == "newcomer"


def test_a_seat_filled_meanwhile_is_said_so() -> None:
    match = invite_match()
    make_user("friend")
    client = Client()
    login = take_a_seat_signed_out(client, match)
    import playing

    quicker = make_user()
    playing.join(match_id=match.pk, user=quicker, invite_code=match.invite_code)
    response = client.post(login, {"username": "friend", "password": PASSWORD}, follow=True)
    shown = html.unescape(response.content.decode())
    assert "You could not take the seat you chose: This match is no longer waiting for players." in shown
    assert Match.objects.get(pk=match.pk).seats.get(index=1).user == quicker


def test_a_wish_is_carried_out_once_and_only_for_the_one_who_signs_in() -> None:
    """The wish lives in that browser's session: signing in a second time later takes no seat again."""
    match = make_match(game="columbo", seats=["open", "open"], options={"rounds": 1}, players=3)
    make_user("friend")
    client = Client()
    response = client.post(f"/m/{match.pk}/join/")
    assert response.status_code == 302
    client.post(response["Location"], {"username": "friend", "password": PASSWORD})
    assert Match.objects.get(pk=match.pk).seats.filter(user__username="friend").count() == 1
    client.post("/accounts/logout/")
    other = make_user("other")
    client.post("/accounts/login/", {"username": "other", "password": PASSWORD})
    assert not Match.objects.get(pk=match.pk).seats.filter(user=other).exists()


def test_a_garbage_code_or_a_missing_match_is_answered_after_sign_in_without_a_crash() -> None:
    make_user("friend")
    client = Client()
    response = client.post("/m/999999/join/", {"code": "x" * 500})
    assert response.status_code == 302
    after = client.post(response["Location"], {"username": "friend", "password": PASSWORD}, follow=True)
    assert after.status_code in (200, 404)
    home = html.unescape(client.get("/play/").content.decode())
    assert "You could not take the seat you chose" in html.unescape(after.content.decode()) + home


def test_a_person_at_another_clocked_board_is_told_why_and_takes_no_seat() -> None:
    """The wish is carried out through the gate, as the lobby's Join is: a real-time match elsewhere keeps the
    person from a second one (games.boards), and the sign-in says so in the gate's own words."""
    from games.play.clock import clock_spec
    from games.play.create import create_table

    match = invite_match(clock=clock_spec("fischer", minutes=5, increment=3))
    friend = make_user("friend")
    elsewhere = create_table(game="gomori", people=[friend], bots=("reference",),
                             clock={"kind": "fischer", "base": 300.0, "increment": 3})
    client = Client()
    login = take_a_seat_signed_out(client, match)
    response = client.post(login, {"username": "friend", "password": PASSWORD}, follow=True)
    shown = html.unescape(response.content.decode())
    assert ("You could not take the seat you chose: You are playing in a match of Gomori: you can sit down again"
            " when that match ends.") in shown, shown[:2000]
    match.refresh_from_db()
    assert match.status == Match.Status.WAITING and not match.seats.filter(user=friend).exists()
    assert list(Match.objects.filter(seats__user=friend).values_list("pk", flat=True)) == [elsewhere.pk]
