"""In a real browser, with the keyboard only: a whole Gomori move and a whole Rummy turn. The skip link leads to
the table, a hand and a board are one Tab stop each (the arrow keys move within them), Enter acts, Escape clears
a selection, and after every update the focus is on a useful control, never on the page's body."""

from __future__ import annotations

from typing import Any

import pytest
from tables import DESKTOP, mid_game, people, signed_in

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

FOCUSED = "(() => { const a = document.activeElement; return a === document.body ? 'BODY' : (a.id || a.tagName); })()"


def focused(page: Any) -> str:
    return page.evaluate(FOCUSED)


def focus_matches(page: Any, selector: str) -> bool:
    return page.evaluate("sel => document.activeElement.matches(sel)", selector)


def wait_focus(page: Any, selector: str) -> None:
    page.wait_for_function("sel => document.activeElement && document.activeElement.matches(sel)", arg=selector)


def log_length(page: Any) -> int:
    return page.locator("#log li").count()


def to_the_table(page: Any) -> None:
    """From the top of the page: Tab, Tab to the "Skip to the table" link, Enter."""
    page.locator("body").focus()
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.textContent") == "Skip to the table"
    page.keyboard.press("Enter")
    assert focused(page) == "table"


def test_a_whole_gomori_move_with_the_keyboard(browser: Any, asgi_server: str) -> None:
    users = people(2)
    match = mid_game("gomori", users, moves=2)
    page = signed_in(browser, asgi_server, users[0], DESKTOP)
    try:
        page.goto(match.get_absolute_url())
        page.wait_for_selector("#status[data-your-turn]")
        to_the_table(page)
        # The field is one Tab stop, the hand the next: five keys from the top of the page to a card.
        page.keyboard.press("Tab")
        assert focus_matches(page, "#board [data-key]")
        page.keyboard.press("Tab")
        assert focus_matches(page, "#hand .card-button")
        first = focused(page)
        cards = page.locator("#hand [data-key]").count()
        page.keyboard.press("ArrowRight")
        if cards > 1:
            assert focused(page) != first
        page.keyboard.press("Home")
        assert focused(page) == page.locator("#hand [data-key]").first.get_attribute("id")
        page.keyboard.press("End")
        page.keyboard.press("ArrowLeft" if cards > 1 else "End")
        # Home: the first card, which may have no play; go back to a playable one.
        while not focus_matches(page, "#hand .card-button"):
            page.keyboard.press("ArrowLeft")
        chosen = focused(page)

        # Enter chooses the card: the focus moves to the first legal cell. Escape takes the choice back and the
        # focus returns to the card.
        page.keyboard.press("Enter")
        wait_focus(page, "#board .cell-button[data-focus-next]")
        assert page.locator(f"#{chosen}.selected").count() == 1
        page.keyboard.press("Escape")
        page.wait_for_selector("#hand .card-button.selected", state="detached")
        wait_focus(page, f"#{chosen}")

        # The whole move: choose, play on the focused cell (a king then asks for its target, focused too), and
        # again while a stacked card lets the player go on, until the turn passes.
        before = log_length(page)
        for _ in range(12):
            page.keyboard.press("Enter")
            wait_focus(page, "#board .cell-button[data-focus-next]")
            entries = log_length(page)
            page.keyboard.press("Enter")
            page.wait_for_function(
                "n => document.querySelectorAll('#log li').length > n"
                " || document.querySelector('#board .king-target')", arg=entries)
            if page.locator("#board .king-target").count():
                wait_focus(page, "#board .king-target .cell-button")
                entries = log_length(page)
                page.keyboard.press("Enter")
                page.wait_for_function("n => document.querySelectorAll('#log li').length > n", arg=entries)
            page.wait_for_timeout(100)
            assert focused(page) != "BODY"
            if not page.locator("#status[data-your-turn]").count():
                break
            wait_focus(page, "#hand .card-button[data-focus-next]")
        else:
            raise AssertionError("the move never ended")
        assert log_length(page) > before
        assert focused(page) != "BODY"
    finally:
        page.context.close()


def test_a_whole_rummy_turn_with_the_keyboard(browser: Any, asgi_server: str) -> None:
    users = people(2)
    match = mid_game("rummy", users, moves=2, until=lambda view: view["phase"] == "draw")
    page = signed_in(browser, asgi_server, users[0], DESKTOP)
    try:
        page.goto(match.get_absolute_url())
        page.wait_for_selector("#status[data-your-turn]")
        to_the_table(page)
        # The stock is the table's first control: Enter draws, and the focus moves on to the hand.
        page.keyboard.press("Tab")
        assert focused(page) == "rm-stock"
        before = log_length(page)
        page.keyboard.press("Enter")
        page.wait_for_function("n => document.querySelectorAll('#log li').length > n", arg=before)
        wait_focus(page, "#hand .rm-hand-cards [data-key]")
        # Arrows to the third card, Enter selects it (the focus stays on it), then Tab to the discard button.
        page.keyboard.press("Home")
        page.keyboard.press("ArrowRight")
        page.keyboard.press("ArrowRight")
        assert focused(page) == "rm-card-2"
        page.keyboard.press("Enter")
        page.wait_for_selector("#rm-card-2.selected")
        wait_focus(page, "#rm-card-2")
        for _ in range(8):
            page.keyboard.press("Tab")
            if focused(page) == "rm-discard":
                break
        assert focused(page) == "rm-discard"
        before = log_length(page)
        page.keyboard.press("Enter")
        page.wait_for_function("n => document.querySelectorAll('#log li').length > n", arg=before)
        page.wait_for_selector("#status[data-your-turn]", state="detached")
        page.wait_for_timeout(100)
        assert focused(page) != "BODY"
    finally:
        page.context.close()


def test_sound_cues_are_off_until_turned_on_and_the_choice_is_kept(browser: Any, asgi_server: str) -> None:
    users = people(2)
    match = mid_game("gomori", users, moves=2)
    page = signed_in(browser, asgi_server, users[0], DESKTOP)
    try:
        page.goto(match.get_absolute_url())
        page.wait_for_selector("#status[data-your-turn]")
        toggle = page.locator("#sound-toggle")
        assert toggle.get_attribute("aria-pressed") == "false"
        toggle.click()
        assert toggle.get_attribute("aria-pressed") == "true"
        for _ in range(50):
            users[0].refresh_from_db()
            if users[0].sounds:
                break
            page.wait_for_timeout(50)
        assert users[0].sounds
        page.reload()
        assert page.locator("#sound-toggle").get_attribute("aria-pressed") == "true"
        # Both play a move by clicking (the other in a tab of their own); when the turn comes back, the page's
        # cue is "turn" (or the move's own, a gather).
        other = signed_in(browser, asgi_server, users[1], DESKTOP)
        other.goto(match.get_absolute_url())
        other.wait_for_selector("#board .gomori")
        for tab in (page, other):
            tab.wait_for_selector("#status[data-your-turn]")
            while tab.locator("#status[data-your-turn]").count():
                tab.locator("#hand .card-button").first.click()
                tab.locator("#board .cell-button").first.click()
                tab.wait_for_timeout(300)
        page.wait_for_selector("#status[data-your-turn]")
        page.wait_for_function("() => ['turn', 'gather'].includes(document.documentElement.dataset.lastCue)")
        other.context.close()
    finally:
        page.context.close()
