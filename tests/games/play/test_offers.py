"""Nothing offers what cannot happen: no rematch on an annulled or aborted match (and the decider refuses one)."""

from __future__ import annotations

from typing import Any

import playing
import pytest

from games.engines import get_engine
from games.models import Match
from games.moderation import annul_result
from games.play.display import render_fragment, table_context
from games.play.meta import table_meta
from games.play.presence import presence_of
from games.play.snapshot import ServiceError, engine_of, state_of
from games.play.store import load

pytestmark = pytest.mark.django_db


def status_for(match: Match, seat: int) -> str:
    snap = load(match.pk)
    assert snap is not None
    meta = table_meta(snap, presence_of(match.pk))
    view = engine_of(snap).view(state_of(snap), seat) if snap.state is not None else None
    return render_fragment("status", table_context(meta, view, seat, {}))


def finished_by_resignation(match: Match, users: dict[int, Any]) -> Match:
    """Each player moves once, then seat 0 resigns: a finished match that counts."""
    engine = get_engine(match.game)
    moved: set[int] = set()
    while moved != {0, 1}:
        match = Match.objects.get(pk=match.pk)
        state = engine.load(match.state)
        (seat,) = engine.must_act(state)
        playing.act(match_id=match.pk, user=users[seat], seat=seat, action=engine.legal_actions(state, seat)[0],
                    expected_version=match.version)
        moved.add(seat)
    return playing.resign(match_id=match.pk, user=users[0])


def test_a_finished_match_offers_a_rematch(gomori_match: Match, alice: Any, bob: Any) -> None:
    match = finished_by_resignation(gomori_match, {0: alice, 1: bob})
    assert match.status == Match.Status.FINISHED
    assert "Offer a rematch" in status_for(match, 1)


def test_an_annulled_match_offers_no_rematch_and_refuses_one(gomori_match: Match, alice: Any, bob: Any) -> None:
    match = finished_by_resignation(gomori_match, {0: alice, 1: bob})
    annul_result(match.pk)
    status = status_for(match, 1)
    assert "annulled" in status
    assert '"op": "rematch"' not in status and "rematch" not in status.split('id="rematch"')[1].split("</div>")[0]
    with pytest.raises(ServiceError, match="annulled"):
        playing.rematch(match_id=match.pk, user=bob)


def test_an_annulled_match_hides_an_offer_made_before(gomori_match: Match, alice: Any, bob: Any) -> None:
    match = finished_by_resignation(gomori_match, {0: alice, 1: bob})
    playing.rematch(match_id=match.pk, user=alice)
    assert "offers a rematch" in status_for(match, 1)
    annul_result(match.pk)
    status = status_for(match, 1)
    assert "offers a rematch" not in status and '"op": "rematch"' not in status


def test_an_aborted_match_offers_no_rematch_and_refuses_one(gomori_match: Match, alice: Any, bob: Any) -> None:
    match = playing.abort(match_id=gomori_match.pk, user=alice)
    assert match.status == Match.Status.ABORTED
    for seat in (0, 1):
        assert '"op": "rematch"' not in status_for(match, seat)
    with pytest.raises(ServiceError, match="once the match is over"):
        playing.rematch(match_id=match.pk, user=bob)
