"""The kit-side types of a game's own figures for the statistics: what a kit declares (`Figure`) and the function
it gives (`StatsExtra`), with what that function reads and fills.

They live beside the kits so that a kit imports nothing above it: games.ratings builds the facts of a finished
match (games.ratings.facts.MatchFacts, which fits `FigureFacts`) and hands them to the kit's function.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

MoveLoader = Callable[[], list[tuple[int, dict[str, Any]]]]


@dataclass(frozen=True)
class Figure:
    """A game's own figure, kept per player (PlayerStats.extras[key]): its label on the profile, which way is better
    (a lower round score, a higher tile score), and the unit its value is said in."""

    key: str
    label: str
    better: Literal["low", "high"]
    unit: str = ""  # what the value counts, said after it: "points" (5 points, 1 point)

    def text(self, value: int) -> str:
        """The value as the profile says it: "5 points", "1 point", "312"."""
        if not self.unit:
            return f"{value:,}"
        unit = self.unit[:-1] if abs(value) == 1 and self.unit.endswith("s") else self.unit
        return f"{value:,} {unit}"

    def best(self, old: int | None, new: int) -> int:
        if old is None:
            return new
        return min(old, new) if self.better == "low" else max(old, new)


@dataclass(frozen=True)
class MatchRecord:
    """What a game's figures are read from: the match as it was dealt and where it ended."""

    players: int
    seed: int
    options: dict[str, Any]
    state: dict[str, Any] | None  # the engine's dump() of the final position


class SeatScore(Protocol):
    """One seat of a finished match, as far as a kit's figures read it."""

    @property
    def score(self) -> int | None: ...


class FigureFacts(Protocol):
    """A finished match as a kit's figures read and fill it (games.ratings.facts.MatchFacts)."""

    @property
    def extras(self) -> dict[int, dict[str, int]]: ...

    @property
    def seats(self) -> Sequence[SeatScore]: ...

    @property
    def solo(self) -> bool: ...

    @property
    def played_out(self) -> bool: ...

    def report(self, seat: int, key: str, value: int) -> None: ...


# A game's figures of one finished match: fills facts.extras (reading the moves only if it must).
StatsExtra = Callable[[MatchRecord, FigureFacts, MoveLoader], None]

__all__ = ["Figure", "FigureFacts", "MatchRecord", "MoveLoader", "SeatScore", "StatsExtra"]
