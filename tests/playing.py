"""A match's changes from a test, one at a time: each is the deciders' own road from sync code
(games.play.sync.run_change, as the views and the admin's actions take it), returning the match as it is after.

Importable as `playing` from every test folder (pytest puts tests/ on sys.path for tests/conftest.py), like factories.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from django.db import transaction

from games.models import Match
from games.play import decide, seating
from games.play.bot_accounts import takeover_bot
from games.play.news import publish
from games.play.presence import presence_of
from games.play.snapshot import Player, Snapshot, state_of
from games.play.store import commit, load
from games.play.sync import run_change


def _fresh(match_id: int) -> Match:
    return Match.objects.get(pk=match_id)


def act(*, match_id: int, user: Any, seat: int, action: Any, expected_version: int | None = None) -> Match:
    """A person's action for their seat, checked by the engine against the current state."""
    run_change(match_id, decide.decide_move, seat=seat, action=action, user_id=user.pk,
               expected_version=expected_version)
    return _fresh(match_id)


def join(*, match_id: int, user: Any, invite_code: str | None = None, seat_index: int | None = None) -> Match:
    run_change(match_id, seating.decide_join, player=Player.of(user), invite_code=invite_code, seat_index=seat_index)
    return _fresh(match_id)


def leave(*, match_id: int, user: Any) -> Match:
    run_change(match_id, seating.decide_leave, user_id=user.pk)
    return _fresh(match_id)


def resign(*, match_id: int, user: Any) -> Match:
    run_change(match_id, decide.decide_resign, user_id=user.pk)
    return _fresh(match_id)


def cancel(*, match_id: int, user: Any) -> Match:
    run_change(match_id, seating.decide_cancel, user_id=user.pk)
    return _fresh(match_id)


def abort(*, match_id: int, user: Any) -> Match:
    run_change(match_id, decide.decide_abort, user_id=user.pk)
    return _fresh(match_id)


def abandon(*, match_id: int, user: Any) -> Match:
    run_change(match_id, decide.decide_abandon, user_id=user.pk)
    return _fresh(match_id)


def claim(*, match_id: int, user: Any, absent_seat: int, take_over_with_bot: bool = False) -> Match:
    """Claim an absent player's seat: the win, or (take_over_with_bot) a bot in their seat."""
    snap = load(match_id)
    assert snap is not None
    bot = takeover_bot(snap.game) if take_over_with_bot else None
    run_change(match_id, decide.decide_claim, user_id=user.pk, absent_seat=absent_seat,
               presence=presence_of(match_id), bot=bot)
    return _fresh(match_id)


def retake(*, match_id: int, user: Any) -> Match:
    run_change(match_id, seating.decide_retake, user_id=user.pk)
    return _fresh(match_id)


def rematch(*, match_id: int, user: Any) -> Match | None:
    """Ask for a rematch; the rematch once everyone asked (None before)."""
    snap = run_change(match_id, decide.decide_rematch, user_id=user.pk)
    return _fresh(snap.rematch_id) if snap.rematch_id else None


def decline_rematch(*, match_id: int, user: Any) -> Match:
    run_change(match_id, decide.decide_decline_rematch, user_id=user.pk)
    return _fresh(match_id)


def check_clock(*, match_id: int) -> Snapshot:
    """Flag whoever's time ran out, as the bot runner does."""
    snap = load(match_id)
    assert snap is not None
    return run_change(match_id, decide.decide_timeout, bot=takeover_bot(snap.game))


def bot_turn(*, match_id: int, expected_version: int) -> bool:
    """Let a due bot seat act once, as the bot runner does (decided on this version, written only if nothing
    came first); False when none was due, or another runner got there first."""
    snap = load(match_id)
    if snap is None or snap.version != expected_version:
        return False
    change = decide.decide_bot_turn(snap, state_of(snap))
    if change is None:
        return False
    commit([change])
    if change.written:
        transaction.on_commit(partial(publish, change.after, snap))
        if change.after.stats_due:  # as the runner's live copy does once the end is shown (LiveMatch.change)
            run_change(match_id, decide.decide_stats)
    return change.written
