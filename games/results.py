"""A match's result, typed: how it ended (Termination) and what it came to (Outcome), as python-chess's.

Match.result stores it as JSON (a StrEnum member is written as its string), and pages, statistics and moderation
read it back with Outcome.of: a reason is a member of Termination everywhere in the code, a string only in the
database.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class Termination(StrEnum):
    """Why a match ended."""

    NORMAL = "normal"  # the game reached its own end
    RESIGN = "resign"
    ABANDON = "abandon"  # an absent player's seat was claimed after the wait
    TIME = "time"  # a player's clock ran out
    SUSPENDED = "suspended"  # an administrator suspended a player
    ABORTED = "aborted"  # before everyone had moved: counts for nothing
    CANCELLED = "cancelled"  # before it started: counts for nothing

    @property
    def counts(self) -> bool:
        """Whether the match counts (history, statistics, ratings)."""
        return self not in (Termination.ABORTED, Termination.CANCELLED)


@dataclass(frozen=True)
class Outcome:
    """What a finished match came to: each seat's score, the winners (none in a draw), and who lost and left."""

    termination: Termination
    scores: list[int] = field(default_factory=list)
    winners: list[int] = field(default_factory=list)
    draw: bool = False
    loser: int | None = None  # the seat that resigned, left, ran out of time or was suspended
    by: int | None = None  # the seat that aborted or cancelled (None: an administrator)
    left: list[int] = field(default_factory=list)  # seats whose players left (a bot finished for them)
    # An abort by the server: the seat that never moved, and why it ended ("away": claimed after its absence,
    # "time": its clock ran out), lichess's rule that such a match counts for nothing.
    absent: int | None = None
    why: str = ""

    @classmethod
    def of(cls, result: dict[str, Any] | None) -> Outcome | None:
        """A stored result read back; None for a match with none yet."""
        if not result:
            return None
        return cls(
            termination=Termination(result.get("reason", Termination.NORMAL)),
            scores=[int(s) for s in result.get("scores") or []],
            winners=[int(w) for w in result.get("winners") or []],
            draw=bool(result.get("draw")),
            loser=result.get("loser"),
            by=result.get("by"),
            left=[int(s) for s in result.get("left") or []],
            absent=result.get("absent"),
            why=str(result.get("why") or ""),
        )
