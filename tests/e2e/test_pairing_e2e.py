"""In real browsers, the loop that brings people to a table and back (#27): a quick pairing of two people (one
click each, both land in the same match), "Play a bot instead" after waiting alone, a challenge accepted and one
declined (the notice arrives live on another page), and the rating change in the result box at the end.

SHOTS=<folder> also saves desktop (1280x900) and phone (390x844) screenshots: the lobby's grid, the challenge
notice, the profile, the result box."""

from __future__ import annotations

import os
import re
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from typing import Any

import pytest
from steps import page_problems, resign_by_clicks
from tables import DESKTOP, PHONE, signed_in

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

SHOTS = os.environ.get("SHOTS", "")
GOMORI = "gomori-2-none"


def person(username: str, name: str, rating: float | None = None) -> Any:
    from django.contrib.auth import get_user_model

    from games.models import PlayerStats

    user = get_user_model().objects.create_user(username=username, password="x", display_name=name)
    if rating is not None:
        PlayerStats.objects.create(user=user, game="gomori", rating=rating, deviation=60, rated_matches=30)
    return user


def played_until_both_moved(first: Any, second: Any) -> Any:
    """A rated Gomori match between the two (first in seat 0), played by first legal moves until both moved (it
    can then only be resigned: a rated result)."""
    import playing

    from games.engines import get_engine
    from games.play.create import SeatSpec, create_match
    from games.play.decide import abort_allowed
    from games.play.store import load

    match = create_match(creator=first, game="gomori", players=2, seats=[SeatSpec("open")], seed=3)
    playing.join(match_id=match.pk, user=second)
    engine, users = get_engine("gomori"), {0: first, 1: second}
    for _ in range(20):
        snap = load(match.pk)
        assert snap is not None
        if not abort_allowed(snap):
            return match
        state = engine.load(snap.state)
        (seat,) = engine.must_act(state)
        playing.act(match_id=match.pk, user=users[seat], seat=seat, action=engine.legal_actions(state, seat)[0])
    raise AssertionError("the players could not both move")


def shoot(tab: Any, name: str, full: bool = True) -> None:
    if SHOTS:
        os.makedirs(SHOTS, exist_ok=True)
        tab.screenshot(path=os.path.join(SHOTS, f"{name}.png"), full_page=full)


def pool_button(tab: Any, key: str) -> Any:
    return tab.locator(f'button[data-pool="{key}"]')


def test_one_click_each_puts_two_people_in_the_same_match(browser: Any, asgi_server: str) -> None:
    alice, bob = person("alice", "Alice", 1500), person("bob", "Bob", 1540)
    a, b = signed_in(browser, asgi_server, alice, DESKTOP), signed_in(browser, asgi_server, bob, PHONE)
    problems = page_problems(a, b)
    for tab in (a, b):
        tab.goto("/play/")
        tab.wait_for_selector("#quick .quick-button:not([disabled])")
    a.wait_for_timeout(300)  # the sockets open
    pool_button(a, GOMORI).click()
    a.wait_for_selector(f'button[data-pool="{GOMORI}"][aria-pressed="true"]')
    assert "Waiting" in pool_button(a, GOMORI).inner_text()
    pool_button(b, GOMORI).filter(has_text="1 waiting").wait_for()
    shoot(a, "quick-waiting-desktop")
    shoot(b, "quick-one-waiting-phone")
    pool_button(b, GOMORI).click()
    a.wait_for_url(re.compile(r".*/m/\d+/$"))
    b.wait_for_url(re.compile(r".*/m/\d+/$"))
    assert a.url == b.url
    for tab in (a, b):
        tab.wait_for_selector("#board")
        players = tab.locator("#players").inner_text()
        assert "Alice" in players and "Bob" in players
    assert problems == []
    for tab in (a, b):
        tab.context.close()


def test_after_waiting_alone_play_a_bot_instead(browser: Any, asgi_server: str) -> None:
    from games.models import Seek

    alice, bob = person("alice", "Alice", 1050), person("bob", "Bob", 1500)
    a, b = signed_in(browser, asgi_server, alice, DESKTOP), signed_in(browser, asgi_server, bob, DESKTOP)
    problems = page_problems(a, b)
    a.goto("/play/")
    a.wait_for_selector("#quick .quick-button:not([disabled])")
    a.wait_for_timeout(300)
    pool_button(a, GOMORI).click()
    a.wait_for_selector(f'button[data-pool="{GOMORI}"][aria-pressed="true"]')
    assert a.locator("[data-start]").count() == 0  # no offer before 30 s
    # Thirty seconds pass for Alice (her seek made earlier); a move in another pool redraws her grid.
    Seek.objects.filter(user=alice).update(created_at=Seek.objects.get(user=alice).created_at - timedelta(seconds=31))
    b.goto("/play/")
    b.wait_for_selector("#quick .quick-button:not([disabled])")
    b.wait_for_timeout(300)
    pool_button(b, "rummy-2-none").click()
    offer = a.locator('[data-start="bots"]')
    offer.wait_for()
    assert "Play a bot instead" in offer.inner_text() and "Rookie" in offer.inner_text()  # near 1050
    shoot(a, "quick-bot-offer-desktop")
    offer.click()
    a.wait_for_url(re.compile(r".*/m/\d+/$"))
    a.wait_for_selector("#board")
    assert a.locator("#players").get_by_text("Rookie").count()
    assert problems == []
    for tab in (a, b):
        tab.context.close()


def test_a_challenge_accepted_and_one_declined(browser: Any, asgi_server: str) -> None:
    from games.models import Challenge, Match

    alice, bob = person("alice", "Alice"), person("bob", "Bob")
    a, b = signed_in(browser, asgi_server, alice, DESKTOP), signed_in(browser, asgi_server, bob, DESKTOP)
    problems = page_problems(a, b)
    b.goto("/history/")  # any page: the notice comes over the notification socket
    b.wait_for_timeout(500)
    a.goto("/u/bob/")
    shoot(a, "profile-challenge-desktop")
    a.locator("#challenge-game").select_option("rummy")
    a.locator("#challenge-clock").select_option("turn")
    a.get_by_role("button", name="Challenge").click()
    a.wait_for_url("**/play/")
    a.locator("#lobby-challenges").get_by_text("You challenged").wait_for()
    notice = b.locator(".challenge-notice")
    notice.wait_for()
    assert "Alice challenges you" in notice.inner_text() and "Rummy" in notice.inner_text()
    shoot(b, "challenge-notice-desktop", full=False)
    notice.get_by_role("button", name="Accept").click()
    b.wait_for_url(re.compile(r".*/m/\d+/$"))
    a.wait_for_url(re.compile(r".*/m/\d+/$"))  # the challenger's lobby goes there by itself
    assert a.url == b.url
    match = Match.objects.get()
    assert match.game == "rummy" and match.clock == {"kind": "turn", "seconds": 30}

    # A second challenge, declined: the notice goes, no match is made, the challenger's lobby forgets it.
    a.goto("/u/bob/")
    a.get_by_role("button", name="Challenge").click()
    a.wait_for_url("**/play/")
    a.locator("#lobby-challenges").get_by_text("You challenged").wait_for()
    b.goto("/u/alice/")
    notice = b.locator(".challenge-notice")
    notice.wait_for()  # after a reload too
    notice.get_by_role("button", name="Decline").click()
    notice.wait_for(state="detached")
    a.locator("#lobby-challenges").get_by_text("You challenged").wait_for(state="detached")
    assert Match.objects.count() == 1
    assert list(Challenge.objects.order_by("pk").values_list("status", flat=True)) == ["accepted", "declined"]
    assert problems == []
    for tab in (a, b):
        tab.context.close()


def test_the_result_box_shows_the_rating_change_at_the_end(browser: Any, asgi_server: str) -> None:
    from games.models import Match

    alice, bob = person("alice", "Alice"), person("bob", "Bob")
    match = played_until_both_moved(alice, bob)
    a, b = signed_in(browser, asgi_server, alice, DESKTOP), signed_in(browser, asgi_server, bob, PHONE)
    problems = page_problems(a, b)
    for tab in (a, b):
        tab.goto(f"/m/{match.pk}/")
        tab.wait_for_selector("#board")
    resign_by_clicks(b)
    for tab in (a, b):
        box = tab.locator(".rating-changes")
        box.wait_for()
        text = box.inner_text()
        assert re.search(r"Alice: 1500 → 1[6-9]\d\d\?, \+\d+", text), text
        assert re.search(r"Bob: 1500 → 1[0-4]\d\d\?, -\d+", text), text
    ratings = Match.objects.get(pk=match.pk).result["ratings"]
    assert {r["seat"] for r in ratings} == {0, 1}
    shoot(a, "result-box-desktop")
    shoot(b, "result-box-phone")
    a.goto("/u/alice/history/")
    assert re.search(r"\+\d+", a.locator(".rating-change").first.inner_text())
    a.goto("/u/alice/")
    shoot(a, "profile-desktop")
    a.set_viewport_size(PHONE)
    shoot(a, "profile-phone")
    a.goto("/play/")
    shoot(a, "lobby-phone")
    a.set_viewport_size(DESKTOP)
    a.goto("/play/")
    shoot(a, "lobby-desktop")
    assert problems == []
    for tab in (a, b):
        tab.context.close()


def test_a_page_loading_when_an_arena_pairs_its_person_ends_on_the_match(browser: Any, asgi_server: str) -> None:
    """The arena's pairing sends its frame while the person's tournament page is still loading (no socket open
    to hear it): the page, once its socket opens, goes to the match all the same."""
    from django.utils import timezone

    from games.models import Board, Entrant
    from games.tournaments import services

    ann, ben = person("ann", "Ann"), person("ben", "Ben")
    arena = services.create_tournament(
        creator=ann, kind="arena", game="gomori", clock_key="3+2", minutes=30, is_private=True,
        starts_at=timezone.now() + timedelta(minutes=30), name="Paired while loading",
    )
    for user in (ann, ben):
        services.join(tournament_id=arena.pk, user=user, code=arena.invite_code)
    tab = signed_in(browser, asgi_server, ben, DESKTOP)
    problems = page_problems(tab)
    try:
        # Paired now, while no page of Ben's is open: the frame sending his pages to the match goes out to nobody.
        # (Off the browser's event loop: the services send to the channel layer synchronously.)
        with ThreadPoolExecutor(1) as pool:
            pool.submit(services.start_early, tournament_id=arena.pk, user=ann).result()
        match_id = Entrant.objects.get(tournament=arena, user=ben).match_id
        assert match_id is not None and Board.objects.filter(user=ben, match_id=match_id).exists()
        tab.goto(f"/tournaments/{arena.pk}/")  # the page that was loading meanwhile
        tab.wait_for_url(re.compile(rf".*/m/{match_id}/$"), timeout=8_000)
        tab.locator("#players").wait_for()
        # Ann has not opened it yet: on her way, not away.
        ann_line = tab.locator("#players .player").filter(has_text="Ann")
        said = ann_line.inner_text().lower()
        assert "joining" in said and "away" not in said, said
        assert "joining" not in tab.locator("#players .player.me").inner_text().lower()
        assert not problems, problems
    finally:
        tab.context.close()
