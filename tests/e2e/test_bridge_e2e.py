"""Issue 39, point 4 in a real browser: a person makes a bot account and its token at /bots/, the Computer Gomori
bridge runs as a separate process with the tests' protocol bot behind it, the person challenges the bot from its
profile and plays the whole rated match by clicks; both are rated, and the bot's profile shows its record.
Screenshots of /bots/, /api/ and the bot's profile, desktop and phone, go to /tmp/shots-api/."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from steps import page_problems, sign_up
from test_gomori_e2e import GAME_SECONDS, finished, play_one

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

REPO = Path(__file__).resolve().parents[2]
SHOTS = Path("/tmp/shots-api")
SIZES = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}


def start_bridge(server: str, key: str, where: Path) -> tuple[subprocess.Popen[bytes], Path]:
    shutil.copy(REPO / "clients" / "computer_gomori_bridge.py", where / "computer_gomori_bridge.py")
    shutil.copy(REPO / "tests" / "games" / "gomori_protocol_bot.py", where / "my_bot.py")
    python = shutil.which("python3") or sys.executable
    log = where / "bridge.log"
    process = subprocess.Popen([python, "-I", "computer_gomori_bridge.py", "--server", server, "--token", key, "--",
                                python, "-I", "my_bot.py"], cwd=where, stdout=log.open("wb"), stderr=subprocess.STDOUT)
    return process, log


def stalled(page: Any, match: Any, plays: int, log: Path) -> str:
    """What a match that did not end within the time shows: the table, the record, the bridge's and server's logs."""
    import os

    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    server_log = REPO / "test-artifacts" / "e2e" / f"daphne-{worker}-{__name__}.log"
    page.screenshot(path=str(SHOTS / "bridge-stalled.png"), full_page=True)
    seats = list(match.moves.values_list("seat", flat=True))
    return (f"version {match.version}, waiting on {match.waiting_on}, moves by seat {seats}, the page's plays {plays}\n"
            f"status: {page.locator('#status').inner_text()!r}\nbridge:\n{log.read_text()[-3000:]}\n"
            f"server:\n{server_log.read_text()[-3000:] if server_log.exists() else '(none)'}")


def not_accepted(page: Any, log: Path) -> str:
    """What a challenge the bridge never accepted leaves: the challenges stored, the page, both logs."""
    import os

    from games.models import Challenge

    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    server_log = REPO / "test-artifacts" / "e2e" / f"daphne-{worker}-{__name__}.log"
    rows = list(Challenge.objects.values_list("pk", "status", "game"))
    return (f"challenges {rows}, page {page.url}\nbridge:\n{log.read_text()[-3000:]}\n"
            f"server:\n{server_log.read_text()[-3000:] if server_log.exists() else '(none)'}")


def shoot(browser: Any, server: str, state: Any, path: str, name: str) -> None:
    for size, viewport in SIZES.items():
        context = browser.new_context(base_url=server, viewport=viewport, storage_state=state)
        page = context.new_page()
        page.goto(path)
        page.screenshot(path=str(SHOTS / f"{name}-{size}.png"), full_page=True)
        context.close()


def test_a_person_plays_a_protocol_bot_through_the_bridge_to_the_end(
    browser: Any, asgi_server: str, tmp_path: Path
) -> None:
    from accounts.models import User
    from games.models import Match, PlayerStats

    SHOTS.mkdir(parents=True, exist_ok=True)
    context = browser.new_context(base_url=asgi_server, viewport=SIZES["desktop"])
    page = context.new_page()
    errors = page_problems(page)
    bridge = None
    try:
        sign_up(page, "gwen", "Gwen")
        # The bot and its token, made on /bots/ from the profile.
        page.goto("/u/gwen/")
        page.get_by_role("link", name="Your bots").click()
        page.wait_for_url("**/bots/")
        page.locator("#id_bot-username").fill("gomoribot")
        page.locator("#id_bot-display_name").fill("Gomori Engine")
        page.get_by_role("button", name="Make the bot").click()
        page.locator("#id_token-name").fill("bridge")
        page.get_by_role("button", name="Make the token").click()
        key = page.locator("#new-token").inner_text().strip()
        assert key.startswith("ccb_")
        page.screenshot(path=str(SHOTS / "bots-token-shown-once-desktop.png"), full_page=True)
        bridge, log = start_bridge(asgi_server, key, tmp_path)

        # The person challenges the bot from its profile; the bridge accepts and the page goes to the table.
        page.goto("/u/gomoribot/")
        assert page.locator(".badge-bot").count()
        page.locator("#challenge-game").select_option("gomori")
        page.locator("#challenge").get_by_role("button", name="Challenge").click()
        deadline = time.monotonic() + 60  # CI's PostgreSQL pass is a loaded machine: the program starts slowly there
        while not Match.objects.exists():
            assert time.monotonic() < deadline, f"the bridge did not accept: {not_accepted(page, log)}"
            time.sleep(0.1)
        match = Match.objects.get()
        # A program accepts within milliseconds, before the lobby this page went to had its socket open: the
        # lobby's socket, once open, sends the page on to the match all the same (games.notify.socket).
        page.wait_for_url("**/m/*/", timeout=10_000)
        page.wait_for_selector("#status")
        assert match.rated and {s.user.username for s in match.seats.all()} == {"gwen", "gomoribot"}
        assert page.locator("#players .badge-bot").count() == 1  # the table names the bot BOT

        deadline = time.monotonic() + GAME_SECONDS
        plays = 0
        while not finished(page) and time.monotonic() < deadline:
            if play_one(page):
                plays += 1
            else:
                page.wait_for_timeout(50)
        match.refresh_from_db()
        assert match.status == Match.Status.FINISHED, stalled(page, match, plays, log)
        bot = User.objects.get(username="gomoribot")
        bot_seat = match.seats.get(user=bot).index
        assert match.moves.filter(seat=bot_seat).exists() and plays > 0
        assert "random legal action" not in log.read_text()  # every bot move was the program's own answer
        deadline = time.monotonic() + 15
        while PlayerStats.objects.filter(game="gomori", rated_matches=1).count() < 2:
            assert time.monotonic() < deadline, "both players' ratings"
            time.sleep(0.1)
        page.screenshot(path=str(SHOTS / "table-vs-bot-end-desktop.png"), full_page=True)

        # The bot's profile shows its record and its owner.
        page.goto("/u/gomoribot/")
        profile = page.locator("main").inner_text()
        assert "Gwen" in profile and "Gomori" in profile
        state = context.storage_state()
        shoot(browser, asgi_server, state, "/bots/", "bots")
        shoot(browser, asgi_server, state, "/api/", "api")
        shoot(browser, asgi_server, state, "/u/gomoribot/", "bot-profile")
        assert not errors, errors
    finally:
        if bridge is not None:
            bridge.terminate()
            bridge.wait(timeout=10)
        context.close()
