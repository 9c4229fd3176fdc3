"""What the other processes, the lobby and the players hear of a change, through the channel layer, after the
commit: the match's new snapshot (for the processes holding a copy), "the lobby changed", and "your turn" cues
to people who are not at the table. A lost message never undoes a committed change: pages catch up on reconnect.
"""

from __future__ import annotations

import contextlib
import logging
from functools import partial
from typing import Any

import orjson
from asgiref.sync import async_to_sync
from channels.layers import InMemoryChannelLayer, get_channel_layer
from django.contrib.auth import get_user_model
from django.db import transaction

from accounts.sessions import notices_group

from ..layers import send_to_others
from ..models import Match
from .snapshot import Player, Snapshot, State, Status, must_act_of

log = logging.getLogger(__name__)

LOBBY_GROUP = "lobby"
LOBBY_CHANGED = {"type": "lobby.changed"}


def match_group(match_id: int) -> str:
    """The group of the processes holding a live copy of this match."""
    return f"live-{match_id}"


def readers_group(match_id: int) -> str:
    """The group of the Bot API's streams reading this match (games.api.streams), for the one case the match's
    own group is not told: the live match's changes in a process alone (the in-memory layer, `alone` in announce).
    A stream listens to both groups: on Redis the match's group carries every change and chat line (with the
    snapshot), so nothing more is sent for the streams there."""
    return f"readers-{match_id}"


def reader_message(snap: Snapshot) -> dict[str, Any]:
    """The change for the streams: the snapshot itself, so that no stream reads the database for it."""
    return {"type": "api.changed", "id": snap.id, "version": snap.version, "data": snap.to_json().decode()}


def readers_listen(layer: Any, match_id: int) -> bool:
    """Whether a stream reads this match through its readers' group: only on the in-memory layer, whose groups
    are here to look at (most matches have no reader: no snapshot is encoded for nobody)."""
    groups = getattr(layer, "groups", None)
    return isinstance(layer, InMemoryChannelLayer) and isinstance(groups, dict) \
        and bool(groups.get(readers_group(match_id)))


def changed_message(snap: Snapshot) -> dict[str, Any]:
    return {"type": "match.changed", "id": snap.id, "version": snap.version, "data": snap.to_json().decode()}


def turn_cues(snap: Snapshot, before: set[int], after: set[int]) -> list[tuple[str, dict[str, Any]]]:
    """The "your turn" news of a change: to each person whose turn it has just become, or has just stopped being
    (they moved, or the match ended), so that every page of theirs redraws its "your turn"."""
    cues = []
    since = snap.turn_started_at.isoformat() if snap.turn_started_at is not None else None
    for index in sorted(after ^ before):
        seat = snap.seat(index)
        if seat is not None and seat.player is not None and not seat.is_bot:
            # The cue carries what the header shows, so that a page redraws it without asking the database.
            cues.append((notices_group(seat.player.user_id), {
                "type": "turns.changed", "match": snap.id, "game": snap.game,
                "waiting": index in after and seat.substitute is None,
                "since": since,
            }))
    return cues


def publish(snap: Snapshot, before: Snapshot | None = None) -> None:
    """Tell every process holding this match (and the lobby, and whoever's turn it has become) about its new
    version; from sync code, after the commit."""
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(match_group(snap.id), changed_message(snap))  # the API's streams too
        async_to_sync(layer.group_send)(LOBBY_GROUP, LOBBY_CHANGED)
        for group, message in turn_cues(snap, must_act_of(before), must_act_of(snap)):
            async_to_sync(layer.group_send)(group, message)
    except Exception:  # a lost message must never undo a committed change: pages catch up on reconnect
        log.exception("could not announce match %s", snap.id)


async def announce(snap: Snapshot, state: State | None, before: Snapshot, before_state: State | None, *,
                   alone: bool, own: str | None = None) -> None:
    """A live match's change, from the process that wrote it: the cues, the other processes' copies (none to
    tell when this process is alone: the in-memory layer; never its own channel, `own`), and the lobby when
    seats or status changed."""
    layer = get_channel_layer()
    for group, message in turn_cues(snap, must_act_of(before, before_state), must_act_of(snap, state)):
        with contextlib.suppress(Exception):  # a cue is a courtesy: its loss costs nothing
            await layer.group_send(group, message)
    try:
        if not alone:
            await send_to_others(match_group(snap.id), changed_message(snap), own)  # the API's streams too
        elif readers_listen(layer, snap.id):
            await layer.group_send(readers_group(snap.id), reader_message(snap))
        if before.status != snap.status or before.seats != snap.seats:
            await layer.group_send(LOBBY_GROUP, LOBBY_CHANGED)
    except Exception:  # committed already: another process's copy then catches up at its next fence
        log.exception("could not announce match %s", snap.id)


def player_changed(*, user_id: int) -> None:
    """A player's name or picture changed: their live tables redraw it (no match row is touched)."""
    live = (Status.WAITING, Status.ACTIVE)
    ids = list(Match.objects.filter(status__in=live, seats__user_id=user_id).values_list("pk", flat=True).distinct())
    layer = get_channel_layer()
    if layer is None or not ids:
        return
    player = Player.of(get_user_model().objects.get(pk=user_id))
    for match_id in ids:
        message = {"type": "match.player", "id": match_id, "player": orjson.dumps(player).decode()}
        transaction.on_commit(partial(async_to_sync(layer.group_send), match_group(match_id), message))
