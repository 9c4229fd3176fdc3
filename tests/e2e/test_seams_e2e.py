"""In real browsers, the flows that broke between two features (issue 26): an invite opened signed out, a table
whose socket the server closes (a suspension, a sign-out elsewhere) or that the network drops, and more below.

The positions are made through the services (quick); everything a person does is clicked. SHOTS=<folder> saves
desktop and phone screenshots of each part there, as seams-*.png.
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path
from typing import Any

import pytest
from servers import Daphne, database_url
from steps import PASSWORD
from tables import DESKTOP, PHONE, signed_in

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

SHOTS = os.environ.get("SHOTS", "")


def shoot(tab: Any, name: str) -> None:
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        tab.screenshot(path=f"{SHOTS}/seams-{name}.png", full_page=True)


def person(username: str, name: str, **fields: Any) -> Any:
    from django.contrib.auth import get_user_model

    return get_user_model().objects.create_user(username=username, password=PASSWORD, display_name=name, **fields)


def gomori_between(alice: Any, bob: Any | None = None, **kwargs: Any) -> Any:
    """A Gomori match Alice made (seat 0): dealt with Bob in seat 1, or waiting for an invited friend."""
    import playing

    from games.play.create import SeatSpec, create_match

    match = create_match(creator=alice, game="gomori", players=2, seats=[SeatSpec("invite")], seed=3,
                         is_public=False, **kwargs)
    return playing.join(match_id=match.pk, user=bob, invite_code=match.invite_code) if bob else match


def play_first_card(tab: Any) -> None:
    """Gomori: the first playable card on the first highlighted cell (and a stacked king's first target)."""
    tab.locator("#hand .card-button").first.click()
    tab.locator("#board .cell-button").first.click()
    tab.wait_for_timeout(250)
    kings = tab.locator("#board .king-target .cell-button")
    if kings.count():
        kings.first.click()


def live(tab: Any) -> None:
    """The table's socket has drawn the page once: it is live."""
    tab.locator("html[data-live='1']").wait_for(state="attached")


# ---------------------------------------------------------------------------------------------------------
# 1. An invite link for a friend who is signed out


@pytest.mark.parametrize("way", ["sign in", "sign up"])
def test_an_invite_opened_signed_out_ends_seated_after_signing_in_or_up(browser: Any, asgi_server: str,
                                                                       way: str) -> None:
    alice = person("alice", "Alice")
    if way == "sign in":
        person("friend", "Friend")
    match = gomori_between(alice)
    context = browser.new_context(base_url=asgi_server, viewport=DESKTOP)
    context.set_default_timeout(20_000)
    tab = context.new_page()
    try:
        tab.goto(f"/m/{match.pk}/?code={match.invite_code}")
        tab.get_by_role("button", name="Take a seat").click()
        tab.wait_for_url("**/accounts/login/**")
        assert "take your seat" in tab.locator(".messages").inner_text()
        shoot(tab, f"invite-{way.replace(' ', '-')}")
        if way == "sign in":
            tab.get_by_label("Username").fill("friend")
            tab.get_by_label("Password").fill(PASSWORD)
            tab.get_by_role("button", name="Sign in").click()
        else:
            tab.get_by_role("link", name="Create an account").click()
            tab.wait_for_url("**/accounts/signup/**")
            tab.get_by_label("Username").fill("friend")
            tab.get_by_label("Display name").fill("Friend")
            tab.get_by_label("Password", exact=True).fill(PASSWORD)
            tab.get_by_label("Password confirmation").fill(PASSWORD)
            tab.get_by_role("button", name="Sign up").click()
        tab.wait_for_url(re.compile(rf".*/m/{match.pk}/\?code="))
        assert "You took your seat." in tab.locator(".messages").inner_text()
        live(tab)
        # Seated: the match started (both seats filled) and the friend sees a hand of their own.
        assert tab.locator("#players").inner_text().count("Friend") == 1
        assert tab.locator("#hand [data-key]").count() > 0
        assert tab.get_by_role("button", name="Take a seat").count() == 0
    finally:
        context.close()


# ---------------------------------------------------------------------------------------------------------
# 7. A table whose socket closes says why


def test_a_suspended_players_open_table_says_so_at_once_and_stops(browser: Any, asgi_server: str) -> None:
    alice, bob = person("alice", "Alice"), person("bob", "Bob")
    admin = person("root", "Root", is_staff=True, is_superuser=True)
    match = gomori_between(alice, bob)
    tab = signed_in(browser, asgi_server, alice, DESKTOP)
    staff = signed_in(browser, asgi_server, admin, DESKTOP)
    try:
        tab.goto(f"/m/{match.pk}/")
        live(tab)
        staff.goto("/admin/accounts/user/?q=alice")
        staff.locator("input.action-select").first.check()
        staff.locator("select[name='action']").select_option("suspend_users")
        staff.get_by_role("button", name="Go").click()
        staff.wait_for_load_state()
        banner = tab.locator("#socket-state")
        banner.wait_for()
        assert "suspended" in banner.inner_text()
        assert tab.locator(".match").evaluate("node => node.inert") is True
        assert not tab.locator("#status").is_visible() or "Your turn" not in tab.locator("#status").inner_text()
        shoot(tab, "suspended")
    finally:
        tab.context.close()
        staff.context.close()


def test_a_sign_out_in_another_tab_closes_the_table_and_offers_to_sign_in(browser: Any, asgi_server: str) -> None:
    alice, bob = person("alice", "Alice"), person("bob", "Bob")
    match = gomori_between(alice, bob)
    tab = signed_in(browser, asgi_server, alice, DESKTOP)
    try:
        tab.goto(f"/m/{match.pk}/")
        live(tab)
        other = tab.context.new_page()
        other.goto("/play/")
        other.get_by_role("button", name="Sign out").click()
        banner = tab.locator("#socket-state")
        banner.wait_for()
        assert "signed out" in banner.inner_text()
        assert banner.get_by_role("link", name="Sign in again").get_attribute("href") == (
            f"/accounts/login/?next=%2Fm%2F{match.pk}%2F")
        assert tab.locator(".match").evaluate("node => node.inert") is True
    finally:
        tab.context.close()


def test_a_network_drop_says_reconnecting_and_the_table_comes_back_by_itself(
    browser: Any, django_db_blocker: Any, tmp_path: Path
) -> None:
    """The server is killed (kill -9) under an open table, then started again on the same address."""
    from django.db import connection

    alice, bob = person("alice", "Alice"), person("bob", "Bob")
    match = gomori_between(alice, bob)
    env = {"DATABASE_URL": database_url(connection.settings_dict), "DJANGO_DEBUG": "true",
           "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost", "GAMES_BOT_DELAY": "0.1"}
    server = Daphne(env, tmp_path / "daphne.log")
    tab = signed_in(browser, server.url, alice, DESKTOP)
    try:
        tab.goto(f"/m/{match.pk}/")
        live(tab)
        server.kill()
        banner = tab.locator("#socket-state")
        banner.wait_for()
        assert "reconnecting" in banner.inner_text()
        assert tab.locator(".match").evaluate("node => node.inert") is True
        shoot(tab, "reconnecting")
        server = Daphne(env, tmp_path / "daphne.log", port=server.port)
        banner.wait_for(state="detached", timeout=30_000)
        assert tab.locator(".match").evaluate("node => node.inert") is False
        # Live again: a move played now reaches this page.
        tab.locator("#hand [data-key]").first.wait_for()
    finally:
        tab.context.close()
        server.stop()


# ---------------------------------------------------------------------------------------------------------
# 11. A phone: no page scrolls sideways, nothing is cut at the edge

# Whatever sticks out of the screen, unless it is inside a box the person can scroll sideways on purpose.
OUTSIDE = """() => [...document.querySelectorAll('body *')].filter(e => {
  const box = e.getBoundingClientRect();
  if (box.width === 0 || box.height === 0 || (box.right <= innerWidth + 1 && box.left >= -1)) return false;
  for (let up = e.parentElement; up && up !== document.body; up = up.parentElement) {
    const x = getComputedStyle(up).overflowX;
    if (x === 'auto' || x === 'scroll') return false;
  }
  return true;
}).slice(0, 5).map(e => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().left) + '..'
  + Math.round(e.getBoundingClientRect().right))"""


def played_out(game: str, users: list[Any]) -> Any:
    """A match between these people played to its end by the reference bots, through the services."""
    import random

    import playing

    from games.engines import get_engine
    from games.models import Match
    from games.play.create import SeatSpec, create_match

    match = create_match(creator=users[0], game=game, players=2, seats=[SeatSpec("open")], seed=5)
    playing.join(match_id=match.pk, user=users[1])
    engine = get_engine(game)
    bots = __import__(f"games.bots.{game}", fromlist=["BOTS"]).BOTS
    rng = random.Random(5)
    while True:
        match = Match.objects.get(pk=match.pk)
        state = engine.load(match.state)
        if engine.is_over(state):
            return match
        seat = (engine.must_act(state) or engine.to_act(state))[0]
        action, _ = bots["reference"](engine.view(state, seat), engine.legal_actions(state, seat), rng)
        playing.act(match_id=match.pk, user=users[seat], seat=seat,
                    action=action if action is not None else engine.legal_actions(state, seat)[0])


def test_no_page_scrolls_sideways_on_a_phone(browser: Any, asgi_server: str) -> None:
    from django.contrib.auth import get_user_model
    from tables import mid_game, people

    users = people(2)
    tables = {game: mid_game(game, users, moves=8, options={"rounds": 1} if game == "columbo" else None)
              for game in ("gomori", "columbo", "ruhd", "rummy")}
    finished = {game: played_out(game, people(2, start=10 + 2 * i)) for i, game in enumerate(("gomori", "ruhd"))}
    name = get_user_model().objects.get(pk=users[0].pk).username
    pages = ["/", "/play/", "/history/", f"/u/{name}/history/", f"/u/{name}/", "/leaderboard/", "/rules/",
             "/accounts/profile/", *(f"/rules/{g}/" for g in tables),
             *(f"/m/{m.pk}/" for m in tables.values()), *(f"/m/{m.pk}/" for m in finished.values()),
             *(f"/m/{m.pk}/replay/" for m in finished.values())]
    tab = signed_in(browser, asgi_server, users[0], PHONE)
    try:
        wide = {}
        for address in pages:
            tab.goto(address)
            tab.wait_for_load_state("networkidle")
            sticking_out = tab.evaluate(OUTSIDE)
            if tab.evaluate("document.documentElement.scrollWidth") > PHONE["width"] or sticking_out:
                wide[address] = sticking_out
            shoot(tab, "phone-" + (address.strip("/").replace("/", "-") or "home"))
        assert not wide, wide
    finally:
        tab.context.close()


# ---------------------------------------------------------------------------------------------------------
# 2. No stale selection


def test_a_selection_ends_with_the_play_that_used_it(browser: Any, asgi_server: str) -> None:
    """Gomori against a bot: a card picked and played; once the bot has answered, nothing is selected any more."""
    from games.play.create import SeatSpec, create_match

    alice = person("alice", "Alice")
    match = create_match(creator=alice, game="gomori", players=2, seats=[SeatSpec("bot", "reference")], seed=3)
    tab = signed_in(browser, asgi_server, alice, DESKTOP)
    try:
        tab.goto(f"/m/{match.pk}/")
        for _ in range(3):  # three of her turns, each answered by the bot
            tab.locator("#status[data-your-turn]").wait_for()
            live(tab)
            moves = tab.locator("#log li").count()
            tab.locator("#hand .card-button").first.click()
            tab.locator("#gomori-cancel").wait_for()
            assert "Now a highlighted cell" in tab.locator("#status").inner_text()
            tab.locator("#board .cell-button").first.click()
            tab.wait_for_timeout(250)
            kings = tab.locator("#board .king-target .cell-button")
            if kings.count():
                kings.first.click()
            # Her move is logged; then the bot's; then it is her turn again, with nothing selected.
            tab.locator(f"#log li >> nth={moves}").wait_for()
            tab.locator("#status[data-your-turn]").wait_for()
            if tab.locator("#status .outcome").count():
                break
            assert tab.locator("#gomori-cancel").count() == 0
            assert "Now a highlighted cell" not in tab.locator("#status").inner_text()
            assert tab.locator("#hand [aria-pressed='true']").count() == 0
    finally:
        tab.context.close()


# ---------------------------------------------------------------------------------------------------------
# 3, 4, 5. The claim countdown; who ended it, in every place; a seat handed to a bot tells one story


def left_a_while_ago(match: Any, seat: int, seconds_left: float) -> None:
    """The seat's player left so long ago that the claim opens in `seconds_left` s (GAMES_ABANDON_SECONDS)."""
    from datetime import timedelta

    from django.conf import settings
    from django.utils import timezone

    from games.models import Match, Presence, Seat

    since = timezone.now() - timedelta(seconds=settings.GAMES_ABANDON_SECONDS - seconds_left)
    Presence.objects.filter(match=match, seat=seat).delete()
    Seat.objects.filter(match=match, index=seat).update(last_seen=since)
    Match.objects.filter(pk=match.pk).update(turn_started_at=since)


def moved_once_each(match: Any, users: dict[int, Any]) -> Any:
    """First legal moves until both have moved (the match can no longer be aborted) and Alice (seat 0) is to act
    next... then one more, so it waits on Bob (seat 1)."""
    import playing

    from games.engines import get_engine
    from games.models import Match

    engine = get_engine(match.game)
    moved: set[int] = set()
    while True:
        match = Match.objects.get(pk=match.pk)
        state = engine.load(match.state)
        (seat,) = engine.must_act(state)
        if moved == {0, 1} and seat == 1:
            return match
        playing.act(match_id=match.pk, user=users[seat], seat=seat, action=engine.legal_actions(state, seat)[0],
                    expected_version=match.version)
        moved.add(seat)


def test_the_claim_counts_down_to_one_deadline_then_opens_and_the_ending_is_bobs_everywhere(
    browser: Any, asgi_server: str
) -> None:
    alice, bob = person("alice", "Alice"), person("bob", "Bob")
    match = moved_once_each(gomori_between(alice, bob), {0: alice, 1: bob})
    left_a_while_ago(match, 1, seconds_left=8)
    deadline_set = time.monotonic()
    tab = signed_in(browser, asgi_server, alice, DESKTOP)
    try:
        tab.goto(f"/m/{match.pk}/")
        live(tab)
        notice = tab.locator("#status .away-notice")
        assert "Bob has left the table." in notice.inner_text()
        buttons = notice.locator("[data-claim-button]")
        assert buttons.count() == 2 and all(buttons.nth(i).is_disabled() for i in range(2))
        seen = []
        while True:
            # Read at one instant: the seconds shown and whether the buttons are live.
            shown, live_buttons = notice.evaluate(
                # At zero the wait's sentence, countdown and all, is replaced by the open claim's.
                "n => [n.querySelector('.countdown') ? n.querySelector('.countdown').textContent : '0',"
                " [...n.querySelectorAll('[data-claim-button]')].some(b => !b.disabled)]")
            left = int(shown)
            if not seen:  # the page shows the deadline as it stands when read, however slow the machine
                waited = time.monotonic() - deadline_set
                assert 8 - waited - 1 <= left <= 8, (left, waited)
            seen.append(left)
            if left == 0:
                break
            assert not live_buttons, f"the buttons are live with {left} s to go"
            tab.wait_for_timeout(300)
        assert seen == sorted(seen, reverse=True), seen  # it never jumps back
        assert notice.locator(".claim-open").is_visible()
        assert "You may claim the match now." in notice.inner_text() and "in 0 s" not in notice.inner_text()
        said = notice.evaluate("n => n.textContent")  # what any reader of the page gets, not only the eye
        assert "claim the match now" in said and "claim the match in" not in said, said
        assert all(buttons.nth(i).is_enabled() for i in range(2))
        shoot(tab, "claim-open")
        notice.get_by_role("button", name="Claim the win").click()
        tab.locator("#status .outcome").wait_for()
        outcome = tab.locator("#status .outcome").inner_text()
        assert "You won" in outcome and "Bob left" in outcome, outcome
        last_line = tab.locator("#log li").first.inner_text()  # the newest line is on top
        assert ("Bob left" in last_line and "You won" in last_line) or "Alice won" in last_line, last_line
        # History, the replay and the profile word it the same way: the ending is Bob's.
        tab.goto("/history/")
        row = tab.locator("#history-results tbody tr").first.inner_text()
        assert "Bob left" in row and "Alice (left)" not in row and "Alice left" not in row, row
        tab.goto(f"/m/{match.pk}/replay/")
        assert "Bob left" in tab.locator(".replay-status").inner_text()
    finally:
        tab.context.close()


def test_a_resignation_belongs_to_who_resigned_in_history(browser: Any, asgi_server: str) -> None:
    alice, bob = person("alice", "Alice"), person("bob", "Bob")
    match = moved_once_each(gomori_between(alice, bob), {0: alice, 1: bob})
    tab = signed_in(browser, asgi_server, alice, DESKTOP)
    try:
        tab.goto(f"/m/{match.pk}/")
        live(tab)
        tab.locator("#status summary:has-text('Resign')").click()
        tab.get_by_role("button", name="Yes, resign").click()
        tab.locator("#status .outcome").wait_for()
        assert "You resigned" in tab.locator("#status .outcome").inner_text()
        tab.goto("/history/")
        row = tab.locator("#history-results tbody tr").first.inner_text()
        assert "Alice resigned" in row and "Bob (resigned)" not in row, row
    finally:
        tab.context.close()


def test_a_seat_handed_to_a_bot_tells_one_story_to_the_end(browser: Any, asgi_server: str) -> None:
    """Bob leaves; Alice hands his seat to a bot and plays it out: the status, the log's closing line and the
    history say the same thing about who won and how."""
    alice, bob = person("alice", "Alice"), person("bob", "Bob")
    match = moved_once_each(gomori_between(alice, bob), {0: alice, 1: bob})
    left_a_while_ago(match, 1, seconds_left=0)
    tab = signed_in(browser, asgi_server, alice, DESKTOP)
    try:
        tab.goto(f"/m/{match.pk}/")
        live(tab)
        tab.locator("#status .away-notice").get_by_role("button", name="Hand the seat to a bot").click()
        tab.locator("#players .seat-1 .badge:has-text('left')").wait_for()
        for _ in range(200):
            if tab.locator("#status .outcome").count():
                break
            if tab.locator("#status[data-your-turn]").count() and tab.locator("#hand .card-button").count():
                moves = tab.locator("#log li").count()
                play_first_card(tab)
                tab.locator(f"#log li >> nth={moves}").wait_for()
            else:
                tab.wait_for_timeout(200)
        outcome = tab.locator("#status .outcome").inner_text()
        closing = tab.locator("#log li").first.inner_text()  # the newest line is on top
        tab.goto("/history/")
        row = tab.locator("#history-results tbody tr").first.inner_text()
        won = "You won" in outcome
        assert ("Alice won" in closing or "You won" in closing) == won, (outcome, closing)
        assert ("Alice won" in row or "Alice" in row.split("\n")[0]) if won else "Bob" in row, row
        assert "(bot) wins" not in closing and "(bot) won" not in outcome, (outcome, closing)
        assert "Bob left" in outcome and "Bob left" in closing, (outcome, closing)
    finally:
        tab.context.close()


# ---------------------------------------------------------------------------------------------------------
# 6. The "your turn" badge clears on every open page


def test_the_your_turn_badge_clears_on_another_open_page_when_the_turn_is_played(browser: Any,
                                                                                asgi_server: str) -> None:


    alice, bob = person("alice", "Alice"), person("bob", "Bob")
    match = gomori_between(alice, bob)  # Alice (seat 0) is to play first
    lobby = signed_in(browser, asgi_server, alice, DESKTOP)
    try:
        lobby.goto("/play/")
        badge = lobby.locator("#turn-cue .badge-turn")
        badge.wait_for()
        assert "your turn" in badge.inner_text().lower()
        assert "your turn" in lobby.locator("#lobby-lists").inner_text().lower()
        table = lobby.context.new_page()
        table.goto(f"/m/{match.pk}/")
        live(table)
        # She plays until the turn is Bob's (a stacked card plays again).
        for _ in range(10):
            if not table.locator("#status[data-your-turn]").count():
                break
            moves = table.locator("#log li").count()
            play_first_card(table)
            table.locator(f"#log li >> nth={moves}").wait_for()
        assert "Waiting for Bob" in table.locator("#status").inner_text()
        badge.wait_for(state="detached")  # the lobby, open in another tab, drops it without a reload
        assert "Bob" in lobby.locator("#lobby-lists").inner_text()
        # And it comes back, live, when Bob has played (in his own browser) until the turn is hers again.
        bobs = signed_in(browser, asgi_server, bob, DESKTOP)
        bobs.goto(f"/m/{match.pk}/")
        live(bobs)
        for _ in range(10):
            if not bobs.locator("#status[data-your-turn]").count():
                break
            moves = bobs.locator("#log li").count()
            play_first_card(bobs)
            bobs.locator(f"#log li >> nth={moves}").wait_for()
        lobby.locator("#turn-cue .badge-turn").wait_for()
        bobs.context.close()
    finally:
        lobby.context.close()
