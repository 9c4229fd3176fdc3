"""Every "no" is told (games.challenges): each road out of OPEN records when; the runner's sweep expires challenges
past their time and tells both; the other person's pages say a decline, a withdrawal, an expiry or a cancellation
live (the notification socket) and after a reload for ten minutes; withdraw_all cancels a person's challenges;
a person at a clocked board is refused a clocked challenge up front, with the gate's reason."""

from __future__ import annotations

import asyncio
import html
import re
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client
from django.utils import timezone
from factories import make_user

from config.asgi import application
from games.challenges import services as challenges
from games.challenges.queries import RECENT_MINUTES, challenges_of
from games.models import Board, Challenge, Match
from games.play import scheduler
from games.play.create import create_table
from games.play.snapshot import ServiceError
from games.pool.pools import clock_of

Headers = Callable[..., list[tuple[bytes, bytes]]]
LIVE = clock_of("live")  # 5 min + 3 s: a clocked match, so its players hold a board


def person(name: str, **fields: Any) -> Any:
    return make_user(name, display_name=name.title(), **fields)


def page_of(user: Any, url: str = "/history/") -> str:
    client = Client()
    client.force_login(user)
    return html.unescape(client.get(url).content.decode())  # "Alice's" is escaped in the page


def told(monkeypatch: pytest.MonkeyPatch) -> list[tuple[list[int], dict[int, str] | None]]:
    """The people services.changed tells (and the reasons it passes), instead of the channel layer."""
    calls: list[tuple[list[int], dict[int, str] | None]] = []
    monkeypatch.setattr(challenges, "changed",
                        lambda user_ids, *, reasons=None: calls.append((sorted(user_ids), reasons)))
    return calls


@pytest.mark.django_db
def test_every_road_out_of_open_records_when_it_closed() -> None:
    alice, bob, carol = person("alice"), person("bob"), person("carol")
    now = timezone.now()
    accepted = challenges.challenge(alice, bob, game="gomori", clock="none", now=now)
    challenges.accept(bob, accepted.pk, now=now + timedelta(seconds=1))
    declined = challenges.challenge(alice, bob, game="gomori", clock="none", now=now)
    challenges.decline(bob, declined.pk, now=now + timedelta(seconds=2))
    withdrawn = challenges.challenge(alice, bob, game="gomori", clock="none", now=now)
    challenges.withdraw(alice, withdrawn.pk, now=now + timedelta(seconds=3))
    replaced = challenges.challenge(alice, bob, game="gomori", clock="none", now=now)
    challenges.challenge(alice, bob, game="rummy", clock="none", now=now + timedelta(seconds=4))
    expired = challenges.challenge(carol, bob, game="gomori", clock="none", now=now)
    assert challenges.expire_due(now + timedelta(minutes=challenges.CHALLENGE_MINUTES)) == 1
    cancelled = challenges.challenge(carol, alice, game="gomori", clock="none", now=now)
    assert challenges.withdraw_all(alice, now=now + timedelta(seconds=6)) == 2  # carol's and alice's newest

    def closed(row: Challenge) -> tuple[str, Any]:
        row.refresh_from_db()
        return row.status, row.closed_at

    assert closed(accepted) == ("accepted", now + timedelta(seconds=1))
    assert closed(declined) == ("declined", now + timedelta(seconds=2))
    assert closed(withdrawn) == ("withdrawn", now + timedelta(seconds=3))
    assert closed(replaced) == ("withdrawn", now + timedelta(seconds=4))
    assert closed(expired) == ("expired", now + timedelta(minutes=challenges.CHALLENGE_MINUTES))
    assert closed(cancelled) == ("cancelled", now + timedelta(seconds=6))
    assert not Challenge.objects.filter(status="open").exists()


@pytest.mark.django_db
def test_the_sweep_expires_only_the_challenges_past_their_time_and_tells_both(
        monkeypatch: pytest.MonkeyPatch) -> None:
    alice, bob, carol = person("alice"), person("bob"), person("carol")
    now = timezone.now()
    due = challenges.challenge(alice, bob, game="gomori", clock="none", now=now - timedelta(minutes=6))
    fresh = challenges.challenge(carol, bob, game="gomori", clock="none", now=now)
    calls = told(monkeypatch)
    assert challenges.expire_due(now) == 1
    assert calls == [(sorted([alice.pk, bob.pk]), None)]
    assert Challenge.objects.get(pk=due.pk).status == "expired"
    assert Challenge.objects.get(pk=fresh.pk).status == "open"
    assert challenges.expire_due(now) == 0 and len(calls) == 1  # nothing left: nobody told twice
    with pytest.raises(ServiceError, match="expired already"):
        challenges.accept(bob, due.pk)


@pytest.mark.django_db(transaction=True)
async def test_the_server_s_runner_runs_the_expiry_sweep() -> None:
    alice, bob = await sync_to_async(person)("alice"), await sync_to_async(person)("bob")
    past = timezone.now() - timedelta(minutes=challenges.CHALLENGE_MINUTES + 1)
    made = await sync_to_async(challenges.challenge)(alice, bob, game="gomori", clock="none", now=past)
    assert (challenges.EXPIRY_SWEEP_SECONDS, challenges.expire_due) in scheduler.PERIODIC
    await scheduler.run_periodic({})
    assert (await Challenge.objects.aget(pk=made.pk)).status == "expired"


@pytest.mark.django_db
def test_a_no_is_said_to_the_other_after_a_reload_for_ten_minutes_and_an_acceptance_is_not() -> None:
    alice, bob, carol, dave = person("alice"), person("bob"), person("carol"), person("dave")
    declined = challenges.challenge(alice, bob, game="ruhd", clock="live")
    challenges.decline(bob, declined.pk)
    withdrawn = challenges.challenge(carol, bob, game="gomori", clock="none", rated=False)
    challenges.withdraw(carol, withdrawn.pk)
    accepted = challenges.challenge(dave, bob, game="gomori", clock="none")
    challenges.accept(bob, accepted.pk)

    alice_page, bob_page = page_of(alice), page_of(bob)
    assert "Bob declined your challenge (Ruhd, 5 min + 3 s)." in alice_page
    assert "declined" not in bob_page  # his own answer is not said back to him
    assert "Carol withdrew the challenge (Gomori, No clock, unrated)." in bob_page
    assert "withdrew" not in page_of(carol)
    assert "data-outcome" not in page_of(dave)  # accepted: no "no" for either
    assert "Bob declined" in page_of(alice, "/play/")  # the lobby reads them with its own list (one query)

    later = timezone.now() + timedelta(minutes=RECENT_MINUTES, seconds=1)
    assert challenges_of(alice).outcomes and not challenges_of(alice, later).outcomes
    Challenge.objects.update(closed_at=timezone.now() - timedelta(minutes=RECENT_MINUTES, seconds=1))
    assert "declined your challenge" not in page_of(alice)
    assert "withdrew" not in page_of(bob)


@pytest.mark.django_db
def test_an_expiry_is_said_to_both_even_before_the_sweep_and_a_newer_challenge_replaces_a_no() -> None:
    alice, bob = person("alice"), person("bob")
    past = timezone.now() - timedelta(minutes=challenges.CHALLENGE_MINUTES, seconds=5)
    made = challenges.challenge(alice, bob, game="gomori", clock="none", now=past)
    # Past its time, not yet swept: read as expired, as it will be (and Accept is no longer offered).
    assert "Your challenge to Bob (Gomori, No clock) expired." in page_of(alice)
    bob_page = page_of(bob)
    assert "Alice's challenge to you (Gomori, No clock) expired." in bob_page
    assert f"/challenges/{made.pk}/accept/" not in bob_page
    challenges.expire_due()
    assert "Your challenge to Bob (Gomori, No clock) expired." in page_of(alice)
    assert "Alice's challenge to you (Gomori, No clock) expired." in page_of(bob)

    # Asked again: the new challenge says where they stand, the old "no" is not said beside it; and the one it
    # replaced is not said as withdrawn.
    first = challenges.challenge(alice, bob, game="gomori", clock="none")
    challenges.challenge(alice, bob, game="rummy", clock="none")
    bob_page = page_of(bob)
    assert "expired" not in bob_page and "withdrew" not in bob_page and "Alice</a> challenges you" in bob_page
    assert Challenge.objects.get(pk=first.pk).status == "withdrawn"


@pytest.mark.django_db
def test_withdraw_all_cancels_a_person_s_open_challenges_both_ways_and_says_why(
        monkeypatch: pytest.MonkeyPatch) -> None:
    alice, bob, carol, dave = person("alice"), person("bob"), person("carol"), person("dave")
    sent = challenges.challenge(alice, bob, game="gomori", clock="none")
    received = challenges.challenge(carol, alice, game="rummy", clock="turn")
    others = challenges.challenge(dave, bob, game="gomori", clock="none")
    calls = told(monkeypatch)
    assert challenges.withdraw_all(alice) == 2
    reason = "Alice cannot play at the moment."
    assert calls == [(sorted([alice.pk, bob.pk, carol.pk]), {sent.pk: reason, received.pk: reason})]
    assert [Challenge.objects.get(pk=row.pk).status for row in (sent, received, others)] == [
        "cancelled", "cancelled", "open"]
    assert challenges.withdraw_all(alice) == 0

    # The suspension itself (another part's): after a reload the reason is told from the account's state.
    alice.is_active = False
    alice.save(update_fields=["is_active"])
    assert "Alice's challenge (Gomori, No clock) was cancelled: Alice cannot play at the moment." in page_of(bob)
    assert ("Your challenge to Alice (Rummy, 30 s a turn) was cancelled: Alice cannot play at the moment."
            in page_of(carol))
    assert "Dave</a> challenges you" in page_of(bob)


@pytest.mark.django_db
def test_a_person_at_a_clocked_board_is_refused_a_clocked_challenge_with_the_reason_and_it_stays_open() -> None:
    alice, bob, carol, dave, erin = (person(name) for name in ("alice", "bob", "carol", "dave", "erin"))
    create_table(game="gomori", people=[alice, carol], clock=LIVE)  # alice's board (and carol's)
    assert Board.objects.filter(user=alice).exists()
    playing = "You are playing in a match of Gomori: you can sit down again when that match ends."
    with pytest.raises(ServiceError, match=re.escape(playing)):
        challenges.challenge(alice, bob, game="rummy", clock="live")
    challenges.challenge(alice, bob, game="rummy", clock="none")  # no clock binds nobody

    # Accepting at a board: the reason, and the challenge waits for when they are free.
    waiting = challenges.challenge(bob, alice, game="gomori", clock="turn")
    with pytest.raises(ServiceError, match=re.escape(playing)):
        challenges.accept(alice, waiting.pk)
    client = Client()
    client.force_login(alice)
    answer = client.post(f"/challenges/{waiting.pk}/accept/", HTTP_HX_REQUEST="true").content.decode()
    assert 'class="challenge-outcome challenge-error"' in answer and playing in answer  # said at once
    assert Challenge.objects.get(pk=waiting.pk).status == "open"

    # The challenger sat down elsewhere since: named to the one accepting.
    later = challenges.challenge(dave, bob, game="gomori", clock="live")
    create_table(game="gomori", people=[dave, erin], clock=LIVE)
    busy = "Dave is playing in a match of Gomori: try again when that match ends."
    with pytest.raises(ServiceError, match=re.escape(busy)):
        challenges.accept(bob, later.pk)
    assert Challenge.objects.get(pk=later.pk).status == "open"
    assert Match.objects.count() == 2  # the two boards; no match from either challenge


@pytest.mark.django_db
def test_the_challenger_s_waiting_line_is_bound_to_the_open_challenge_not_a_flash() -> None:
    alice, bob = person("alice"), person("bob")
    client = Client()
    client.force_login(alice)
    lobby = client.post("/challenge/bob/", {"game": "gomori", "clock": "none"}, follow=True).content.decode()
    assert "Waiting for Bob to accept…" in lobby and "is challenged" not in lobby
    challenges.decline(bob, Challenge.objects.get().pk)
    lobby = client.get("/play/").content.decode()
    assert "Waiting for Bob to accept" not in lobby and "Bob declined your challenge" in lobby


async def said_within(socket: WebsocketCommunicator, text: str, seconds: float = 10) -> str:
    """The first frame the socket gets that says `text` (earlier frames are passed over)."""
    async with asyncio.timeout(seconds):
        while True:
            frame = html.unescape(await socket.receive_from(timeout=seconds))
            if text in frame:
                return frame


@pytest.mark.django_db(transaction=True)
async def test_the_challenger_s_open_page_is_told_the_decline_over_its_socket(ws_headers: Headers) -> None:
    alice, bob = await sync_to_async(person)("alice"), await sync_to_async(person)("bob")
    socket = WebsocketCommunicator(application, "/ws/notify/?lobby=1",
                                   headers=await sync_to_async(ws_headers)(alice))
    connected, _ = await socket.connect(timeout=5)
    assert connected
    made = await sync_to_async(challenges.challenge)(alice, bob, game="ruhd", clock="live")
    await said_within(socket, "Waiting for Bob to accept…")
    await sync_to_async(challenges.decline)(bob, made.pk)
    frame = await said_within(socket, "Bob declined your challenge (Ruhd, 5 min + 3 s).")
    assert 'id="challenge-notices"' in frame and "Waiting for Bob" not in frame  # the lobby's line redrawn too
    await socket.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_a_cancellation_is_said_live_with_its_reason(ws_headers: Headers) -> None:
    alice, bob = await sync_to_async(person)("alice"), await sync_to_async(person)("bob")
    socket = WebsocketCommunicator(application, "/ws/notify/", headers=await sync_to_async(ws_headers)(bob))
    connected, _ = await socket.connect(timeout=5)
    assert connected
    await sync_to_async(challenges.challenge)(alice, bob, game="gomori", clock="none")
    await said_within(socket, "Alice</a> challenges you")
    await sync_to_async(challenges.withdraw_all)(alice, reason="Alice's account is suspended.")
    await said_within(socket, "Alice's challenge (Gomori, No clock) was cancelled: Alice's account is suspended.")
    await socket.disconnect()
