"""In a real browser, on a desktop and a phone: the tour's Ruhd table of three, where two Regular bots tie for first
(16 each) and the person comes last (10). The person makes the game's last move by clicking while scrolled down to
their hand; the result is brought into view and says they came 3rd (never "a draw"); the rating moved as one game
lost; the history row, the profile and the leaderboard count a loss."""

from __future__ import annotations

import re
from typing import Any

import pytest
import ruhd_tie
from django.contrib.auth import get_user_model
from steps import page_problems
from tables import DESKTOP, PHONE, signed_in

from games.models import Match, PlayerStats

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

# The longest display name the site takes (40 characters), so the result box and the rows are tried with it.
LONG_NAME = "Alexandra Wilhelmina Montgomery-Smythe 3"


@pytest.mark.parametrize("screen", ["desktop", "phone"])
def test_a_ruhd_table_of_three_with_two_bots_tied_for_first_reads_as_a_loss_everywhere(
        browser: Any, asgi_server: str, screen: str) -> None:
    person = get_user_model().objects.create_user(username=f"alex_{screen}", password="x", display_name=LONG_NAME)
    match = ruhd_tie.play(ruhd_tie.create(person), person, leave_last=True)
    tab = signed_in(browser, asgi_server, person, DESKTOP if screen == "desktop" else PHONE)
    problems = page_problems(tab)
    tab.goto(f"/m/{match.pk}/")
    tab.wait_for_selector("html[data-live]")
    tab.wait_for_selector("#status[data-your-turn]:has-text('Now cover')")

    # Scrolled down to the hand and the board, as a player covering a tile in a short window is (the table fits
    # a laptop's and a phone's first screen): the result box is out of view.
    tab.locator("#hand .tile-button").first.click()  # "Cover with ..."
    tab.wait_for_selector("#hand .tile-button.selected")
    cell = tab.locator("#board .ruhd-cell.coverable .cell-button").first
    tab.set_viewport_size({"width": (DESKTOP if screen == "desktop" else PHONE)["width"], "height": 420})
    tab.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    assert tab.evaluate("document.getElementById('status').getBoundingClientRect().bottom") < 0
    cell.click()

    outcome = tab.locator("#status .outcome")
    outcome.wait_for()
    # The end is seen: the result box is brought into view.
    in_view = ("() => { const r = document.getElementById('status').getBoundingClientRect();"
               " return r.top > -1 && r.top < window.innerHeight / 2; }")  # scrolled to its top (a fraction off)
    tab.wait_for_function(in_view)
    assert outcome.inner_text() == ("Ruhd Regular (bot) and Ruhd Regular 2 (bot) shared first place. "
                                    "You came 3rd.")
    assert "draw" not in tab.locator("#status").inner_text().lower()
    scores = tab.locator("#status .final-scores").inner_text()
    assert re.sub(r"\s+", " ", scores) == (f"Points: {LONG_NAME} 10 · Ruhd Regular (bot) 16 · "
                                           "Ruhd Regular 2 (bot) 16")
    change = tab.locator("#status .rating-changes li").inner_text()  # a moment after the end
    assert tab.evaluate(in_view)  # still in view once the rating changes came
    match = Match.objects.get(pk=match.pk)
    assert match.result["places"] == [3, 1, 1]
    shown = match.result["ratings"][0]
    assert change == f"{LONG_NAME}: 1500 → {shown['after']}?, {shown['after'] - 1500:+d}"
    assert 1500 - shown["after"] < 200  # one game lost against the two Regulars (1663), not two at once

    # The history row: a loss, found by the "lost" filter and not by "drawn".
    history = f"/u/{person.username}/history/"
    tab.goto(history)
    row = tab.locator("table.history-table tbody tr").first
    assert row.locator(".outcome-badge").inner_text() == "Lost"
    assert "shared first place" in row.locator(".history-ending").inner_text()
    tab.goto(history + "?result=drawn")
    assert tab.locator(f"a[href='/m/{match.pk}/replay/']").count() == 0
    tab.goto(history + "?result=lost")
    assert tab.locator(f"a[href='/m/{match.pk}/replay/']").count() == 1

    # The profile: won · lost · drawn, and Ruhd's own figure named for what it is.
    tab.goto(f"/u/{person.username}/")
    figures = tab.locator("dl.stats-figures")
    assert figures.locator("div:has(dt:text-is('Won · lost · drawn')) dd").inner_text() == "0 · 1 · 0"
    assert re.fullmatch(r"\d+ points?", figures.locator("div:has(dt:text-is('Best tile')) dd").inner_text())

    # The leaderboard counts the loss.
    tab.goto("/leaderboard/?game=ruhd")
    line = tab.locator("tr", has_text=LONG_NAME)
    assert "0 · 1 · 0" in line.inner_text()
    rating = round(PlayerStats.objects.get(user=person, game="ruhd").rating)
    assert str(rating) in line.inner_text() and rating == shown["after"]
    assert not problems
    tab.context.close()
