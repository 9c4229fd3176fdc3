"""In a real browser, desktop and phone: a display name typed into /history/'s Player field is suggested under it,
picking the suggestion (the keyboard on the desktop, a tap on the phone) filters the history to that person's
matches. SHOTS=<folder> saves the suggestions and a profile's provisional-rating note as history-suggestions-*.png
and profile-provisional-*.png."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import playing
import pytest
from factories import make_match
from steps import page_problems
from tables import DESKTOP, PHONE, signed_in

from games.engines import get_engine
from games.models import Match
from games.play.decide import abort_allowed
from games.play.store import load

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

SHOTS = os.environ.get("SHOTS", "")


def person(username: str, name: str) -> Any:
    from django.contrib.auth import get_user_model

    return get_user_model().objects.create_user(username=username, password="x", display_name=name)


def played_and_resigned(winner: Any, loser: Any) -> Match:
    """A rated Gomori match between the two, played until both moved, then resigned by `loser`."""
    match = make_match(creator=winner, joiners=[loser])
    users = {0: winner, 1: loser}
    engine = get_engine("gomori")
    for _ in range(20):
        snap = load(match.pk)
        assert snap is not None
        if not abort_allowed(snap):
            break
        state = engine.load(snap.state)
        (seat,) = engine.must_act(state)
        playing.act(match_id=match.pk, user=users[seat], seat=seat, action=engine.legal_actions(state, seat)[0])
    return playing.resign(match_id=match.pk, user=loser)


def shoot(tab: Any, name: str) -> None:
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        tab.screenshot(path=f"{SHOTS}/{name}.png", full_page=True)


def test_a_display_name_typed_is_suggested_and_picking_it_filters_the_history(browser: Any, asgi_server: str) -> None:
    bob, carol, dave = person("bob", "Bob B."), person("carol", "Carol"), person("dave", "Dave")
    bobs = {played_and_resigned(bob, carol).pk, played_and_resigned(dave, bob).pk}
    others = {played_and_resigned(carol, dave).pk, played_and_resigned(dave, carol).pk}
    for label, size in (("desktop", DESKTOP), ("phone", PHONE)):
        context = browser.new_context(base_url=asgi_server, viewport=size, has_touch=label == "phone")
        tab = context.new_page()
        problems = page_problems(tab)
        tab.goto("/history/")
        field = tab.get_by_role("combobox", name="Player")
        field.press_sequentially("bob", delay=40)
        suggestion = tab.get_by_role("option", name=re.compile(r"Bob B\. @bob"))
        suggestion.wait_for()
        assert field.get_attribute("aria-expanded") == "true"
        assert tab.locator("#history-results .notice").count() == 0  # typing alone filters nothing yet
        shoot(tab, f"history-suggestions-{label}")
        if label == "desktop":
            field.press("ArrowDown")
            assert suggestion.get_attribute("aria-selected") == "true"
            field.press("Enter")
        else:
            suggestion.tap()
        tab.wait_for_url(re.compile(r"player=Bob(%20|\+)B\."))
        tab.get_by_text("played by Bob B.").wait_for()
        assert field.input_value() == "Bob B." and suggestion.is_hidden()
        hrefs = tab.locator("#history-results a[href$='/replay/']").evaluate_all(
            "links => links.map(link => link.getAttribute('href'))")
        listed = {int(href.split("/")[2]) for href in hrefs}
        assert listed == bobs and not listed & others
        assert tab.locator("#history-results").get_by_text("2 matches").count() == 1
        if label == "phone":
            assert tab.evaluate("document.documentElement.scrollWidth") <= size["width"]
        assert problems == []
        context.close()
        # Bob's profile, his rating provisional after two matches: the note beside its "?".
        own = signed_in(browser, asgi_server, bob, size)
        own.goto("/u/bob/")
        note = own.locator(".provisional-note")
        note.wait_for()
        assert "it moves fast over the first games, until the site knows your level" in (note.text_content() or "")
        shoot(own, f"profile-provisional-{label}")
        own.context.close()


@pytest.mark.parametrize("label,size", [("desktop", DESKTOP), ("phone", PHONE)])
def test_a_bot_s_profile_shows_the_rating_the_lobby_offers_it_at(browser: Any, asgi_server: str, label: str,
                                                                  size: dict[str, int]) -> None:
    """The lobby's seat choice says "Shark (N)"; the bot's own profile shows that N as its rating."""
    from games.models import PlayerStats
    from games.play.bot_accounts import bot_user, ensure_bot_accounts

    ensure_bot_accounts()
    # Its games as an older level measurement left them: the rating shown is its level's, not this row's.
    PlayerStats.objects.create(user=bot_user("ruhd", "search"), game="ruhd", played=3, won=2, lost=1, rating=1500.0,
                               deviation=50.0)
    tab = signed_in(browser, asgi_server, person("ada", "Ada"), size)
    try:
        problems = page_problems(tab)
        tab.goto("/play/")
        offered = tab.locator("#create-ruhd option[value='bot:search']").first.text_content() or ""
        number = re.search(r"\((\d+)\)", offered)
        assert number, offered
        tab.goto("/u/bot-ruhd-search/")
        rating = tab.locator(".stats-rating strong").first
        rating.wait_for()
        assert rating.text_content() == number[1] and rating.is_visible()
        shoot(tab, f"bot-profile-{label}")
        if label == "phone":
            assert tab.evaluate("document.documentElement.scrollWidth") <= size["width"]
        assert problems == []
    finally:
        tab.context.close()
