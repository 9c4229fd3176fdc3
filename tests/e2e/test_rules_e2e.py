"""In a real browser: the "?" at a live table opens the game's rules beside it, Escape closes them and gives the
focus back, and the table's socket never noticed: the next move goes through it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from steps import page_problems

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "e2e"


def test_the_rules_open_beside_a_live_table_and_close_with_escape_without_dropping_its_socket(
    page: Any, asgi_server: str, make_user: Any
) -> None:
    import playing

    from games.play.create import SeatSpec, create_match

    # Unusable passwords: the browser signs in with a session cookie, and hashing a real one costs a second here.
    alice = make_user("alice", display_name="Alice", password=None)
    bob = make_user("bob", display_name="Bob", password=None)
    match = create_match(creator=alice, game="gomori", players=2, seats=[SeatSpec("open")], seed=7)
    playing.join(match_id=match.pk, user=bob, invite_code=match.invite_code)
    client = Client()
    client.force_login(alice)
    page.context.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": asgi_server}])

    sockets: list[Any] = []
    page.on("websocket", lambda ws: sockets.append(ws) if "/ws/m/" in ws.url else None)
    problems = page_problems(page)
    page.goto(f"/m/{match.pk}/")
    page.wait_for_selector("#status[data-your-turn]")
    page.wait_for_selector("html[data-live]", state="attached")  # the page is drawn before its socket opens
    assert len(sockets) == 1
    url = page.url

    page.get_by_role("button", name="Rules of Gomori").click()
    panel = page.locator("#rules-panel")
    panel.wait_for(state="visible")
    assert page.evaluate("document.activeElement.id") == "rules-panel-title"
    # htmx filled it with the rules, examples drawn by the table's own pieces.
    page.wait_for_selector("#rules-panel-body h3:text-is('Gathering')")
    assert panel.locator(".gomori-cell .card").count() > 10
    assert page.get_by_role("button", name="Rules of Gomori").get_attribute("aria-expanded") == "true"
    page.screenshot(path=str(ARTIFACTS / "rules-panel-desktop.png"))
    page.set_viewport_size({"width": 390, "height": 844})
    page.screenshot(path=str(ARTIFACTS / "rules-panel-phone.png"))
    page.set_viewport_size({"width": 1280, "height": 800})

    # Escape closes it and the focus returns to the "?"; the page never left, its socket never closed.
    page.keyboard.press("Escape")
    panel.wait_for(state="hidden")
    assert page.evaluate("document.activeElement.classList.contains('rules-button')")
    assert page.url == url and len(sockets) == 1 and not sockets[0].is_closed()

    # The close button works too, and a second open needs no second request.
    page.get_by_role("button", name="Rules of Gomori").click()
    panel.wait_for(state="visible")
    page.get_by_role("button", name="Close the rules").click()
    panel.wait_for(state="hidden")

    # The table still plays over the same socket: a card, then a highlighted cell.
    entries = page.locator("#log li").count()
    page.locator("#hand .card-button").first.click()
    page.locator("#board .cell-button").first.click()
    # A function, not an expression: a polled expression is eval'd in the page, which its CSP forbids.
    page.wait_for_function("n => document.querySelectorAll('#log li').length > n", arg=entries)
    assert len(sockets) == 1 and not sockets[0].is_closed()
    assert problems == []
