"""A match's end, as one event the live core announces without knowing who hears it (lila's Finisher on its bus).

A match ends at two moments, and each subscriber is declared at one of them, in one place (games/endings.py):
- with the end (`ended`): inside the transaction that writes the end (finished or aborted), so that a page opened
  at once is right and a crash cannot keep the one without the other: the history's listing, the tournament's
  count, the analysis queue;
- once it is shown (`recorded`): in the match's own change that follows the end (Match.stats_due, claimed with the
  match's version; after a crash the runner's sweep makes it, games.play.stats_due), for what may wait a moment
  and must be counted exactly once: the statistics and ratings. What a recorder returns joins the match's
  result (the rating changes the result box shows).

A finished match's result may later be annulled by an administrator (`annulled`): inside the transaction that
writes the annulment, its listeners undo what the end's did: the history's listing, the statistics and ratings
(recomputed as if it never counted), the tournament's standings. Declared beside the end's, in the same place.

And every change, once committed (`committed`): for what must neither sit in a move's transaction nor slow it,
and may be lost in a crash between the commit and it (the notifications by email). A subscriber is called with
each batch the group commit wrote, real-time matches' included: it must cost next to nothing for a change it has
no interest in (bench/mail.py measures it).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

from .snapshot import Change, Snapshot

log = logging.getLogger(__name__)

# Inside the end's transaction: a write of the subscriber's own, committed or rolled back with the end.
WithEnd = Callable[[Snapshot], None]
# In the change after the end, with the match's row: additions to its result.
Recorder = Callable[[int], dict[str, Any]]
# After the commit, with the changes written (and those whose fence failed: `written` says which).
AfterCommit = Callable[[Sequence[Change]], None]

_with_start: tuple[WithEnd, ...] = ()
_with_end: tuple[WithEnd, ...] = ()
_recorders: tuple[Recorder, ...] = ()
_committed: tuple[AfterCommit, ...] = ()
_annulled: tuple[WithEnd, ...] = ()


def subscribe(*, with_start: Sequence[WithEnd] = (), with_end: Sequence[WithEnd],
              recorded: Sequence[Recorder], committed: Sequence[AfterCommit] = (),
              annulled: Sequence[WithEnd]) -> None:
    """Who hears a match's start, end and annulment, and when (games/endings.py calls this once, at start-up)."""
    global _with_start, _with_end, _recorders, _committed, _annulled
    _with_start, _with_end, _recorders = tuple(with_start), tuple(with_end), tuple(recorded)
    _committed, _annulled = tuple(committed), tuple(annulled)


def started(snap: Snapshot) -> None:
    """The match was dealt (its seats all filled), in the transaction that writes it. A subscriber may refuse
    with ServiceError (a player may not sit now): the start is then rolled back, and the refusal said."""
    for subscriber in _with_start:
        subscriber(snap)


def ended(snap: Snapshot) -> None:
    """The match ended (FINISHED or ABORTED), in the transaction that writes the end."""
    for subscriber in _with_end:
        subscriber(snap)


def annulled(snap: Snapshot) -> None:
    """A finished match's result was annulled (result["annulled"]), in the transaction that writes it: it stops
    counting wherever its end made it count."""
    for subscriber in _annulled:
        subscriber(snap)


def recorded(match_id: int) -> dict[str, Any]:
    """The finished match's own change after its end: each recorder counts it once; their additions to its result."""
    additions: dict[str, Any] = {}
    for recorder in _recorders:
        additions.update(recorder(match_id))
    return additions


def committed(changes: Sequence[Change]) -> None:
    """A batch of changes was committed (outside any transaction of theirs). A subscriber's failure is logged,
    never raised: the changes are committed and acknowledged whatever it does."""
    for subscriber in _committed:
        try:
            subscriber(changes)
        except Exception:
            log.exception("a subscriber of committed changes failed")
