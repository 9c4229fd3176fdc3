"""The rating rules every feature shares, in one leaf module: where a person starts, what a bot plays at, when a
rating is provisional. It imports no model, so the stats, the leaderboard, the lobby and the tournaments all ask
it without importing each other.
"""

from __future__ import annotations

from typing import Protocol

from ..bots import level_rating
from .glicko2 import START_RATING

# Bots don't move: each level plays at its measured rating (games.bots.LEVEL_RATINGS, bench/bot_ratings.py), the
# one number every page shows for it, with a small deviation (they are well known); a level never measured plays
# at the start rating.
BOT_DEVIATION = 50.0

# A rating is provisional (shown with a "?", as lichess does) until it rests on this many rated matches and its
# deviation has come down to PROVISIONAL_DEVIATION (lichess's own threshold): about 10 matches against bots, 14
# between new people.
LEADERBOARD_MIN_MATCHES = 10
PROVISIONAL_DEVIATION = 110.0


def bot_rating(game: str, level: str) -> float:
    """The rating a bot of this level plays at in this game, and the one every page shows for it."""
    measured = level_rating(game, level)
    return float(measured) if measured is not None else START_RATING


class RatedRow(Protocol):
    rated_matches: int
    deviation: float


def is_provisional(row: RatedRow) -> bool:
    """Whether a player's rating is still provisional (a "?" beside it; the leaderboard's second group)."""
    return row.rated_matches < LEADERBOARD_MIN_MATCHES or row.deviation > PROVISIONAL_DEVIATION


__all__ = ["BOT_DEVIATION", "LEADERBOARD_MIN_MATCHES", "PROVISIONAL_DEVIATION", "START_RATING", "bot_rating",
           "is_provisional"]
