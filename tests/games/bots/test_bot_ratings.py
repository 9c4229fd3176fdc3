"""Every bot level's measured rating (games.bots.LEVEL_RATINGS, from bench/bot_ratings.py) and level_near, which
quick pairing uses to offer a bot near a person's rating."""

from __future__ import annotations

import pytest

from games.bots import LEVEL_RATINGS, level_near, level_rating
from games.engines import SLUGS
from games.play.bot_accounts import bot_levels


@pytest.mark.parametrize("game", SLUGS)
def test_every_level_of_every_game_has_a_rating_stronger_levels_higher(game: str) -> None:
    levels = bot_levels(game)
    assert set(LEVEL_RATINGS[game]) == set(levels)
    ratings = [LEVEL_RATINGS[game][level] for level in levels]  # weakest first
    assert ratings == sorted(ratings) and len(set(ratings)) == len(ratings), ratings
    assert all(isinstance(r, int) for r in ratings)


@pytest.mark.parametrize("game", SLUGS)
def test_level_near_picks_the_level_of_nearest_rating(game: str) -> None:
    rookie, regular, shark = bot_levels(game)
    ratings = LEVEL_RATINGS[game]
    for level in (rookie, regular, shark):
        assert level_near(game, ratings[level]) == level
        assert level_near(game, ratings[level] + 0.4) == level
    assert level_near(game, ratings[rookie] - 1000) == rookie
    assert level_near(game, ratings[shark] + 1000) == shark
    # just on the weaker side of the middle between two levels, and on the middle itself: the weaker one
    middle = (ratings[regular] + ratings[shark]) / 2
    assert level_near(game, middle - 1) == regular
    assert level_near(game, middle) == regular
    assert level_near(game, middle + 1) == shark


def test_level_near_and_level_rating_of_unknown_games_and_levels() -> None:
    with pytest.raises(ValueError, match="no rated bots"):
        level_near("chess", 1500)
    assert level_rating("chess", "search") is None
    assert level_rating("gomori", "no-such-level") is None
    assert level_rating("gomori", "search") == LEVEL_RATINGS["gomori"]["search"]
