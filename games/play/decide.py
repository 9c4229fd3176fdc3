"""Every change of a match, decided: pure functions of a snapshot and its engine state, no database.

Each `decide_*(snap, state, **kw)` returns a Change (the snapshot and state after it, the move to append) or None
when there is nothing to do, and raises ServiceError (MatchMovedOn) or IllegalAction to refuse. They never change
what they are given. The live match (games.play.owner) and sync code (games.play.sync.run_change) both call them,
then write the change with the version as the fence (games.play.store.commit). Every change moves the version on.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from datetime import datetime

from django.utils import timezone

from ..catalog import ActionContext, kit
from ..engines.base import Action, IllegalAction, refusing_malformed
from ..results import Termination
from .bots import bot_action, bot_due_at, due_bot_seats
from .clock import clock_now, is_correspondence, run_clock
from .finish import closed, end_with_loser, finish
from .seating import decide_cancel, hand_to_bot
from .snapshot import (
    NOTES_KEPT,
    Change,
    MatchMovedOn,
    Player,
    Presence,
    ServiceError,
    Snapshot,
    State,
    Status,
    away_seconds_left,
    engine_of,
    must_act_of,
)

log = logging.getLogger(__name__)

# A decider: decide(snap, state, **what the request says) -> the change, or None when there is nothing to do.
Decider = Callable[..., Change | None]

# The refusal of an action the game's engine can't even read (every caller, the table's socket and the Bot API,
# shows it as it shows any IllegalAction).
NOT_A_MOVE = "That move is not one the game knows."


# ---------------------------------------------------------------------------------------------
# Moves


def decide_move(
    snap: Snapshot, state: State, *, seat: int, action: Action, user_id: int | None = None, bot: bool = False,
    expected_version: int | None = None, note: str = "", now: datetime | None = None,
) -> Change:
    """A seat's action checked against the state: a person's (user_id) for the seat they play, or with `bot` the
    move decide_bot_turn chose for a bot seat. An action of a shape the engine can't read is an IllegalAction too
    (NOT_A_MOVE), whoever sent it."""
    if snap.status != Status.ACTIVE:
        raise ServiceError("This match is not in progress.")
    holder = snap.seat(seat)
    if not bot and (user_id is None or holder is None or holder.user_id != user_id or holder.is_bot):
        raise ServiceError("You can only act for your own seat.")
    if expected_version is not None and expected_version != snap.version:
        raise MatchMovedOn()
    now = now or timezone.now()
    engine = engine_of(snap)
    with refusing_malformed(NOT_A_MOVE):
        # What the server decides itself, never the browser (the game's kit says which parts).
        action = kit(snap.game).prepare_action(action, ActionContext(snap.players, snap.started_at, now))
        new_state = engine.apply(state, seat, action)  # raises IllegalAction, state untouched
    after = replace(
        snap, version=snap.version + 1, move_count=snap.move_count + 1, state=engine.dump(new_state),
        turn_started_at=now,
        rematch_votes=[], notes=(*snap.notes, (seat, note[:200]))[-NOTES_KEPT:],
        moved=snap.moved if seat in snap.moved else tuple(sorted((*snap.moved, seat))),
    )
    if snap.clock:
        after = run_clock(snap, state, after, new_state, mover=seat, now=now)
    change = Change(snap, after, state=new_state, move=(seat, action, note[:200]))
    if engine.is_over(new_state):
        finish(change, engine.result(new_state), reason=Termination.NORMAL, now=now)
    else:
        change.after = replace(after, bot_due_at=bot_due_at(after, new_state))
    return change


def decide_bot_turn(snap: Snapshot, state: State, *, now: datetime | None = None) -> Change | None:
    """Let the first due bot seat act once; None when none is due.

    Its action comes from the bot (games.play.bots.bot_action); one that answers illegally plays a random
    legal action instead, so a bot bug never stops a match."""
    now = now or timezone.now()
    if snap.status != Status.ACTIVE or state is None or snap.bot_due_at is None or snap.bot_due_at > now:
        return None
    for seat in due_bot_seats(snap, state, now):
        action, reason, rng, legal = bot_action(snap, state, seat)
        if action is None:
            continue
        try:
            return decide_move(snap, state, seat=seat, action=action, bot=True, note=reason, now=now)
        except IllegalAction as error:
            log.error("a bot chose an illegal action in match %s: %s", snap.id, error)
            if legal:
                return decide_move(snap, state, seat=seat, action=rng.choice(legal), bot=True, note="plays at random",
                                   now=now)
    return None


# ---------------------------------------------------------------------------------------------
# Ending early: abort, resign, claim an absent player's seat, run out of time


def abort_allowed(snap: Snapshot) -> bool:
    """A match may be aborted (ended unrated, on the record as aborted) until every person in it has moved;
    from then on it can only be resigned."""
    return snap.status == Status.ACTIVE and any(s.is_person and s.index not in snap.moved for s in snap.seats)


def decide_abort(snap: Snapshot, state: State, *, user_id: int | None) -> Change:
    """Any seated person ends the match unrated before everyone has made their first move."""
    seat = snap.seat_of(user_id)
    if seat is None or not seat.is_person:
        raise ServiceError("Only a player of this match can abort it.")
    if not abort_allowed(snap):
        raise ServiceError("Everyone has moved: the match can no longer be aborted (you may resign).")
    return Change(snap, closed(snap, reason=Termination.ABORTED, by=seat.index), state=state)


def decide_resign(snap: Snapshot, state: State, *, user_id: int | None) -> Change:
    """Give up: the others win. Possible once everyone has moved (before that, abort)."""
    if snap.status != Status.ACTIVE:
        raise ServiceError("This match is not in progress.")
    seat = snap.seat_of(user_id)
    if seat is None or seat.is_bot:
        raise ServiceError("You have no seat in this match.")
    if abort_allowed(snap):
        raise ServiceError("Not everyone has moved yet: abort the match instead (it then counts for nothing).")
    return end_with_loser(snap, seat.index, reason=Termination.RESIGN, state=state)


def decide_abandon(snap: Snapshot, state: State, *, user_id: int | None) -> Change:
    """Walk away from a match against bots ("Your matches"): cancelled while it waits, aborted while that is
    allowed, else resigned (a loss, as a player who leaves a game gets)."""
    seat = snap.seat_of(user_id)
    if seat is None or not seat.is_person:
        raise ServiceError("You have no seat in this match.")
    if any(s.is_person for s in snap.seats if s.index != seat.index):
        raise ServiceError("Only matches against bots can be abandoned from the list: resign at the table.")
    if snap.status == Status.WAITING:
        return decide_cancel(snap, state, user_id=user_id)
    if abort_allowed(snap):
        return decide_abort(snap, state, user_id=user_id)
    return decide_resign(snap, state, user_id=user_id)


def decide_claim(
    snap: Snapshot, state: State, *, user_id: int | None, absent_seat: int, presence: dict[int, Presence],
    bot: Player | None = None,
) -> Change:
    """When a seated person has been away 60 s while the game waits on them: claim the win, or (with `bot`)
    hand their seat to that bot. Away before their first move, the match is aborted instead. Never in a
    correspondence match: its players come and go for days, and only its clock ends it."""
    if snap.status != Status.ACTIVE:
        raise ServiceError("This match is not in progress.")
    if is_correspondence(snap.clock):
        raise ServiceError("A correspondence match is never claimed: its players have days a move, and only the "
                           "clock ends it.")
    claimant = snap.seat_of(user_id)
    if claimant is None or claimant.is_bot:
        raise ServiceError("Only players of this match can claim it.")
    absent = snap.seat(absent_seat)
    if absent is None or absent.index == claimant.index or absent.player is None or absent.is_bot:
        raise ServiceError("That seat can't be claimed.")
    if absent_seat not in engine_of(snap).must_act(state):
        raise ServiceError("The game is not waiting on that player.")
    remaining = away_seconds_left(presence.get(absent_seat), snap.turn_started_at)
    if remaining > 0:
        raise ServiceError(f"{absent.player.name} may still come back: you can claim in {remaining} s.")
    if absent_seat not in snap.moved:  # lichess's rule: a player who never moved loses nothing, nor does anyone
        after = closed(snap, reason=Termination.ABORTED, by=None, why="away", absent=absent_seat)
        return Change(snap, after, state=state)
    if bot is None:
        return end_with_loser(snap, absent_seat, reason=Termination.ABANDON, state=state)
    return Change(snap, hand_to_bot(snap, state, absent_seat, bot, why="away"), state=state, seats_changed=True)


def decide_timeout(snap: Snapshot, state: State, *, bot: Player | None, now: datetime | None = None) -> Change | None:
    """A person whose time ran out: in a game of two (or solo) they lose; with more, a bot takes their seat
    (on the record, and a loss for them as when a player leaves). Out of time before their first move, the match
    is aborted instead (it counts for nobody). None if nobody's time is out."""
    now = now or timezone.now()
    if snap.clock_due_at is None or snap.clock_due_at > now or snap.status != Status.ACTIVE or state is None:
        return None
    left = clock_now(snap, state, now)
    out = [i for i in sorted(must_act_of(snap, state)) if snap.seats[i].is_person and left[i] <= 0.05]
    if not out:
        return None
    snap = replace(snap, clock_left=[round(x, 3) for x in left], turn_started_at=now)
    never_moved = [i for i in out if i not in snap.moved]
    if never_moved:  # lichess's rule: time out before a first move aborts the match, unrated
        return Change(snap, closed(snap, reason=Termination.ABORTED, by=None, why="time", absent=never_moved[0]),
                      state=state)
    persons = [s for s in snap.seats if s.is_person]
    if snap.players <= 2 or bot is None or len(persons) <= 1:
        change = end_with_loser(snap, out[0], reason=Termination.TIME, state=state)
        change.after = replace(change.after, clock_due_at=None)
        return change
    after = snap
    for index in out:
        after = hand_to_bot(after, state, index, bot, why="time")
        after = replace(after, version=snap.version + 1)
    return Change(snap, after, state=state, seats_changed=True)


# ---------------------------------------------------------------------------------------------
# After the end: rematch offers


def decide_rematch(snap: Snapshot, state: State, *, user_id: int | None) -> Change | None:
    """A vote for a rematch; None if this person's vote is already in (or the rematch made). Once every person
    in the match has asked, the rematch is made (games.play.create.create_rematch) with the change."""
    if snap.status != Status.FINISHED:  # an aborted match too: it counts for nothing, nothing to play again
        raise ServiceError("A rematch can be asked for once the match is over.")
    seat = snap.seat_of(user_id)
    if seat is None or not seat.is_person:
        raise ServiceError("Only players of this match can ask for a rematch.")
    if (snap.result or {}).get("annulled"):
        raise ServiceError("This match's result was annulled: it has no rematch.")
    if snap.rematch_declined is not None:
        raise ServiceError("The rematch was declined.")
    if snap.rematch_id or seat.index in snap.rematch_votes:
        return None
    votes = sorted({*snap.rematch_votes, seat.index})
    humans = {s.index for s in snap.seats if s.is_person}
    after = replace(snap, version=snap.version + 1, rematch_votes=votes)
    return Change(snap, after, state=state, make_rematch=humans <= set(votes))


def decide_decline_rematch(snap: Snapshot, state: State, *, user_id: int | None) -> Change | None:
    """Turn down the rematch someone offered: the offer is closed, for everyone."""
    if snap.status != Status.FINISHED:
        raise ServiceError("There is no rematch to decline.")
    seat = snap.seat_of(user_id)
    if seat is None or not seat.is_person:
        raise ServiceError("Only players of this match can decline a rematch.")
    if snap.rematch_id or snap.rematch_declined is not None:
        return None
    return Change(snap, replace(snap, version=snap.version + 1, rematch_declined=seat.index), state=state)



# ---------------------------------------------------------------------------------------------
# Statistics


def decide_stats(snap: Snapshot, state: State | None) -> Change | None:
    """A finished match's statistics and ratings, written after its end was shown (the end's own transaction
    stays short); None when they are written already."""
    if snap.status != Status.FINISHED or not snap.stats_due:
        return None
    return Change(snap, replace(snap, version=snap.version + 1, stats_due=False), state=state, records_stats=True)


@contextmanager
def follow_end(after: Snapshot) -> Iterator[Decider | None]:
    """What follows a written change that ended a match, on the road that wrote it (the live match's, sync code's):
    its statistics (decide_stats, given to write as any change) once everyone was shown the end; None when none
    are due. The road's failure to write them is logged here and left to the runner's sweep (games.play.stats_due),
    which writes them the same way."""
    if not after.stats_due:
        yield None
        return
    try:
        yield decide_stats
    except Exception:
        log.exception("statistics of match %s left to the sweep", after.id)
