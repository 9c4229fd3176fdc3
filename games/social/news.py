"""Friends, what is pushed: a person's new status to the Friends panels of the people who follow them (each panel
joined its friends' groups, games.social.socket), and "your following changed" to a person's own pages. The
status travels in the message, so a panel redraws from what it holds: no query per panel per change."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

from accounts.sessions import notices_group

from ..core.faults import layer_unavailable
from ..models import Follow
from ..play.snapshot import Snapshot
from .queries import statuses

log = logging.getLogger(__name__)


def friends_group(user_id: int) -> str:
    """The group of the Friends panels that show this person."""
    return f"friends.{int(user_id)}"


def announce(user_ids: Iterable[int]) -> None:
    """These people's status may have changed: the panels following them are told it (one query when nobody
    follows them, three otherwise)."""
    followed = list(Follow.objects.filter(followed_id__in=list(user_ids)).values_list("followed_id", flat=True)
                    .distinct())
    if not followed:
        return
    layer = get_channel_layer()
    if layer is None:
        return
    for user_id, status in statuses(followed).items():
        event = {"type": "social.status", "user": user_id, "state": status.state, "match": status.match_id,
                 "away_until": status.away_until}
        try:
            async_to_sync(layer.group_send)(friends_group(user_id), event)
        except Exception as error:
            if not layer_unavailable(error):  # Redis away is said by the layer itself (games.core.layers)
                log.exception("could not tell the followers of %s", user_id)


def follows_changed(user_id: int) -> None:
    """Whom this person follows changed: their open lobbies read their Friends panel again."""
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(notices_group(user_id), {"type": "social.follows"})
    except Exception as error:
        if not layer_unavailable(error):
            log.exception("could not tell %s of their follows", user_id)


def _players(snap: Snapshot) -> list[int]:
    return [seat.user_id for seat in snap.seats if seat.user_id is not None]


def on_start(snap: Snapshot) -> None:
    """A match was dealt (in its transaction, games.play.events): its players' followers see them playing once it
    is committed."""
    players: Sequence[int] = _players(snap)
    if players:
        transaction.on_commit(lambda: announce(players), robust=True)


def on_end(snap: Snapshot) -> None:
    """A match ended (in its transaction): its players are no longer playing, once committed."""
    players: Sequence[int] = _players(snap)
    if players:
        transaction.on_commit(lambda: announce(players), robust=True)
