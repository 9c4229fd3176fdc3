"""In real browsers: two people play a whole Gomori match by clicking while a spectator watches; a person beats (or
loses to) a bot to the end."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from steps import page_problems, sign_up

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "e2e"
GAME_SECONDS = 240


def create_gomori(page: Any, seat: str) -> None:
    """From the lobby: a Gomori match whose second seat is filled as asked (value of the seat select)."""
    page.goto("/play/")
    form = page.locator("#create-gomori")
    if form.get_attribute("open") is None:
        form.locator("summary").click()
    form.locator("select[name='gomori-seat_1']").select_option(seat)
    form.get_by_role("button", name="Create the Gomori match").click()
    page.wait_for_url("**/m/*/")
    page.wait_for_selector("#status")


def play_one(page: Any) -> bool:
    """If it is this page's turn, play its first playable card on its first highlighted cell. True if it played."""
    if not page.locator("#status[data-your-turn]").count():
        return False
    cards = page.locator("#hand .card-button")
    if not cards.count():
        return False
    version_before = page.locator("#log li").count()
    cards.first.click()
    page.wait_for_selector("#board .cell-button")
    page.locator("#board .cell-button").first.click()
    # A king stacked onto a card asks for its target next: the face-up cards become buttons.
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        if page.locator("#log li").count() != version_before:
            return True
        kings = page.locator("#board .king-target .cell-button")
        if kings.count():
            kings.first.click()
            kings = None
            while page.locator("#log li").count() == version_before and time.monotonic() < deadline:
                page.wait_for_timeout(50)
            return True
        page.wait_for_timeout(50)
    return True


def finished(page: Any) -> bool:
    return page.locator("#status .outcome").count() > 0


def test_two_people_play_a_whole_game_by_invite_while_a_spectator_watches(browser: Any, asgi_server: str) -> None:
    from games.models import Match

    contexts = [browser.new_context(base_url=asgi_server, viewport={"width": 1280, "height": 900}) for _ in range(3)]
    ana, ben, watcher = (context.new_page() for context in contexts)
    errors = page_problems(ana, ben, watcher)
    try:
        sign_up(ana, "ana", "Ana")
        sign_up(ben, "ben", "Ben")
        create_gomori(ana, "invite")
        invite = ana.locator("input.invite-link").input_value()
        assert "?code=" in invite

        ben.goto(invite)
        ben.get_by_role("button", name="Take a seat").click()
        ben.wait_for_selector("#hand .card")
        match = Match.objects.get()
        assert match.status == Match.Status.ACTIVE
        # The spectator (not signed in) watches the public match live.
        watcher.goto(f"/m/{match.pk}/")
        watcher.wait_for_selector("#board .gomori")
        assert watcher.locator("#hand .card").count() == 0

        ana.wait_for_selector("#status[data-your-turn]")
        ana.screenshot(path=str(ARTIFACTS / "gomori-start-ana.png"), full_page=True)
        deadline = time.monotonic() + GAME_SECONDS
        plays = 0
        while not (finished(ana) and finished(ben)) and time.monotonic() < deadline:
            played = play_one(ana) or play_one(ben)
            plays += played
            if plays == 8:
                ben.screenshot(path=str(ARTIFACTS / "gomori-midgame-ben.png"), full_page=True)
                watcher.screenshot(path=str(ARTIFACTS / "gomori-midgame-spectator.png"), full_page=True)
            if not played:
                ana.wait_for_timeout(50)
        match.refresh_from_db()
        assert match.status == Match.Status.FINISHED, f"the game did not finish after {plays} plays"
        assert match.moves.count() == plays
        for tab in (ana, ben, watcher):
            tab.wait_for_selector("#status .outcome")
        outcome_ana = ana.locator("#status .outcome").inner_text()
        outcome_ben = ben.locator("#status .outcome").inner_text()
        winners = match.result["winners"]
        if match.result["draw"]:
            assert "draw" in outcome_ana.lower() and "draw" in outcome_ben.lower()
        else:
            assert ("You won" in outcome_ana) == (winners == [0])
            assert ("You won" in outcome_ben) == (winners == [1])
        assert watcher.locator("#status .outcome").inner_text()
        # The log grew one move at a time (new entries added at the top); a fresh load draws the same list.
        for tab in (ana, ben, watcher):
            live = [" ".join(text.split()) for text in tab.locator("#log-entries > li").all_text_contents()]
            tab.reload()
            tab.wait_for_selector("#status .outcome")
            drawn = [" ".join(text.split()) for text in tab.locator("#log-entries > li").all_text_contents()]
            assert len(drawn) >= min(plays, 60) and live[: len(drawn)] == drawn
        ana.screenshot(path=str(ARTIFACTS / "gomori-end-ana.png"), full_page=True)
        watcher.screenshot(path=str(ARTIFACTS / "gomori-end-spectator.png"), full_page=True)
        assert not errors, errors
    finally:
        for context in contexts:
            context.close()


def test_a_person_plays_a_bot_to_the_end(page: Any) -> None:
    from games.models import Match

    sign_up(page, "cleo", "Cleo")
    create_gomori(page, "bot:reference")
    match = Match.objects.get()
    assert match.status == Match.Status.ACTIVE
    deadline = time.monotonic() + GAME_SECONDS
    while not finished(page) and time.monotonic() < deadline:
        if not play_one(page):
            page.wait_for_timeout(50)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    # The bot's moves came from the server: its seat has moves, and the log names it.
    assert match.moves.filter(seat=1).exists()
    assert "Gomori" in page.locator("#log").inner_text()
    page.screenshot(path=str(ARTIFACTS / "gomori-vs-bot-end.png"), full_page=True)
