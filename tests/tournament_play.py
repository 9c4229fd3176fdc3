"""Playing tournament matches through the services (no browser, no socket): the first moves, then a resignation,
so a chosen player wins; shared by the tournament tests and the arena simulation (bench/tournament.py)."""

from __future__ import annotations

import random
from typing import Any

from accounts.models import User
from games.models import Match
from games.play import decide
from games.play.snapshot import engine_of, must_act_of, state_of
from games.play.store import load
from games.play.sync import run_change


def move_once(match_id: int, rng: random.Random | None = None) -> bool:
    """One seat the game waits on makes a legal move (random, or the first); False if nothing to do."""
    snap = load(match_id)
    if snap is None or snap.status != Match.Status.ACTIVE:
        return False
    state = state_of(snap)
    waiting = sorted(must_act_of(snap, state))
    if not waiting:
        return False
    seat = waiting[0]
    actions = engine_of(snap).legal_actions(state, seat)
    action = rng.choice(actions) if rng else actions[0]
    user_id = snap.seats[seat].user_id
    run_change(match_id, decide.decide_move, seat=seat, action=action, user_id=user_id, expected_version=None)
    return True


def everyone_moves(match_id: int, rng: random.Random | None = None, limit: int = 200) -> None:
    """Moves until every person at the table has moved once (from then on a resignation is a loss)."""
    for _ in range(limit):
        snap = load(match_id)
        assert snap is not None
        if snap.status != Match.Status.ACTIVE or not decide.abort_allowed(snap):
            return
        if not move_once(match_id, rng):
            return


def win(match: Match | int, winner: User, rng: random.Random | None = None) -> Match:
    """Everyone moves, then every other person at a two-seat table resigns: `winner` wins."""
    match_id = match if isinstance(match, int) else match.pk
    everyone_moves(match_id, rng)
    snap = load(match_id)
    assert snap is not None
    for seat in snap.seats:
        if seat.user_id != winner.pk and snap.status == Match.Status.ACTIVE:
            run_change(match_id, decide.decide_resign, user_id=seat.user_id)
            snap = load(match_id)
            assert snap is not None
    return Match.objects.get(pk=match_id)


def opponent(match: Match, user: Any) -> Any:
    return next(seat.user for seat in match.seats.select_related("user") if seat.user_id != user.pk)
