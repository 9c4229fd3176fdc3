"""The bot accounts: one user per game and bot level, so bot seats are ordinary seats; and the one choice of the
bot that takes over a person's seat (when they left, or ran out of time at a table of more than two)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model

from accounts.models import User

from ..catalog import GAMES, kit
from .snapshot import Player, ServiceError

LEVEL_TITLES = {"random": "Rookie", "reference": "Regular", "greedy": "Regular", "search": "Shark", "strong": "Shark"}


def bot_levels(slug: str) -> list[str]:
    """The level names of a game's bots, weakest first."""
    return GAMES[slug].levels


def bot_level_blurb(slug: str, level: str) -> str:
    """One sentence on how a game's bot level plays; "" when it has none."""
    return GAMES[slug].level_blurbs.get(level, "")


def bot_username(slug: str, level: str) -> str:
    return f"bot-{slug}-{level}"


def ensure_bot_accounts(using: str = "default") -> list[Any]:
    """Create any missing bot user; existing ones are left as they are."""
    user_model = get_user_model()
    users = []
    for slug, game in GAMES.items():
        for level in game.levels:
            title = LEVEL_TITLES.get(level, level.title())
            user, created = user_model.objects.using(using).get_or_create(
                username=bot_username(slug, level),
                defaults={
                    "display_name": f"{game.name} {title} (bot)",
                    "is_bot": True,
                    "bot_game": slug,
                    "bot_level": level,
                },
            )
            if created:
                user.set_unusable_password()
                user.save(using=using, update_fields=["password"])
            users.append(user)
    return users


def bot_user(slug: str, level: str) -> User:
    """The account of a game's bot level (created if missing: a database made before a level was added)."""
    user_model = get_user_model()
    for attempt in range(2):
        try:
            return user_model.objects.get(username=bot_username(slug, level), is_bot=True)
        except user_model.DoesNotExist:
            if attempt == 0:
                ensure_bot_accounts()
    raise ServiceError(f"There is no {level} bot for {GAMES[slug].name}.")


def bot_player(slug: str, level: str) -> Player:
    return Player.of(bot_user(slug, level))


def takeover_bot(slug: str) -> Player:
    """The bot that plays a seat its person left (claimed after their absence, or out of time at a table of
    more than two): the game's middle level, a fair stand-in (Kit.takeover_level)."""
    return bot_player(slug, kit(slug).takeover_level)
