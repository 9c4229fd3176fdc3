"""In real browsers, a match's life around its moves (#17), as people click through it: the creator cancels a
waiting match; a player aborts before everyone moved; a rematch offered by one is accepted by the other and
both pages move to it; a seat handed to a bot and taken back; a clock running out; the players' chat.

The positions are made through the services (quick); everything a person does is clicked. SHOTS=<folder>
also saves desktop (1280x900) and phone (390x844) screenshots of each part there, as life-*.png.
"""

from __future__ import annotations

import os
import re
from datetime import timedelta
from typing import Any

import pytest
from tables import DESKTOP, PHONE, signed_in

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

SHOTS = os.environ.get("SHOTS", "")


def person(username: str, name: str) -> Any:
    from django.contrib.auth import get_user_model

    return get_user_model().objects.create_user(username=username, password="x", display_name=name)


def two_player_match(alice: Any, bob: Any, **kwargs: Any) -> Any:
    """A Gomori match between Alice (seat 0) and Bob (seat 1), dealt and on."""
    import playing

    from games.play.create import SeatSpec, create_match

    match = create_match(creator=alice, game="gomori", players=2, seats=[SeatSpec("open")], seed=3,
                                  **kwargs)
    return playing.join(match_id=match.pk, user=bob)


def play_until_everyone_moved(match: Any, users: dict[int, Any], *, then_seat: int | None = None) -> Any:
    """First legal moves until every person has moved (the match can only be resigned from then on), and, with
    `then_seat`, on until the game waits on that seat."""
    import playing

    from games.engines import get_engine
    from games.models import Match
    from games.play.decide import abort_allowed
    from games.play.store import load

    engine = get_engine(match.game)
    for _ in range(50):
        match = Match.objects.get(pk=match.pk)
        state = engine.load(match.state)
        (seat,) = engine.must_act(state)
        if not abort_allowed(load(match.pk)) and then_seat in (None, seat):
            return match
        playing.act(match_id=match.pk, user=users[seat], seat=seat, action=engine.legal_actions(state, seat)[0],
                     expected_version=match.version)
    raise AssertionError("the players could not all move")


def tab_of(browser: Any, base_url: str, user: Any, viewport: dict[str, int] = DESKTOP) -> Any:
    """A signed-in tab that collects its script errors and Content Security Policy refusals (see close())."""
    tab = signed_in(browser, base_url, user, viewport)
    problems: list[str] = []
    tab.on("pageerror", lambda error: problems.append(str(error)))
    tab.on("console", lambda message: problems.append(message.text)
           if "Content Security Policy" in message.text else None)
    tab.problems = problems
    return tab


def opened(browser: Any, base_url: str, user: Any, path: str) -> Any:
    """A signed-in tab on this page, once its socket is open (the chat panel comes only through the socket)."""
    tab = tab_of(browser, base_url, user)
    tab.goto(path)
    tab.wait_for_selector("#chat h2")
    return tab


def shoot(tab: Any, name: str, selector: str | None = None) -> None:
    """With SHOTS set: the tab at a desktop's and at a phone's size, scrolled to `selector`."""
    if not SHOTS:
        return
    before = tab.viewport_size
    for label, size in (("desktop", DESKTOP), ("phone", PHONE)):
        tab.set_viewport_size(size)
        if selector:
            tab.locator(selector).first.scroll_into_view_if_needed()
        tab.screenshot(path=f"{SHOTS}/life-{name}-{label}.png")
    tab.set_viewport_size(before)


def close(*tabs: Any) -> None:
    problems = [problem for tab in tabs for problem in tab.problems]
    for tab in tabs:
        tab.context.close()
    assert not problems, problems


def text(tab: Any, selector: str) -> str:
    return " ".join(tab.locator(selector).inner_text().split())


def test_the_creator_cancels_a_waiting_match_from_its_page(browser: Any, asgi_server: str) -> None:
    from games.models import Match, PlayerResult

    alice = person("alice", "Alice")
    tab = tab_of(browser, asgi_server, alice)
    try:
        tab.goto("/play/")
        form = tab.locator("#create-gomori")
        if form.get_attribute("open") is None:
            form.locator("summary").click()
        form.locator("select[name='gomori-seat_1']").select_option("open")
        # The clock's fieldset shows only the chosen clock's figures.
        clock = form.locator("fieldset.clock-choice")
        assert not clock.locator(".clock-detail").first.is_visible()
        clock.locator("select[name='gomori-clock']").select_option("fischer")
        assert clock.get_by_label("Minutes per player").is_visible()
        assert not clock.get_by_label("Seconds per turn").is_visible()
        shoot(tab, "lobby-clock-form", "#create-gomori fieldset.clock-choice")
        clock.locator("select[name='gomori-clock']").select_option("turn")
        assert clock.get_by_label("Seconds per turn").is_visible()
        assert not clock.get_by_label("Minutes per player").is_visible()
        clock.locator("select[name='gomori-clock']").select_option("none")
        form.get_by_role("button", name="Create the Gomori match").click()
        tab.wait_for_url("**/m/*/")
        tab.wait_for_selector("#chat h2")
        match = Match.objects.get()
        assert match.status == Match.Status.WAITING
        invite = tab.locator("#status input.invite-link")
        assert invite.is_visible() and invite.input_value() == f"{asgi_server}/m/{match.pk}/?code={match.invite_code}"
        shoot(tab, "waiting-table", "#status")

        tab.get_by_role("button", name="Cancel the match").click()
        tab.wait_for_url("**/play/")
        match.refresh_from_db()
        assert (match.status, match.result["reason"]) == (Match.Status.ABORTED, "cancelled")
        # Gone from her lists and from every history.
        assert f"/m/{match.pk}/" not in tab.locator("#lobby-lists").inner_html()
        assert not PlayerResult.objects.filter(match=match).exists()
        tab.goto("/u/alice/history/")
        assert f"/m/{match.pk}/" not in tab.content()
        tab.goto("/history/")
        assert f"/m/{match.pk}/" not in tab.content()
    finally:
        close(tab)


def test_a_player_aborts_before_everyone_moved(browser: Any, asgi_server: str) -> None:
    from games.models import Match, PlayerResult

    alice, bob = person("alice", "Alice"), person("bob", "Bob")
    match = two_player_match(alice, bob)
    url = match.get_absolute_url()
    mine, theirs = opened(browser, asgi_server, alice, url), opened(browser, asgi_server, bob, url)
    try:
        # Nobody has moved: the table offers an abort, and no resignation.
        for tab in (mine, theirs):
            assert tab.locator("#status details.resign summary").all_inner_texts() == ["Abort"]
            assert tab.get_by_role("button", name="Yes, resign").count() == 0
        theirs.locator("#status details.resign summary").click()
        theirs.get_by_role("button", name="Yes, abort").click()
        theirs.wait_for_selector("#status:has-text('aborted by you before everyone had moved')")
        mine.wait_for_selector("#status:has-text('aborted by Bob before everyone had moved')")
        for tab in (mine, theirs):
            assert "it counts for nothing" in text(tab, "#status")
            assert tab.locator("#status details.resign").count() == 0
        match.refresh_from_db()
        assert (match.status, match.result["reason"], match.result["by"]) == (Match.Status.ABORTED, "aborted", 1)
        assert not PlayerResult.objects.filter(match=match).exists()
    finally:
        close(mine, theirs)


def test_a_rematch_offer_is_accepted_by_the_other_player_and_both_pages_move(browser: Any, asgi_server: str) -> None:
    import playing

    from games.models import Match

    alice, bob = person("alice", "Alice"), person("bob", "Bob")
    match = play_until_everyone_moved(two_player_match(alice, bob), {0: alice, 1: bob})
    playing.resign(match_id=match.pk, user=bob)
    url = match.get_absolute_url()
    mine, theirs = opened(browser, asgi_server, alice, url), opened(browser, asgi_server, bob, url)
    try:
        assert "Bob resigned" in text(mine, "#status .outcome")
        mine.get_by_role("button", name="Offer a rematch").click()
        mine.wait_for_selector("#rematch:has-text('You offered a rematch')")
        # Bob's page shows the offer live, with its two answers.
        offer = theirs.locator("#rematch .rematch-offer")
        offer.wait_for()
        assert " ".join(offer.inner_text().split()) == "Alice offers a rematch."
        assert theirs.locator("#rematch").get_by_role("button", name="Decline").is_visible()
        shoot(theirs, "rematch-offer", "#rematch")
        theirs.locator("#rematch").get_by_role("button", name="Accept").click()
        # Both pages move to the new match by themselves.
        rematch = re.compile(rf".*/m/(?!{match.pk}/)\d+/$")
        for tab in (theirs, mine):
            tab.wait_for_url(rematch)
        new = Match.objects.get(pk=match.pk).rematch
        assert new is not None and new.status == Match.Status.ACTIVE
        for tab in (mine, theirs):
            assert tab.url.endswith(f"/m/{new.pk}/")
            tab.wait_for_selector("#hand .card")
    finally:
        close(mine, theirs)


def test_a_seat_handed_to_a_bot_and_taken_back(browser: Any, asgi_server: str) -> None:
    from django.utils import timezone

    from games.models import Match, Presence, Seat

    alice, bob = person("alice", "Alice"), person("bob", "Bob")
    match = play_until_everyone_moved(two_player_match(alice, bob), {0: alice, 1: bob}, then_seat=0)
    # The game waits on Alice, who left a while ago (as tests/games/play/test_lifecycle.py's hand_alice_to_a_bot).
    Presence.objects.filter(match=match, seat=0).delete()
    past = timezone.now() - timedelta(seconds=120)
    Seat.objects.filter(match=match, index=0).update(last_seen=past)
    Match.objects.filter(pk=match.pk).update(turn_started_at=past)
    handover_move = match.move_count + 1
    url = match.get_absolute_url()
    theirs = opened(browser, asgi_server, bob, url)
    mine = None
    try:
        away = theirs.locator("#status .away-notice")
        assert "Alice has left the table." in text(theirs, "#status .away-notice")
        away.get_by_role("button", name="Hand the seat to a bot").click()
        said = f"Alice left; a bot plays their seat from move {handover_move}."
        theirs.wait_for_selector(f"#log-entries li:has-text('{said}')")
        theirs.wait_for_selector("#players .seat-0 .badge:has-text('left')")
        # The bot plays her turn (the server's bot runner), and the game waits on Bob.
        theirs.wait_for_selector("#status[data-your-turn]")

        mine = opened(browser, asgi_server, alice, url)
        notice = mine.locator("#seat-notice")
        assert f"a bot has played your seat since move {handover_move}" in text(mine, "#seat-notice")
        assert mine.locator("#hand .card").count() == 0  # she only watches, for now
        shoot(mine, "seat-notice", "#seat-notice")
        notice.get_by_role("button", name="Take my seat back").click()
        mine.wait_for_selector("#hand .card")
        mine.wait_for_selector("#chat h2")
        assert text(mine, "#seat-notice") == ""
        assert mine.locator("#players .seat-0.me").count() == 1
        theirs.wait_for_selector("#log-entries li:has-text('Alice took their seat back')")
        assert Seat.objects.get(match=match, index=0).substitute_id is None
    finally:
        close(theirs, *([mine] if mine else []))


def test_a_clock_ticks_and_runs_out(browser: Any, asgi_server: str) -> None:

    from games.engines import get_engine
    from games.models import Match
    from games.play.clock import clock_spec

    alice, bob = person("alice", "Alice"), person("bob", "Bob")
    # Signed in first: the turn's 5 s start when the match does.
    mine, theirs = tab_of(browser, asgi_server, alice), tab_of(browser, asgi_server, bob)
    try:
        # 10 s: time enough for both pages to open on a loaded machine before the clock runs out.
        match = two_player_match(alice, bob, clock=clock_spec("turn", turn_seconds=10))
        # Both have moved (a clock that runs out before a player's first move aborts the match: the test below).
        match = play_until_everyone_moved(match, {0: alice, 1: bob})
        for tab in (mine, theirs):
            tab.goto(match.get_absolute_url())
            tab.wait_for_selector("#chat h2")
        running = mine.locator("#players .clock.clock-running")
        assert running.count() == 1 and mine.locator("#players .clock").count() == 2
        before = running.inner_text()
        mine.wait_for_timeout(1100)
        after = running.inner_text()
        assert re.fullmatch(r"0:(10|0[1-9])", before) and re.fullmatch(r"0:0[0-9]", after), (before, after)
        assert int(after[2:]) < int(before[2:]), (before, after)
        shoot(mine, "clocks", "#players")
        # Nobody moves: the server flags the player on turn, and both pages say so without a reload.
        (loser,) = get_engine("gomori").must_act(get_engine("gomori").load(match.state))
        name = ("Alice", "Bob")[loser]
        mine.wait_for_selector("#status .outcome", timeout=25_000)
        theirs.wait_for_selector("#status .outcome", timeout=5_000)
        assert ("You" if loser == 0 else name) + " ran out of time." in text(mine, "#status .outcome")
        assert ("You" if loser == 1 else name) + " ran out of time." in text(theirs, "#status .outcome")
        assert mine.locator("#players .clock-running").count() == 0
        # On the record: the log's closing line says it, and so does the replay's last step.
        assert ("You" if loser == 0 else name) + " ran out of time." in text(mine, "#log li:first-child")
        match.refresh_from_db()
        assert (match.status, match.result["reason"], match.result["loser"]) == (Match.Status.FINISHED, "time",
                                                                                loser)
        mine.goto(f"{match.get_absolute_url()}replay/")
        assert name + " ran out of time." in text(mine, ".replay-status")
        assert name + " ran out of time." in text(mine, "#log li:first-child")
    finally:
        close(mine, theirs)


def test_a_clock_that_runs_out_before_a_first_move_aborts_the_match(browser: Any, asgi_server: str) -> None:
    """lichess's rule: out of time before a first move, the match counts for nobody, and both pages say so."""
    from games.models import Match
    from games.play.clock import clock_spec

    alice, bob = person("alice", "Alice"), person("bob", "Bob")
    mine, theirs = tab_of(browser, asgi_server, alice), tab_of(browser, asgi_server, bob)
    try:
        match = two_player_match(alice, bob, clock=clock_spec("turn", turn_seconds=5))
        for tab in (mine, theirs):
            tab.goto(match.get_absolute_url())
        for tab in (mine, theirs):
            tab.locator("#status", has_text="aborted").wait_for(timeout=25_000)
        said = "ran out of time before their first move: the match is aborted and counts for nothing."
        assert "You " + said.replace("their", "your") in text(mine, "#status")
        assert "Alice " + said in text(theirs, "#status")
        assert "Alice " + said in text(theirs, "#log li:first-child")
        match.refresh_from_db()
        assert (match.status, match.result["why"]) == (Match.Status.ABORTED, "time")
        assert theirs.locator("#players .clock-running").count() == 0
    finally:
        close(mine, theirs)


def test_players_chat_and_a_spectator_does_not_see_it(browser: Any, asgi_server: str) -> None:
    alice, bob, carol = person("alice", "Alice"), person("bob", "Bob"), person("carol", "Carol")
    match = two_player_match(alice, bob)
    url = match.get_absolute_url()
    mine, theirs, watcher = (opened(browser, asgi_server, user, url) for user in (alice, bob, carol))
    try:
        assert text(mine, "#chat h2") == "Players’ chat" and text(watcher, "#chat h2") == "Spectators’ chat"
        box = mine.get_by_label("Chat message")
        box.fill("good luck <b>html</b>")
        box.press("Enter")
        theirs.wait_for_selector("#chat-lines li:has-text('good luck')")
        mine.wait_for_selector("#chat-lines li:has-text('good luck')")
        assert box.input_value() == ""  # emptied for the next line
        for tab in (mine, theirs):
            line = tab.locator("#chat-lines li").first
            assert " ".join(line.inner_text().split()).startswith("Alice good luck <b>html</b>")
            assert tab.locator("#chat-lines b").count() == 0
        theirs.get_by_label("Chat message").fill("thanks, you too")
        theirs.get_by_role("button", name="Send").click()
        mine.wait_for_selector("#chat-lines li:has-text('thanks, you too')")
        shoot(mine, "chat", "#chat")
        # The spectator hears neither; the spectators' room is theirs.
        watcher.get_by_label("Chat message").fill("nice opening")
        watcher.get_by_label("Chat message").press("Enter")
        watcher.wait_for_selector("#chat-lines li:has-text('nice opening')")
        assert "good luck" not in watcher.locator("#chat").inner_text()
        assert "thanks" not in watcher.locator("#chat").inner_text()
        mine.wait_for_timeout(300)
        assert "nice opening" not in mine.locator("#chat").inner_text()
    finally:
        close(mine, theirs, watcher)
