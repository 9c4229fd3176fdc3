"""Friends (games.social): following and unfollowing from a profile, the lists of whom a person follows and who
follows them, the lobby's Friends panel as the page draws it (online, playing with Watch, away, hidden), and
blocking: a blocked person's challenges refused plainly, never paired with the blocker by quick pairing."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone
from factories import client_for, make_user

from games import blocks
from games.challenges import services as challenges
from games.models import Block, Board, Challenge, Follow, OnlineSocket, PlayerStats, Process, Seat
from games.play import liveness
from games.play.snapshot import ServiceError
from games.pool import pairing
from games.social import queries, services
from games.social.queries import AWAY_SECONDS

pytestmark = pytest.mark.django_db

GOMORI = "gomori-2-none"


def person(name: str, **fields: Any) -> Any:
    return make_user(name, display_name=name.title(), **fields)


def panel(html: str) -> str:
    """The lobby page's Friends panel."""
    start = html.index('<section id="friends"')
    return html[start:html.index("</section>", start)]


def test_one_click_on_a_profile_follows_and_another_unfollows() -> None:
    alice, bob = person("alice"), person("bob")
    page = client_for(alice).get("/u/bob/").content.decode()
    assert 'action="/u/bob/follow/"' in page and ">Follow</button>" in page
    answer = client_for(alice).post("/u/bob/follow/", follow=True)
    assert answer.redirect_chain[-1][0] == "/u/bob/" and "You follow Bob" in answer.content.decode()
    assert Follow.objects.filter(follower=alice, followed=bob).count() == 1
    page = client_for(alice).get("/u/bob/").content.decode()
    assert 'action="/u/bob/unfollow/"' in page and ">Unfollow</button>" in page
    client_for(alice).post("/u/bob/follow/")  # twice is once
    assert Follow.objects.filter(follower=alice, followed=bob).count() == 1
    client_for(alice).post("/u/bob/unfollow/")
    assert not Follow.objects.exists()


def test_the_forms_are_posts_for_people_signed_in_and_nobody_follows_or_blocks_themselves() -> None:
    alice, bob = person("alice"), person("bob")
    assert client_for(alice).get("/u/bob/follow/").status_code == 405
    assert Client().post("/u/bob/follow/").status_code == 302  # to the sign-in page
    assert client_for(alice).post("/u/nobody/follow/").status_code == 404
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(alice)
    assert strict.post("/u/bob/follow/").status_code == 403
    for verb in ("follow", "block"):
        answer = client_for(alice).post(f"/u/alice/{verb}/", follow=True)
        assert f"You cannot {verb} yourself." in answer.content.decode()
    assert not Follow.objects.exists() and not Block.objects.exists()
    page = client_for(alice).get("/u/alice/").content.decode()
    assert "/u/alice/follow/" not in page and "/u/alice/block/" not in page
    bot = make_user("gomori-bot", is_bot=True, bot_game="gomori", bot_level="easy")
    with pytest.raises(ServiceError, match="bots are not followed"):
        services.follow(alice, bot)
    program = person("prog", program=True, owner=bob)  # a Bot API program is followed like anyone
    services.follow(alice, program)
    assert queries.is_following(alice, program)


def test_a_person_sees_whom_they_follow_and_who_follows_them() -> None:
    alice, bob, carol = person("alice"), person("bob"), person("carol")
    services.follow(alice, bob)
    services.follow(alice, carol)
    services.follow(carol, alice)
    page = Client().get("/u/alice/friends/").content.decode()
    following = page[page.index("Following (2)"):page.index("Followers")]
    followers = page[page.index("Followers (1)"):]
    assert "Bob" in following and "Carol" in following
    assert "Carol" in followers and "Bob" not in followers
    assert "2 following · 1 follower" in Client().get("/u/alice/").content.decode()


def online(user: Any, socket: str = "s1") -> None:
    services.socket_opened(user_id=user.pk, socket=socket)


def test_the_lobby_panel_shows_the_people_followed_who_are_online_playing_or_away(start_gomori: Any) -> None:
    alice, bob, carol, dan, erin = (person(n) for n in ("alice", "bob", "carol", "dan", "erin"))
    for other in (bob, carol, dan, erin):
        services.follow(alice, other)
    online(bob, "b1")
    online(carol, "c1")
    online(dan, "d1")
    services.socket_closed(user_id=dan.pk, socket="d1")  # dan's page just closed: away
    match = start_gomori(carol, person("frank"))
    Board.objects.create(user=carol, match=match, since=timezone.now())  # carol at a clocked board: playing
    lobby = panel(client_for(alice).get("/play/").content.decode())
    assert 'data-friend="bob" data-state="online"' in lobby
    assert 'data-friend="carol" data-state="playing"' in lobby and f'href="/m/{match.pk}/">Watch</a>' in lobby
    assert 'data-friend="dan" data-state="away"' in lobby
    assert "erin" not in lobby  # never online
    assert lobby.index("carol") < lobby.index("bob") < lobby.index("dan")  # playing, online, away
    assert 'action="/challenge/bob/"' in lobby  # a challenge in one click, through the challenges' own view
    # Away ends by itself.
    OnlineSocket.objects.filter(socket="d1").update(closed_at=timezone.now() - timedelta(seconds=AWAY_SECONDS + 1))
    assert "dan" not in panel(client_for(alice).get("/play/").content.decode())
    # A challenge from the panel is the profile's.
    client_for(alice).post("/challenge/bob/", {"game": "gomori", "clock": "none"})
    assert Challenge.objects.get().challenged_id == bob.pk


def test_a_hidden_status_is_offline_to_everyone() -> None:
    alice, bob = person("alice"), person("bob", hide_online=True)
    services.follow(alice, bob)
    online(bob)
    assert queries.statuses([bob.pk])[bob.pk].state == "offline"
    assert "bob" not in panel(client_for(alice).get("/play/").content.decode())
    answer = client_for(bob).post("/accounts/profile/", {"display_name": "Bob", "email": "", "hide_online": ""})
    assert answer.status_code == 302
    assert queries.statuses([bob.pk])[bob.pk].state == "online"
    assert 'data-friend="bob" data-state="online"' in panel(client_for(alice).get("/play/").content.decode())


def test_following_nobody_costs_one_trivial_query(django_assert_num_queries: Any) -> None:
    alice = person("alice")
    with django_assert_num_queries(1):
        assert queries.friends_panel(alice.pk) == []
    assert "Follow people from their profiles" in panel(client_for(alice).get("/play/").content.decode())
    assert 'id="friends"' not in Client().get("/play/").content.decode()  # a visitor has no panel


def test_a_blocked_person_s_challenge_is_refused_plainly_and_the_block_is_said_nowhere() -> None:
    alice, bob = person("alice"), person("bob")
    services.follow(bob, alice)
    challenges.challenge(bob, alice, game="gomori", clock="none")
    page = client_for(alice).get("/u/bob/").content.decode()
    assert 'action="/u/bob/block/"' in page
    client_for(alice).post("/u/bob/block/")
    assert queries.is_blocking(alice, bob)
    assert not Follow.objects.exists()  # a block ends the following
    assert Challenge.objects.get().status == Challenge.Status.DECLINED  # and the open challenge
    answer = client_for(bob).post("/challenge/alice/", {"game": "gomori", "clock": "none"}, follow=True)
    said = [str(message) for message in answer.context["messages"]]
    assert said == ["Alice does not take challenges."]  # the words a refusal of every challenge says
    assert Challenge.objects.count() == 1
    with pytest.raises(ServiceError, match=r"^Alice does not take challenges\.$"):
        challenges.challenge(bob, alice, game="gomori", clock="none")
    with pytest.raises(ServiceError, match="You blocked Bob"):
        challenges.challenge(alice, bob, game="gomori", clock="none")
    with pytest.raises(ServiceError, match=r"^You cannot follow Alice\.$"):
        services.follow(bob, alice)
    assert not blocks.may_invite(bob.pk, alice.pk) and blocks.may_invite(alice.pk, bob.pk)  # the clubs' hook
    assert ">Unblock</button>" in client_for(alice).get("/u/bob/").content.decode()
    client_for(alice).post("/u/bob/unblock/")
    challenges.challenge(bob, alice, game="gomori", clock="none")
    assert Challenge.objects.filter(status=Challenge.Status.OPEN).count() == 1


def test_quick_pairing_never_seats_two_people_of_whom_one_blocked_the_other() -> None:
    alice, bob, carol = person("alice"), person("bob"), person("carol")
    for user in (alice, bob, carol):
        PlayerStats.objects.create(user=user, game="gomori", rating=1500, deviation=80, rated_matches=20)
    services.block(alice, bob)
    t0 = timezone.now()
    pairing.seek(alice, GOMORI, now=t0)
    assert pairing.seek(bob, GOMORI, now=t0).match is None  # alone together: they wait on, even past 30 s
    assert pairing.pair_pool(GOMORI, now=t0 + timedelta(seconds=40)) == []
    made = pairing.seek(carol, GOMORI, now=t0 + timedelta(seconds=41)).match
    assert made is not None
    seated = set(Seat.objects.filter(match=made).values_list("user_id", flat=True))
    assert carol.pk in seated and seated != {alice.pk, bob.pk}


def test_a_page_on_a_dead_process_stops_counting_and_its_row_is_forgotten() -> None:
    bob = person("bob")
    long_ago = timezone.now() - timedelta(hours=2)
    Process.objects.create(key="dead", last_seen=long_ago)
    OnlineSocket.objects.create(socket="x", user=bob, process="dead", opened_at=long_ago)
    assert queries.statuses([bob.pk])[bob.pk].state == "offline"  # neither online nor away: gone for hours
    Process.objects.create(key="alive", last_seen=timezone.now())
    OnlineSocket.objects.create(socket="y", user=bob, process="alive", opened_at=long_ago)
    assert queries.statuses([bob.pk])[bob.pk].state == "online"  # its process's pulse keeps an old page online
    assert liveness.forget_dead() == 1
    assert list(OnlineSocket.objects.values_list("socket", flat=True)) == ["y"]
