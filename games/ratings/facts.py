"""A finished match as the statistics read it, and the game-specific figures a kit reports about it.

Plain data, importing no catalog and no model: a game's kit (games/kits/) fills its own figures into the facts
(its best round, its best placement), and games.ratings.stats applies them to the players' rows.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from ..results import Termination

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


@dataclass
class SeatFacts:
    """What the statistics need to know about one occupied seat of a finished match."""

    index: int
    user_id: int
    is_bot: bool
    bot_level: str
    score: int | None
    place: int | None


@dataclass
class MatchFacts:
    """A finished match reduced to what the statistics read; built once, applied by `apply_match`."""

    match_id: int
    game: str
    players: int
    finished_at: datetime
    is_public: bool
    rated: bool
    reason: Termination
    places: list[int]  # per seat index, 1 first (ties share a place): every seat's result comes from them
    seats: list[SeatFacts]
    # The game's own figures, per seat: {seat: {figure key: value}} (Columbo's lowest round, Ruhd's best placement).
    extras: dict[int, dict[str, int]] = field(default_factory=dict)

    @property
    def solo(self) -> bool:
        return self.players == 1

    @property
    def played_out(self) -> bool:
        """Whether the game reached its natural end (its scores mean what they say)."""
        return self.reason == Termination.NORMAL

    def report(self, seat: int, key: str, value: int) -> None:
        """A kit's figure for a seat (the better of two reports of the same figure is kept by stats)."""
        self.extras.setdefault(seat, {})[key] = value


# A game's figures of one finished match: fills facts.extras (reading the moves only if it must).
StatsExtra = Callable[[MatchRecord, MatchFacts, MoveLoader], None]
