"""In a correspondence match (days a move) an absent player is the normal case: nobody may claim the win or hand
their seat to a bot, and the table shows no "away" and no claim; only the clock ends the match. The same setup
with a real-time clock (a turn limit) still may be claimed, which shows the tests tell the two apart."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import playing
import pytest
from django.utils import timezone
from openings import opened_on_turn

from games.models import Match, Presence, Seat
from games.play.clock import clock_spec
from games.play.create import SeatSpec, create_match
from games.play.display import render_fragment, table_context
from games.play.meta import table_meta
from games.play.presence import presence_of, presence_open
from games.play.snapshot import ServiceError, engine_of, state_of
from games.play.store import load

pytestmark = pytest.mark.django_db

REAL_TIME = clock_spec("turn", turn_seconds=3600)  # long enough that the clock is not what ends it here
CORRESPONDENCE = clock_spec("days", days=3)


def alice_gone_on_her_turn(alice: Any, bob: Any, clock: dict[str, Any]) -> Match:
    """Everyone has moved; the game waits on Alice (seat 0), away ten minutes; Bob's page is open."""
    match = create_match(creator=alice, game="gomori", players=2, seats=[SeatSpec("open")], clock=clock, seed=7)
    playing.join(match_id=match.pk, user=bob)
    match = opened_on_turn(match, 0)
    past = timezone.now() - timedelta(minutes=10)
    Presence.objects.filter(match=match, seat=0).delete()
    Seat.objects.filter(match=match, index=0).update(last_seen=past)
    Match.objects.filter(pk=match.pk).update(started_at=past, turn_started_at=past)
    presence_open(match_id=match.pk, seat=1, socket="test-bob")
    return Match.objects.get(pk=match.pk)


def fragment(match: Match, name: str, seat: int) -> str:
    snap = load(match.pk)
    assert snap is not None
    meta = table_meta(snap, presence_of(match.pk))
    view = engine_of(snap).view(state_of(snap), seat)
    return render_fragment(name, table_context(meta, view, seat, {}))


def words(html: str) -> str:
    return " ".join(re.sub(r"<[^>]*>", " ", html).split())


def test_a_real_time_match_of_the_same_setup_may_be_claimed(alice: Any, bob: Any) -> None:
    match = alice_gone_on_her_turn(alice, bob, REAL_TIME)
    snap = load(match.pk)
    assert snap is not None and table_meta(snap, presence_of(match.pk)).players[0].claim_at is not None
    assert "Claim the win" in fragment(match, "status", 1)
    assert 'badge-away">away' in fragment(match, "players", 1)
    match = playing.claim(match_id=match.pk, user=bob, absent_seat=0)
    assert (match.status, match.result["reason"], match.result["loser"]) == ("finished", "abandon", 0)


def test_a_real_time_seat_may_be_handed_to_a_bot(alice: Any, bob: Any) -> None:
    match = alice_gone_on_her_turn(alice, bob, REAL_TIME)
    match = playing.claim(match_id=match.pk, user=bob, absent_seat=0, take_over_with_bot=True)
    assert match.seats.get(index=0).substitute is not None


def test_nobody_claims_an_absent_player_of_a_correspondence_match(alice: Any, bob: Any) -> None:
    match = alice_gone_on_her_turn(alice, bob, CORRESPONDENCE)
    for bot in (False, True):
        with pytest.raises(ServiceError, match="A correspondence match is never claimed"):
            playing.claim(match_id=match.pk, user=bob, absent_seat=0, take_over_with_bot=bot)
    match = Match.objects.get(pk=match.pk)
    assert match.status == Match.Status.ACTIVE and match.handovers == []
    assert match.seats.get(index=0).substitute is None


def test_the_table_shows_no_away_and_no_claim_in_a_correspondence_match(alice: Any, bob: Any) -> None:
    match = alice_gone_on_her_turn(alice, bob, CORRESPONDENCE)
    snap = load(match.pk)
    assert snap is not None
    assert all(p.claim_at is None for p in table_meta(snap, presence_of(match.pk)).players)
    status = words(fragment(match, "status", 1))
    assert "Claim" not in status and "claim" not in status and "has left the table" not in status
    assert "away" not in fragment(match, "players", 1)
