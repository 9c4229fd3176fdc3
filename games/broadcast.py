"""After a change commits: send every seat its own view, and the spectators one shared rendering."""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from typing import Any

import orjson
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from .engines import get_engine
from .memo import Memo
from .models import Match
from .rendering import match_meta, page_view, render_fragments, table_context
from .services import seats_of

log = logging.getLogger(__name__)


def seat_group(match_id: int, seat: int) -> str:
    return f"match-{match_id}-seat-{seat}"


def watch_group(match_id: int) -> str:
    return f"match-{match_id}-watch"


def build_messages(match: Match) -> list[tuple[str, dict[str, Any]]]:
    """(group, message) pairs for one match's current state: a view per person's seat, HTML for spectators."""
    seats = seats_of(match)  # the service that changed the match may have read them already
    meta = match_meta(match, seats)
    engine = get_engine(match.game)
    state = engine.load(match.state) if match.state is not None else None
    messages: list[tuple[str, dict[str, Any]]] = []
    for seat in seats:
        if seat.user is None or seat.user.is_bot:
            continue
        view = page_view(engine.view(state, seat.index)) if state is not None else None
        messages.append((seat_group(match.pk, seat.index), _message("match.view", meta, view)))
    # Spectators get the spectator view; each process renders it once however many of them watch.
    spectator_view = page_view(engine.view(state, None)) if state is not None else None
    messages.append((watch_group(match.pk), _message("match.watch", meta, spectator_view)))
    return messages


def _message(kind: str, meta: dict[str, Any], view: dict[str, Any] | None) -> dict[str, Any]:
    """A broadcast with its payload as one JSON string: a channel layer copies (in memory) or packs (Redis)
    a string far faster than the nested dicts of a view. Read it back with read_message."""
    return {"type": kind, "version": meta["version"], "data": orjson.dumps([meta, view]).decode()}


def read_message(event: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """(meta, view) of a broadcast made by _message."""
    meta, view = orjson.loads(event["data"])
    return meta, view


_spectator_pages: Memo[str] = Memo(256)


def spectator_html(meta: dict[str, Any], view: dict[str, Any] | None) -> str:
    """The spectators' rendering of one broadcast, shared by every spectator socket of this process.

    Keyed by the whole meta, not only version and status: presence, a seat handed to a bot and the
    rematch link change the page without a move.
    """
    key = (meta["id"], meta["version"], json.dumps(meta, sort_keys=True, default=str))
    return _spectator_pages.get(key, lambda: render_fragments(table_context(meta, view, None)))


_outbox = threading.local()


def collected(change: Callable[..., Any], **kwargs: Any) -> list[tuple[str, dict[str, Any]]]:
    """Run a service function and return the broadcasts its commit produced instead of sending them.

    For a consumer: it sends them from its own event loop, sparing the database thread a hop into the loop
    and back for every move."""
    _outbox.messages = []
    try:
        change(**kwargs)
        return _outbox.messages
    finally:
        del _outbox.messages


async def send_messages(messages: list[tuple[str, dict[str, Any]]]) -> None:
    layer = get_channel_layer()
    if layer is not None:
        for group, message in messages:
            await layer.group_send(group, message)


async def abroadcast_match(match_id: int) -> None:
    """The same, from async code (a consumer): no thread waits on the event loop, so a server that is
    shutting down can't hang on it."""
    from channels.db import database_sync_to_async

    layer = get_channel_layer()
    if layer is None:
        return

    def messages() -> list[tuple[str, dict[str, Any]]]:
        match = Match.objects.filter(pk=match_id).first()
        return build_messages(match) if match is not None else []

    await send_messages(await database_sync_to_async(messages)())


def broadcast_match(match_id: int, match: Match | None = None) -> None:
    """Send the current state of a match to everyone connected to it (called after commit, sync code)."""
    layer = get_channel_layer()
    if layer is None:
        return
    if match is None:
        match = Match.objects.filter(pk=match_id).first()
        if match is None:
            return
    messages = build_messages(match)
    outbox = getattr(_outbox, "messages", None)
    if outbox is not None:  # a consumer will send them from its own event loop (see collected)
        outbox.extend(messages)
        return

    try:
        async_to_sync(send_messages)(messages)
    except Exception:  # a broadcast failure must never undo or hide a committed move
        log.exception("broadcast of match %s failed", match_id)
