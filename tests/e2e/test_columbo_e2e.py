"""In real browsers: two people play a whole one-round Columbo match by clicking — peeks, draws, a slap, a card
action, a tap — while a spectator watches, and everyone sees the round's open hands and the result; and one
person plays a solo game against the clock from the lobby to its score."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from steps import page_problems, sign_up

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "e2e"
# Seed 78 deals Ana 3♥ 9♦ J♠ 8♣ and Ben A♠ 10♥ Q♥ 6♦; the stock starts 6♥, 9♠, 5♦, 9♣.
SEED = 78
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}


def press(page: Any, name: str) -> None:
    """Click the button with this accessible name (waiting for it to appear)."""
    button = page.get_by_role("button", name=name, exact=True)
    button.wait_for()
    button.click()


def wait_for_log(page: Any, text: str) -> None:
    page.locator("#log li", has_text=text).first.wait_for()


def shot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"columbo-{name}.png"), full_page=True)


def test_two_people_play_a_round_with_a_slap_while_a_spectator_watches(browser: Any, asgi_server: str) -> None:
    from django.contrib.auth import get_user_model

    from games.engines import get_engine
    from games.models import Match
    from games.play.create import SeatSpec, create_match

    contexts = [browser.new_context(base_url=asgi_server, viewport=DESKTOP) for _ in range(3)]
    ana, ben, watcher = (context.new_page() for context in contexts)
    problems = page_problems(ana, ben, watcher)
    try:
        sign_up(ana, "ana", "Ana")
        sign_up(ben, "ben", "Ben")
        match = create_match(
            creator=get_user_model().objects.get(username="ana"), game="columbo", players=2,
            seats=[SeatSpec("invite")], options={"rounds": 1}, seed=SEED,
        )
        ana.goto(match.get_absolute_url())
        invite = ana.locator("input.invite-link").input_value()
        ben.goto(invite)
        ben.get_by_role("button", name="Take a seat").click()
        ben.wait_for_selector("#hand .cb-player")
        watcher.goto(match.get_absolute_url())
        watcher.wait_for_selector("#board .columbo")
        assert watcher.locator("#hand .cb-player").count() == 0

        # The peek: two cards each, chosen one after the other; they show for a few seconds, then turn over.
        ana.wait_for_selector("#status[data-your-turn]")
        assert "Peek at two of your cards" in ana.locator("#status").inner_text()
        press(ana, "Peek at your top-left card")
        press(ana, "Peek at your bottom-right card too")
        ana.locator("#hand .cb-flash .card", has_text="3").wait_for()
        shot(ana, "peek-flash-ana")
        assert ana.locator("#hand .cb-flash").count() == 2
        press(ben, "Peek at your top-left card")
        press(ben, "Peek at your bottom-right card too")
        ana.wait_for_selector("#status[data-your-turn]")
        ana.wait_for_timeout(4600)
        assert ana.locator("#hand .cb-flash").first.evaluate("e => getComputedStyle(e).visibility") == "hidden"
        shot(ana, "after-flash-ana")
        # "Show what I know" shows the remembered faces, and Ana's count of them.
        press(ana, "Show what I know")
        ana.locator("#hand .cb-remembered").first.wait_for()
        assert ana.locator("#hand .cb-remembered").count() == 2
        assert "You know 2 cards worth 11" in ana.locator("#hand").inner_text()
        press(ana, "Hide what I know")
        ana.wait_for_selector("#hand .cb-remembered", state="detached")

        # Ana draws the 6♥ and discards it: a slap window opens on every face-down card, for both players.
        press(ana, "Draw from the stock")
        ana.locator("#status", has_text="You drew the 6♥: swap it with one of your cards, or discard it.").wait_for()
        press(ana, "Discard the 6♥")
        ben.locator(".cb-slap").first.wait_for()
        assert ben.locator(".cb-slap").count() == 8
        assert "Slap now" in ben.locator("#board").inner_text()
        shot(ben, "slap-window-ben")
        # Ben slaps his own 6♦ (bottom-right): a match, one card fewer; everyone sees it.
        press(ben, "Slap your bottom-right card onto the 6♥")
        for tab in (ana, ben, watcher):
            tab.locator(".cb-slap-news").wait_for()
            assert tab.locator(".cb-slap").count() == 0
        assert "Ben slapped their own bottom-right card, the 6♦, onto the 6♥: a match!" in watcher.locator(
            ".cb-slap-news").inner_text()
        wait_for_log(ana, "Ben slapped")
        assert ben.locator("#hand .cb-empty").count() == 1
        shot(watcher, "after-slap-spectator")

        # Ben draws the 9♠, discards it and looks at one of his own cards.
        ben.wait_for_selector("#status[data-your-turn]")
        press(ben, "Draw from the stock")
        press(ben, "Discard the 9♠")
        ben.locator(".cb-action-mine").wait_for()
        press(ben, "Look at your top-left card")
        ben.locator("#hand .cb-flash .card", has_text="A").wait_for()
        shot(ben, "look-flash-ben")
        ben.set_viewport_size(PHONE)
        shot(ben, "look-flash-ben-phone")
        ben.set_viewport_size(DESKTOP)

        # Ana draws the 5♦ and swaps it for her top-right card.
        ana.wait_for_selector("#status[data-your-turn]")
        press(ana, "Draw from the stock")
        press(ana, "Swap the 5♦ with your top-right card")
        wait_for_log(ben, "discarded the 9♦")
        ana.set_viewport_size(PHONE)
        shot(ana, "midgame-ana-phone")
        ana.set_viewport_size(DESKTOP)

        # Ben taps; Ana has one last turn; then every hand is open and the match is over.
        ben.wait_for_selector("#status[data-your-turn]")
        press(ben, "Tap — end the round: everyone else gets one more turn")
        ana.locator("#status", has_text="Your last turn (Ben tapped)").wait_for()
        press(ana, "Draw from the stock")
        press(ana, "Discard the 9♣")
        for tab in (ana, ben, watcher):
            tab.wait_for_selector("#status .outcome")
            results = tab.locator(".cb-results").inner_text()
            assert "Round 1 (the last)" in results
            assert re.search(r"48\s*points?|23 points \+ 25 tap penalty", results)
        assert ana.locator("#status .outcome").inner_text() == "You won."
        assert ben.locator("#status .outcome").inner_text() == "Ana won."
        assert watcher.locator("#status .outcome").inner_text() == "Ana won."
        # Every card of both hands is face-up in the results.
        assert ana.locator(".cb-results .card").count() == 7
        match.refresh_from_db()
        assert match.status == Match.Status.FINISHED
        state = get_engine("columbo").load(match.state)
        assert match.result["scores"] == state.totals == [27, 48]
        shot(ana, "end-ana")
        shot(watcher, "end-spectator")
        ben.set_viewport_size(PHONE)
        shot(ben, "end-ben-phone")
        assert not problems, problems
    finally:
        for context in contexts:
            context.close()


def test_a_solo_game_from_the_lobby_to_its_score(page: Any) -> None:
    from games.models import Match

    sign_up(page, "sol", "Sol")
    page.goto("/play/")
    form = page.locator("#create-columbo")
    if form.get_attribute("open") is None:
        form.locator("summary").click()
    form.locator("select[name='columbo-players']").select_option("1")
    form.get_by_role("button", name="Create the Columbo match").click()
    page.wait_for_url("**/m/*/")
    page.wait_for_selector("#board .columbo-solo")
    assert re.search(r"Time \d+ s", page.locator(".cb-info").inner_text())
    assert page.locator(".cb-info .countdown").count() == 1
    press(page, "Peek at your top-right card")
    press(page, "Peek at your bottom-left card too")
    press(page, "Draw from the stock")
    page.locator(".cb-drawn .card").wait_for()
    drawn = page.locator(".cb-drawn .card").get_attribute("title")
    press(page, f"Discard the {drawn}")
    page.locator(".cb-info", has_text="Turn 1").wait_for()
    page.set_viewport_size(PHONE)
    shot(page, "solo-phone")
    page.set_viewport_size(DESKTOP)
    press(page, "Tap — end the game and score your hand")
    page.wait_for_selector("#status .outcome")
    match = Match.objects.get()
    assert match.status == Match.Status.FINISHED
    score = match.result["scores"][0]
    assert f"Solo score: {score}" in page.locator(".cb-solo-score").inner_text()
    assert page.locator(".cb-results .card").count() == 4
    shot(page, "solo-end")
