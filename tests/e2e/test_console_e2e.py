"""The console stays clean: through the site's main flows, as a person clicks through them, no page logs an error
(a script's, a resource that failed, a Content Security Policy refusal) nor throws one. The flows: sign-up, the
lobby, a table mid-match and at its end (resigned by clicks), the replay while its analysis runs (the progress
drawn over the notification socket by a real `manage.py run_analysis`) and after, the history, a profile, the
leaderboard, the tournaments, My games; on a desktop and on a phone. An element a script restyled (RESTYLE) and that
a fragment then replaces is no exception."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from steps import resign_by_clicks, sign_up
from tables import DESKTOP, PHONE, mid_game, people, signed_in
from test_analysis_e2e import start_worker, unrated_finished_match

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def listen(tab: Any, heard: list[str]) -> Any:
    """Every console error and warning of a CSP refusal, and every uncaught error, of this tab, with its page."""
    def console(message: Any) -> None:
        if message.type == "error" or "Content Security Policy" in message.text:
            heard.append(f"{tab.url}: {message.type}: {message.text}")
    tab.on("console", console)
    tab.on("pageerror", lambda error: heard.append(f"{tab.url}: pageerror: {error}"))
    return tab


# A style set by a script through the CSSOM, which the policy allows (a browser extension, a reader mode, or the
# site's own scripts one day), shows as a style attribute; htmx's settling once copied it onto the element that
# replaces it with setAttribute, which the policy refuses: "Applying inline style violates ... style-src 'self'".
RESTYLE = "ids => ids.forEach(id => { const e = document.getElementById(id); if (e) e.style.outline = '1px solid'; })"


def settled(tab: Any) -> None:
    """The page has loaded, its sockets have opened and what they send first is drawn."""
    tab.wait_for_load_state("load")
    tab.wait_for_timeout(600)


@pytest.mark.parametrize("screen", ["desktop", "phone"])
def test_the_main_flows_log_nothing_to_the_console(browser: Any, asgi_server: str, tmp_path: Path,
                                                   screen: str) -> None:
    size = DESKTOP if screen == "desktop" else PHONE
    heard: list[str] = []
    # Sign-up, as a visitor: the form, then the lobby it opens.
    context = browser.new_context(base_url=asgi_server, viewport=size)
    visitor = listen(context.new_page(), heard)
    sign_up(visitor, "newcomer", "Newcomer")
    settled(visitor)
    context.close()

    users = people(2)
    match = mid_game("gomori", users, moves=6)
    finished = unrated_finished_match()
    page = listen(signed_in(browser, asgi_server, users[0], size), heard)
    try:
        for path in ("/play/", "/history/", f"/u/{users[0].username}/", "/leaderboard/", "/tournaments/", "/games/",
                     f"/u/{users[0].username}/history/"):
            page.goto(path)
            settled(page)
        # A table mid-match, then its end.
        page.goto(match.get_absolute_url())
        page.wait_for_selector("html[data-live]", state="attached")
        settled(page)
        page.evaluate(RESTYLE, ["status", "board", "hand", "players"])
        resign_by_clicks(page)
        page.wait_for_selector("#status .outcome")
        settled(page)
        # The replay: "Analyse", the progress while a worker runs, then the analysis itself.
        page.goto(f"/m/{finished.pk}/replay/")
        page.get_by_role("button", name="Analyse").click()
        page.locator("#analysis-bar").wait_for()
        page.evaluate(RESTYLE, ["analysis", "analysis-bar"])
        worker = start_worker(tmp_path / "worker.log")
        try:
            page.wait_for_function(
                "() => { const b = document.getElementById('analysis-bar'); return b && b.value > 0; }",
                timeout=30_000)
            page.locator(".analysis-seats").wait_for(timeout=60_000)
        finally:
            worker.terminate()
            worker.wait(timeout=20)
        page.locator(".analysis-mark a.analysis-step").first.click()
        page.locator(".replay-status .analysis-here").wait_for()
        page.keyboard.press("ArrowRight")
        settled(page)
        page.goto(f"/m/{match.pk}/replay/?seat=0")
        settled(page)
    finally:
        page.context.close()
    assert heard == []
