"""Test helper: bring a match past its opening, where it can no longer be aborted, only resigned."""

from __future__ import annotations

import time
from typing import Any

import playing
from django.contrib.auth import get_user_model
from django.utils import timezone

from games.engines import get_engine
from games.models import Match
from games.play.decide import abort_allowed
from games.play.store import load


def bot_moves(match: Any) -> None:
    """The bot due next acts, once its pause (settings.GAMES_BOT_DELAY) is over: waited for here, not
    spun on, so a fast machine does not use up the callers' tries before the bot may move."""
    due = Match.objects.values_list("bot_due_at", flat=True).get(pk=match.pk)
    if due is not None and due > timezone.now():
        time.sleep(max(0.0, (due - timezone.now()).total_seconds()) + 0.01)
    playing.bot_turn(match_id=match.pk, expected_version=match.version)


def play_openings(match: Any) -> Any:
    """Each person of the match makes a first move (the first legal one when the game waits on them), so
    the match can no longer be aborted, only resigned; bots move when due. Returns the fresh match."""
    for _ in range(200):
        match = Match.objects.get(pk=match.pk)
        snap = load(match.pk)
        if not abort_allowed(snap):
            return match
        engine = get_engine(match.game)
        state = engine.load(match.state)
        persons = {s.index: s.player for s in snap.seats if s.is_person}
        seat = next((i for i in engine.must_act(state) if i in persons), None)
        if seat is None:
            bot_moves(match)
            continue
        user = get_user_model().objects.get(pk=persons[seat].user_id)
        playing.act(match_id=match.pk, user=user, seat=seat, action=engine.legal_actions(state, seat)[0],
                     expected_version=match.version)
    raise AssertionError("the players could not all make a first move")


def opened_on_turn(match: Any, seat: int) -> Any:
    """play_openings, then first legal moves until the game waits on `seat`: a match everyone has moved in, at
    that seat's turn (where its player can be away, or run out of time, and lose for it)."""
    match = play_openings(match)
    for _ in range(200):
        engine = get_engine(match.game)
        state = engine.load(match.state)
        waiting = engine.must_act(state)
        if seat in waiting:
            return match
        snap = load(match.pk)
        mover = waiting[0]
        holder = snap.seats[mover]
        if holder.is_bot:
            bot_moves(match)
        else:
            user = get_user_model().objects.get(pk=holder.player.user_id)
            playing.act(match_id=match.pk, user=user, seat=mover, action=engine.legal_actions(state, mover)[0],
                        expected_version=match.version)
        match = Match.objects.get(pk=match.pk)
    raise AssertionError(f"the game never waited on seat {seat}")
