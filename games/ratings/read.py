"""A player's current rating in a game, as every feature reads it (the lobby's Watch list, quick pairing,
tournaments): a person's from their statistics row (the start rating before their first match), a bot's its
level's measured rating, the same number the seat choices and the leaderboard show."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol

from accounts.models import User

from ..models import PlayerStats
from .rules import START_RATING, bot_rating


def ratings_of(game: str, players: Iterable[User]) -> dict[int, float]:
    """user id -> current rating in this game (one query for the people among them, none for bots)."""
    players = list(players)
    people = [user.pk for user in players if not user.is_bot]
    stored = dict(PlayerStats.objects.filter(game=game, user_id__in=people).values_list("user_id", "rating")
                  ) if people else {}
    return {user.pk: bot_rating(game, user.bot_level) if user.is_bot else float(stored.get(user.pk, START_RATING))
            for user in players}


def rating_of(user: User, game: str) -> float:
    """One player's current rating in this game."""
    return ratings_of(game, [user])[user.pk]


class Rated(Protocol):
    """What a rating is read from: a User, or a list's plain row of one (games.lobby.queries.ListPlayer)."""

    @property
    def pk(self) -> Any: ...
    @property
    def is_bot(self) -> bool: ...
    @property
    def bot_level(self) -> str: ...


def ratings_by_game(players: Iterable[tuple[str, Rated]]) -> dict[tuple[str, int], float]:
    """(game, user id) -> current rating, for (game, player) pairs of several games: `ratings_of`'s numbers in one
    query for them all (the lobby's Watch list read one a game)."""
    pairs = list(players)
    people = {user.pk for _, user in pairs if not user.is_bot}
    games = {game for game, user in pairs if not user.is_bot}
    stored = {(game, user_id): rating for user_id, game, rating in PlayerStats.objects.filter(
        game__in=games, user_id__in=people).values_list("user_id", "game", "rating")} if people else {}
    return {(game, user.pk): bot_rating(game, user.bot_level) if user.is_bot
            else float(stored.get((game, user.pk), START_RATING)) for game, user in pairs}
