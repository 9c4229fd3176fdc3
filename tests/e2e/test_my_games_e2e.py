"""In a real browser (its zone America/New_York): a person with two correspondence matches opens My games from
the header, sees the one waiting on their move first, opens it, and the table says "3 days a move" and the date
the move is due in the browser's zone, which does not tick. Screenshots of both pages, desktop and phone, go to
SHOTS (default /tmp/shots-corr/)."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from days_matches import make_days_match
from factories import make_user
from steps import page_problems, sign_up
from tables import LAPTOP, PHONE

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

SHOTS = Path(os.environ.get("SHOTS", "/tmp/shots-corr"))
ZONE = "America/New_York"


def shoot(tab: Any, name: str) -> None:
    """The page at a laptop's size and a phone's, then back to the laptop's."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    for size, viewport in (("desktop", LAPTOP), ("phone", PHONE)):
        tab.set_viewport_size(viewport)
        tab.wait_for_timeout(150)
        tab.screenshot(path=str(SHOTS / f"{name}-{size}.png"), full_page=size == "desktop")
    tab.set_viewport_size(LAPTOP)


def test_my_games_then_the_correspondence_table_in_the_browser_s_zone(browser: Any, asgi_server: str) -> None:
    from django.contrib.auth import get_user_model

    from games.play.due import date_text

    context = browser.new_context(base_url=asgi_server, viewport=LAPTOP, timezone_id=ZONE)
    context.set_default_timeout(20_000)
    tab = context.new_page()
    problems = page_problems(tab)
    try:
        sign_up(tab, "corry", "Corry")
        corry = get_user_model().objects.get(username="corry")
        bob = make_user("bob", display_name="Bob")
        theirs = make_days_match(bob, corry, days=7)  # Bob to move: made first, listed second
        mine = make_days_match(corry, bob, days=3)
        expected = date_text(mine.clock_due_at, ZoneInfo(ZONE))
        assert not expected.endswith("UTC")

        tab.goto("/history/")
        tab.get_by_role("navigation", name="Main").get_by_role("link", name="My games").click()
        tab.wait_for_url("**/games/")
        order = [int(found) for found in tab.locator("tr.my-game").evaluate_all(
            "rows => rows.map(row => row.getAttribute('data-match'))")]
        assert order == [mine.pk, theirs.pk]
        your_turn = tab.locator("section[aria-labelledby='your-turn-heading']")
        assert your_turn.locator("tr.my-game").count() == 1
        row = your_turn.locator(f"tr[data-match='{mine.pk}']")
        assert row.locator("time").inner_text() == expected  # rewritten in the browser's zone
        assert "3 days a move" in row.inner_text() and "2 days 23 h left" in row.inner_text()
        assert "Bob’s move, due" in tab.locator(f"tr[data-match='{theirs.pk}']").inner_text()
        shoot(tab, "my-games")
        # On a phone the header's four links fit in their row, without scrolling.
        tab.set_viewport_size(PHONE)
        assert tab.locator("nav.main-nav").evaluate("nav => nav.scrollWidth <= nav.clientWidth")
        tab.set_viewport_size(LAPTOP)

        row.get_by_role("link", name=re.compile(r"^Play")).click()
        tab.wait_for_url(f"**/m/{mine.pk}/")
        tab.locator("html[data-live='1']").wait_for(state="attached")  # the socket's redraw is in
        assert tab.locator(".match-pace").inner_text() == "3 days a move"
        due = tab.locator("#players time")
        assert due.count() == 1 and due.inner_text() == expected
        assert tab.locator("#players .clock-running, #players [data-clock]").count() == 0
        shown = tab.locator("#players").inner_text()
        tab.wait_for_timeout(2000)
        assert tab.locator("#players").inner_text() == shown  # nothing ticks
        shoot(tab, "correspondence-table")

        # The profile's own choice of zone (blank: the browser's, as above), in a form of its own.
        tab.goto("/accounts/profile/")
        assert tab.get_by_label("Show dates in").input_value() == ""
        tab.locator("#time-zone").scroll_into_view_if_needed()
        shoot(tab, "profile-time-zone")
        assert not problems, problems
    finally:
        context.close()
