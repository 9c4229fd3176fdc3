"""The analysis in a real browser: a finished match's replay, "Analyse", the progress bar moving over the
notification socket while a real `manage.py run_analysis` works (no reload, no polling by the page), then the
accuracy, the chart and the marks; a mark's step says the better move. Screenshots of the replay with its
analysis, desktop and phone, go to test-artifacts/e2e/."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import playing
import pytest
from servers import BASE_DIR, database_url
from tables import signed_in

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

ARTIFACTS = BASE_DIR / "test-artifacts" / "e2e"
BUDGET = "3,2,6"  # a few seconds for the match: the bar is seen moving, the marks come soon after


def unrated_finished_match() -> Any:
    """A Gomori match played to its end with random moves (plenty to mark), unrated: analysed on request only."""
    from factories import make_user

    from games.engines import get_engine
    from games.models import Match
    from games.play.create import SeatSpec, create_match

    alice, bob = make_user("alice", display_name="Alice"), make_user("bob", display_name="Bob")
    match = create_match(creator=alice, game="gomori", players=2, seats=[SeatSpec("open")], seed=5, rated=False)
    match = playing.join(match_id=match.pk, user=bob)
    engine, rng = get_engine("gomori"), random.Random(5)
    while match.status == Match.Status.ACTIVE:
        state = engine.load(match.state)
        seat = engine.to_act(state)[0]
        match = playing.act(match_id=match.pk, user=(alice, bob)[seat], seat=seat,
                            action=rng.choice(engine.legal_actions(state, seat)), expected_version=match.version)
    return match


def start_worker(log: Path) -> subprocess.Popen[bytes]:
    """`manage.py run_analysis` on the test database (and the server's Redis prefix, when there is Redis)."""
    from django.db import connection

    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", "PYTHONUNBUFFERED": "1",
           "DATABASE_URL": database_url(connection.settings_dict),
           "CHANNELS_REDIS_PREFIX": f"cardclub-e2e-{os.environ.get('PYTEST_XDIST_WORKER', 'main')}-{os.getpid()}"}
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    with log.open("ab") as output:
        return subprocess.Popen([sys.executable, "manage.py", "run_analysis", "--budget", BUDGET, "--poll", "0.2"],
                                cwd=BASE_DIR, env=env, stdout=output, stderr=subprocess.STDOUT)


def test_analyse_shows_the_progress_then_the_marks(browser: Any, asgi_server: str, tmp_path: Path) -> None:
    from factories import make_user

    match = unrated_finished_match()
    carol = make_user("carol", display_name="Carol")
    page = signed_in(browser, asgi_server, carol, {"width": 1280, "height": 900})
    problems: list[str] = []
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.goto(f"/m/{match.pk}/replay/")
    page.get_by_role("button", name="Analyse").click()
    bar = page.locator("#analysis-bar")
    bar.wait_for()
    assert "Waiting for the analysis worker" in page.locator("#analysis").inner_text()

    log = tmp_path / "worker.log"
    worker = start_worker(log)
    try:
        # The bar moves while the worker runs: part-way, seen without reloading the page.
        page.wait_for_function(
            "() => { const b = document.getElementById('analysis-bar'); return b && b.value > 0 && b.value < 100; }",
            timeout=30_000)
        assert "decisions" in page.locator("#analysis").inner_text()
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "analysis-progress.png"), full_page=True)  # the bar part-way
        page.locator(".analysis-seats").wait_for(timeout=60_000)
    finally:
        worker.terminate()
        worker.wait(timeout=20)
    section = page.locator("#analysis")
    assert section.locator(".analysis-accuracy").count() == 2
    assert section.locator("svg.analysis-chart").count() == 1
    marks = section.locator(".analysis-mark")
    assert marks.count() > 0, log.read_text()
    first = marks.first
    label = first.locator(".mark-badge").inner_text()
    assert any(word in label for word in ("Inaccuracy", "Mistake", "Blunder"))
    assert "Better:" in first.inner_text()

    # A mark's step: the replay goes there and its status line says the mark and the better move.
    first.locator("a.analysis-step").click()
    page.locator(".replay-status .analysis-here").wait_for()
    assert "Better:" in page.locator(".replay-status").inner_text()
    assert problems == []

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "analysis-desktop.png"), full_page=True)
    phone = signed_in(browser, asgi_server, carol, {"width": 390, "height": 844})
    phone.goto(page.url)
    phone.locator(".analysis-seats").wait_for()
    phone.screenshot(path=str(ARTIFACTS / "analysis-phone.png"), full_page=True)
    # Nothing sticks out sideways on the phone.
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    phone.context.close()
    page.context.close()
