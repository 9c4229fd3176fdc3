"""History lists, the leaderboard and the profile's statistics over thousands of generated matches:
filters, pagination, privacy, and a constant number of queries per page."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db.models import Q, QuerySet
from django.test import Client
from django.utils import timezone
from factories import client_for
from history_helpers import bulk_finished_matches

from games.history.display import PAGE_SIZE
from games.models import Match, PlayerStats, Seat
from games.play.bot_accounts import ensure_bot_accounts
from games.ratings.leaderboard import is_provisional
from games.ratings.queries import LEADERBOARD_MIN_MATCHES

pytestmark = pytest.mark.django_db

COUNT = 3000


@dataclass
class World:
    people: list[Any]
    bots: list[Any]
    ids: list[int]


@pytest.fixture(scope="module")
def world(django_db_setup: None, django_db_blocker: Any) -> Iterator[World]:
    """COUNT finished matches between six people and two bots, made once for the module and removed after."""
    user_model = get_user_model()
    with django_db_blocker.unblock():
        people = [user_model.objects.create(username=f"hist-{i}", display_name=f"Hist {i}") for i in range(6)]
        bots = ensure_bot_accounts()[:2]
        matches = bulk_finished_matches(COUNT, people, bots, seed=99)
        yield World(people, bots, [m.pk for m in matches])
        Match.objects.filter(pk__in=[m.pk for m in matches]).delete()
        PlayerStats.objects.filter(user__in=bots).delete()
        for person in people:
            person.delete()


def finished(world: World) -> QuerySet[Match]:
    return Match.objects.filter(pk__in=world.ids, status=Match.Status.FINISHED)


def visible(matches: QuerySet[Match], viewer: Any) -> QuerySet[Match]:
    """What a viewer may see, computed from seats (independently of the history's own tables)."""
    if viewer is None:
        return matches.filter(is_public=True)
    return matches.filter(Q(is_public=True) | Q(seats__user=viewer)).distinct()


def newest_first(matches: QuerySet[Match]) -> list[int]:
    return list(matches.order_by("-finished_at", "-pk").values_list("pk", flat=True))


def listed(response: Any) -> list[int]:
    assert response.status_code == 200
    return [row.match.pk for row in response.context["history"].rows]


def total(response: Any) -> int:
    return response.context["history"].page.paginator.count


def outcome(match: Match, user: Any) -> str:
    seat = next(s.index for s in match.seats.all() if s.user_id == user.pk)
    if match.result["draw"]:
        return "drawn"
    return "won" if seat in match.result["winners"] else "lost"


# ---------------------------------------------------------------------------------------------
# Lists and filters


def test_everyone_sees_the_public_matches_newest_first_fifty_a_page(world: World) -> None:
    expected = newest_first(visible(finished(world), None))
    client = client_for()
    first = client.get("/history/")
    assert total(first) == len(expected)
    assert listed(first) == expected[:PAGE_SIZE]
    assert listed(client.get("/history/?page=2")) == expected[PAGE_SIZE:2 * PAGE_SIZE]
    pages = -(-len(expected) // PAGE_SIZE)
    assert listed(client.get(f"/history/?page={pages}")) == expected[(pages - 1) * PAGE_SIZE:]
    assert listed(client.get("/history/?page=999999")) == expected[(pages - 1) * PAGE_SIZE:]  # the last page
    html = first.content.decode()
    assert 'rel="next"' in html and "?page=2" in html


def test_a_player_also_sees_their_own_private_matches(world: World) -> None:
    me = world.people[0]
    expected = newest_first(visible(finished(world), me))
    response = client_for(me).get("/history/")
    assert total(response) == len(expected) > total(client_for().get("/history/"))
    assert listed(response) == expected[:PAGE_SIZE]


@pytest.mark.parametrize("game", ["gomori", "rummy", "columbo", "ruhd"])
def test_filter_by_game(world: World, game: str) -> None:
    expected = newest_first(visible(finished(world), None).filter(game=game))
    response = client_for().get("/history/", {"game": game})
    assert total(response) == len(expected) > 0
    assert listed(response) == expected[:PAGE_SIZE]


def test_filter_against_bots_or_people(world: World) -> None:
    viewer = world.people[1]
    matches = visible(finished(world), viewer)
    with_bots = matches.filter(seats__user__in=world.bots).distinct()
    only_people = matches.exclude(pk__in=with_bots.values("pk"))
    for value, expected in (("bots", with_bots), ("people", only_people)):
        response = client_for(viewer).get("/history/", {"opponents": value})
        assert total(response) == expected.count() > 0
        assert listed(response) == newest_first(expected)[:PAGE_SIZE]


def test_filter_by_date(world: World) -> None:
    stamps = sorted(finished(world).values_list("finished_at", flat=True))
    first_day = timezone.localtime(stamps[0]).date()
    last_day = timezone.localtime(stamps[-1]).date()
    assert first_day < last_day
    # Split at the day of the middle match, so both sides hold matches whatever the time of day the test runs.
    split_day = timezone.localtime(stamps[len(stamps) // 2]).date()
    split = timezone.make_aware(dt.datetime.combine(split_day, dt.time.min))
    public = visible(finished(world), None)
    for params, expected in (
        ({"date_to": (split_day - dt.timedelta(days=1)).isoformat()}, public.filter(finished_at__lt=split)),
        ({"date_from": split_day.isoformat()}, public.filter(finished_at__gte=split)),
        ({"date_from": first_day.isoformat(), "date_to": last_day.isoformat()}, public),
    ):
        response = client_for().get("/history/", params)
        assert total(response) == expected.count() > 0
        assert listed(response) == newest_first(expected)[:PAGE_SIZE]
    refused = client_for().get("/history/", {"date_from": last_day.isoformat(), "date_to": first_day.isoformat()})
    assert "The first day comes after the last one." in refused.content.decode()
    # At once: the form's change redraws only the results (htmx), and they say it, listing nothing.
    swapped = client_for().get("/history/", {"date_from": last_day.isoformat(), "date_to": first_day.isoformat()},
                               headers={"HX-Request": "true"})
    body = swapped.content.decode()
    assert body.strip().startswith('<section id="history-results"')
    assert "The first day comes after the last one." in body
    assert "/replay/" not in body


def test_filter_by_player_and_their_own_page(world: World) -> None:
    player, viewer = world.people[2], world.people[3]
    expected = newest_first(visible(finished(world).filter(seats__user=player), viewer))
    for url, params in (("/history/", {"player": "HIST-2"}), (f"/u/{player.username}/history/", {})):
        response = client_for(viewer).get(url, params)
        assert total(response) == len(expected) > 0
        assert listed(response) == expected[:PAGE_SIZE]
        assert response.context["history"].subject == player
    page = client_for(viewer).get(f"/u/{player.username}/history/").content.decode()
    assert "Hist 2’s matches" in page


@pytest.mark.parametrize("result", ["won", "lost", "drawn"])
def test_the_result_filter_is_relative_to_the_chosen_player(world: World, result: str) -> None:
    player = world.people[4]
    theirs = visible(finished(world).filter(seats__user=player), None).prefetch_related("seats")
    expected = [m.pk for m in theirs.order_by("-finished_at", "-pk") if outcome(m, player) == result]
    response = client_for().get("/history/", {"player": player.username, "result": result})
    assert total(response) == len(expected) > 0
    assert listed(response) == expected[:PAGE_SIZE]
    assert {row.outcome for row in response.context["history"].rows} == {result}
    own_page = client_for().get(f"/u/{player.username}/history/", {"result": result, "page": 2})
    assert listed(own_page) == expected[PAGE_SIZE:2 * PAGE_SIZE]


def test_without_a_player_the_result_filter_is_relative_to_the_signed_in_user(world: World) -> None:
    me = world.people[5]
    mine = finished(world).filter(seats__user=me).prefetch_related("seats")
    expected = [m.pk for m in mine.order_by("-finished_at", "-pk") if outcome(m, me) == "lost"]
    response = client_for(me).get("/history/", {"result": "lost", "game": ""})
    assert total(response) == len(expected) > 0
    assert listed(response) == expected[:PAGE_SIZE]
    anonymous = client_for().get("/history/", {"result": "lost"})
    assert "Sign in, or choose a player, to filter by result." in anonymous.content.decode()
    assert total(anonymous) == visible(finished(world), None).count()


def test_private_matches_are_listed_only_to_their_players(world: World) -> None:
    private = finished(world).filter(is_public=False).prefetch_related("seats").order_by("-finished_at").first()
    assert private is not None
    players = [s.user for s in private.seats.all() if s.user and not s.user.is_bot]
    outsider = next(p for p in world.people if p not in players)
    owner = players[0]
    around = {"date_from": timezone.localtime(private.finished_at).date().isoformat(),
              "date_to": timezone.localtime(private.finished_at).date().isoformat()}

    def everything(client: Client, url: str, params: dict[str, Any]) -> set[int]:
        seen: set[int] = set()
        page = 1
        while True:
            response = client.get(url, {**params, "page": page})
            seen.update(listed(response))
            if not response.context["history"].page.has_next():
                return seen
            page += 1

    assert private.pk in everything(client_for(owner), "/history/", around)
    assert private.pk in everything(client_for(owner), f"/u/{owner.username}/history/", around)
    for viewer in (outsider, None):
        assert private.pk not in everything(client_for(viewer), "/history/", around)
        assert private.pk not in everything(client_for(viewer), f"/u/{owner.username}/history/", around)


def test_a_row_shows_game_players_scores_winner_length_and_date(world: World) -> None:
    response = client_for().get("/history/")
    row = response.context["history"].rows[0]
    match = row.match
    html = response.content.decode()
    assert row.game_name in html
    for seat in row.seats:
        assert seat.user.avatar_url.replace("&", "&amp;") in html
        assert f">{seat.user.name}</a>" in html
    first = Seat.objects.get(match_id=match.pk, index=0)  # a row carries its match's values, not the model
    assert f'<span class="history-score" title="{row.score_label}">{first.final_score}</span>' in html
    assert f"{match.move_count} moves" in html and "5 min" in html
    assert match.finished_at.isoformat()[:19] in html
    assert f'href="/m/{match.pk}/replay/"' in html and f'href="/m/{match.pk}/export.json"' in html
    if not match.result["draw"]:
        assert row.winners and row.winners[0] in html


def test_an_htmx_filter_answers_with_the_results_only(world: World) -> None:
    response = client_for().get("/history/?game=ruhd", headers={"HX-Request": "true"})
    html = response.content.decode()
    assert html.lstrip().startswith('<section id="history-results"')
    assert "<html" not in html


def test_unknown_players(world: World) -> None:
    response = client_for().get("/history/", {"player": "nobody-here"})
    assert "No player is called “nobody-here”." in response.content.decode()
    assert client_for().get("/u/nobody-here/history/").status_code == 404


# ---------------------------------------------------------------------------------------------
# A constant number of queries, whatever the page and the filters


HISTORY_URLS = [
    "/history/",
    "/history/?page=40",
    "/history/?game=rummy&opponents=bots",
    "/history/?opponents=people&date_from=2000-01-01&date_to=2100-01-01",
    "/history/?player=hist-1&result=won&page=3",
    "/history/?result=drawn",
    "/u/hist-2/history/",
    "/u/hist-2/history/?game=gomori&opponents=people&page=2",
]


@pytest.mark.parametrize("url", HISTORY_URLS)
def test_each_history_page_costs_a_constant_number_of_queries(world: World, url: str,
                                                              django_assert_max_num_queries: Any) -> None:
    viewer = world.people[1]
    # Signed in: session and user, and the header's "your turn" and challenges (4); a player's name (1); the
    # count, the rows, their seats and players (3); the analysed matches' accuracies (1).
    signed_in = client_for(viewer)
    with django_assert_max_num_queries(9):
        response = signed_in.get(url)
    assert len(listed(response)) == PAGE_SIZE
    anonymous = client_for()
    with django_assert_max_num_queries(5):
        assert anonymous.get(url).status_code == 200


def test_the_leaderboard_lists_established_ratings_by_rating_then_provisional_ones(
        world: World, django_assert_max_num_queries: Any) -> None:
    client = client_for()
    with django_assert_max_num_queries(1):
        response = client.get("/leaderboard/?game=gomori")
    rows = response.context["rows"]
    people = PlayerStats.objects.filter(game="gomori", user__is_bot=False, rated_matches__gt=0)
    established = [r for r in people.order_by("-rating") if not is_provisional(r)]
    provisional = [r for r in people.order_by("-rating") if is_provisional(r)]
    assert [r.pk for r in rows] == [r.pk for r in established + provisional]
    assert rows and all(r.user in world.people for r in rows)
    assert all(r.rated_matches >= LEADERBOARD_MIN_MATCHES for r in established)
    html = response.content.decode()
    best = rows[0]
    assert f"{best.rating:.0f}" in html and best.user.avatar_url.replace("&", "&amp;") in html
    assert f"{round(100 * best.won / best.decided)} %" in html
    assert client.get("/leaderboard/?game=unknown").context["current"].slug == "gomori"


def test_the_profile_shows_each_game_and_a_rating_chart(world: World, django_assert_max_num_queries: Any) -> None:
    person = world.people[0]
    # The person, their figures, their rating history, their best wins, their ranks (one query for all games), their
    # following (games.social.queries.profile_line).
    with django_assert_max_num_queries(7):
        response = client_for().get(f"/u/{person.username}/")
    html = response.content.decode()
    assert response.status_code == 200
    rows = {row.game: row for row in PlayerStats.objects.filter(user=person)}
    for game, row in rows.items():
        assert f"{row.won} · {row.lost} · {row.drawn}" in html
        assert f"{row.rating:.0f}" in html
        assert f'class="chart-line chart-{game}"' in html
    assert '<svg class="rating-chart"' in html and " style=" not in html
    assert f'href="/u/{person.username}/history/"' in html


def test_a_game_of_one_rated_match_is_a_line_on_the_profile_chart(make_user: Any) -> None:
    """Point 10 of the seams issue: Ruhd and Rummy, one rated match each, showed as loose dots."""
    import random
    import re

    from history_helpers import play_random, start_match

    person, other = make_user("one-each"), make_user("other-one")
    for game in ("ruhd", "rummy", "gomori"):
        play_random(start_match(game, [person, other], seed=7), [person, other], random.Random(7))
    html = client_for().get(f"/u/{person.username}/").content.decode()
    for game in ("ruhd", "rummy", "gomori"):
        points = re.search(rf'class="chart-line chart-{game}" points="([^"]*)"', html)
        assert points is not None, game
        # From the rating everyone starts with to where the match left it (the same place only for a draw).
        assert len(points.group(1).split()) == 2, f"{game}: a dot, not a line"
