"""In real browsers, quick pairing's correspondence row: Pat, at a real-time arena table, opens the lobby; the
real-time pools are closed to him, the correspondence row is open; he and Rosa (on a phone) click "3 days" in
Rummy's card and are seated at a match of 3 days a move, while Pat's arena board stays his. SHOTS=<folder> saves
desktop and phone screenshots as correspondence-*.png."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from steps import PASSWORD, page_problems
from tables import DESKTOP, PHONE, signed_in

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

SHOTS = os.environ.get("SHOTS", "")
POOL = "rummy-2-3d"


def shoot(tab: Any, name: str) -> None:
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        tab.screenshot(path=f"{SHOTS}/correspondence-{name}.png", full_page=True)


def person(username: str, name: str, **fields: Any) -> Any:
    from django.contrib.auth import get_user_model

    from games.models import PlayerStats

    user = get_user_model().objects.create_user(username=username, password=PASSWORD, display_name=name, **fields)
    for game in ("gomori", "rummy"):
        PlayerStats.objects.create(user=user, game=game, rating=1500)
    return user


def test_a_player_at_a_real_time_table_is_paired_in_the_correspondence_row(browser: Any, asgi_server: str) -> None:
    from games.models import Board, Match
    from games.play.create import create_table

    pat, rosa = person("pat", "Pat"), person("rosa", "Rosa")
    live = create_table(game="gomori", people=[pat], bots=("reference",), clock={"kind": "fischer", "base": 300.0,
                                                                                  "increment": 3})
    p, r = signed_in(browser, asgi_server, pat, DESKTOP), signed_in(browser, asgi_server, rosa, PHONE)
    problems = page_problems(p, r)
    try:
        # Pat is at his real-time table first (a page still opening would be sent there: games.notify).
        p.goto(f"/m/{live.pk}/")
        p.locator("html[data-live='1']").wait_for(state="attached")
        for tab in (p, r):
            tab.goto("/play/")
            tab.wait_for_selector(f'#quick button[data-pool="{POOL}"]')
        p.wait_for_timeout(300)  # the sockets open
        assert p.locator('button[data-pool="rummy-2-live"]').is_disabled()
        assert p.locator(f'button[data-pool="{POOL}"]').is_enabled()
        shoot(p, "row-desktop")
        shoot(r, "row-phone")
        p.locator(f'button[data-pool="{POOL}"]').click()
        p.wait_for_selector(f'button[data-pool="{POOL}"][aria-pressed="true"]')
        r.locator(f'button[data-pool="{POOL}"]').filter(has_text="1 waiting").wait_for()
        r.locator(f'button[data-pool="{POOL}"]').click()
        for tab in (p, r):
            tab.wait_for_url("**/m/*/")
        match = Match.objects.exclude(pk=live.pk).get()
        assert match.clock == {"kind": "days", "days": 3, "seconds": 259200}
        assert p.url.endswith(f"/m/{match.pk}/") and r.url.endswith(f"/m/{match.pk}/")
        assert Board.objects.get(user=pat).match_id == live.pk
        shoot(r, "table-phone")
        assert not problems, problems
    finally:
        p.context.close()
        r.context.close()
