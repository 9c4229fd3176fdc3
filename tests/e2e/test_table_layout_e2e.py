"""In a real browser, at a phone's size (390x844): in every game, mid-game, the player's hand, the board's playable
area and the action buttons are on the first screen, without scrolling. SHOTS=<folder> also saves a desktop and
a phone screenshot of each table there."""

from __future__ import annotations

import os
from typing import Any

import pytest
from tables import DESKTOP, PHONE, mid_game, people, signed_in

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

# What must be on the first screen, per game: (what it is, a selector that finds it).
FIRST_SCREEN = {
    "gomori": [("the hand", "#hand .hand-cards"), ("the field", "#board .gomori-field"),
               ("the status line", "#status")],
    "columbo": [("the hand", "#hand .cb-grid"), ("the piles", "#board .cb-piles"),
                ("the turn's buttons", "#board .cb-buttons")],
    "ruhd": [("the open hand", "#hand .ruhd-hand-tiles"), ("the board", "#board .ruhd-grid"),
             ("the status line", "#status")],
    "rummy": [("the hand", "#hand .rm-hand-cards"), ("the piles", "#board .rm-piles"),
              ("the status line", "#status")],
}
SETUP: dict[str, dict[str, Any]] = {
    "gomori": {"moves": 6},
    "columbo": {"moves": 6, "options": {"rounds": 1}},
    # A placing turn with tiles in the open hand (the search for a position is the reference bots' own).
    "ruhd": {"moves": 8, "until": lambda view: view.get("phase") == "place" and bool(view.get("hand"))},
    "rummy": {"moves": 8},
}


@pytest.mark.parametrize("game", ["gomori", "columbo", "ruhd", "rummy"])
def test_the_table_fits_the_first_screen_of_a_phone(browser: Any, asgi_server: str, game: str) -> None:
    users = people(2)
    match = mid_game(game, users, **SETUP[game])
    page = signed_in(browser, asgi_server, users[0], PHONE)
    try:
        page.goto(match.get_absolute_url())
        page.wait_for_selector("#status[data-your-turn]")
        page.wait_for_selector("html[data-live]", state="attached")  # the socket has drawn the table again
        shots = os.environ.get("SHOTS")
        if shots:
            page.screenshot(path=f"{shots}/table-{game}-phone.png")
            page.screenshot(path=f"{shots}/table-{game}-phone-full.png", full_page=True)
        wide = page.evaluate(
            "[...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right > innerWidth + 1)"
            ".slice(0, 4).map(e => e.tagName + '.' + e.className).join(', ')"
        )
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], f"scrolls sideways: {wide}"
        for what, selector in FIRST_SCREEN[game]:
            # The socket redraws the table once it opens: an element measured mid-swap has no box yet.
            box = None
            for _ in range(20):
                page.locator(selector).first.wait_for(state="visible", timeout=5000)
                box = page.locator(selector).first.bounding_box()
                if box is not None:
                    break
                page.wait_for_timeout(50)
            assert box is not None, f"{what} is not shown"
            assert box["y"] >= 0 and box["y"] + box["height"] <= PHONE["height"], (
                f"{game}: {what} ({selector}) spans {box['y']:.0f}-{box['y'] + box['height']:.0f} px, "
                f"beyond the first {PHONE['height']} px"
            )
        if shots:
            page.set_viewport_size(DESKTOP)
            page.screenshot(path=f"{shots}/table-{game}-desktop.png")
    finally:
        page.context.close()
