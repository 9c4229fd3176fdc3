"""Telling the live pages that a tournament changed (its standings, its matches, its status), after the commit:
every tournament page open on it redraws over its notification socket, and the lobbies' lists follow."""

from __future__ import annotations

import logging

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from ..play.news import LOBBY_GROUP

log = logging.getLogger(__name__)


def group(tournament_id: int) -> str:
    return f"tournament-{tournament_id}"


def changed(tournament_id: int) -> None:
    """The tournament's page redraws (each socket on it: games.site.socket)."""
    _send(group(tournament_id), {"type": "tournament.changed", "id": tournament_id})


def lists_changed() -> None:
    """A tournament was created, started or finished: the lobbies' tournament lists redraw."""
    _send(LOBBY_GROUP, {"type": "lobby.changed"})


def _send(group_name: str, message: dict[str, object]) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(group_name, message)
    except Exception:  # the standings stand; the pages catch up at their next change or reload
        log.exception("could not tell %s", group_name)
