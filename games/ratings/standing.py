"""A player's standing as their profile shows it (games.site.profile): a line of figures per game played, and the
ratings their matches left, game by game (the chart's series)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from accounts.models import User

from ..catalog import GAMES
from ..models import PlayerStats
from . import queries
from .glicko2 import START_RATING
from .read import rating_of
from .rules import is_provisional


@dataclass
class StatsLine:
    """One game's figures for the profile, with labels in the game's own terms."""

    game: str
    name: str
    stats: PlayerStats
    best_label: str
    average_label: str  # "Average penalty points"
    extras: list[tuple[str, str]]  # (label, value as said: "5 points")
    rank: int | None = None  # on the game's leaderboard
    best_win: tuple[str, str, float] | None = None  # (name, profile URL, their rating then)
    # The rating as every feature reads it (games.ratings.read): a person's from their row, a bot's its level's, the
    # number the lobby's seat choices and Watch show (a bot's row keeps whatever it was made with).
    rating: float = START_RATING
    is_bot: bool = False

    @property
    def rating_shown(self) -> bool:
        return self.is_bot or self.stats.rated_matches > 0

    @property
    def provisional(self) -> bool:
        return not self.is_bot and is_provisional(self.stats)

    @property
    def win_rate(self) -> str:
        """Won of the decided matches, in whole percent ("" before any): rounded as Django's widthratio."""
        decided = self.stats.decided
        return str(round(self.stats.won / decided * 100)) if decided else ""


def _best_label(game: str) -> str:
    info = GAMES[game]
    return f"{'Fewest' if info.lower_is_better else 'Most'} {info.score_label} in a match"


def _average_label(game: str) -> str:
    """"Average penalty points": the game's own word for its score."""
    return f"Average {GAMES[game].score_label}"


def _extras(row: PlayerStats) -> list[tuple[str, str]]:
    """The game's own figures the player has, labelled by its kit."""
    return [(figure.label, figure.text(row.extras[figure.key])) for figure in GAMES[row.game].figures
            if figure.key in row.extras]


def stats_lines(user: User) -> list[StatsLine]:
    """A line of figures per game played, with its rank and best win (three queries)."""
    rows = queries.player_stats(user=user)
    wins = queries.best_wins(user=user) if not user.is_bot else {}
    ranks = queries.leaderboard_ranks(list(rows.values()), user)
    return [
        StatsLine(game=slug, name=info.name, stats=rows[slug], best_label=_best_label(slug),
                  average_label=_average_label(slug), extras=_extras(rows[slug]),
                  rank=ranks.get(slug), best_win=wins.get(slug),
                  rating=rating_of(user, slug) if user.is_bot else rows[slug].rating, is_bot=user.is_bot)
        for slug, info in GAMES.items()
        if slug in rows and rows[slug].played
    ]


def rating_series(user: User) -> dict[str, list[tuple[dt.datetime, float]]]:
    """Each game's ratings after each rated match, oldest first (one query; none for a bot, whose rating is its
    level's)."""
    series: dict[str, list[tuple[dt.datetime, float]]] = {slug: [] for slug in GAMES}
    if not user.is_bot:
        for game, finished_at, rating in queries.rating_history(user=user):
            if not series[game]:
                # Each line starts from the rating everyone starts with, so a game of one rated match is a line
                # (where it went) rather than a loose dot.
                series[game].append((finished_at, START_RATING))
            series[game].append((finished_at, rating))
    return series
