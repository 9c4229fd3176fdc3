"""A finished match as the statistics read it.

Plain data, importing no catalog and no model: a game's kit (games/kits/) fills its own figures into the facts
(its best round, its best placement: the kit-side types are games.kits.figures, which `MatchFacts` fits), and
games.ratings.stats applies them to the players' rows.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from ..results import Termination


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
