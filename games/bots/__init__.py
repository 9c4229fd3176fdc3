"""The bots of every game (one module per game: BOTS, its levels weakest first, and LEVEL_BLURBS), and each
level's measured strength.

LEVEL_RATINGS: each level's Glicko-2 rating from bot-against-bot games, measured by

    nice -n 10 .venv/bin/python bench/bot_ratings.py --rounds 100 --write

(measured 2026-11-26; Gomori's again 2026-11-27 after its Shark changed, with `--game gomori`; every pair of a
game's levels plays 2 seeded games a round, seats alternated; one rating
period a round; every level starts at 1500, the rating people start at; a level that loses every game, as
Columbo's Rookie does, only drifts lower while its deviation stays wide). The lobby shows them beside each
level's name; quick pairing offers the level nearest a person's rating (level_near). Measure again when a bot
changes.
"""

from __future__ import annotations

LEVEL_RATINGS: dict[str, dict[str, int]] = {
    "gomori": {"random": 1087, "reference": 1543, "search": 1812},
    "ruhd": {"random": 1137, "reference": 1663, "search": 1751},
    "rummy": {"random": 1251, "reference": 1569, "strong": 1702},
    "columbo": {"random": 767, "reference": 1620, "strong": 1944},
}


def level_rating(game: str, level: str) -> int | None:
    """A bot level's measured rating; None for a game or level that has none."""
    return LEVEL_RATINGS.get(game, {}).get(level)


def level_near(game: str, rating: float) -> str:
    """The game's bot level whose measured rating is nearest this rating (on a tie, the weaker level: a person
    between two levels is offered the one they are likelier to beat). ValueError for a game without bots."""
    levels = LEVEL_RATINGS.get(game)
    if not levels:
        raise ValueError(f"There are no rated bots for the game '{game}'.")
    ordered = sorted(levels.items(), key=lambda item: item[1])
    return min(ordered, key=lambda item: abs(item[1] - rating))[0]


__all__ = ["LEVEL_RATINGS", "level_near", "level_rating"]
