"""My games (/games/): every match a person is in, their move first with the least time left first, then the ones
waiting on others, then those waiting for players; a constant number of queries however many; linked from the
header."""

from __future__ import annotations

import re
from zoneinfo import ZoneInfo

import pytest
from days_matches import DAY, make_days_match
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from factories import client_for, make_match

from games.play.clock import clock_spec
from games.play.due import date_text

pytestmark = pytest.mark.django_db


def row_ids(html: str, heading: str) -> list[int]:
    """The match ids of one group's rows, in order."""
    section = html.split(f'id="{heading}"', 1)[1].split("</section>", 1)[0]
    return [int(found) for found in re.findall(r'<tr class="my-game[^"]*" data-match="(\d+)"', section)]


def test_your_turn_first_least_time_left_first_then_the_others(alice, bob, carol) -> None:
    now = timezone.now()
    three_days = make_days_match(alice, bob, days=3, started=now, left=[2 * DAY + 3 * 3600 + 30, 3 * DAY])
    one_day = make_days_match(alice, carol, days=1, started=now, left=[5 * 3600 + 30, DAY])
    untimed = make_match(creator=alice, seats=["open"], joiners=[bob])
    live = make_match(creator=alice, seats=["open"], joiners=[carol],
                      clock=clock_spec("fischer", minutes=5, increment=3))
    theirs = make_days_match(bob, alice, days=7)  # Bob (seat 0) to move
    waiting = make_match(creator=alice, seats=["open"])
    others = make_days_match(bob, carol)  # not Alice's

    html = client_for(alice).get("/games/").content.decode()

    assert row_ids(html, "your-turn-heading") == [live.pk, one_day.pk, three_days.pk, untimed.pk]
    assert row_ids(html, "their-turn-heading") == [theirs.pk]
    assert row_ids(html, "waiting-heading") == [waiting.pk]
    assert f'data-match="{others.pk}"' not in html

    def row(match_id: int) -> str:
        return html.split(f'data-match="{match_id}"', 1)[1].split("</tr>", 1)[0]

    due = three_days.clock_due_at
    assert "3 days a move" in row(three_days.pk)
    assert (f'due <time datetime="{due.strftime("%Y-%m-%dT%H:%M:%SZ")}" data-local-time>{date_text(due, None)} UTC'
            '</time>') in row(three_days.pk)
    assert "2 days 3 h left" in row(three_days.pk)
    assert "1 day a move" in row(one_day.pk) and "5 h left" in row(one_day.pk)
    assert "5 min + 3 s" in row(live.pk) and re.search(r"<strong>[45]:\d\d left</strong>", row(live.pk))
    assert "No clock" in row(untimed.pk) and "since the last move" in row(untimed.pk)
    assert "Bob’s move, due <time" in row(theirs.pk) and "7 days a move" in row(theirs.pk)
    assert "6 days 23 h left" in row(theirs.pk)
    assert "Waiting for players" in row(waiting.pk) and "1 open seat" in row(waiting.pk)
    assert ">Bob</a>" in row(three_days.pk) and ">Carol</a>" in row(one_day.pk)


def test_a_chosen_zone_writes_the_dates_on_the_server(alice, bob) -> None:
    alice.time_zone = "Asia/Tokyo"
    alice.save(update_fields=["time_zone"])
    match = make_days_match(alice, bob, days=2)
    html = client_for(alice).get("/games/").content.decode()
    assert f">{date_text(match.clock_due_at, ZoneInfo('Asia/Tokyo'))}</time>" in html
    assert "data-local-time" not in html and "Dates are in Asia/Tokyo" in html


def test_bots_and_programs_are_marked(alice, make_user) -> None:
    program = make_user("prog", display_name="Prog", program=True)
    make_match(creator=alice, seats=["open"], joiners=[program])
    make_match(creator=alice, seats=["bot:random"])
    html = client_for(alice).get("/games/").content.decode()
    assert 'class="badge badge-bot" title="A program playing through the Bot API">BOT</span>' in html
    assert '<span class="badge">bot</span>' in html


def test_the_queries_do_not_grow_with_the_matches(alice, make_user) -> None:
    def queries() -> int:
        client = client_for(alice)
        with CaptureQueriesContext(connection) as captured:
            assert client.get("/games/").status_code == 200
        return len(captured)

    opponents = [make_user(display_name=f"Opponent {n}") for n in range(40)]
    for opponent in opponents[:5]:
        make_days_match(alice, opponent)
    few = queries()
    for n, opponent in enumerate(opponents[5:]):
        make_days_match(alice, opponent) if n % 2 else make_days_match(opponent, alice)
    html = client_for(alice).get("/games/").content.decode()
    assert len(re.findall(r'<tr class="my-game[ "]', html)) == 40
    assert queries() == few


def test_nothing_in_progress_says_where_to_start(alice) -> None:
    html = client_for(alice).get("/games/").content.decode()
    assert "No games in progress: play one from the lobby." in html
    assert 'href="/play/"' in html


def test_signed_in_only(alice) -> None:
    response = client_for().get("/games/")
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")


def test_the_header_links_to_my_games(alice, bob, carol) -> None:
    html = client_for(alice).get("/history/").content.decode()
    assert '<a href="/games/">My games</a>' in html
    assert "My games" not in client_for().get("/history/").content.decode()
    # Several matches waiting on the person: the header's count opens My games.
    make_days_match(alice, bob)
    make_days_match(alice, carol)
    html = client_for(alice).get("/history/").content.decode()
    assert '<a class="badge badge-turn" href="/games/">Your turn in 2 matches</a>' in html
    assert 'href="/games/" aria-current="page">My games' in client_for(alice).get("/games/").content.decode()
