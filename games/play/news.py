"""What the other processes, the lobby and the players hear of a change, through the channel layer, after the
commit: the match's new snapshot (for the processes holding a copy), "the lobby changed", and "your turn" cues
to people who are not at the table. A lost message never undoes a committed change: pages catch up on reconnect.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from functools import partial
from typing import Any

import orjson
from asgiref.sync import async_to_sync
from channels.layers import InMemoryChannelLayer, get_channel_layer
from django.contrib.auth import get_user_model
from django.db import transaction

from accounts.sessions import notices_group

from ..core.layers import send_to_others
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
    own group is not told: the live match's news in a process alone (the in-memory layer, `alone` in tell_copies).
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


def lobby_told(snap: Snapshot, before: Snapshot | None) -> bool:
    """The one rule for what the lobby hears of a match: its lists show what is open, played and over and who sits
    where, so a match that is new, or whose status or seats changed; a move alone changes none of it (whose turn it
    is reaches each person's lobby with their turn cue, games.notify.consumer)."""
    return before is None or before.status != snap.status or before.seats != snap.seats


async def tell_copies(match_id: int, message: dict[str, Any], *, alone: bool = False, own: str | None = None,
                      readers: Callable[[], dict[str, Any]] | None = None) -> None:
    """News of a match for the processes holding a copy of it and the Bot API's streams reading it, both members
    of the match's group (never the teller's own channel `own` where the layer can leave it out). `alone`: the
    teller's copy is the only one (the in-memory layer), so only the streams are told, on their own group, when
    one listens and `readers` makes their message (not every news is theirs)."""
    if not alone:
        await send_to_others(match_group(match_id), message, own)
    elif readers is not None:
        layer = get_channel_layer()
        if readers_listen(layer, match_id):
            await layer.group_send(readers_group(match_id), readers())


async def announce(snap: Snapshot, before: Snapshot | None = None, *, state: State | None = None,
                   before_state: State | None = None, alone: bool = False, own: str | None = None) -> None:
    """A match's change, after its commit, under one rule whoever wrote it: the "your turn" cues, the processes'
    copies and the API's streams (tell_copies: `alone` and `own` are the live match's, games.play.owner), and the
    lobby when its lists change (lobby_told). `state` and `before_state` spare decoding the snapshots' states."""
    layer = get_channel_layer()
    if layer is None:
        return
    for group, message in turn_cues(snap, must_act_of(before, before_state), must_act_of(snap, state)):
        with contextlib.suppress(Exception):  # a cue is a courtesy: its loss costs nothing
            await layer.group_send(group, message)
    try:
        await tell_copies(snap.id, changed_message(snap), alone=alone, own=own, readers=partial(reader_message, snap))
        if lobby_told(snap, before):
            await layer.group_send(LOBBY_GROUP, LOBBY_CHANGED)
    except Exception:  # committed already: another process's copy then catches up at its next fence
        log.exception("could not announce match %s", snap.id)


def publish(snap: Snapshot, before: Snapshot | None = None) -> None:
    """announce, from sync code (a view, the admin, a command) after the commit: it holds no copy, so every
    process's copy is told (one of this process too), and the lobby of a new match (no `before`)."""
    if get_channel_layer() is None:
        return
    try:
        async_to_sync(announce)(snap, before)
    except Exception:  # a lost message must never undo a committed change: pages catch up on reconnect
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
