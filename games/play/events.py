"""A match's end, as one event the live core announces without knowing who hears it (lila's Finisher on its bus).

A match ends at two moments, and each subscriber is declared at one of them, in one place (games/endings.py):
- with the end (`ended`): inside the transaction that writes the end (finished or aborted), so that a page opened
  at once is right and a crash cannot keep the one without the other: the history's listing, the tournament's
  count, the analysis queue;
- once it is shown (`recorded`): in the match's own change that follows the end (Match.stats_due, claimed with the
  match's version; after a crash the runner's sweep makes it, games.play.stats_due), for what may wait a moment
  and must be counted exactly once: the statistics and ratings. What a recorder returns joins the match's
  result (the rating changes the result box shows).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .snapshot import Snapshot

# Inside the end's transaction: a write of the subscriber's own, committed or rolled back with the end.
WithEnd = Callable[[Snapshot], None]
# In the change after the end, with the match's row: additions to its result.
Recorder = Callable[[int], dict[str, Any]]

_with_start: tuple[WithEnd, ...] = ()
_with_end: tuple[WithEnd, ...] = ()
_recorders: tuple[Recorder, ...] = ()


def subscribe(*, with_start: Sequence[WithEnd] = (), with_end: Sequence[WithEnd],
              recorded: Sequence[Recorder]) -> None:
    """Who hears a match's start and end, and when (games/endings.py calls this once, at start-up)."""
    global _with_start, _with_end, _recorders
    _with_start, _with_end, _recorders = tuple(with_start), tuple(with_end), tuple(recorded)


def started(snap: Snapshot) -> None:
    """The match was dealt (its seats all filled), in the transaction that writes it. A subscriber may refuse
    with ServiceError (a player may not sit now): the start is then rolled back, and the refusal said."""
    for subscriber in _with_start:
        subscriber(snap)


def ended(snap: Snapshot) -> None:
    """The match ended (FINISHED or ABORTED), in the transaction that writes the end."""
    for subscriber in _with_end:
        subscriber(snap)


def recorded(match_id: int) -> dict[str, Any]:
    """The finished match's own change after its end: each recorder counts it once; their additions to its result."""
    additions: dict[str, Any] = {}
    for recorder in _recorders:
        additions.update(recorder(match_id))
    return additions
