"""People are found by the names the site shows: the history's Player field (and a player's own history's "Played
against") takes the display name, the username and a bot's shown name as the rows print them, in any case;
a name several people share lists them instead of guessing; the field suggests names from one query."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from html import unescape
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext
from factories import client_for
from history_helpers import bulk_finished_matches

from games.history import queries
from games.models import Match, PlayerStats
from games.play.bot_accounts import bot_user, ensure_bot_accounts

pytestmark = pytest.mark.django_db


@dataclass
class Club:
    bob: Any  # "Bob B.", username bob
    carol: Any
    dee: Any  # "Dee", and so is dee-too: two accounts that shared a name before names were compared
    dee_too: Any
    bot: Any  # "Ruhd Regular (bot)"
    ids: list[int]


@pytest.fixture(scope="module")
def club(django_db_setup: None, django_db_blocker: Any) -> Iterator[Club]:
    user_model = get_user_model()
    with django_db_blocker.unblock():
        ensure_bot_accounts()
        bot = bot_user("ruhd", "reference")
        bob = user_model.objects.create(username="bob", display_name="Bob B.")
        carol = user_model.objects.create(username="carol", display_name="Carol")
        dee = user_model.objects.create(username="dee", display_name="Dee")
        dee_too = user_model.objects.create(username="dee-too", display_name="")
        # As the accounts of before accounts/migrations/0005: the same shown name, the later one holding no key.
        user_model.objects.filter(pk=dee_too.pk).update(display_name="Dee")
        dee_too.refresh_from_db()
        people = [bob, carol, dee, dee_too]
        matches = bulk_finished_matches(80, people, [bot], seed=48)
        yield Club(bob, carol, dee, dee_too, bot, [m.pk for m in matches])
        Match.objects.filter(pk__in=[m.pk for m in matches]).delete()
        PlayerStats.objects.filter(user=bot).delete()
        for person in people:
            person.delete()


def public_matches_of(club: Club, *people: Any) -> list[int]:
    matches = Match.objects.filter(pk__in=club.ids, is_public=True)
    for person in people:
        matches = matches.filter(pk__in=Match.objects.filter(seats__user=person).values("pk"))
    return list(matches.order_by("-finished_at", "-pk").values_list("pk", flat=True))


def listed(response: Any) -> list[int]:
    assert response.status_code == 200
    history = response.context["history"]
    assert history is not None, response.context["notice"]
    return [row.match.pk for row in history.rows]


def test_the_player_field_takes_the_display_name_the_username_and_any_case(club: Club) -> None:
    expected = public_matches_of(club, club.bob)
    assert expected
    for typed in ("Bob B.", "bob", "bob b.", "  BOB   B. ", "BOB"):
        response = client_for().get("/history/", {"player": typed})
        assert response.context["history"] is not None, (typed, response.context["notice"])
        assert response.context["history"].subject == club.bob, typed
        assert listed(response) == expected[:50]
    assert "No player is called “Bob C.”." in client_for().get("/history/", {"player": "Bob C."}).content.decode()


def test_every_name_a_history_row_prints_finds_its_player(club: Club) -> None:
    """What the rows print, typed back into the Player field, is that player (the bot's "Ruhd Regular (bot)" too,
    and the number a row adds to a second seat of the same bot)."""
    response = client_for().get("/history/")
    printed = {(cell.label, cell.profile_url) for row in response.context["history"].rows for cell in row.players}
    assert ("Ruhd Regular (bot)", "/u/bot-ruhd-reference/") in printed and ("Bob B.", "/u/bob/") in printed
    html = response.content.decode()
    assert ">Ruhd Regular (bot)</a>" in html and ">Bob B.</a>" in html
    for label, url in printed:
        if label.startswith("Dee"):
            continue  # a name two share: the next test
        history = client_for().get("/history/", {"player": label}).context["history"]
        assert history is not None and f"/u/{history.subject.username}/" == url, label
    bot = client_for().get("/history/", {"player": "ruhd regular 2 (BOT)"})
    assert bot.context["history"].subject == club.bot
    assert listed(bot) == public_matches_of(club, club.bot)[:50]


def test_a_shared_name_lists_each_player_and_each_link_filters_by_that_one(club: Club) -> None:
    response = client_for().get("/history/", {"player": "dee", "game": "gomori", "page": "2"})
    html = unescape(response.content.decode())
    assert "Several players are called “dee”: choose one." in html
    assert response.context["history"] is None and "/replay/" not in html  # nothing listed for a guess
    links = [candidate.url for candidate in response.context["candidates"]]
    assert [c.user for c in response.context["candidates"]] == [club.dee, club.dee_too]
    for person, link in zip((club.dee, club.dee_too), links, strict=True):
        assert f'href="{link}"' in html
        assert "game=gomori" in link and "page=" not in link  # the other filters kept, from the first page
        chosen = client_for().get(link)
        assert chosen.context["history"].subject == person
        expected = [pk for pk in public_matches_of(club, person)
                    if Match.objects.filter(pk=pk, game="gomori").exists()]
        assert listed(chosen) == expected[:50]
    # The htmx answer (the form's own request) lists them too.
    swapped = client_for().get("/history/", {"player": "Dee"}, headers={"HX-Request": "true"}).content.decode()
    assert swapped.lstrip().startswith('<section id="history-results"') and "@dee-too" in swapped


def test_a_player_s_own_history_has_a_played_against_field(club: Club) -> None:
    page = client_for(club.bob).get("/u/bob/history/").content.decode()
    field = re.search(r'<input type="text" name="opponent"[^>]*>', page)
    assert field is not None and 'aria-controls="player-names"' in field.group(0)
    assert '<label for="id_opponent">Played against</label>' in page and 'name="player"' not in page
    assert 'name="opponent"' not in client_for().get("/history/").content.decode()

    expected = public_matches_of(club, club.bob, club.carol)
    for typed in ("Carol", "CAROL", "carol"):
        response = client_for().get("/u/bob/history/", {"opponent": typed})
        assert listed(response) == expected[:50] and expected, typed
        assert f"{len(expected)} matches" in response.content.decode() and "against <a href=\"/u/carol/\">Carol" \
            in response.content.decode()
    against_bot = client_for().get("/u/bob/history/", {"opponent": "Ruhd Regular (bot)", "result": "won"})
    won = [row.outcome for row in against_bot.context["history"].rows]
    assert listed(against_bot) and set(won) == {"won"}
    assert set(listed(against_bot)) <= set(public_matches_of(club, club.bob, club.bot))
    nobody = client_for().get("/u/bob/history/", {"opponent": "Zed"}).content.decode()
    assert "No player is called “Zed”." in nobody
    shared = client_for().get("/u/bob/history/", {"opponent": "Dee"})
    assert [c.user for c in shared.context["candidates"]] == [club.dee, club.dee_too]
    chosen = client_for().get(shared.context["candidates"][1].url)
    assert chosen.context["opponent"] == club.dee_too
    assert listed(chosen) == public_matches_of(club, club.bob, club.dee_too)[:50]


def options(html: str) -> list[tuple[str, str]]:
    """(name filled in, "@username") of each suggestion of the list's HTML."""
    assert html.strip().startswith('<ul id="player-names" class="name-suggestions" role="listbox"'), html
    found = re.findall(r'role="option" aria-selected="false" data-name="([^"]*)">.*?<span class="muted">@([^< ]*)',
                       html)
    return [(unescape(name), "@" + unescape(username)) for name, username in found]


def test_the_suggestions_are_the_names_beginning_as_typed_from_one_query(
        club: Club, django_assert_num_queries: Any) -> None:
    user_model = get_user_model()
    many = [user_model(username=f"bo-{i:02d}", display_name=f"Boris {i:02d}") for i in range(30)]
    for person in many:
        person.save()  # save(): each one's name keys
    away = user_model.objects.create(username="bosun", display_name="Bosun", is_active=False)
    client = client_for()
    with django_assert_num_queries(1):
        found = options(client.get("/history/names/", {"player": "BOB"}).content.decode())
    assert found == [("Bob B.", "@bob")]
    with django_assert_num_queries(1):
        found = options(client.get("/history/names/", {"player": "bo"}).content.decode())
    # The first SUGGESTIONS in the order of their keys: "bo-00" (a username) before "bob b.".
    assert found == [(f"Boris {i:02d}", f"@bo-{i:02d}") for i in range(queries.SUGGESTIONS)]
    assert options(client.get("/history/names/", {"player": "bos"}).content.decode()) == []  # suspended: not offered
    bots = options(client.get("/history/names/", {"opponent": "ruhd r"}).content.decode())
    assert bots == [("Ruhd Regular (bot)", "@bot-ruhd-reference"), ("Ruhd Rookie (bot)", "@bot-ruhd-random")]
    # A name two share is offered as each one's own choice, which the field then takes as that one.
    shared = options(client.get("/history/names/", {"player": "de"}).content.decode())
    assert shared == [("Dee (@dee)", "@dee"), ("Dee (@dee-too)", "@dee-too")]
    assert client.get("/history/", {"player": "Dee (@dee-too)"}).context["history"].subject == club.dee_too
    with django_assert_num_queries(0):
        assert options(client.get("/history/names/", {"player": "  "}).content.decode()) == []
    # The page's field suggests from that list, and asks for it as one types.
    page = client.get("/history/").content.decode()
    field = re.search(r'<input type="text" name="player"[^>]*>', page)
    assert field is not None
    for attribute in ('role="combobox"', 'aria-controls="player-names"', 'hx-get="/history/names/"',
                      'hx-target="#player-names"', 'hx-push-url="false"', "data-suggest"):
        assert attribute in field.group(0)
    assert re.search(r'<ul id="player-names" class="name-suggestions" role="listbox"[^>]* hidden>\s*</ul>', page)
    for person in [*many, away]:
        person.delete()


def plans(call: Any) -> list[str]:
    """The database's plan of each query the call makes, one line per plan."""
    with CaptureQueriesContext(connection) as captured:
        call()
    out = []
    with connection.cursor() as cursor:
        for query in captured.captured_queries:
            if connection.vendor == "sqlite":
                cursor.execute("EXPLAIN QUERY PLAN " + query["sql"])
                out.append(" / ".join(str(row[-1]) for row in cursor.fetchall()))
            else:
                cursor.execute("EXPLAIN " + query["sql"])
                out.append(" / ".join(str(row[0]) for row in cursor.fetchall()))
    return out


def test_the_lookups_use_the_indexes(club: Club) -> None:
    if connection.vendor == "postgresql":
        # PostgreSQL weighs a plan by the table's size: a club of a few people is read whole whatever the indexes,
        # so the plans are read over 5,000 more people (and their name keys), counted by ANALYZE.
        from accounts.models import NameKey

        crowd = get_user_model().objects.bulk_create(
            get_user_model()(username=f"crowd-{i}", display_name=f"Crowd {i}", password="!") for i in range(5000))
        NameKey.objects.bulk_create(NameKey(key=f"crowd {i}", user=person) for i, person in enumerate(crowd))
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE accounts_user")
            cursor.execute("ANALYZE accounts_namekey")
        plan = " / ".join(plans(lambda: queries.players_named("Bob B.")))
        assert "user_username_lower" in plan and "user_display_name_lower" in plan, plan
        assert "accounts_namekey_key" in plan and "Seq Scan" not in plan, plan
        (plan,) = plans(lambda: queries.name_suggestions("Bo"))
        assert "Index Scan using accounts_namekey_key" in plan and "Seq Scan" not in plan, plan
        return
    plan = " / ".join(plans(lambda: queries.players_named("Bob B.")))
    assert "user_username_lower" in plan and "user_display_name_lower" in plan, plan
    assert "sqlite_autoindex_accounts_namekey" in plan and "SCAN accounts_user" not in plan, plan
    (plan,) = plans(lambda: queries.name_suggestions("Bo"))
    assert "SEARCH accounts_namekey USING INDEX" in plan and "SCAN accounts_namekey" not in plan, plan
