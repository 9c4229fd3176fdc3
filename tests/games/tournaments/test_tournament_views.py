"""The tournament pages through Django's test client (games/tournaments/views.py): the list, a tournament's page
(standings with the streak's flame, the matches being played, the podium), creating a private one, joining with
and without its invite code, pause, come back, withdraw and start now, the profile's list and the lobby's, and
what strangers, bad ids and bad input get (404s and messages, never a 500)."""

from __future__ import annotations

import html
import re
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from factories import client_for, make_user
from tournament_play import win

from games.models import Entrant, Match, Tournament
from games.tournaments import services

pytestmark = pytest.mark.django_db(transaction=True)


def text(response: Any) -> str:
    return html.unescape(response.content.decode())


def public_arena(minutes: int = 30, starts_in: int = 10, **kw: Any) -> Tournament:
    return services.create_tournament(creator=None, kind="arena", game="gomori", clock_key="3+2", minutes=minutes,
                                      starts_at=timezone.now() + timedelta(minutes=starts_in), **kw)


def private_swiss(creator: Any) -> Tournament:
    return services.create_tournament(creator=creator, kind="swiss", game="gomori", clock_key="5+3", rounds=3,
                                      starts_at=timezone.now() + timedelta(minutes=10), is_private=True,
                                      name="Club night")


def test_the_list_shows_public_tournaments_and_private_ones_only_to_their_people() -> None:
    ann, ben = make_user("ann"), make_user("ben")
    arena = public_arena(name="Hourly Gomori")
    club = private_swiss(ann)
    anonymous = text(client_for().get("/tournaments/"))
    assert "Hourly Gomori" in anonymous and "Club night" not in anonymous
    assert "Club night" in text(client_for(ann).get("/tournaments/"))  # its creator
    assert "Club night" not in text(client_for(ben).get("/tournaments/"))
    services.join(tournament_id=club.pk, user=ben, code=club.invite_code)
    assert "Club night" in text(client_for(ben).get("/tournaments/"))  # an entrant
    assert arena.get_absolute_url() == f"/tournaments/{arena.pk}/"


def test_a_public_page_joined_by_its_button_and_left_with_withdraw() -> None:
    ann = make_user("ann", display_name="Ann")
    arena = public_arena()
    page = client_for().get(arena.get_absolute_url())
    assert page.status_code == 200 and "Sign in" in text(page) and "Nobody has joined yet" in text(page)
    client = client_for(ann)
    body = text(client.get(arena.get_absolute_url()))
    assert f'action="/tournaments/{arena.pk}/join/"' in body and "Starts in" in body
    response = client.post(f"/tournaments/{arena.pk}/join/")
    assert response.status_code == 302 and response["Location"] == arena.get_absolute_url()
    assert Entrant.objects.filter(tournament=arena, user=ann).exists()
    body = text(client.get(arena.get_absolute_url()))
    assert "You are in." in body and 'data-user="ann"' in body and "Withdraw" in body
    client.post(f"/tournaments/{arena.pk}/withdraw/")
    assert not Entrant.objects.filter(tournament=arena, user=ann).exists()  # before the start the entry goes


def test_a_signed_out_join_goes_to_the_sign_in_page_and_changes_nothing() -> None:
    arena = public_arena()
    response = client_for().post(f"/tournaments/{arena.pk}/join/")
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/?next=")
    assert not Entrant.objects.exists()


def test_a_private_tournament_is_hidden_from_strangers_and_joined_with_its_code() -> None:
    ann, ben, cat = make_user("ann"), make_user("ben"), make_user("cat")
    club = private_swiss(ann)
    url = club.get_absolute_url()
    assert client_for(ben).get(url).status_code == 404
    assert client_for().get(url).status_code == 404
    assert client_for(ben).get(f"{url}?code=wrong").status_code == 404
    # The creator sees the invite link and may join from the page (the button carries the code for them).
    body = text(client_for(ann).get(url))
    assert f"?code={club.invite_code}" in body and "Start now" in body
    assert client_for(ann).post(f"/tournaments/{club.pk}/join/", {"code": club.invite_code}).status_code == 302
    # A stranger posting without the code is refused (404: to them it does not exist); with it, they are in.
    assert client_for(ben).post(f"/tournaments/{club.pk}/join/").status_code == 404
    assert client_for(ben).post(f"/tournaments/{club.pk}/join/", {"code": "nope"}).status_code == 404
    invited = client_for(ben).get(f"{url}?code={club.invite_code}")
    assert invited.status_code == 200 and f'name="code" value="{club.invite_code}"' in text(invited)
    client_for(ben).post(f"/tournaments/{club.pk}/join/", {"code": club.invite_code})
    assert set(Entrant.objects.filter(tournament=club).values_list("user__username", flat=True)) == {"ann", "ben"}
    assert client_for(ben).get(url).status_code == 200  # an entrant needs the code no more
    assert client_for(cat).get(url).status_code == 404
    # Only the creator starts it early: a Swiss of two, its first round paired at once.
    client_for(ben).post(f"/tournaments/{club.pk}/start/", follow=True)
    club.refresh_from_db()
    assert club.status == Tournament.Status.UPCOMING
    client_for(ann).post(f"/tournaments/{club.pk}/start/")
    club.refresh_from_db()
    assert club.status == Tournament.Status.RUNNING and club.round == 1
    body = text(client_for(ben).get(url))
    assert "Round 1 of 3" in body and "Your match: play it" in body
    # A Swiss takes nobody once it runs, so the link to share is gone (it stayed on finished ones too).
    assert "Invite your friends" not in body and "Invite your friends" not in text(client_for(ann).get(url))


def test_creating_a_private_tournament_from_the_form() -> None:
    ann = make_user("ann")
    client = client_for(ann)
    assert client_for().get("/tournaments/new/").status_code == 302  # to the sign-in page
    form = client.get("/tournaments/new/")
    assert form.status_code == 200 and 'name="starts_in"' in text(form) and "3 min + 2 s" in text(form)
    response = client.post("/tournaments/new/", {"name": "Friday", "game": "gomori", "kind": "arena", "minutes": 45,
                                                 "rounds": "", "table_size": 2, "clock": "1+1", "starts_in": 5,
                                                 "rated": "on"})
    tournament = Tournament.objects.get()
    assert response.status_code == 302 and response["Location"] == tournament.get_absolute_url()
    assert tournament.is_private and tournament.created_by == ann and tournament.minutes == 45
    assert tournament.clock == services.clock_of("1+1") and tournament.rated
    assert timedelta(minutes=4) < tournament.starts_at - timezone.now() <= timedelta(minutes=5)


@pytest.mark.parametrize("change, error", [
    ({"game": "chess"}, "Select a valid choice"),
    ({"kind": "swiss", "rounds": ""}, "How many rounds?"),
    ({"minutes": 1}, "greater than or equal to 3"),
    ({"table_size": 4}, "Gomori is for tables of 2 to 2."),  # the service's own refusal, shown on the form
    ({"clock": "blitz"}, "Select a valid choice"),
    ({"starts_in": "soon"}, "Enter a whole number"),
])
def test_bad_input_on_the_form_is_refused_with_a_message(change: dict[str, Any], error: str) -> None:
    client = client_for(make_user("ann"))
    data = {"game": "gomori", "kind": "arena", "minutes": 30, "table_size": 2, "clock": "3+2", "starts_in": 5,
            **change}
    response = client.post("/tournaments/new/", data)
    assert response.status_code == 400 and error in text(response)
    assert not Tournament.objects.exists()


def test_bad_ids_and_methods() -> None:
    client = client_for(make_user("ann"))
    assert client.get("/tournaments/999999/").status_code == 404
    assert client.post("/tournaments/999999/join/").status_code == 404
    assert client.post("/tournaments/999999/pause/").status_code == 404
    assert client.get("/tournaments/abc/").status_code == 404
    arena = public_arena()
    assert client.get(f"/tournaments/{arena.pk}/join/").status_code == 405
    assert client.get(f"/tournaments/{arena.pk}/pause/").status_code == 405
    # Pausing a tournament one is not in: a message, not a crash.
    response = client.post(f"/tournaments/{arena.pk}/pause/", follow=True)
    assert response.status_code == 200 and "You are not in this tournament." in text(response)


def test_joining_needs_the_csrf_token() -> None:
    arena = public_arena()
    client = client_for(make_user("ann"), enforce_csrf_checks=True)
    assert client.post(f"/tournaments/{arena.pk}/join/").status_code == 403
    assert not Entrant.objects.exists()


def test_a_running_arena_shows_the_flame_the_doubled_win_and_the_matches_then_the_podium_and_the_profiles() -> None:
    people = [make_user(name, display_name=name.title()) for name in ("ann", "ben", "cat", "dan")]
    ann = people[0]
    arena = public_arena(starts_in=0, name="Evening arena")
    for user in people:
        services.join(tournament_id=arena.pk, user=user)
    services.tick()
    body = text(client_for().get(arena.get_absolute_url()))
    assert "left" in body and "Being played" in body and body.count(">Watch</a>") == 2
    # ann beats her first opponent, then (the winners meet) her second: 2 then 4, on fire.
    first = Entrant.objects.get(tournament=arena, user=ann).match
    assert first is not None
    win(first, ann)
    second_table = next(e.match for e in Entrant.objects.filter(tournament=arena).select_related("match")
                        if e.match_id not in (None, first.pk))
    assert second_table is not None
    other_winner = next(s.user for s in second_table.seats.select_related("user"))
    win(second_table, other_winner)
    second = Entrant.objects.get(tournament=arena, user=ann).match
    assert second is not None and second.pk not in (first.pk, second_table.pk)
    win(second, ann)
    client = client_for(ann)
    body = text(client.get(arena.get_absolute_url()))
    row = re.search(r'<tr data-user="ann".*?</tr>', body, re.S)
    assert row is not None
    assert "On fire" in row.group(0) and "mark-doubled" in row.group(0)
    assert re.findall(r'class="mark mark-(\w)[^"]*"[^>]*>(\d+)<', row.group(0)) == [("w", "2"), ("w", "4")]
    assert re.search(r'<strong>6</strong>', row.group(0))
    # The time is up: the matches in progress finish and count, then the podium, kept on the page.
    Tournament.objects.filter(pk=arena.pk).update(started_at=timezone.now() - timedelta(minutes=31))
    for match in Match.objects.filter(tournament_game__tournament=arena, status=Match.Status.ACTIVE):
        win(match, match.seats.order_by("index").first().user)
    services.tick()
    arena.refresh_from_db()
    assert arena.status == Tournament.Status.FINISHED
    body = text(client_for().get(arena.get_absolute_url()))
    podium = re.search(r'<ol class="podium">.*?</ol>', body, re.S)
    assert podium is not None
    assert re.findall(r'data-user="(\w+)"', podium.group(0))[0] == "ann"
    assert "6 points" in podium.group(0)
    # Ann's profile lists it with her place.
    profile = text(client_for().get("/u/ann/"))
    assert "Evening arena" in profile and re.search(r"medal-1\">1</strong> <span class=\"muted\">of 4", profile)
    # The lobby's section lists only upcoming and running ones: this one has gone from it.
    assert "Evening arena" not in text(client_for().get("/play/"))


def test_pause_and_come_back_and_the_lobby_lists_an_upcoming_one_with_its_join_button() -> None:
    ann = make_user("ann")
    arena = public_arena(name="Soon arena")
    client = client_for(ann)
    lobby = text(client.get("/play/"))
    assert 'id="lobby-tournaments"' in lobby and "Soon arena" in lobby
    assert f'action="/tournaments/{arena.pk}/join/"' in lobby
    client.post(f"/tournaments/{arena.pk}/join/")
    assert f'action="/tournaments/{arena.pk}/join/"' not in text(client.get("/play/"))
    client.post(f"/tournaments/{arena.pk}/pause/")
    assert Entrant.objects.get(user=ann).paused
    assert "You are paused" in text(client.get(arena.get_absolute_url()))
    client.post(f"/tournaments/{arena.pk}/resume/")
    assert not Entrant.objects.get(user=ann).paused


def test_a_tournament_match_page_links_back_to_its_tournament() -> None:
    ann, ben = make_user("ann"), make_user("ben")
    arena = public_arena(starts_in=0, name="Linked arena")
    for user in (ann, ben):
        services.join(tournament_id=arena.pk, user=user)
    services.tick()
    match = Entrant.objects.get(user=ann).match
    assert match is not None
    body = text(client_for(ann).get(match.get_absolute_url()))
    assert f'href="/tournaments/{arena.pk}/">Linked arena</a>' in body


def test_a_private_arena_offers_its_invite_link_while_a_friend_could_still_enter_by_it() -> None:
    ann = make_user("ann")
    club = services.create_tournament(creator=ann, kind="arena", game="gomori", clock_key="3+2", minutes=30,
                                      starts_at=timezone.now() + timedelta(minutes=10), is_private=True)
    url = club.get_absolute_url()
    assert f"?code={club.invite_code}" in text(client_for(ann).get(url))  # upcoming
    Tournament.objects.filter(pk=club.pk).update(status=Tournament.Status.RUNNING, started_at=timezone.now())
    assert "Invite your friends" in text(client_for(ann).get(url))  # an arena still takes entrants
    Tournament.objects.filter(pk=club.pk).update(started_at=timezone.now() - timedelta(minutes=31))
    assert "Invite your friends" not in text(client_for(ann).get(url))  # its time is up: nobody enters now
    Tournament.objects.filter(pk=club.pk).update(status=Tournament.Status.FINISHED)
    assert "Invite your friends" not in text(client_for(ann).get(url))
