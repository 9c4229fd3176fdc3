"""A match's result, typed: how it ended (Termination) and what it came to (Outcome), as python-chess's.

Match.result stores it as JSON (a StrEnum member is written as its string), and pages, statistics and moderation
read it back with Outcome.of: a reason is a member of Termination everywhere in the code, a string only in the
database.
"""

from __future__ import annotations

from collections.abc import Sequence
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


class SeatOutcome(StrEnum):
    """A seat's result in a finished match, as its player sees it (PlayerResult.Outcome keeps the same values)."""

    WON = "won"
    DRAWN = "drawn"
    LOST = "lost"
    SOLO = "solo"


# A seat's result as the pages label it (history rows, the analysis's accuracy rows).
OUTCOME_LABELS: dict[str, str] = {SeatOutcome.WON: "Won", SeatOutcome.LOST: "Lost", SeatOutcome.DRAWN: "Draw",
                                  SeatOutcome.SOLO: "Solo"}


def outcomes_by_place(places: Sequence[int]) -> list[SeatOutcome]:
    """Each seat's result from its place at the table (1 is first; tied seats share a place): the site's one rule,
    for every game and table size. The sole first place won; a first place shared is drawn for those sharing it;
    every seat behind the first place lost (all of them when nobody is first: the one who stayed resigned). The
    match is a draw for everyone only when every seat shares the first place. A table of one is solo."""
    if len(places) == 1:
        return [SeatOutcome.SOLO]
    shared = sum(1 for place in places if place == 1) > 1
    return [(SeatOutcome.DRAWN if shared else SeatOutcome.WON) if place == 1 else SeatOutcome.LOST
            for place in places]


@dataclass(frozen=True)
class Outcome:
    """What a finished match came to: each seat's score and place, the winners (the seats placed first), and who
    lost and left. A seat's result comes from its place (`outcomes_by_place`), never from an engine's flag."""

    termination: Termination
    scores: list[int] = field(default_factory=list)
    winners: list[int] = field(default_factory=list)
    draw: bool = False
    places: list[int] = field(default_factory=list)  # per seat, 1 first; empty for a match that counts for nothing
    loser: int | None = None  # the seat that resigned, left, ran out of time or was suspended
    by: int | None = None  # the seat that aborted or cancelled (None: an administrator)
    left: list[int] = field(default_factory=list)  # seats whose players left (a bot finished for them)
    # An abort by the server: the seat that never moved, and why it ended ("away": claimed after its absence,
    # "time": its clock ran out), lichess's rule that such a match counts for nothing.
    absent: int | None = None
    why: str = ""

    @classmethod
    def of(cls, result: dict[str, Any] | None, players: int | None = None) -> Outcome | None:
        """A stored result read back; None for a match with none yet. `players` (the table's size) lets a result
        recorded before places were kept in it get them from its winners (first) and the rest (behind)."""
        if not result:
            return None
        termination = Termination(result.get("reason", Termination.NORMAL))
        winners = [int(w) for w in result.get("winners") or []]
        places = [int(p) for p in result.get("places") or []]
        if not places and players and termination.counts:
            # A result kept before its places were: the winners first; without winners, the game's draw (everyone
            # first) or nobody first.
            first = set(winners) if winners else set(range(players)) if result.get("draw") else set()
            places = [1 if index in first else 2 for index in range(players)]
        return cls(
            termination=termination,
            scores=[int(s) for s in result.get("scores") or []],
            winners=winners,
            draw=bool(result.get("draw")),
            places=places,
            loser=result.get("loser"),
            by=result.get("by"),
            left=[int(s) for s in result.get("left") or []],
            absent=result.get("absent"),
            why=str(result.get("why") or ""),
        )

    @property
    def seat_outcomes(self) -> list[SeatOutcome]:
        """Each seat's result, from its place (empty for a match that counts for nothing)."""
        return outcomes_by_place(self.places) if self.termination.counts else []

    def of_seat(self, seat: int) -> SeatOutcome | None:
        """This seat's result; None when the match counts for nothing or has no such seat."""
        outcomes = self.seat_outcomes
        return outcomes[seat] if 0 <= seat < len(outcomes) else None

    @property
    def firsts(self) -> list[int]:
        """The seats placed first (the winner, or those who shared the first place)."""
        return [seat for seat, outcome in enumerate(self.seat_outcomes)
                if outcome in (SeatOutcome.WON, SeatOutcome.DRAWN)]

    @property
    def everyone_drew(self) -> bool:
        """A draw for the whole table: every seat shares the first place."""
        outcomes = self.seat_outcomes
        return bool(outcomes) and all(outcome == SeatOutcome.DRAWN for outcome in outcomes)
