"""In real browsers: two people play a whole Ruhd game by clicking (one on a desktop, one on a phone-sized screen)
while a spectator watches: choosing tiles from the open hand and from the board, turning them with the R key and the
buttons, placing on a highlighted cell, covering; the score pad explains each placement; the result is shown."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import pytest
from steps import page_problems, sign_up

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "e2e"
SEED = 424242
GAME_SECONDS = 180
PHONE = {"width": 390, "height": 844}


def create_ruhd(page: Any) -> None:
    """From the lobby: a two-player Ruhd match whose second seat waits for an invited friend."""
    page.goto("/play/")
    form = page.locator("#create-ruhd")
    if form.get_attribute("open") is None:
        form.locator("summary").click()
    form.locator("select[name='ruhd-players']").select_option("2")
    form.locator("select[name='ruhd-seat_1']").select_option("invite")
    form.get_by_role("button", name="Create the Ruhd match").click()
    page.wait_for_url("**/m/*/")
    page.wait_for_selector("#status")


def log_length(page: Any) -> int:
    return page.locator("#log li").count()


def wait_for_log(page: Any, before: int) -> None:
    """Until the server's answer to an action (each action adds to the log) has arrived."""
    page.wait_for_function("(n) => document.querySelectorAll('#log li').length > n", arg=before)


def current_chip(page: Any) -> str:
    return page.locator("#hand .chip.current").inner_text().split()[0]


def best_turn(page: Any) -> int:
    """How many quarter turns clockwise give the selected tile its best score (from the turn chips)."""
    best, turns = -1, 0
    for i, text in enumerate(page.locator("#hand .chip").all_inner_texts()):
        found = re.search(r"\+(\d+)", text)
        if found and int(found.group(1)) > best:
            best, turns = int(found.group(1)), i
    return turns


def tab_to(page: Any, selector: str) -> str:
    """Press Tab until the focus is on an element matching selector (as a keyboard user would); its label."""
    for _ in range(60):
        page.keyboard.press("Tab")
        label = page.evaluate(
            "(sel) => { const a = document.activeElement;"
            " return a && a.matches(sel) ? a.getAttribute('aria-label')"
            " || (a.querySelector(':scope > .visually-hidden') || a).textContent : null; }",
            selector,
        )
        if label is not None:
            return label
    raise AssertionError(f"Tab never reached {selector}")


def keyboard_turn(page: Any) -> None:
    """A whole turn with the keyboard only: Tab and Enter to choose, R to turn, Tab and Enter to place and cover."""
    page.locator("body").focus()
    before = log_length(page)
    assert tab_to(page, "#hand .tile-button").startswith("Choose ")
    page.keyboard.press("Enter")
    page.wait_for_selector("#hand .ruhd-turner")
    page.keyboard.press("r")
    page.wait_for_selector("#hand .chip.current:text-matches('^90°')")
    label = tab_to(page, "#board .ruhd-cell.target .cell-button")
    assert re.match(r"Place T\d\d here \(row \d+, column \d+\): \d+ points?$", label), label
    page.keyboard.press("Enter")
    wait_for_log(page, before)
    page.wait_for_selector("#status:has-text('Now cover')")
    assert tab_to(page, "#hand .tile-button").startswith("Cover with ")
    page.keyboard.press("Enter")
    page.wait_for_selector("#board .ruhd-cell.coverable .cell-button")
    before = log_length(page)
    assert tab_to(page, "#board .ruhd-cell.coverable .cell-button").startswith("Cover ")
    page.keyboard.press("Enter")
    wait_for_log(page, before)


def play_turn(page: Any, name: str, shots: dict[str, Any]) -> bool:
    """If it is this page's turn: choose, turn, place, then cover, all by clicking (and the R key). True if it did."""
    if not page.locator("#status[data-your-turn]").count():
        return False
    status = page.locator("#status").inner_text()
    if "Now cover" not in status:
        takeable = page.locator("#board .ruhd-cell.takeable .cell-button")
        if takeable.count() and not shots.get("taken"):  # once: take a face-down tile back from the board
            shots["taken"] = True
            takeable.first.click()
        else:
            tiles = page.locator("#hand .tile-button")
            badges = [int(re.search(r"\+(\d+)", text).group(1)) for text in tiles.all_inner_texts()]
            tiles.nth(badges.index(max(badges))).click()
        page.wait_for_selector("#hand .ruhd-turner")
        assert current_chip(page) == "0°"
        turns = best_turn(page) or 1  # always turn at least once
        for step in range(turns):
            expected = ("90°", "180°", "270°", "0°")[step]
            if step == 0 or (turns == 3 and step == 2):
                page.keyboard.press("r")  # the R key turns the tile clockwise
            else:
                page.get_by_role("button", name=re.compile("clockwise \\(R key\\)")).click()
            page.wait_for_function(
                "(want) => { const c = document.querySelector('#hand .chip.current');"
                " return c && c.textContent.trim().startsWith(want); }",
                arg=expected,
            )
        target = page.locator("#board .ruhd-cell.target.best .cell-button").first
        target.wait_for(state="visible", timeout=30_000)  # the board of the last turn comes after the chip's
        expected_points = int(target.locator(".hint").inner_text().lstrip("+"))
        if "select" not in shots:
            target.hover()  # the tile shows where it would lie
            shot = ARTIFACTS / f"ruhd-choose-turn-place-{name}.png"
            shots["select"] = page.screenshot(path=str(shot), full_page=True)
        before = log_length(page)
        target.click()
        wait_for_log(page, before)
        pad_total = page.locator("#board .pad-total").inner_text()
        assert pad_total == f"+{expected_points}", (pad_total, expected_points)
        assert page.locator(f"#board .ruhd-cell.placed .placed-score:text-is('+{expected_points}')").count() == 1
        if page.locator("#board .ring-pattern").count() and "pattern" not in shots:
            shots["pattern"] = page.screenshot(path=str(ARTIFACTS / f"ruhd-score-pad-pattern-{name}.png"),
                                               full_page=True)
    if page.locator("#status .outcome").count() or not page.locator("#status[data-your-turn]").count():
        return True  # the placement ended the game (nothing left to cover with)
    assert "Now cover" in page.locator("#status").inner_text()
    hand = page.locator("#hand .tile-button")
    if hand.count():
        hand.last.click()
    page.wait_for_selector("#board .ruhd-cell.coverable .cell-button")
    if "cover" not in shots:
        page.locator("#board .ruhd-cell.coverable .cell-button").first.hover()
        shots["cover"] = page.screenshot(path=str(ARTIFACTS / f"ruhd-cover-{name}.png"), full_page=True)
    before = log_length(page)
    page.locator("#board .ruhd-cell.coverable .cell-button").first.click()
    wait_for_log(page, before)
    return True


def test_two_people_play_a_whole_game_by_clicking_while_a_spectator_watches(browser: Any, asgi_server: str) -> None:
    from games.models import Match

    contexts = [
        browser.new_context(base_url=asgi_server, viewport={"width": 1280, "height": 900}),
        browser.new_context(base_url=asgi_server, viewport=PHONE, is_mobile=True, has_touch=True),
        browser.new_context(base_url=asgi_server, viewport={"width": 1100, "height": 900}),
    ]
    for context in contexts:
        context.set_default_timeout(10_000)
    ana, ben, watcher = (context.new_page() for context in contexts)
    errors = page_problems(ana, ben, watcher)
    try:
        sign_up(ana, "ana", "Ana")
        sign_up(ben, "ben", "Ben")
        create_ruhd(ana)
        invite = ana.locator("input.invite-link").input_value()
        Match.objects.update(seed=SEED)  # a known deal, so the game is the same on every run
        ben.goto(invite)
        ben.get_by_role("button", name="Take a seat").click()
        ben.wait_for_selector("#hand .ruhd-hand-tiles")
        match = Match.objects.get()
        assert match.status == Match.Status.ACTIVE
        watcher.goto(f"/m/{match.pk}/")
        watcher.wait_for_selector("#board .ruhd-grid")
        # Everyone sees the open hand; only the player to act gets buttons.
        assert watcher.locator("#hand .ruhd-hand-tiles li").count() == 4
        assert watcher.locator("#hand .tile-button, #board .cell-button").count() == 0
        ana.wait_for_selector("#status[data-your-turn]")
        assert ben.locator("#hand .tile-button").count() == 0
        ana.screenshot(path=str(ARTIFACTS / "ruhd-start-ana.png"), full_page=True)
        ben.screenshot(path=str(ARTIFACTS / "ruhd-start-ben-phone.png"), full_page=True)
        keyboard_turn(ana)  # Ana's first turn without the mouse

        shots: dict[str, Any] = {}
        turns = {"ana": 1, "ben": 0}
        deadline = time.monotonic() + GAME_SECONDS
        while not (ana.locator("#status .outcome").count() and ben.locator("#status .outcome").count()):
            assert time.monotonic() < deadline, "the game did not finish in time"
            played = False
            for name, tab in (("ana", ana), ("ben", ben)):
                if play_turn(tab, name, shots):
                    turns[name] += 1
                    played = True
                    if name == "ben" and turns["ben"] == 1:
                        ben.screenshot(path=str(ARTIFACTS / "ruhd-after-turn-ben-phone.png"), full_page=True)
                        watcher.screenshot(path=str(ARTIFACTS / "ruhd-midgame-spectator.png"), full_page=True)
            if not played:
                ana.wait_for_timeout(50)
            # The page never scrolls sideways on the phone (the board scrolls inside its own box if it must).
            assert ben.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]

        match.refresh_from_db()
        assert match.status == Match.Status.FINISHED
        actions = [move.action for move in match.moves.all()]
        placements = [action for action in actions if action["type"] == "place"]
        assert len(placements) == turns["ana"] + turns["ben"] >= 5
        assert any(action["rotation"] for action in placements)
        # One placement was a face-down tile taken back: a tile that had covered another before.
        covered_with = [action["tile"] for action in actions if action["type"] == "cover"]
        assert any(action["tile"] in covered_with for action in placements)
        for tab in (ana, ben, watcher):
            tab.wait_for_selector("#status .outcome")
            assert "Game over" in tab.locator("#board .ruhd-steps").inner_text()
        winners = match.result["winners"]
        outcome_ana = ana.locator("#status .outcome").inner_text()
        outcome_ben = ben.locator("#status .outcome").inner_text()
        if match.result["draw"]:
            assert "share" in outcome_ana.lower() or "draw" in outcome_ana.lower()
        else:
            assert ("You won" in outcome_ana) == (winners == [0])
            assert ("You won" in outcome_ben) == (winners == [1])
        scores = match.result["scores"]
        assert watcher.locator("#status .final-scores").inner_text() == f"Points: Ana {scores[0]} · Ben {scores[1]}"
        assert {"select", "cover"} <= set(shots)
        ana.screenshot(path=str(ARTIFACTS / "ruhd-end-ana.png"), full_page=True)
        ben.screenshot(path=str(ARTIFACTS / "ruhd-end-ben-phone.png"), full_page=True)
        watcher.screenshot(path=str(ARTIFACTS / "ruhd-end-spectator.png"), full_page=True)
        assert not errors, errors
    finally:
        for context in contexts:
            context.close()
