"""No write of a match row passes beside the version fence: the administrator's privacy switch is a change of its
own (a new version, told to the live copies), and a rebuild of the ratings writes a result box only on the version
it read. Each raced by another change: the stale one is refused, and nothing written is lost."""

from __future__ import annotations

import datetime as dt
from typing import Any

import orjson
import pytest
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.utils import timezone
from factories import finished_match

from games import moderation
from games.engines import get_engine
from games.models import FinishedMatch, Match, Move
from games.play import create
from games.play.create import set_public
from games.play.decide import decide_move
from games.play.news import match_group
from games.play.snapshot import state_of
from games.play.store import commit, fenced_update, load
from games.ratings import rebuild

pytestmark = pytest.mark.django_db

ENGINE = get_engine("gomori")


def first_move(match_id: int, user: Any) -> Any:
    """Alice's first legal move, decided on the match as it is now (not yet written)."""
    snap = load(match_id)
    assert snap is not None
    state = state_of(snap)
    return decide_move(snap, state, seat=0, action=ENGINE.legal_actions(state, 0)[0], user_id=user.pk)


# ---------------------------------------------------------------------------------------------
# The privacy switch


def test_the_privacy_switch_is_a_change_told_to_the_live_copies(
    gomori_match: Match, django_capture_on_commit_callbacks: Any
) -> None:
    layer = get_channel_layer()
    channel = async_to_sync(layer.new_channel)()
    async_to_sync(layer.group_add)(match_group(gomori_match.pk), channel)
    with django_capture_on_commit_callbacks(execute=True):
        set_public(match_id=gomori_match.pk, is_public=False)
    stored = Match.objects.get(pk=gomori_match.pk)
    assert stored.is_public is False and stored.version == gomori_match.version + 1
    told = async_to_sync(layer.receive)(channel)
    assert told["type"] == "match.changed" and told["version"] == stored.version
    assert orjson.loads(told["data"])["is_public"] is False
    # Switched to what it is already: nothing to write, no new version.
    set_public(match_id=gomori_match.pk, is_public=False)
    assert Match.objects.get(pk=gomori_match.pk).version == stored.version


def test_a_move_decided_before_the_privacy_switch_is_refused_then_lands(gomori_match: Match, alice: Any) -> None:
    stale = first_move(gomori_match.pk, alice)
    set_public(match_id=gomori_match.pk, is_public=False)
    commit([stale])
    assert stale.written is False  # decided on the version before the switch
    assert Move.objects.filter(match=gomori_match).count() == 0
    again = first_move(gomori_match.pk, alice)
    commit([again])
    assert again.written is True
    stored = Match.objects.get(pk=gomori_match.pk)
    assert (stored.is_public, stored.move_count, stored.version) == (False, 1, gomori_match.version + 2)


def test_a_privacy_switch_decided_before_a_move_is_decided_again(
    monkeypatch: pytest.MonkeyPatch, gomori_match: Match, alice: Any
) -> None:
    decide = create.decide_public
    moved: list[bool] = []

    def raced(snap: Any, state: Any, **kw: Any) -> Any:
        if not moved:  # the move is written between the switch's read and its write
            move = first_move(snap.id, alice)
            commit([move])
            moved.append(bool(move.written))
        return decide(snap, state, **kw)

    monkeypatch.setattr(create, "decide_public", raced)
    set_public(match_id=gomori_match.pk, is_public=False)
    stored = Match.objects.get(pk=gomori_match.pk)
    assert moved == [True]
    assert (stored.is_public, stored.move_count, stored.version) == (False, 1, gomori_match.version + 2)
    assert Move.objects.filter(match=gomori_match).count() == 1


def test_the_history_copies_follow_the_switch(alice: Any, bob: Any) -> None:
    match = finished_match([alice, bob], 0, timezone.now())
    set_public(match_id=match.pk, is_public=False)
    assert FinishedMatch.objects.get(match=match).is_public is False
    assert Match.objects.get(pk=match.pk).version == match.version + 1


# ---------------------------------------------------------------------------------------------
# A rebuild's result boxes

def test_the_fence_refuses_a_stale_version(alice: Any, bob: Any) -> None:
    match = finished_match([alice, bob], 0, timezone.now())
    assert not fenced_update(match.pk, match.version - 1, result={"stale": True})
    assert Match.objects.get(pk=match.pk).result == match.result
    assert fenced_update(match.pk, match.version, result={**match.result, "fresh": True})
    stored = Match.objects.get(pk=match.pk)
    assert stored.version == match.version + 1 and stored.result["fresh"] is True


def test_a_rebuild_racing_a_change_lays_its_box_on_what_that_change_wrote(
    monkeypatch: pytest.MonkeyPatch, alice: Any, bob: Any, carol: Any
) -> None:
    start = timezone.now() - dt.timedelta(hours=1)
    annulled = finished_match([bob, carol], 0, start)
    last = finished_match([carol, alice], 1, start + dt.timedelta(minutes=10))
    real = rebuild.fenced_update
    raced: list[int] = []

    def racing(match_id: int, version: int, **values: Any) -> bool:
        if match_id == last.pk and not raced:
            # Another change of the match is written between the rebuild's read and its write (here the match's
            # own annulment, through the fence): the box decided on the version before must not undo it.
            row = Match.objects.get(pk=match_id)
            assert real(match_id, row.version, result={**row.result, "annulled": True})
            raced.append(version)
        return real(match_id, version, **values)

    monkeypatch.setattr(rebuild, "fenced_update", racing)
    moderation.annul_result(annulled.pk)
    stored = Match.objects.get(pk=last.pk)
    assert raced == [last.version]
    assert stored.version == last.version + 2  # the racing change's, then the box's
    assert stored.result["annulled"] is True  # not lost
    carol_seat = next(change for change in stored.result["ratings"] if change["seat"] == 0)
    assert carol_seat["before"] == 1500  # and the box counted without the annulled match
