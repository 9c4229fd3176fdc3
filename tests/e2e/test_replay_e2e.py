"""The replay in a real browser: stepping through a finished match (links, keys, the move box) logs nothing to the
console (the page fixture fails on any Content Security Policy violation), and each step says what was done."""

from __future__ import annotations

import random
from typing import Any

import playing
import pytest

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def finished_match(game: str = "gomori", players: int = 2) -> Any:
    from factories import make_user

    from games.engines import get_engine
    from games.models import Match
    from games.play.create import SeatSpec, create_match

    alice, bob = make_user("alice", display_name="Alice"), make_user("bob", display_name="Bob")
    options = {"rounds": 1} if game == "columbo" else None
    match = create_match(creator=alice, game=game, players=players, seats=[SeatSpec("open")], seed=5,
                         options=options)
    match = playing.join(match_id=match.pk, user=bob)
    engine, rng = get_engine(game), random.Random(5)
    while match.status == Match.Status.ACTIVE:
        state = engine.load(match.state)
        seat = (engine.must_act(state) or engine.to_act(state))[0]
        legal = [a for a in engine.legal_actions(state, seat) if a.get("type") != "slap"] or engine.legal_actions(
            state, seat)
        match = playing.act(match_id=match.pk, user=(alice, bob)[seat], seat=seat, action=rng.choice(legal),
                            expected_version=match.version)
    return match


@pytest.mark.parametrize("game", ["gomori", "columbo", "ruhd", "rummy"])
def test_stepping_through_a_replay_logs_nothing_and_says_each_move(page: Any, console_messages: list[str],
                                                                     game: str) -> None:
    match = finished_match(game)
    missing: list[str] = []
    page.on("response", lambda r: missing.append(r.url) if r.status == 404 else None)
    page.goto(f"/m/{match.pk}/replay/?move=0")
    page.wait_for_selector(".replay-status")

    def at(number: int) -> str:
        page.locator(".replay-position strong", has_text=str(number)).wait_for()
        return page.locator(".replay-status").inner_text()

    for number in range(1, 5):
        page.click('a[data-replay-step="forward"]')
        at(number)
    status = at(4)
    # What the fourth move did, in the log's words, with who did it.
    assert "Move 4 of" in status and ("Alice" in status or "Bob" in status), status
    page.keyboard.press("ArrowRight")
    at(5)
    page.keyboard.press("ArrowLeft")
    at(4)
    page.keyboard.press("End")
    page.locator(".replay-status .outcome").wait_for()
    page.click('a[data-replay-step="first"]')
    page.locator(".replay-status", has_text="The deal").wait_for()
    keys = page.locator(".replay-seek select option").evaluate_all("options => options.map(o => o.value)")
    for key in keys:  # every perspective: every hand, the spectator's, each seat's
        page.goto(f"/m/{match.pk}/replay/?move=1&seat={key}")
        at(1)
        page.click('a[data-replay-step="forward"]')
        at(2)
        page.keyboard.press("Home")
        at(0)
    page.go_back()
    page.wait_for_timeout(300)
    assert missing == []
    assert [line for line in console_messages if line.startswith(("error", "pageerror"))] == []
