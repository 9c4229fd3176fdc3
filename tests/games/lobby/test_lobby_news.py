"""The lobby's lists on its sockets (games.lobby.news): the drawing shared by every watcher with nothing of their
own is exactly what that person's own drawing would be, with their CSRF secret in its forms; a person with a match
or a tournament of their own gets their own; no text in a list can take the secret's place."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import AnonymousUser
from django.utils import timezone
from factories import make_match, make_user

from games.core.shared_draw import Gathered
from games.lobby import news
from games.tournaments import services as tournaments

pytestmark = pytest.mark.django_db


def a_busy_lobby() -> None:
    host = make_user("host", display_name="Host")
    make_match(creator=host, game="gomori", seats=("open",))
    make_match(creator=make_user("other"), game="rummy", seats=("open",))
    staff = make_user("staff", is_staff=True)
    tournaments.create_tournament(creator=staff, kind="arena", game="gomori", clock_key="3+2", minutes=30,
                                  starts_at=timezone.now() + timedelta(hours=1))


def test_the_shared_drawing_is_exactly_each_watcher_s_own_with_their_csrf_secret() -> None:
    a_busy_lobby()
    watcher = make_user("watcher")
    assert not news.has_own(watcher)
    shared = news._public(True)
    assert "<csrf-slot>" in shared and 'value="<csrf-slot>"' in shared  # the Join forms' slot
    assert news.with_csrf(shared, "secret-1") == news.lists_html(watcher, "secret-1")
    assert news.with_csrf(news._public(False), "secret-2") == news.lists_html(AnonymousUser(), "secret-2")
    assert "Join" in shared and "secret" not in shared
    assert news._public_both() == {True: shared, False: news._public(False)}  # the sockets' one drawing of both


def test_a_person_with_a_match_or_a_tournament_of_their_own_gets_their_own_drawing() -> None:
    a_busy_lobby()
    player = make_user("player")
    make_match(creator=player, game="gomori", seats=("open",))
    assert news.has_own(player)
    entrant = make_user("entrant")
    arena = tournaments.create_tournament(creator=make_user("boss", is_staff=True), kind="arena", game="rummy",
                                          clock_key="3+2", minutes=30, starts_at=timezone.now() + timedelta(hours=2))
    assert not news.has_own(entrant)
    tournaments.join(tournament_id=arena.pk, user=entrant)
    assert news.has_own(entrant)
    assert news.lists_html(entrant, "s") != news.with_csrf(news._public(True), "s")  # "Open", not "Join"


def test_no_text_in_the_lists_can_take_the_place_of_the_secret() -> None:
    sly = make_user("sly", display_name="<csrf-slot>")
    make_match(creator=sly, game="gomori", seats=("open",))
    html = news.with_csrf(news._public(True), "my-secret")
    assert "&lt;csrf-slot&gt;" in html  # the name, escaped, stays a name
    assert html.count("my-secret") == html.count('name="csrfmiddlewaretoken"')
    assert news.with_csrf("<csrf-slot>", '"><script>') == "&quot;&gt;&lt;script&gt;"


def test_owners_answers_for_many_people_at_once_in_three_queries(django_assert_max_num_queries: Any) -> None:
    a_busy_lobby()
    seated, maker, entrant, idle = (make_user(name, is_staff=name == "maker")
                                    for name in ("seated", "maker", "entrant", "idle"))
    make_match(creator=seated, game="ruhd", seats=("open",))
    cup = tournaments.create_tournament(creator=maker, kind="arena", game="rummy", clock_key="3+2", minutes=30,
                                        starts_at=timezone.now() + timedelta(hours=2))
    tournaments.join(tournament_id=cup.pk, user=entrant)
    with django_assert_max_num_queries(3):
        found = news.owners(frozenset({seated.pk, maker.pk, entrant.pk, idle.pk}))
    assert found == {seated.pk, maker.pk, entrant.pk}
    assert [news.has_own(u) for u in (seated, maker, entrant, idle)] == [True, True, True, False]


async def test_asks_made_together_share_one_read_and_a_later_ask_gets_a_read_of_its_own() -> None:
    reads: list[frozenset[int]] = []

    def read(keys: frozenset[int]) -> set[int]:
        reads.append(keys)
        return {key for key in keys if key % 2 == 0}

    gathered = Gathered(read, delay=0.01)
    answers = await asyncio.gather(*(gathered.ask(key) for key in range(6)))
    assert answers == [True, False, True, False, True, False]
    assert reads == [frozenset(range(6))]
    assert await gathered.ask(7) is False and await gathered.ask(8) is True
    assert reads[1:] == [frozenset({7}), frozenset({8})]
