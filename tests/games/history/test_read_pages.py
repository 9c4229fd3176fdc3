"""The read pages at scale (issue 20): each page's number of queries pinned, the history's capped count,
the player lookup's index, and the shortcuts the presenters take (URLs from a prefix, avatar URLs cached by
what they are made from, dates and ratings formatted without the template filters) equal to what they
replace."""

from __future__ import annotations

import datetime as dt
import random
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.template.defaultfilters import date as date_filter
from django.template.defaultfilters import floatformat
from django.urls import reverse, set_script_prefix
from django.utils import timezone
from factories import client_for
from history_helpers import bulk_finished_matches, play_random, start_match

from accounts.avatars import generated_avatar_version
from games.core.web import Link
from games.history import display
from games.history.display import finished_text
from games.history.queries import players_named
from games.models import Match, PlayerStats, Seat
from games.play.bot_accounts import ensure_bot_accounts
from games.ratings.leaderboard import whole

pytestmark = pytest.mark.django_db

COUNT = 130  # three history pages


@dataclass
class Club:
    people: list[Any]
    replayed: Match


@pytest.fixture(scope="module")
def club(django_db_setup: None, django_db_blocker: Any) -> Iterator[Club]:
    """COUNT finished matches, one played move by move, and a lobby's waiting and running matches."""
    user_model = get_user_model()
    with django_db_blocker.unblock():
        people = [user_model.objects.create(username=f"Read-{i}", display_name=f"Read {i}" if i % 2 else "")
                  for i in range(6)]
        bots = ensure_bot_accounts()[:2]
        matches = bulk_finished_matches(COUNT, people, bots, seed=5)
        replayed = play_random(start_match("gomori", people[:2], seed=77), people[:2], random.Random(3))
        lobby = Match.objects.bulk_create([
            Match(game="gomori", players=2, seed=i, options={}, is_public=True, created_by=people[2 + i % 2],
                  status=Match.Status.WAITING if i < 2 else Match.Status.ACTIVE)
            for i in range(4)
        ])
        Seat.objects.bulk_create([Seat(match=m, index=s, user=people[2 + (i + s) % 4] if s == 0 or i >= 2 else None)
                                  for i, m in enumerate(lobby) for s in range(2)])
        yield Club(people, replayed)
        Match.objects.filter(pk__in=[m.pk for m in [*matches, *lobby, replayed]]).delete()
        PlayerStats.objects.filter(user__in=bots).delete()
        for person in people:
            person.delete()


# Signed in, each page reads the session and the user first, and the header the matches waiting on them (3
# queries); the challenges to them only while one may be shown (User.notices_until, the test below). The history:
# a player's name or a player's page (1), the capped count, the page's rows, their seats and players (3), the
# analysed matches' accuracies (1).
PAGES = [
    ("/history/", 4),
    ("/history/?page=2", 4),
    ("/history/?game=rummy&opponents=bots", 4),
    ("/history/?date_from=2000-01-01&date_to=2100-01-01", 4),
    ("/history/?player=read-1", 5),
    ("/u/Read-2/history/?game=gomori", 5),
    ("/leaderboard/?game=gomori", 1),  # the top 100 with their players
    # The person, their figures per game, their rating history, their best wins and ranks, their tournaments; their
    # following, followers and what the viewer does about them (games.social.queries.profile_line, 1).
    ("/u/Read-0/", 7),
    # Two lists, each with its seats and players; "Watch" (its candidates' ids, their seats and players, their
    # ratings in every game at once, the listed ones given those seats: 4, was 5 and one a game); the quick-pairing
    # grid (who waits in each pool, and whether this person does); the tournaments running and coming up (2);
    # whether this person sits at a clocked board (games.boards), read once for the quick-pairing grid (its reason
    # above the closed pools) and the lists (in place of Join), which each socket drawing one alone reads again (1,
    # was 2). Its list of challenges is the header's query. The Friends panel: whom the person follows (1; their
    # statuses only when they follow someone).
    ("/play/", 14),
]


@pytest.mark.parametrize(("url", "queries"), PAGES)
def test_each_read_page_costs_a_fixed_number_of_queries(club: Club, url: str, queries: int,
                                                        django_assert_num_queries: Any) -> None:
    signed_in = client_for(club.people[2])  # with matches in each of the lobby's lists
    with django_assert_num_queries(queries + 3):
        assert signed_in.get(url).status_code == 200


def test_the_header_reads_challenges_only_while_one_may_be_shown(club: Club, django_assert_num_queries: Any) -> None:
    from games.challenges import services

    challenger, person = club.people[4], club.people[5]
    made = services.challenge(challenger, person, game="gomori", clock="none")
    page = client_for(person)
    with django_assert_num_queries(3 + 1):  # the rules page reads nothing; the header, and its challenges
        html = page.get("/rules/").content.decode()
    assert f'data-challenge="{made.pk}"' in html
    services.decline(person, made.pk)
    challenger_page = client_for(challenger)
    assert "declined your challenge" in challenger_page.get("/rules/").content.decode()
    # Once the last moment a "no" of it may be said has passed, the header no longer asks.
    get_user_model().objects.filter(pk__in=[challenger.pk, person.pk]).update(
        notices_until=timezone.now() - dt.timedelta(seconds=1))
    with django_assert_num_queries(3):
        assert "data-challenge=" not in challenger_page.get("/rules/").content.decode()


def test_the_replay_page_costs_a_fixed_number_of_queries(club: Club, django_assert_num_queries: Any) -> None:
    # The match with its rematch (1), its seats and players (1), its moves (1), its analysis (1); a finished
    # match reads no presence.
    signed_in = client_for(club.people[0])
    url = f"/m/{club.replayed.pk}/replay/?move=5"
    signed_in.get(url)
    with django_assert_num_queries(4 + 3):  # the replay with its analysis job (4), the header (3)
        assert signed_in.get(url).status_code == 200


def test_the_history_count_stops_at_the_cap(club: Club, monkeypatch: pytest.MonkeyPatch,
                                            django_assert_num_queries: Any) -> None:
    monkeypatch.setattr(display, "COUNT_CAP", 100)
    client = client_for()
    first = client.get("/history/")
    html = first.content.decode()
    assert "More than 100 matches · page 1 of the newest 2" in " ".join(html.split())
    assert first.context["history"].capped
    last = client.get("/history/?page=99")
    assert last.context["history"].page.number == 2 and not last.context["history"].page.has_next()
    # Below the cap the count is exact, as before.
    exact = client.get("/history/?game=gomori").context["history"]
    assert not exact.capped
    assert exact.page.paginator.count == Match.objects.filter(
        listing__game="gomori", listing__is_public=True).count()


def test_the_capped_count_reads_at_most_the_cap(club: Club, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(display, "COUNT_CAP", 100)
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as captured:
        client_for().get("/history/")
    counts = [q["sql"] for q in captured if "COUNT(" in q["sql"].upper()]
    assert len(counts) == 1 and "LIMIT 101" in counts[0]


def test_the_player_lookup_is_any_case_and_uses_the_lower_index(club: Club) -> None:
    assert players_named(" read-3 ") == [club.people[3]] == players_named("READ-3")
    assert players_named("read-") == [] and players_named("  ") == []
    users = get_user_model().objects.all()
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            # A handful of users is cheaper to scan: make the planner show whether it can use the index.
            cursor.execute("SET LOCAL enable_seqscan = off")
        from django.db.models import Value
        from django.db.models.functions import Lower

        plan = users.annotate(u=Lower("username")).filter(u=Lower(Value("read-3"))).explain()
    assert "user_username_lower" in plan, plan


def test_links_equal_reverse(settings: Any) -> None:
    names = ["ada", "Ada.Lovelace", "a+b@c-d_e", "zoë", "名前", "x%y"]
    try:
        for prefix in ("/", "/club/"):
            set_script_prefix(prefix)
            profile = Link("profile")
            for name in names:
                assert profile(name) == reverse("profile", args=[name])
            replay = Link("replay", numeric=True)
            for pk in (1, 42, 10**12):
                assert replay(pk) == reverse("replay", args=[pk])
    finally:
        set_script_prefix("/")


def test_avatar_urls_are_cached_by_what_they_are_made_from(make_user: Any) -> None:
    user = make_user("painter", display_name="Ada")
    first = user.avatar_url
    assert first == f"{reverse('generated_avatar', args=['painter'])}?v={generated_avatar_version(user)}"
    user.display_name = "Ada L."  # same id, new name: a new picture, a new URL
    assert user.avatar_url != first and user.avatar_url.endswith(generated_avatar_version(user))
    user.display_name = "Ada"
    assert user.avatar_url == first
    try:
        set_script_prefix("/club/")
        assert user.avatar_url == f"/club{first}"
    finally:
        set_script_prefix("/")


def test_the_presenters_format_as_the_template_filters_did() -> None:
    moments = [dt.datetime(2026, 1, 5, 9, 3, tzinfo=dt.UTC), dt.datetime(1999, 12, 31, 23, 59, tzinfo=dt.UTC),
               timezone.now()]
    for moment in moments:
        assert finished_text(moment) == date_filter(timezone.localtime(moment), "j M Y, H:i")
    for value in (1500.0, 1500.5, 1499.4999, 2.5, 3.5, 0.5, 1234.56789, 349.99999, 110.0, 1e-9):
        assert whole(value) == floatformat(value, 0)


def test_the_header_lists_the_matches_in_progress_waiting_on_the_person(make_user: Any) -> None:
    """waiting_for starts from the matches in progress (issue 41): the same matches as before, longest waiting
    first; a finished match, one waiting on another seat, and a seat a substitute took are left out."""
    from games.notify.queries import waiting_for

    me, other = make_user("waiter"), make_user("mover")
    now = timezone.now()

    def match(status: str, on: list[int], minutes: int) -> Match:
        made = Match.objects.create(game="gomori", players=2, seed=1, options={}, status=status, waiting_on=on,
                                    turn_started_at=now - dt.timedelta(minutes=minutes))
        Seat.objects.bulk_create([Seat(match=made, index=0, user=me), Seat(match=made, index=1, user=other)])
        return made

    newer, older = match(Match.Status.ACTIVE, [0], 1), match(Match.Status.ACTIVE, [0, 1], 5)
    theirs = match(Match.Status.ACTIVE, [1], 9)
    match(Match.Status.FINISHED, [0], 9)
    taken = match(Match.Status.ACTIVE, [0], 9)
    Seat.objects.filter(match=taken, index=0).update(substitute=other)
    assert [w.match_id for w in waiting_for(me)] == [older.pk, newer.pk]
    assert [w.match_id for w in waiting_for(me, besides=older.pk)] == [newer.pk]
    assert [w.match_id for w in waiting_for(other)] == [theirs.pk, older.pk]


def test_ratings_of_several_games_at_once_equal_each_game_s(club: Club) -> None:
    from games.ratings.read import ratings_by_game, ratings_of

    bots = ensure_bot_accounts()
    players = [*club.people, *bots[:3]]
    pairs = [(game, user) for game in ("gomori", "rummy", "ruhd", "columbo") for user in players]
    together = ratings_by_game(pairs)
    for game in ("gomori", "rummy", "ruhd", "columbo"):
        assert {user.pk: together[game, user.pk] for user in players} == ratings_of(game, players)


def _older_link(html: str) -> str:
    import html as html_module
    import re

    found = re.search(r'rel="next" href="([^"]+)"', html)
    assert found, "no Older link"
    return html_module.unescape(found.group(1))


@pytest.mark.parametrize("base", ["/history/", "/u/Read-2/history/"])
def test_older_pages_follow_the_last_row_read_without_overlap_or_gap(club: Club, base: str,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Page 2 reached by page 1's "Older" link starts after page 1's last row: matches finishing between the two
    reads neither repeat a row (as page numbers did) nor hide one; a plain ?page=N is still read by its number."""
    monkeypatch.setattr(display, "PAGE_SIZE", 10)  # a player's history in the club is shorter than two full pages
    client = client_for(club.people[2])
    first = client.get(base)
    older = _older_link(first.content.decode())
    assert "page=2" in older and "after=" in older
    listed = [row.match.pk for row in first.context["history"].rows]
    newer = bulk_finished_matches(3, club.people[2:4], ensure_bot_accounts()[:1], seed=8,
                                  start=timezone.now() - dt.timedelta(minutes=5))
    try:
        second = client.get(base.rstrip("/") + "/" + older[older.index("?"):])
        page = second.context["history"]
        assert page.page.number == 2
        following = [row.match.pk for row in page.rows]
        assert not set(listed) & set(following)
        by_number = [row.match.pk for row in client.get(f"{base}?page=2").context["history"].rows]
        assert by_number != following  # the newer matches pushed the numbered page back
        # No gap: the two pages are the newest rows of the listing as page 1 saw it.
        everything = [row.match.pk for n in (1, 2, 3) for row in client.get(f"{base}?page={n}").context["history"].rows]
        seen_then = [pk for pk in everything if pk not in {m.pk for m in newer}]
        assert listed + following == seen_then[:len(listed) + len(following)]
        # "Newer" from a page read after a row goes back by number (without ?after=).
        assert re.search(r'rel="prev" href="\?page=1"', second.content.decode())
    finally:
        Match.objects.filter(pk__in=[m.pk for m in newer]).delete()


def test_a_position_reads_back_exactly_and_anything_else_is_ignored(club: Club) -> None:
    moment = dt.datetime(2026, 3, 29, 1, 59, 59, 999_999, tzinfo=dt.UTC)
    assert display.parse_position(display.position_text(moment, 42)) == (moment, 42)
    for junk in ("", None, "12", "a-1", "1-b", "-1-2", "1" * 40 + "-1", "1-2-3"):
        assert display.parse_position(junk) is None
    assert client_for().get("/history/?page=2&after=nonsense").context["history"].page.number == 2
