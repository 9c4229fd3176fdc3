"""In real browsers, one person, one board (games.boards, games.departures):
- Pat, at an arena match in progress, opens the lobby: the clocked pools say why they are closed to him, and a
  seek sent anyway is refused with the reason; he stays at his one match, and Rosa, who clicked the same cell,
  waits in the pool, never paired with him;
- an administrator suspends Dave during an arena by the admin's action: Alice's open table ends in her favour at
  once, her standings count it, and the arena never pairs her with Dave again.
SHOTS=<folder> saves desktop and phone screenshots as one-board-*.png."""

from __future__ import annotations

import os
import re
import time
from pathlib import Path
from typing import Any

import pytest
from steps import PASSWORD, page_problems
from tables import DESKTOP, PHONE, signed_in

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

SHOTS = os.environ.get("SHOTS", "")
LIVE_POOL = "gomori-2-live"


def shoot(tab: Any, name: str) -> None:
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        tab.screenshot(path=f"{SHOTS}/one-board-{name}.png", full_page=True)


def person(username: str, name: str, **fields: Any) -> Any:
    from django.contrib.auth import get_user_model

    from games.models import PlayerStats

    user = get_user_model().objects.create_user(username=username, password=PASSWORD, display_name=name, **fields)
    PlayerStats.objects.create(user=user, game="gomori", rating=1500)
    return user


def running_arena(*people: Any) -> Any:
    """A Gomori arena, started, its entrants paired (by its own tick, as the server's runner does)."""
    from django.utils import timezone

    from games.tournaments import services

    staff = person("staff", "Staff", is_staff=True)
    arena = services.create_tournament(creator=staff, kind="arena", game="gomori", clock_key="5+3", minutes=30,
                                       starts_at=timezone.now(), table_size=2, name="Friday Arena")
    for user in people:
        services.join(tournament_id=arena.pk, user=user)
    services.tick()
    return arena


def board_of(user: Any) -> int | None:
    from games.models import Board

    return Board.objects.filter(user=user).values_list("match_id", flat=True).first()


def test_a_player_at_an_arena_match_is_refused_a_second_clocked_table_and_told_why(browser: Any,
                                                                                    asgi_server: str) -> None:
    from games.models import Match, Seat

    pat, ann, rosa = person("pat", "Pat"), person("ann", "Ann"), person("rosa", "Rosa")
    running_arena(pat, ann)
    arena_match = board_of(pat)
    assert arena_match is not None
    p, r = signed_in(browser, asgi_server, pat, DESKTOP), signed_in(browser, asgi_server, rosa, PHONE)
    problems = page_problems(p, r)
    try:
        # Pat is at his arena table (a page still opening would be sent there: games.notify), then opens the lobby.
        p.goto(f"/m/{arena_match}/")
        p.locator("html[data-live='1']").wait_for(state="attached")
        for tab in (p, r):
            tab.goto("/play/")
            tab.wait_for_selector("#quick .quick-button")
        p.wait_for_timeout(300)  # the sockets open
        busy = p.locator("#quick-busy")
        assert "You are playing in Friday Arena" in busy.inner_text()
        assert p.locator(f'button[data-pool="{LIVE_POOL}"]').is_disabled()
        assert p.locator('button[data-pool="gomori-2-none"]').is_enabled()  # no clock binds no one
        assert r.locator("#quick-busy").count() == 0 and r.locator(f'button[data-pool="{LIVE_POOL}"]').is_enabled()
        shoot(p, "refused-desktop")
        # Rosa waits; Pat's page sends the seek anyway (a stale page, a careless client): the server refuses.
        r.locator(f'button[data-pool="{LIVE_POOL}"]').click()
        r.wait_for_selector(f'button[data-pool="{LIVE_POOL}"][aria-pressed="true"]')
        p.locator(f'button[data-pool="{LIVE_POOL}"]').filter(has_text="1 waiting").wait_for()  # redrawn once
        p.evaluate(f"document.querySelector('button[data-pool=\"{LIVE_POOL}\"]').disabled = false")
        p.locator(f'button[data-pool="{LIVE_POOL}"]').click()
        error = p.locator("#quick-error")
        error.wait_for(state="visible")
        assert "You are playing in Friday Arena: you can sit down again when that match ends." in error.inner_text()
        p.wait_for_timeout(500)
        assert re.search(r"/play/$", p.url)  # not sent anywhere
        clocked = Match.objects.filter(status=Match.Status.ACTIVE).exclude(clock={})
        assert list(Seat.objects.filter(user=pat, match__in=clocked).values_list("match_id", flat=True)) == [
            arena_match]
        assert board_of(rosa) is None  # still waiting: never paired with Pat
        shoot(r, "rosa-waiting-phone")
        assert problems == []
    finally:
        p.context.close()
        r.context.close()


def test_a_suspension_by_the_admin_during_an_arena_ends_the_game_for_the_opponent_and_never_pairs_them_again(
        browser: Any, asgi_server: str) -> None:
    from games.models import Entrant, Match
    from games.tournaments import services

    alice, dave = person("alice", "Alice"), person("dave", "Dave")
    root = person("root", "Root", is_staff=True, is_superuser=True)
    arena = running_arena(alice, dave)
    game = board_of(alice)
    assert game is not None and board_of(dave) == game
    a = signed_in(browser, asgi_server, alice, DESKTOP)
    staff = signed_in(browser, asgi_server, root, DESKTOP)
    try:
        a.goto(f"/m/{game}/")
        a.locator("html[data-live='1']").wait_for(state="attached")
        staff.goto("/admin/accounts/user/?q=dave")
        staff.locator("input.action-select").first.check()
        staff.locator("select[name='action']").select_option("suspend_users")
        staff.get_by_role("button", name="Go").click()
        staff.wait_for_load_state()
        assert "withdrawn from 1 tournament(s)" in staff.locator(".messagelist").inner_text()
        # Alice's table ends at once, in her favour.
        outcome = a.locator("#status .outcome")
        outcome.wait_for(timeout=10000)
        assert outcome.inner_text().startswith("You won. Dave was suspended."), outcome.inner_text()
        shoot(a, "suspended-opponent-desktop")
        ended = Match.objects.get(pk=game)
        assert ended.status == Match.Status.FINISHED and ended.result["reason"] == "suspended"
        assert Entrant.objects.get(tournament=arena, user=alice).score == 2
        assert Entrant.objects.get(tournament=arena, user=dave).withdrawn
        # A newcomer joins; the arena goes on for a while: Alice meets the newcomer, never Dave.
        carl = person("carl", "Carl")
        services.join(tournament_id=arena.pk, user=carl)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and board_of(alice) is None:
            time.sleep(0.3)
        again = board_of(alice)
        assert again is not None and board_of(carl) == again
        assert not Match.objects.filter(seats__user=dave).exclude(pk=game).exists()
        a.goto(f"/tournaments/{arena.pk}/")
        shoot(a, "arena-after-suspension-desktop")
    finally:
        a.context.close()
        staff.context.close()
