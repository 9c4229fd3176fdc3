"""A correspondence match's table (a clock of days a move): it says its pace ("3 days a move") and the date each
move waited on is due, in a <time> of the due moment, written in the viewer's chosen zone or, with none chosen,
in UTC for the browser to rewrite in its own; never a ticking clock. A real-time clock still ticks."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from days_matches import make_days_match
from factories import client_for, make_match

from games.play.clock import clock_spec
from games.play.display import RenderCache, SocketPage
from games.play.due import date_text
from games.play.snapshot import state_of
from games.play.store import load

pytestmark = pytest.mark.django_db

STARTED = datetime(2025, 11, 25, 9, 30, tzinfo=UTC)  # a Tuesday; due three days later, Friday 09:30 UTC


def test_the_table_says_the_pace_and_the_due_date_without_a_countdown(alice, bob) -> None:
    match = make_days_match(alice, bob, days=3, started=STARTED)
    assert match.waiting_on == [0]
    html = client_for(alice).get(f"/m/{match.pk}/").content.decode()
    assert "3 days a move" in html
    assert match.clock_due_at == STARTED + timedelta(days=3)
    # In UTC for the browser to rewrite in its own zone (site.js: time[data-local-time]).
    assert '<time datetime="2025-11-28T09:30:00Z" data-local-time>Fri 28 Nov, 09:30 UTC</time>' in html
    players = html[html.index('id="players"'):html.index('id="status"')]
    assert "clock-running" not in players and "data-clock" not in players
    assert players.count("<time") == 1  # the seat waited on only


def test_a_chosen_zone_is_written_by_the_server(alice, bob) -> None:
    alice.time_zone = "Asia/Tokyo"
    alice.save(update_fields=["time_zone"])
    match = make_days_match(alice, bob, days=3, started=STARTED)
    html = client_for(alice).get(f"/m/{match.pk}/").content.decode()
    # 09:30 UTC is 18:30 in Tokyo; no rewriting in the browser.
    assert '<time datetime="2025-11-28T09:30:00Z">Fri 28 Nov, 18:30</time>' in html
    assert "data-local-time" not in html


def test_the_sockets_write_each_viewer_s_zone_and_share_the_rest(alice, bob, carol) -> None:
    match = make_days_match(alice, bob, days=1, started=STARTED)
    snap = load(match.pk)
    assert snap is not None
    cache = RenderCache(snap, state_of(snap), {}, 0)
    tokyo = SocketPage().update(cache.meta, cache.view(None), None, {}, cache=cache, zone="Asia/Tokyo")
    browser = SocketPage().update(cache.meta, cache.view(None), None, {}, cache=cache, zone="")
    due = STARTED + timedelta(days=1)
    assert f">{date_text(due, ZoneInfo('Asia/Tokyo'))}</time>" in tokyo
    assert f"data-local-time>{date_text(due, None)} UTC</time>" in browser
    # The board is the same for both spectators: drawn once.
    board = re.search(r'<section id="board".*?</section>', tokyo, re.S)
    assert board is not None and board.group(0) in browser


def test_a_real_time_clock_still_ticks(alice, bob) -> None:
    match = make_match(creator=alice, game="gomori", seats=["open"], joiners=[bob],
                       clock=clock_spec("fischer", minutes=5, increment=3))
    html = client_for(alice).get(f"/m/{match.pk}/").content.decode()
    assert re.search(r'class="clock clock-running" data-clock="\d+(\.\d+)?" role="timer"', html)
    assert "a move" not in html and "<time" not in html


@pytest.mark.django_db(transaction=True)
async def test_each_socket_writes_its_own_person_s_zone(ws_client, alice, bob) -> None:
    from channels.db import database_sync_to_async

    def made() -> tuple[int, str, str, str]:
        alice.time_zone = "Asia/Tokyo"
        alice.save(update_fields=["time_zone"])
        match = make_days_match(alice, bob, days=3)  # from now: the live match would time out a past one
        due = match.clock_due_at
        return (match.pk, due.strftime("%Y-%m-%dT%H:%M:%SZ"), date_text(due, ZoneInfo("Asia/Tokyo")),
                date_text(due, None))

    match_id, iso, tokyo, utc = await database_sync_to_async(made)()
    ok, _, hers = await ws_client(match_id, alice)
    assert ok
    assert f'<time datetime="{iso}">{tokyo}</time>' in await hers.receive_from()
    ok, _, his = await ws_client(match_id, bob)  # no zone chosen: UTC, for his browser to rewrite
    assert ok
    assert f"data-local-time>{utc} UTC</time>" in await his.receive_from()
