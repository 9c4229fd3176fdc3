"""How a match ends: its seats' scores and places, and the result a finished match records."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import Any

from django.utils import timezone

from ..catalog import GAMES
from ..results import SeatOutcome, Termination, outcomes_by_place
from .snapshot import Change, Snapshot, State, Status, engine_of, state_of


def places_of(scores: list[int], winners: list[int], lower_is_better: bool) -> list[int]:
    """1 for the winners, then by score (ties share a place)."""
    places = [0] * len(scores)
    others = [i for i in range(len(scores)) if i not in winners]
    for i in winners:
        places[i] = 1
    others.sort(key=lambda i: scores[i], reverse=not lower_is_better)
    place = len(winners) + 1
    for rank, i in enumerate(others):
        if rank > 0 and scores[i] != scores[others[rank - 1]]:
            place = len(winners) + 1 + rank
        places[i] = place
    return places


def finish(change: Change, result: dict[str, Any], *, reason: Termination, now: datetime) -> None:
    """Close the match with its result: seat scores and places; the statistics follow in a change of their own
    (games.play.decide.decide_stats), written once the end is shown."""
    snap = change.after
    scores = list(result.get("scores", []))
    winners = list(result.get("winners", []))
    lower = GAMES[snap.game].lower_is_better
    # A player who left loses, whatever the bot in their seat achieved; the others' results come from play.
    left = [s.index for s in snap.seats if s.left]
    if left and snap.players > 1:
        result = {**result, "left": left}
        stayed = [i for i in range(snap.players) if i not in left]
        kept = [w for w in winners if w not in left]
        if not kept and stayed and scores and reason == Termination.NORMAL:
            best = (min if lower else max)(scores[i] for i in stayed)
            kept = [i for i in stayed if scores[i] == best]
        elif not kept and stayed and reason == Termination.NORMAL:
            kept = stayed
        winners = kept
        result["winners"] = winners
        result["draw"] = False if len(winners) <= 1 else bool(result.get("draw"))
    if winners:
        places = places_of(scores, winners, lower) if scores else [1 if i in winners else 2
                                                                     for i in range(snap.players)]
    else:
        # The game's own draw: nobody placed ahead of anyone, whatever the scores say (a drawn Rummy game). No
        # winner otherwise (the only one who stayed resigned): nobody is first, everyone lost.
        places = [1 if result.get("draw") else 2] * snap.players
    if left and snap.players > 1:
        last = max((places[i] for i in range(snap.players) if i not in left), default=0) + 1
        places = [last if i in left else place for i, place in enumerate(places)]
    seats = tuple(replace(s, final_score=scores[s.index] if scores else None, place=places[s.index])
                  for s in snap.seats)
    # The places decide every seat's result (games.results.outcomes_by_place); the winners and the draw flag are
    # kept for what reads them, derived from the places so that they can never disagree with them.
    # A draw for the whole table has no winners (as a two-player draw never had).
    outcomes = outcomes_by_place(places)
    draw = snap.players > 1 and all(o == SeatOutcome.DRAWN for o in outcomes)
    result = {**result, "places": places, "draw": draw,
              "winners": [] if draw else [i for i, o in enumerate(outcomes) if o != SeatOutcome.LOST]}
    change.after = replace(snap, status=Status.FINISHED, finished_at=now, bot_due_at=None, clock_due_at=None,
                           seats=seats, stats_due=True, result={**(snap.result or {}), **result, "reason": reason})
    change.seats_changed = True


def end_with_loser(snap: Snapshot, loser: int, *, reason: Termination, state: State | None = None) -> Change:
    """The match ends now with this seat the loser (resigned, out of time, abandoned, suspended)."""
    engine = engine_of(snap)
    state = state if state is not None else state_of(snap)
    scores = engine.scores(state)
    winners = [i for i in range(snap.players) if i != loser and not snap.seats[i].left]
    change = Change(snap, replace(snap, version=snap.version + 1), state=state)
    finish(change, {"scores": scores, "winners": winners, "draw": False, "loser": loser}, reason=reason,
            now=timezone.now())
    return change




def closed(snap: Snapshot, *, reason: Termination, by: int | None, why: str = "", absent: int | None = None,
           moderated: bool = False) -> Snapshot:
    """The match ends now counting for nothing (cancelled before the start, aborted before everyone moved, aborted
    by an administrator: `moderated`, which the result records); `by` is the seat that called it off (None: an
    administrator, or the server when `why` says why: seat `absent` never moved and was away ("away") or ran out of
    time ("time"), lichess's rule)."""
    result: dict[str, Any] = {"reason": reason, "by": by, "scores": [], "winners": [], "draw": False}
    if why:
        result.update(why=why, absent=absent)
    if moderated:
        result["moderated"] = True
    return replace(snap, version=snap.version + 1, status=Status.ABORTED, finished_at=timezone.now(),
                   bot_due_at=None, clock_due_at=None, result=result)
