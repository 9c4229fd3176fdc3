"""The bot levels as a person picks them: three per game, titled alike, each with a sentence on how it plays,
shown in the lobby where the level is chosen."""

from __future__ import annotations

import html
import importlib

import pytest
from django.conf import settings
from django.test import Client

from games.bots_accounts import LEVEL_TITLES, bot_level_blurb, bot_levels
from games.engines import SLUGS


@pytest.mark.parametrize("game", SLUGS)
def test_every_game_has_a_rookie_a_regular_and_a_shark_each_with_a_sentence(game: str) -> None:
    levels = bot_levels(game)
    assert [LEVEL_TITLES[level] for level in levels] == ["Rookie", "Regular", "Shark"]
    module = importlib.import_module(f"games.bots.{game}")
    assert set(module.LEVEL_BLURBS) == set(levels)
    for level in levels:
        blurb = bot_level_blurb(game, level)
        assert blurb == module.LEVEL_BLURBS[level]
        assert blurb[0].isupper() and blurb.endswith(".") and blurb.count(". ") == 0 and len(blurb) < 200
    assert bot_level_blurb(game, "no-such-level") == ""


@pytest.mark.django_db
def test_the_lobby_says_how_each_level_plays() -> None:
    page = html.unescape(Client().get("/play/").content.decode())
    for game in SLUGS:
        for level in bot_levels(game):
            assert f"<strong>{LEVEL_TITLES[level]}</strong>: {bot_level_blurb(game, level)}" in page


def test_columbo_card_actions_come_before_the_next_player_draws() -> None:
    """A bot's own 7-Q action is an optional move: the live service waits its level's reaction delay, while the
    next seat draws after GAMES_BOT_DELAY (and wins a tie), which ends the action. Every level must come first,
    or its 9s, 10s and Jacks lapse unused."""
    from games.bots.columbo import BOTS, REACTION_DELAY

    for level in BOTS:
        assert 0 < REACTION_DELAY[level] < settings.GAMES_BOT_DELAY, level
