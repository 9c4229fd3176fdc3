"""Correspondence clocks (days a move): the spec and its names, a move giving the next player their full days,
the runner flagging a seat out of days exactly as a turn limit's, from the row alone (a restart), and bots
answering after their usual pause. Time is moved on by rewinding the row, never waited for."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

import playing
import pytest
from channels.db import database_sync_to_async
from django.db import connections
from django.utils import timezone
from openings import opened_on_turn

from games.engines import get_engine
from games.models import Match
from games.play import scheduler
from games.play.clock import CLOCK_KINDS, clock_label, clock_spec, is_correspondence
from games.play.create import SeatSpec, create_match
from games.play.snapshot import ServiceError
from games.play.store import load

DAY = 86400


def fresh(match: Match) -> Match:
    return Match.objects.get(pk=match.pk)


def rewind(match: Match, seconds: float) -> None:
    """The current decision started `seconds` earlier: the row is all there is of the clock."""
    match = fresh(match)
    Match.objects.filter(pk=match.pk).update(
        turn_started_at=match.turn_started_at - timedelta(seconds=seconds),
        clock_due_at=match.clock_due_at - timedelta(seconds=seconds) if match.clock_due_at else None)


def two_people(alice: Any, bob: Any, clock: dict[str, Any]) -> Match:
    match = create_match(creator=alice, game="gomori", players=2, seats=[SeatSpec("open")], clock=clock, seed=7)
    playing.join(match_id=match.pk, user=bob)
    return fresh(match)


def waiting_on(match: Match) -> list[int]:
    engine = get_engine(match.game)
    return list(engine.must_act(engine.load(fresh(match).state)))


# ---------------------------------------------------------------------------------------------
# The spec and its name


@pytest.mark.parametrize("days", [1, 2, 3, 7])
def test_days_a_move_are_one_two_three_or_seven(days: int) -> None:
    clock = clock_spec("days", days=days)
    assert clock == {"kind": "days", "days": days, "seconds": days * DAY}
    assert is_correspondence(clock) and "days" in CLOCK_KINDS


@pytest.mark.parametrize("days", [0, 4, 5, 14, -1, 2.5, True, "3"])
def test_any_other_days_value_is_refused_with_a_sentence(days: Any) -> None:
    with pytest.raises(ServiceError, match="A correspondence clock has 1, 2, 3 or 7 days a move"):
        clock_spec("days", days=days)


def test_every_clock_has_its_human_name() -> None:
    assert clock_label({}) == clock_label(None) == "No clock"
    assert clock_label(clock_spec("fischer", minutes=5, increment=3)) == "5 min + 3 s"
    assert clock_label(clock_spec("fischer", minutes=0.5, increment=0)) == "0.5 min + 0 s"
    assert clock_label(clock_spec("turn", turn_seconds=30)) == "30 s a turn"
    assert clock_label(clock_spec("days", days=1)) == "1 day a move"
    assert clock_label(clock_spec("days", days=3)) == "3 days a move"
    assert not is_correspondence(clock_spec("turn", turn_seconds=30)) and not is_correspondence({})


# ---------------------------------------------------------------------------------------------
# The clock in play


@pytest.mark.django_db
def test_a_move_gives_the_next_player_their_full_days(alice: Any, bob: Any) -> None:
    match = opened_on_turn(two_people(alice, bob, clock_spec("days", days=3)), 0)
    assert fresh(match).clock_due_at is not None
    rewind(match, 2 * DAY)  # Alice thought for two days
    engine = get_engine("gomori")
    for _ in range(20):  # a Gomori turn may hold several plays: play on until the game waits on Bob
        if 0 not in waiting_on(match):
            break
        state = engine.load(fresh(match).state)
        playing.act(match_id=match.pk, user=alice, seat=0, action=engine.legal_actions(state, 0)[0])
    assert waiting_on(match) == [1]
    match = fresh(match)
    assert match.clock_left[1] == 3 * DAY
    assert match.clock_due_at == match.turn_started_at + timedelta(days=3)
    assert match.status == Match.Status.ACTIVE


@pytest.mark.django_db
def test_bots_answer_a_correspondence_move_after_their_usual_pause(alice: Any) -> None:
    match = create_match(creator=alice, game="gomori", players=2, seats=[SeatSpec("bot", "random")],
                         clock=clock_spec("days", days=7), seed=3)
    match = opened_on_turn(match, 0)
    engine = get_engine("gomori")
    for _ in range(20):
        if 0 not in waiting_on(match):
            break
        state = engine.load(fresh(match).state)
        playing.act(match_id=match.pk, user=alice, seat=0, action=engine.legal_actions(state, 0)[0])
    match = fresh(match)
    assert match.bot_due_at is not None and match.bot_due_at - timezone.now() < timedelta(seconds=30)
    assert match.clock_due_at is None  # bots are never flagged: nobody's days run while the bot thinks


async def _run_the_runner() -> int:
    try:
        return await scheduler.run_due_bots()
    finally:  # the worker thread's connection, or PostgreSQL can't drop the test database
        await database_sync_to_async(connections.close_all)()


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("clock", [clock_spec("turn", turn_seconds=60), clock_spec("days", days=3)],
                         ids=["turn-limit", "days-a-move"])
def test_the_runner_flags_a_seat_out_of_days_as_it_flags_a_turn_limit(alice: Any, bob: Any,
                                                                      clock: dict[str, Any]) -> None:
    match = opened_on_turn(two_people(alice, bob, clock), 0)
    full = clock["seconds"]
    # The due time is in the row: a process that starts now (a restart, a kill -9 before) reads it there.
    row = fresh(match)
    assert row.clock_due_at == row.turn_started_at + timedelta(seconds=row.clock_left[0])
    assert load(match.pk).clock_due_at == row.clock_due_at
    rewind(match, full - 30)  # not yet
    assert match.pk not in dict(scheduler.due_bot_matches())
    asyncio.run(_run_the_runner())
    assert fresh(match).status == Match.Status.ACTIVE
    rewind(match, 31)  # now past
    assert match.pk in dict(scheduler.due_bot_matches())
    asyncio.run(_run_the_runner())
    match = fresh(match)
    assert (match.status, match.result["reason"], match.result["loser"]) == ("finished", "time", 0)
    assert match.result["winners"] == [1] and match.clock_due_at is None
