"""In real browsers, every "no" of a challenge is told (games.challenges): Bob declines on his page and Alice's open
lobby says so live, her "Waiting for Bob to accept…" gone, and again after a reload; a challenge past its time is
expired by the server's runner (not by a page's timer) and said on Alice's open page live and after a reload.
SHOTS=<folder> saves desktop and phone screenshots of Alice's page with the outcomes as challenge-*.png."""

from __future__ import annotations

import os
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from steps import page_problems
from tables import DESKTOP, PHONE, signed_in

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


SHOTS = os.environ.get("SHOTS", "")


def shoot(tab: Any, name: str) -> None:
    if not SHOTS:
        return
    Path(SHOTS).mkdir(parents=True, exist_ok=True)
    for label, size in (("desktop", DESKTOP), ("phone", PHONE)):
        before = tab.viewport_size
        tab.set_viewport_size(size)
        tab.wait_for_timeout(150)
        tab.screenshot(path=f"{SHOTS}/challenge-{name}-{label}.png")
        tab.set_viewport_size(before)


def person(username: str, name: str) -> Any:
    from django.contrib.auth import get_user_model

    return get_user_model().objects.create_user(username=username, password="x", display_name=name)


def challenge_bob_from_his_profile(a: Any, game: str) -> None:
    a.goto("/u/bob/")
    a.locator("#challenge-game").select_option(game)
    a.get_by_role("button", name="Challenge").click()
    a.wait_for_url("**/play/")


def test_a_decline_and_an_expiry_are_said_on_the_challenger_s_open_page(browser: Any, asgi_server: str) -> None:
    from django.utils import timezone

    from games.models import Challenge

    alice, bob = person("alice", "Alice"), person("bob", "Bob")
    a, b = signed_in(browser, asgi_server, alice, DESKTOP), signed_in(browser, asgi_server, bob, DESKTOP)
    problems = page_problems(a, b)
    b.goto("/history/")
    challenge_bob_from_his_profile(a, "ruhd")
    waiting = a.locator("#lobby-challenges").get_by_text("Waiting for Bob to accept…")
    waiting.wait_for()
    assert a.locator(".messages").count() == 0  # no flash to go stale beside it

    notice = b.locator(".challenge-notice")
    notice.wait_for()
    notice.get_by_role("button", name="Decline").click()
    notice.wait_for(state="detached")
    said = a.locator(".challenge-outcome", has_text="Bob declined your challenge (Ruhd, No clock).")
    said.wait_for()  # live, on Alice's open lobby
    waiting.wait_for(state="detached")
    assert b.locator(".challenge-outcome").count() == 0  # Bob's own answer is not said back to him
    a.reload()
    said.wait_for()
    assert a.locator("#lobby-challenges").get_by_text("Waiting for Bob").count() == 0

    # Expiry: the challenge's time moved to the past; the server's runner closes it within its sweep, and the
    # open lobby, which has no timer of its own, is told.
    challenge_bob_from_his_profile(a, "gomori")
    waiting.wait_for()
    assert a.locator(".challenge-outcome").count() == 0  # the new challenge replaces the old "no"
    made = Challenge.objects.get(status="open")
    Challenge.objects.filter(pk=made.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    expired = a.locator(".challenge-outcome", has_text="Your challenge to Bob (Gomori, No clock) expired.")
    expired.wait_for(timeout=15_000)
    waiting.wait_for(state="detached")
    made.refresh_from_db()
    assert made.status == "expired" and made.closed_at is not None  # decided by the server, not the page
    b.locator(".challenge-outcome", has_text="Alice's challenge to you (Gomori, No clock) expired.").wait_for()
    a.reload()
    expired.wait_for()
    shoot(a, "outcomes")
    assert problems == []
    for tab in (a, b):
        tab.context.close()
