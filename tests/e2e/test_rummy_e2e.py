"""In a real browser: a person plays a whole game of Rummy against the reference bot by clicking, to the result.

The person's choices come from the reference strategy on their own view (read from the database), and each one
is made the way a person makes it: selecting cards in the hand, making packs and watching their running value
against the 40 minimum, laying down, choosing a pack to add a card to, discarding. Seed 0 gives a short game the
person wins, with a lay-down of several packs, a card taken from the discard pile and a joker freed from a pack.
Screenshots of the key moments, on a desktop and at 390 px, go to test-artifacts/e2e/.
"""

from __future__ import annotations

import json
import random
import time
from collections import deque
from pathlib import Path
from typing import Any

import pytest

from games.bots.rummy import reference_bot
from games.engines import get_engine
from games.engines.base import card_name
from games.models import Match
from games.play.create import SeatSpec, create_match

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "e2e"
SEED = 0
PASSWORD = "felt-and-jokers-2024"
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}
PACE = 12  # clicks a second at most


def shot(page: Any, name: str, *, phone: bool = False) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    if phone:
        page.set_viewport_size(PHONE)
    page.screenshot(path=str(ARTIFACTS / f"rummy-{name}{'-phone' if phone else ''}.png"), full_page=True)
    if phone:
        page.set_viewport_size(DESKTOP)


def hand_ui(page: Any) -> dict[str, Any]:
    return json.loads(page.locator(".rm-hand-cards").get_attribute("data-rm-ui"))


class Table:
    """The match page, clicked like a person would; every click waits for the page to show its answer."""

    def __init__(self, page: Any, match_id: int) -> None:
        self.page = page
        self.match_id = match_id
        self.clicks: deque[float] = deque(maxlen=PACE)

    def pace(self) -> None:
        """No faster than a quick person clicks: the socket closes on more than 20 frames a second."""
        if len(self.clicks) == PACE and time.monotonic() - self.clicks[0] < 1.0:
            time.sleep(1.0 - (time.monotonic() - self.clicks[0]))
        self.clicks.append(time.monotonic())

    def selection_changes(self, click: Any) -> None:
        """A click that changes the hand's selection: wait for the hand to show the new selection."""
        before = self.page.locator(".rm-hand-cards").get_attribute("data-rm-ui")
        self.pace()
        click()
        self.page.wait_for_function(
            "before => { const h = document.querySelector('.rm-hand-cards');"
            " return h && h.getAttribute('data-rm-ui') !== before; }",
            arg=before,
        )

    def move_happens(self, click: Any) -> None:
        """A click that makes a move: wait for the match to move on and for the log to show it."""
        version = Match.objects.get(pk=self.match_id).version
        newest = self.page.locator("#log li").first.inner_text()
        self.pace()
        click()
        deadline = time.monotonic() + 10
        while Match.objects.get(pk=self.match_id).version == version:
            assert time.monotonic() < deadline, "the move was not made"
            time.sleep(0.05)
        self.page.wait_for_function(
            "newest => { const li = document.querySelector('#log li'); return li && li.innerText !== newest; }",
            arg=newest,
        )

    def select(self, code: str) -> None:
        free = self.page.locator('.rm-hand-cards button[aria-pressed="false"]')
        button = free.filter(has=self.page.locator(f'[title="{card_name(code)}"]')).first
        self.selection_changes(button.click)

    def wait_for_turn(self) -> bool:
        """Wait until it is the person's turn (True) or the game is over (False)."""
        self.page.wait_for_function(
            "() => document.querySelector('#status .your-turn') || document.querySelector('#status .outcome')",
            timeout=20_000,
        )
        return self.page.locator("#status .your-turn").count() > 0


def play(table: Table, action: dict[str, Any], seen: dict[str, int], laid: bool) -> None:
    """Make one move by clicking, with screenshots the first time something new happens."""
    page = table.page
    kind = action["type"]
    if kind == "draw":
        key = "stock" if action["from"] == "stock" else "draw-discard"
        if key == "stock" and not seen.get(key):  # the first draw with the S key
            table.move_happens(lambda: page.keyboard.press("s"))
        elif key == "stock":
            table.move_happens(page.locator("#rm-stock").click)
        else:
            table.move_happens(page.locator("#rm-take").click)
            if not seen.get(key):
                shot(page, "took-discard")
        seen[key] = seen.get(key, 0) + 1
        return
    if kind in ("discard", "add"):
        table.select(action["card"])
        if kind == "discard":
            table.move_happens(page.locator("#rm-discard").click)
            return
        want = {"action": action}
        buttons = page.locator(".rm-add-button")
        target = next(
            button for button in buttons.all() if json.loads(button.get_attribute("hx-vals")) == want
        )
        if not seen.get("add"):
            shot(page, "choose-pack")
            shot(page, "choose-pack", phone=True)
        seen["add"] = seen.get("add", 0) + 1
        table.move_happens(target.click)
        if page.locator(".rm-freed").count() and not seen.get("freed"):
            seen["freed"] = 1
            assert page.locator(".rm-hand-cards li.rm-fresh").count() >= 1
            shot(page, "freed-joker")
        return
    packs = action["packs"]
    if len(packs) == 1 and page.locator("#rm-reset").count() == 0:
        for code in packs[0]:
            table.select(code)
        table.move_happens(page.locator("#rm-lay-one").click)
        return
    for index, pack in enumerate(packs):
        for code in pack:
            table.select(code)
        if index == 0 and not laid:
            assert "worth" in page.locator(".rm-selected").inner_text()
        table.selection_changes(page.locator("#rm-make").click)
        # The button is gone with the selection: the focus moves on to the lay-down button or the hand.
        focused = page.evaluate("document.activeElement.id")
        assert focused == "rm-lay" or focused.startswith("rm-card-"), focused
        for _ in range(3):
            if hand_ui(page)["building"][index] == pack:
                break
            table.selection_changes(page.locator(f"#rm-flip-{index}").click)
        assert hand_ui(page)["building"][index] == pack
        if not laid and index == 0:
            total = page.locator(".rm-total").inner_text()
            assert "of the 40 your first lay-down needs" in total, total
            if len(packs) > 1:
                assert "more to go" in page.locator(".rm-why").inner_text() or page.locator("#rm-lay").count()
                shot(page, "building")
                shot(page, "building", phone=True)
    lay = page.locator("#rm-lay")
    assert sorted(map(tuple, json.loads(lay.get_attribute("hx-vals"))["action"]["packs"])) == sorted(map(tuple, packs))
    table.move_happens(lay.click)


def watch_as_a_spectator(page: Any, url: str) -> None:
    """Someone signed out watches the public match: the table and both hands as backs, no hand, no controls."""
    context = page.context.browser.new_context(base_url=page.url.split("/m/")[0], viewport=DESKTOP)
    try:
        watcher = context.new_page()
        watcher.goto(url)
        watcher.wait_for_selector(".rm-packs")
        assert watcher.locator(".rm-side").count() == 2
        assert watcher.locator(".rm-hand-cards, [data-rm-ui], #rm-stock, #rm-take").count() == 0
        assert watcher.locator("#board button").count() == 0
        watcher.screenshot(path=str(ARTIFACTS / "rummy-spectator.png"), full_page=True)
    finally:
        context.close()


def test_a_person_plays_a_whole_game_against_the_bot(page: Any, console_messages: list[str], make_user: Any) -> None:
    engine = get_engine("rummy")
    ada = make_user("ada", password=PASSWORD, display_name="Ada")
    match = create_match(creator=ada, game="rummy", players=2, seats=[SeatSpec("bot", "reference")], seed=SEED)
    page.goto("/accounts/login/?next=" + match.get_absolute_url())
    page.get_by_label("Username").fill("ada")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url("**" + match.get_absolute_url())
    table = Table(page, match.pk)
    assert table.wait_for_turn()
    assert "Draw a card from the stock." in page.locator("#status").inner_text()
    assert page.locator(".rm-side .rm-backs .card-back").count() == 13
    assert page.locator(".rm-hand-cards li").count() == 13
    shot(page, "start")
    shot(page, "start", phone=True)

    # Arrange the hand: drag the first card onto the fourth, then put it back with the keyboard.
    first = hand_ui(page)["order"]
    slot = '.rm-hand-cards li[data-pos="{}"]'
    table.selection_changes(lambda: page.drag_and_drop(slot.format(0), slot.format(3)))
    dragged = hand_ui(page)
    assert dragged["order"] == [*first[1:4], first[0], *first[4:]] and dragged["sort"] == "custom"
    assert "your own order" in page.locator(".rm-sort").inner_text()
    page.locator("#rm-card-3").focus()
    table.selection_changes(lambda: page.keyboard.press("Enter"))
    assert page.evaluate("document.activeElement.id") == "rm-card-3"  # the focus survives the update
    assert page.locator("#rm-card-3").get_attribute("aria-pressed") == "true"
    page.locator("#rm-left").focus()
    for _ in range(3):
        table.selection_changes(lambda: page.keyboard.press("Enter"))
        assert page.evaluate("document.activeElement.id") == "rm-left"
    assert hand_ui(page)["order"] == first and hand_ui(page)["selected"] == [0]
    table.selection_changes(page.locator("#rm-sort-rank").click)
    assert page.locator("#rm-sort-rank").get_attribute("aria-pressed") == "true"
    table.selection_changes(page.locator("#rm-clear").click)
    shot(page, "sorted-by-rank")

    seen: dict[str, int] = {}
    rng = random.Random(SEED)
    moves = 0
    while table.wait_for_turn():
        state = engine.load(Match.objects.get(pk=match.pk).state)
        view = engine.view(state, 0)
        action, _ = reference_bot(view, view["legal"], rng)
        if action["type"] == "draw" and not state.laid[0] and state.discard:
            assert page.locator("#rm-take").count() == 0
            assert "once you have laid down" in page.locator(".rm-hint").first.inner_text()
        play(table, action, seen, state.laid[0])
        if action["type"] == "meld":
            seen["meld"] = seen.get("meld", 0) + 1
            if seen["meld"] == 1:
                shot(page, "laid-down")
                watch_as_a_spectator(page, match.get_absolute_url())
        moves += 1
        assert moves < 80, "the game did not end"

    match = Match.objects.get(pk=match.pk)
    assert match.status == Match.Status.FINISHED
    assert match.result["winners"] == [0]
    assert "You won." in page.locator("#status .outcome").inner_text()
    final = page.locator(".rm-final")
    assert "Final hands" in final.inner_text()
    loser_points = match.result["scores"][1]
    assert f"{loser_points} penalty point" in final.inner_text()
    assert seen.get("meld") and seen.get("add") and seen.get("freed") and seen.get("draw-discard"), seen
    shot(page, "finished")
    shot(page, "finished", phone=True)
    assert not [line for line in console_messages if line.startswith("pageerror")], console_messages
