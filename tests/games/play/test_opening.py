"""The first seconds of a match: a player seated by a road they did not watch (quick pairing, a challenge, a
tournament) is not shown away, nor claimable, while their page opens; the opening's grace runs from the start."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import playing
import pytest
from django.utils import timezone

from games.models import Match, Seat
from games.play.create import create_table
from games.play.display import render_fragment, table_context
from games.play.meta import table_meta
from games.play.presence import presence_close, presence_of, presence_open
from games.play.snapshot import PRESENCE_OPENING_SECONDS, ServiceError, engine_of, state_of
from games.play.store import load

pytestmark = pytest.mark.django_db

CLOCK = {"kind": "turn", "seconds": 60}


def started_ago(match: Match, seconds: float) -> None:
    """The match started (and its first turn began) this long ago."""
    then = timezone.now() - timedelta(seconds=seconds)
    Match.objects.filter(pk=match.pk).update(started_at=then, turn_started_at=then)
    Seat.objects.filter(match=match).update(joined_at=then)


def status_for(match: Match, seat: int) -> str:
    """The status fragment as the player of `seat` sees it now."""
    snap = load(match.pk)
    assert snap is not None
    meta = table_meta(snap, presence_of(match.pk))
    view = engine_of(snap).view(state_of(snap), seat)
    return render_fragment("status", table_context(meta, view, seat, {}))


def players_for(match: Match, seat: int) -> str:
    snap = load(match.pk)
    assert snap is not None
    meta = table_meta(snap, presence_of(match.pk))
    view = engine_of(snap).view(state_of(snap), seat)
    return render_fragment("players", table_context(meta, view, seat, {}))


def words(html: str) -> str:
    """The text of an HTML fragment, as any reader of it gets it (hidden or not): its tags left out."""
    return " ".join(re.sub(r"<[^>]*>", " ", html).split())


def paired(alice: Any, bob: Any) -> tuple[Match, int, int]:
    """A clocked match dealt as quick pairing deals it, nobody's page open yet: (match, the seat to act, the
    other seat)."""
    match = create_table(game="gomori", people=[alice, bob], clock=CLOCK)
    snap = load(match.pk)
    assert snap is not None
    (to_act,) = engine_of(snap).must_act(state_of(snap))
    return match, to_act, 1 - to_act


def test_a_paired_player_is_not_away_while_their_page_opens(alice: Any, bob: Any) -> None:
    match, to_act, other = paired(alice, bob)
    snap = load(match.pk)
    assert snap is not None
    meta = table_meta(snap, presence_of(match.pk))
    assert all(p.present and p.claim_at is None for p in meta.players)
    assert "away" not in players_for(match, other)
    assert "has left the table" not in status_for(match, other)
    # The other player's page opens: the one still loading is not away for them either.
    presence_open(match_id=match.pk, seat=other, socket="test-other")
    players = players_for(match, other)
    assert "away" not in players and players.count("joining…") == 1  # the one on their way, said so
    assert "has left the table" not in status_for(match, other)
    # Nor can the opening be claimed.
    user = alice if snap.seats[other].user_id == alice.pk else bob
    with pytest.raises(ServiceError, match="may still come back"):
        playing.claim(match_id=match.pk, user=user, absent_seat=to_act)
    # Their page opens: present, and no longer joining.
    presence_open(match_id=match.pk, seat=to_act, socket="test-to-act")
    assert "joining" not in players_for(match, other)


def test_after_the_opening_grace_a_player_who_never_came_is_away(alice: Any, bob: Any) -> None:
    match, to_act, other = paired(alice, bob)
    presence_open(match_id=match.pk, seat=other, socket="test-other")
    started_ago(match, PRESENCE_OPENING_SECONDS + 1)
    assert 'badge-away">away' in players_for(match, other)
    status = status_for(match, other)
    assert "has left the table" in status
    # The wait to claim counts from the start, not from when the grace ended.
    snap = load(match.pk)
    assert snap is not None
    claim_at = table_meta(snap, presence_of(match.pk)).players[to_act].claim_at
    assert claim_at is not None
    start = Match.objects.get(pk=match.pk).started_at
    assert start is not None
    assert abs((claim_at - start).total_seconds() - 60) < 1


def test_a_player_who_opened_the_match_has_no_opening_grace(alice: Any, bob: Any) -> None:
    """The grace is for a page that has not opened yet: once a socket of theirs came and went, away is away."""
    match, to_act, _other = paired(alice, bob)
    presence_open(match_id=match.pk, seat=to_act, socket="test-to-act")
    presence_close(match_id=match.pk, seat=to_act, socket="test-to-act")
    assert not presence_of(match.pk)[to_act].is_present(timezone.now())


# ---------------------------------------------------------------------------------------------
# The claim's notice says one thing: the wait, or (at the deadline) that the claim is open


def test_the_claim_notice_says_the_wait_or_the_open_claim_never_both(alice: Any, bob: Any) -> None:
    match, _to_act, other = paired(alice, bob)
    presence_open(match_id=match.pk, seat=other, socket="test-other")
    started_ago(match, PRESENCE_OPENING_SECONDS + 10)  # away, 20 s of the wait left
    status = status_for(match, other)
    said = words(status)
    assert "You may claim the match in" in said and "claim the match now" not in said
    assert 'data-open="You may claim the match now."' in status  # the words site.js puts in its place at zero
    started_ago(match, 60)  # at the deadline: 0 s left
    status = status_for(match, other)
    said = words(status)
    assert "You may claim the match now." in said
    assert "claim the match in" not in said and "countdown" not in status
