"""Screen readers and keyboards, in a real browser.

- An axe-core audit (tests/e2e/vendor/axe.min.js, every rule it runs by default) of every page a person uses: the
  lobby, each game's table mid-match (with and without a choice made), at a phone's size too, and at the end; the
  history, a replay and its analysis, a profile, the leaderboard, the tournaments and a tournament, My games, the
  settings, the rules, sign-up and sign-in. No serious or critical violation.
- The table's live region (#announce) says each move in the log's own words, "Your turn." when the turn comes,
  and the result when the match ends; nothing when the page opens, nor for a choice on the page.

SHOTS=<folder> saves the tables with the keyboard focus showing, at a desktop's and a phone's size (a11y-*.png).
"""

from __future__ import annotations

import os
import random
from pathlib import Path
from typing import Any

import pytest
from steps import resign_by_clicks
from tables import DESKTOP, PHONE, mid_game, people, signed_in

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

AXE = Path(__file__).parent / "vendor" / "axe.min.js"
GAMES = ("gomori", "columbo", "ruhd", "rummy")
OPTIONS: dict[str, dict[str, Any]] = {"columbo": {"rounds": 1}}
SHOTS = os.environ.get("SHOTS", "")


def audit(page: Any, where: str) -> list[str]:
    """The page's serious and critical axe-core violations, one line each (rule, impact, the first elements).

    axe is run in the page's own world by evaluate (the site's Content Security Policy refuses an inline script)."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.evaluate(AXE.read_text())
    # The page as it settles: a card still fading in (its arrival, started again by an update during the audit)
    # would be measured half-transparent. The arrival is off where motion is reduced (tables.css).
    page.emulate_media(reduced_motion="reduce")
    found = page.evaluate(
        "async () => (await axe.run(document, {resultTypes: ['violations']})).violations"
        ".filter(v => v.impact === 'serious' || v.impact === 'critical')"
        ".map(v => `${v.id} (${v.impact}): ${v.help}; ` + v.nodes.slice(0, 3)"
        ".map(n => n.target.join(' ') + ' ' + n.html.slice(0, 140) + ' ' + (n.failureSummary || '').slice(0, 200))"
        ".join(' | '))")
    page.emulate_media(reduced_motion="no-preference")
    return [f"{where}: {line}" for line in found]


def live(page: Any, url: str) -> None:
    """Open a table and wait until its socket has drawn it again (what a person then reads)."""
    page.goto(url)
    page.wait_for_selector("html[data-live]", state="attached")


def finished(game: str, users: list[Any], seed: int = 3) -> Any:
    """A match of these two played to its end through the services with random legal moves."""
    import playing

    from games.engines import get_engine
    from games.models import Match
    from games.play.create import SeatSpec, create_match

    match = create_match(creator=users[0], game=game, players=2, seats=[SeatSpec("open")],
                         options=OPTIONS.get(game, {}), seed=seed)
    playing.join(match_id=match.pk, user=users[1])
    engine, rng = get_engine(game), random.Random(seed)
    match = Match.objects.get(pk=match.pk)
    while match.status == Match.Status.ACTIVE:
        state = engine.load(match.state)
        seat = (engine.must_act(state) or engine.to_act(state))[0]
        match = playing.act(match_id=match.pk, user=users[seat], seat=seat,
                            action=rng.choice(engine.legal_actions(state, seat)), expected_version=match.version)
    return match


# A first choice on each table (what is pressed, then what shows that the table took it): the state where the
# most controls are drawn (targets, the turner, the pack builder, a peek's buttons).
CHOICE = {
    "gomori": ("#hand .card-button", "#board .cell-button"),
    "columbo": ("#hand .cb-do-peek", "#hand [aria-pressed=true]"),
    "ruhd": ("#hand .tile-button", "#hand .ruhd-turner"),
    "rummy": ("#hand .rm-hand-cards .card-button", "#hand .card-button.selected"),
}


@pytest.mark.parametrize("game", GAMES)
def test_a_table_mid_match_and_at_its_end_has_no_serious_violation(browser: Any, asgi_server: str,
                                                                    game: str) -> None:
    users = people(2)
    until = {"ruhd": lambda view: view.get("phase") == "place" and bool(view.get("hand")),
             "rummy": lambda view: view["phase"] != "draw"}.get(game)
    match = mid_game(game, users, moves=0 if game == "columbo" else 4, options=OPTIONS.get(game), until=until)
    end = finished(game, people(2, start=2))
    found: list[str] = []
    for size, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
        page = signed_in(browser, asgi_server, users[0], viewport)
        try:
            live(page, match.get_absolute_url())
            page.wait_for_selector("#status[data-your-turn]")
            found += audit(page, f"{game} mid-match ({size})")
            press, shows = CHOICE[game]
            page.locator(press).first.click()
            page.wait_for_selector(shows)
            found += audit(page, f"{game} mid-match, a choice made ({size})")
            page.goto(end.get_absolute_url())
            page.wait_for_selector("html[data-live]", state="attached")
            found += audit(page, f"{game} at its end, a spectator ({size})")
        finally:
            page.context.close()
    page = signed_in(browser, asgi_server, end.seats.get(index=0).user, DESKTOP)
    try:
        live(page, end.get_absolute_url())
        page.wait_for_selector("#status .outcome")
        found += audit(page, f"{game} at its end, a player")
    finally:
        page.context.close()
    assert not found, "\n".join(found)


def analysed(users: list[Any]) -> Any:
    """A rated Gomori match played to its end, analysed by the analysis worker (a tiny budget: seconds)."""
    from games.analysis import Budget
    from games.models import AnalysisJob
    from games.review.worker import Worker

    match = finished("gomori", users, seed=5)
    Worker(token="a11y", budget=Budget(candidates=2, screen=1, samples=2), say=lambda _: None).drain()
    assert AnalysisJob.objects.get(match=match).state == AnalysisJob.State.DONE
    return match


def test_every_other_page_a_person_uses_has_no_serious_violation(browser: Any, asgi_server: str) -> None:
    from django.utils import timezone

    from games.tournaments import services

    users = people(2)
    users[0].is_staff = True
    users[0].save(update_fields=["is_staff"])
    match = analysed(users)
    arena = services.create_tournament(creator=users[0], kind="arena", game="gomori", clock_key="5+3", minutes=30,
                                       starts_at=timezone.now() + timezone.timedelta(hours=1), table_size=2,
                                       name="Friday Arena")
    services.join(tournament_id=arena.pk, user=users[1])
    signed = {
        "the home page": "/", "the lobby": "/play/", "My games": "/games/", "the history": "/history/",
        "a replay": f"/m/{match.pk}/replay/", "a replay's analysis, at a marked move": f"/m/{match.pk}/replay/?move=9",
        "a profile": f"/u/{users[1].username}/", "the leaderboard": "/leaderboard/",
        "the tournaments": "/tournaments/", "a tournament": f"/tournaments/{arena.pk}/",
        "the settings": "/accounts/profile/", "the password's change": "/accounts/password_change/",
        "the rules": "/rules/", **{f"the rules of {game}": f"/rules/{game}/" for game in GAMES},
    }
    found: list[str] = []
    page = signed_in(browser, asgi_server, users[0], DESKTOP)
    try:
        for what, url in signed.items():
            response = page.goto(url)
            assert response is not None and response.ok, f"{what}: {url} answered {response and response.status}"
            if url.endswith("/replay/"):
                page.locator("#analysis").wait_for()
            found += audit(page, what)
            if SHOTS and url == "/play/":  # a create form open: its clock choice, labelled
                page.evaluate("() => { const form = document.getElementById('create-gomori'); form.open = true;"
                              " form.querySelector('.clock-choice').scrollIntoView(); }")
                page.screenshot(path=f"{SHOTS}/a11y-lobby-form.png")
    finally:
        page.context.close()
    context = browser.new_context(base_url=asgi_server, viewport=DESKTOP)
    try:
        page = context.new_page()
        for what, url in (("sign-up", "/accounts/signup/"), ("sign-in", "/accounts/login/")):
            page.goto(url)
            found += audit(page, what)
        # A form sent back with its errors, as a person who got it wrong reads it.
        page.get_by_label("Username").fill("nobody")
        page.get_by_label("Password").fill("not the password")
        page.get_by_role("button", name="Sign in").click()
        page.wait_for_selector(".form-errors, .errorlist")
        found += audit(page, "sign-in, with errors")
    finally:
        context.close()
    assert not found, "\n".join(found)


# ---------------------------------------------------------------------------------------------
# The live region

# Every text #announce is given, in order (a MutationObserver: nothing is missed between two reads).
RECORD = """() => {
  window.said = [];
  const region = document.getElementById('announce');
  new MutationObserver(() => { if (region.textContent.trim()) window.said.push(
      Array.from(region.querySelectorAll('p'), p => p.textContent.trim())); })
    .observe(region, {childList: true, subtree: true, characterData: true});
}"""


def said(page: Any) -> list[list[str]]:
    return page.evaluate("window.said")


def log_lines(page: Any) -> list[str]:
    """The log's entries, oldest first."""
    return page.evaluate("Array.from(document.querySelectorAll('#log-entries li'), li => li.textContent.trim())"
                         ".reverse()")


def play_a_turn_by_clicks(tab: Any) -> None:
    """A Gomori turn by clicks: the first card, the first cell, until the turn passes (a stacked card plays on)."""
    while tab.locator("#status[data-your-turn]").count():
        entries = tab.locator("#log-entries li").count()
        tab.locator("#hand .card-button").first.click()
        tab.locator("#board .cell-button").first.click()
        if tab.locator("#board .king-target").count():
            tab.locator("#board .king-target .cell-button").first.click()
        tab.wait_for_function("n => document.querySelectorAll('#log-entries li').length > n", arg=entries)
        tab.wait_for_timeout(150)


def test_the_live_region_says_each_move_in_the_log_s_words_the_turn_and_the_end(browser: Any,
                                                                                   asgi_server: str) -> None:
    users = people(2)
    match = mid_game("gomori", users, moves=2)
    alice = signed_in(browser, asgi_server, users[0], DESKTOP)
    bob = signed_in(browser, asgi_server, users[1], DESKTOP)
    try:
        for tab in (alice, bob):
            live(tab, match.get_absolute_url())
            tab.evaluate(RECORD)
        alice.wait_for_selector("#status[data-your-turn]")
        region = alice.locator("#announce")
        assert region.get_attribute("aria-live") == "polite" and region.get_attribute("role") == "status"
        # Nothing is said for the page that opened, nor for a choice made on it (no change of the match).
        alice.locator("#hand .card-button").first.click()
        alice.wait_for_selector("#board .cell-button")
        alice.locator("#gomori-cancel").click()
        alice.wait_for_selector("#board .cell-button", state="detached")
        alice.wait_for_timeout(300)
        assert said(alice) == []
        opened = len(log_lines(alice))

        # Alice's own plays are said as the log says them.
        play_a_turn_by_clicks(alice)
        bob.wait_for_selector("#status[data-your-turn]")
        mine = log_lines(alice)[opened:]
        alice.wait_for_function("n => window.said.flat().length >= n", arg=len(mine))
        assert [line for told in said(alice) for line in told] == mine
        assert all(line.startswith("You ") for line in mine), mine

        # Bob's plays: each is said to Alice in the log's words ("Player 2 played the 7♥ on the 8♥…"), then her
        # turn, once, with what to do.
        told_before = len(said(alice))
        play_a_turn_by_clicks(bob)
        alice.wait_for_selector("#status[data-your-turn]")
        alice.wait_for_function("() => window.said.flat().some(line => line.startsWith('Your turn.'))")
        alice.wait_for_timeout(200)
        his = log_lines(alice)[opened + len(mine):]
        lines = [line for told in said(alice)[told_before:] for line in told]
        assert lines == [*his, "Your turn. Choose a card, then a highlighted cell."], lines
        assert his and all(line.startswith("Player 2 ") for line in his), his
        assert lines[-2] == alice.locator("#log-entries li").first.inner_text()
        # The same change told Bob his own lines and nothing of a turn (it is no longer his).
        bob_lines = [line for told in said(bob) for line in told]
        assert [line for line in bob_lines if line.startswith("Your turn")] == ["Your turn. Choose a card, then a "
                                                                               "highlighted cell."]

        # The end: Bob resigns; Alice is told the result as the result box says it, and the final scores.
        told_before = len(said(alice))
        resign_by_clicks(bob)
        alice.wait_for_selector("#status .outcome")
        alice.wait_for_function("n => window.said.length > n", arg=told_before)
        alice.wait_for_timeout(300)
        assert len(said(alice)) == told_before + 1, said(alice)[told_before:]
        outcome, scores = said(alice)[-1]
        assert outcome == alice.locator("#status .outcome").inner_text()
        assert scores.split() == alice.locator("#status .final-scores").inner_text().split()
    finally:
        alice.context.close()
        bob.context.close()


# ---------------------------------------------------------------------------------------------
# Whole matches with the keyboard alone

# Where the focus is, for a control (a CSS selector, and words it must hold): on it ("here"), in the same roving
# group (a hand, a board: one Tab stop whose arrow keys move within it), or elsewhere.
WHERE = """([css, words]) => {
  const fits = e => e && e.matches && e.matches(css) && (!words || e.textContent.includes(words));
  const a = document.activeElement;
  if (fits(a)) return 'here';
  const box = a && a.closest && a.closest('[data-roving]');
  return box && Array.from(box.querySelectorAll('[data-key]')).some(fits) ? 'inside' : 'away';
}"""
FOCUS_ID = "() => { const a = document.activeElement; return a === document.body ? 'BODY' : (a.id || a.outerHTML); }"


def reach(page: Any, css: str, words: str = "") -> None:
    """Move the focus to the control as a keyboard user does: Tab from group to group, the arrow keys within a
    hand or a board."""
    for _ in range(150):
        where = page.evaluate(WHERE, [css, words])
        if where == "here":
            return
        page.keyboard.press("ArrowRight" if where == "inside" else "Tab")
    raise AssertionError(f"the keyboard never reached {css} {words!r}: the focus is on {page.evaluate(FOCUS_ID)}")


def present(page: Any, css: str, words: str = "") -> bool:
    return bool(page.evaluate("([css, words]) => Array.from(document.querySelectorAll(css))"
                              ".some(e => !words || e.textContent.includes(words))", [css, words]))


def gomori_step(page: Any, turns: int) -> tuple[str, str] | None:
    if present(page, "#board .king-target .cell-button"):
        return "#board .king-target .cell-button", ""
    if present(page, "#hand .card-button.selected") and present(page, "#board .cell-button"):
        return "#board .cell-button", ""
    return ("#hand .card-button", "") if present(page, "#hand .card-button") else None


def ruhd_step(page: Any, turns: int) -> tuple[str, str] | None:
    for css in ("#board .ruhd-cell.coverable .cell-button", "#board .ruhd-cell.target .cell-button",
                "#hand .tile-button"):
        if present(page, css):
            return css, ""
    return None


def rummy_step(page: Any, turns: int) -> tuple[str, str] | None:
    for css in ("#rm-stock", "#rm-discard", "#hand .rm-hand-cards .card-button"):
        if present(page, css):
            return css, ""
    return None


def columbo_step(page: Any, turns: int) -> tuple[str, str] | None:
    if present(page, "#hand .cb-do-peek"):  # the two cards to remember: the first, then the one beside it
        pressed = present(page, "#hand .cb-do-peek[aria-pressed=true]")
        return ("#hand .cb-do-peek[aria-pressed=false]" if pressed else "#hand .cb-do-peek"), ""
    for css, words in (("#board .cb-action-buttons button", "Skip"), ("#board .cb-buttons button", "Discard")):
        if present(page, css, words):
            return css, words
    if turns >= 3 and present(page, "#board .cb-buttons .cb-tap"):  # the third turn ends the round
        return "#board .cb-buttons .cb-tap", ""
    if present(page, "#board .cb-pile-button[aria-label='Draw from the stock']"):
        return "#board .cb-pile-button[aria-label='Draw from the stock']", ""
    return None


STEPS = {"gomori": gomori_step, "columbo": columbo_step, "ruhd": ruhd_step, "rummy": rummy_step}
# The control that starts a turn of one's own (turns are counted: Columbo's third one taps).
TURN_START = {"gomori": "#hand .card-button", "columbo": "Draw from the stock", "ruhd": "#hand .tile-button",
              "rummy": "#rm-stock"}


@pytest.mark.parametrize("game", GAMES)
def test_a_whole_match_against_a_bot_with_the_keyboard_alone(browser: Any, asgi_server: str, game: str) -> None:
    """From the deal to the result, every choice made by Tab, the arrow keys and Enter (no click, no script
    choosing for the person): each control reached as a keyboard user reaches it. The pages along the way (each
    kind of step met for the first time) are audited too, and the focus is never lost to the page's body."""
    from games.models import Match
    from games.play.create import SeatSpec, create_match

    user = people(1)[0]
    match = create_match(creator=user, game=game, players=2, seats=[SeatSpec("bot", "reference")],
                         options=OPTIONS.get(game, {}), seed=7)
    page = signed_in(browser, asgi_server, user, DESKTOP)
    try:
        live(page, match.get_absolute_url())
        page.evaluate("() => { window.messages = 0;"
                      " document.addEventListener('htmx:wsAfterMessage', () => { window.messages += 1; }); }")
        found: list[str] = []
        audited: set[str] = set()
        turns = presses = 0
        step_of = STEPS[game]
        while True:
            page.wait_for_function("() => document.querySelector('#status[data-your-turn], #status .outcome')",
                                   timeout=60_000)
            if page.locator("#status .outcome").count():
                break
            step = step_of(page, turns)
            if step is None:  # the turn is the bot's in a moment, or a window is open that the person lets pass
                page.wait_for_timeout(100)
                continue
            css, words = step
            if css not in audited:
                audited.add(css)
                found += audit(page, f"{game}, before pressing {css} {words}".strip())
            if TURN_START[game] in css:
                turns += 1
            heard = page.evaluate("window.messages")
            reach(page, css, words)
            if SHOTS and presses == 3:
                shoot(page, f"{game}-desktop")
            page.keyboard.press("Enter")
            page.wait_for_function("n => window.messages > n", arg=heard)
            page.wait_for_timeout(60)
            assert page.evaluate(FOCUS_ID) != "BODY", f"{game}: the focus was lost after {css}"
            presses += 1
            assert presses < 600, f"{game}: the match did not end"
        # The end (the person's move or the bot's): the focus stays on the table, or else goes to the result.
        page.wait_for_timeout(300)
        assert page.evaluate(FOCUS_ID) != "BODY", f"{game}: the focus was lost at the end"
        match.refresh_from_db()
        assert match.status == Match.Status.FINISHED
        assert turns >= 2 and presses >= 4, (turns, presses)
        found += audit(page, f"{game}, at its end")
        assert not found, "\n".join(found)
    finally:
        page.context.close()


def shoot(page: Any, name: str) -> None:
    """The page as it is, the focused control in view with its ring, at this size and at a phone's."""
    page.evaluate("() => document.activeElement.scrollIntoView({block: 'center'})")
    page.screenshot(path=f"{SHOTS}/a11y-{name}.png")
    size = page.viewport_size
    page.set_viewport_size(PHONE)
    page.wait_for_timeout(150)
    page.evaluate("() => document.activeElement.scrollIntoView({block: 'center'})")
    page.screenshot(path=f"{SHOTS}/a11y-{name.replace('desktop', 'phone')}.png")
    page.set_viewport_size(size)
