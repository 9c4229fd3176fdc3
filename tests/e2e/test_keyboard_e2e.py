"""In a real browser, with the keyboard only: a whole Gomori move, a whole Rummy turn, a Ruhd placement and
cover, and a Columbo peek. The skip link leads to the table, a hand and a board are one Tab stop each (the arrow
keys move within them), Enter acts, Escape clears a selection, and after every update the focus is on a useful
control, never on the page's body. SHOTS=<folder> saves the Ruhd and Columbo tables with the keyboard focus
showing, at a desktop's and a phone's size (kbd-*.png)."""

from __future__ import annotations

import json
import os
import re
from typing import Any

import pytest
from tables import DESKTOP, PHONE, mid_game, people, signed_in

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

FOCUSED = "(() => { const a = document.activeElement; return a === document.body ? 'BODY' : (a.id || a.tagName); })()"



def focused(page: Any) -> str:
    return page.evaluate(FOCUSED)


def focused_name(page: Any) -> str:
    """The focused control's accessible name, as the browser computes it for a screen reader (its aria snapshot)."""
    line = page.locator(":focus").aria_snapshot().splitlines()[0].removeprefix("- ").removesuffix(":")
    if line.startswith("'") and line.endswith("'"):  # YAML's quoting of a line with a colon in it
        line = line[1:-1].replace("''", "'")
    found = re.match(r'[\w-]+ "((?:[^"\\]|\\.)*)"', line)
    assert found, line
    return str(json.loads(f'"{found.group(1)}"'))


def focus_matches(page: Any, selector: str) -> bool:
    return page.evaluate("sel => document.activeElement.matches(sel)", selector)


def wait_focus(page: Any, selector: str) -> None:
    page.wait_for_function("sel => document.activeElement && document.activeElement.matches(sel)", arg=selector)


def log_length(page: Any) -> int:
    return page.locator("#log li").count()


SHOTS = os.environ.get("SHOTS", "")


def shoot(page: Any, name: str) -> None:
    """With SHOTS set: the page as it is, focus ring and all, scrolled so the focused element shows."""
    if SHOTS:
        page.evaluate("() => document.activeElement.scrollIntoView({block: 'center'})")
        page.screenshot(path=f"{SHOTS}/kbd-{name}.png")


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
        page.wait_for_selector("html[data-live]", state="attached")  # the socket has drawn the table again
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
        page.wait_for_selector("html[data-live]", state="attached")  # the socket has drawn the table again
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


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_sounds_and_the_notification_are_a_player_s_while_the_match_is_played(browser: Any, asgi_server: str,
                                                                             size: dict[str, int]) -> None:
    """Offered to a player while the match is played, never to a spectator; once it ends (here resigned by clicks),
    the end's cue comes and then they go, for nothing is left to cue."""
    from steps import resign_by_clicks

    users = people(3)
    match = mid_game("gomori", users[:2], moves=6)
    page = signed_in(browser, asgi_server, users[0], size)
    watcher = signed_in(browser, asgi_server, users[2], size)
    try:
        for tab in (page, watcher):
            tab.goto(match.get_absolute_url())
            tab.wait_for_selector("html[data-live]", state="attached")
        assert page.locator("#sound-toggle").is_visible()
        assert watcher.locator("#sound-toggle, #notify-toggle, .table-tools").count() == 0
        resign_by_clicks(page)
        page.wait_for_selector("#status .outcome")
        page.locator(".table-tools").wait_for(state="hidden")
        assert page.evaluate("document.documentElement.dataset.lastCue") == "end"
        page.reload()
        page.wait_for_selector("#status .outcome")
        assert page.locator("#sound-toggle, #notify-toggle, .table-tools").count() == 0
    finally:
        watcher.context.close()
        page.context.close()


def test_sound_cues_are_off_until_turned_on_and_the_choice_is_kept(browser: Any, asgi_server: str) -> None:
    users = people(2)
    match = mid_game("gomori", users, moves=2)
    page = signed_in(browser, asgi_server, users[0], DESKTOP)
    try:
        page.goto(match.get_absolute_url())
        page.wait_for_selector("html[data-live]", state="attached")  # the socket has drawn the table again
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
        page.wait_for_selector("html[data-live]", state="attached")
        assert page.locator("#sound-toggle").get_attribute("aria-pressed") == "true"
        # Both play a move by clicking (the other in a tab of their own); when the turn comes back, the page's
        # cue is "turn" (or the move's own, a gather).
        other = signed_in(browser, asgi_server, users[1], DESKTOP)
        other.goto(match.get_absolute_url())
        other.wait_for_selector("#board .gomori")
        other.wait_for_selector("html[data-live]", state="attached")  # a click before the socket opens is lost
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


def grid_place(page: Any, element_id: str) -> tuple[int, int]:
    """(row, column) of a board cell's focusable element, counted in the grid's rows and cells."""
    return tuple(page.evaluate(
        "id => { const cell = document.getElementById(id).closest('[role=gridcell]');"
        " const row = cell.closest('[role=row]');"
        " return [Array.from(row.parentNode.querySelectorAll('[role=row]')).indexOf(row),"
        " Array.from(row.querySelectorAll('[role=gridcell]')).indexOf(cell)]; }", element_id))


def test_a_ruhd_placement_and_cover_with_the_keyboard(browser: Any, asgi_server: str) -> None:
    users = people(2)
    match = mid_game("ruhd", users, moves=2, until=lambda view: view["phase"] == "place")
    page = signed_in(browser, asgi_server, users[0], DESKTOP)
    try:
        page.goto(match.get_absolute_url())
        page.wait_for_selector("html[data-live]", state="attached")  # the socket has drawn the table again
        page.wait_for_selector("#status[data-your-turn]")
        to_the_table(page)
        # The board is one Tab stop (its cells named by their place and what lies there), the open hand the next.
        page.keyboard.press("Tab")
        assert focus_matches(page, "#board [data-key]")
        if not focus_matches(page, "button"):  # no face-down tile to take back: a cell, named
            name = focused_name(page)
            assert re.match(r"row \d+, column \d+: ", name), name
        page.keyboard.press("Tab")
        assert focus_matches(page, "#hand .tile-button")
        page.keyboard.press("End")
        assert focused(page) == page.locator("#hand [data-key]").last.get_attribute("id")
        page.keyboard.press("Home")
        chosen = focused(page)
        assert chosen.startswith("ruhd-pick-T")

        # Enter chooses the tile: the focus goes to the first legal cell; Escape takes the choice back.
        page.keyboard.press("Enter")
        wait_focus(page, "#board .ruhd-cell.target .cell-button[data-focus-next]")
        assert page.locator(f"#{chosen}[aria-pressed=true]").count() == 1
        page.keyboard.press("Escape")
        page.wait_for_selector("#hand .ruhd-turner", state="detached")
        wait_focus(page, f"#{chosen}")
        page.keyboard.press("Enter")
        wait_focus(page, "#board .ruhd-cell.target .cell-button[data-focus-next]")
        shoot(page, "ruhd-desktop")

        # R turns the tile; the focus stays on the cell.
        first = focused(page)
        page.keyboard.press("r")
        page.wait_for_selector("#hand .chip.current:text-matches('^90°')")
        page.wait_for_timeout(50)
        assert focused(page) == first

        # The arrow keys go cell by cell (up and down in the columns) to another legal cell, if there is one.
        cells = [cell.get_attribute("id") for cell in page.locator("#board .ruhd-cell.target .cell-button").all()]
        goal = cells[-1]
        (r0, c0), (r1, c1) = grid_place(page, first), grid_place(page, goal)
        for key, times in (("ArrowDown" if r1 > r0 else "ArrowUp", abs(r1 - r0)),
                           ("ArrowRight" if c1 > c0 else "ArrowLeft", abs(c1 - c0))):
            for _ in range(times):
                page.keyboard.press(key)
        assert focused(page) == goal
        label = focused_name(page)
        assert re.match(r"Place T\d\d here \(row \d+, column \d+\): \d+ points?$", label), label
        points = int(page.locator(f"#{goal} .hint").inner_text().lstrip("+"))

        # Enter places it, the score pad says what it scored, and the focus moves on to the tiles to cover with.
        before = log_length(page)
        page.keyboard.press("Enter")
        page.wait_for_function("n => document.querySelectorAll('#log li').length > n", arg=before)
        assert page.locator("#board .pad-total").inner_text() == f"+{points}"
        if page.locator("#status[data-your-turn]").count():  # a cover follows, unless the game just ended
            page.wait_for_selector("#status:has-text('Now cover')")
            if page.locator("#board .ruhd-cell.coverable").count() == 0:
                wait_focus(page, "#hand .tile-button[data-focus-next]")
                page.keyboard.press("Enter")
            wait_focus(page, "#board .ruhd-cell.coverable .cell-button[data-focus-next]")
            assert focused_name(page).startswith("Cover T")
            before = log_length(page)
            page.keyboard.press("Enter")
            page.wait_for_function("n => document.querySelectorAll('#log li').length > n", arg=before)
            page.wait_for_selector("#status[data-your-turn]", state="detached")
        page.wait_for_timeout(100)
        assert focused(page) != "BODY"
        if SHOTS:
            phone = signed_in(browser, asgi_server, users[1], PHONE)
            try:
                phone.goto(match.get_absolute_url())
                phone.wait_for_selector("#status[data-your-turn]")
                phone.locator("#hand .tile-button").first.focus()
                phone.keyboard.press("Enter")
                wait_focus(phone, "#board .cell-button[data-focus-next]")
                shoot(phone, "ruhd-phone")
            finally:
                phone.context.close()
    finally:
        page.context.close()


def test_a_columbo_peek_with_the_keyboard(browser: Any, asgi_server: str) -> None:
    users = people(2)
    match = mid_game("columbo", users, moves=0)
    page = signed_in(browser, asgi_server, users[0], DESKTOP)
    try:
        page.goto(match.get_absolute_url())
        page.wait_for_selector("html[data-live]", state="attached")  # the socket has drawn the table again
        page.wait_for_selector("#hand .cb-do-peek")
        to_the_table(page)
        for _ in range(6):  # the others' cards are no Tab stop while no card action can reach them
            page.keyboard.press("Tab")
            if focus_matches(page, "#hand [data-key]"):
                break
        assert focused(page) == "cb-card-0-0"
        names = page.evaluate("() => Array.from(document.querySelectorAll('#hand [data-key]'),"
                              " n => n.querySelector('.visually-hidden').textContent"
                              " + ' | ' + n.getAttribute('title'))")
        assert all(re.search(r"\| Your [a-z-]+ card: face-down card$", name) for name in names), names
        # The cards stand in columns of two: right is the top-right card, down from it the bottom-right one.
        page.keyboard.press("ArrowRight")
        assert focused(page) == "cb-card-0-1"
        page.keyboard.press("ArrowDown")
        assert focused(page) == "cb-card-0-3"
        page.keyboard.press("Enter")
        page.wait_for_selector("#cb-card-0-3[aria-pressed=true]")
        wait_focus(page, "#cb-card-0-3")
        page.keyboard.press("Escape")
        page.wait_for_selector("#cb-card-0-3[aria-pressed=false]")
        wait_focus(page, "#cb-card-0-3")
        page.keyboard.press("Enter")
        page.wait_for_selector("#cb-card-0-3[aria-pressed=true]")
        wait_focus(page, "#cb-card-0-3")
        page.keyboard.press("ArrowLeft")
        assert focused(page) == "cb-card-0-2"
        shoot(page, "columbo-desktop")
        page.keyboard.press("Enter")
        page.locator("#hand .cb-flash").first.wait_for()
        assert page.locator("#hand .cb-flash").count() == 2
        page.wait_for_timeout(100)
        assert focused(page).startswith("cb-card-0-")
        if SHOTS:
            phone = signed_in(browser, asgi_server, users[1], PHONE)
            try:
                phone.goto(match.get_absolute_url())
                phone.wait_for_selector("#hand .cb-do-peek")
                phone.locator("#hand [data-key]").first.focus()
                phone.keyboard.press("ArrowDown")
                shoot(phone, "columbo-phone")
            finally:
                phone.context.close()
    finally:
        page.context.close()
