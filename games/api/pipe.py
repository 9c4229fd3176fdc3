"""A Bot API stream's plumbing (games.api.streams): its place in its bot's count of open streams, its channel on
the layer, its clock and its budget of unread bytes (games.api.outlet), the response that carries it."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator
from typing import Any

import orjson
from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from django.conf import settings
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse

from .auth import ApiError, Caller, authorize, error_response
from .outlet import Outlet, outlet_of
from .tokens import still_valid

log = logging.getLogger(__name__)

# Open streams per bot in one process (GAMES_API_STREAMS): a bot needs one events stream and one per match it
# plays; a program that opens streams in a loop is refused (429) past this, rather than holding a coroutine and a
# listener each.
_open: dict[int, int] = {}


class Held:
    """A stream's place in its bot's count, given back when it ends however it ends."""

    def __init__(self, user_id: int) -> None:
        self.user_id = user_id
        _open[user_id] = _open.get(user_id, 0) + 1

    def release(self) -> None:
        left = _open.get(self.user_id, 1) - 1
        if left > 0:
            _open[self.user_id] = left
        else:
            _open.pop(self.user_id, None)


def too_many(user_id: int) -> HttpResponse | None:
    cap = int(settings.GAMES_API_STREAMS)
    if _open.get(user_id, 0) >= cap:
        return error_response(429, f"Too many open streams: at most {cap} per bot.",
                              {"Retry-After": "5"})
    return None


def line(data: dict[str, Any]) -> bytes:
    return orjson.dumps(data) + b"\n"


class Dropped(Exception):
    """The reader stopped reading (or the stream's time is up)."""


class Pipe:
    """What a stream's loop needs: its channel on the layer, its clock, its budget."""

    def __init__(self, request: HttpRequest, caller: Caller) -> None:
        self.caller = caller
        self.held: Held | None = None  # counted once the stream runs (a response never sent counts for nothing)
        self.outlet: Outlet | None = outlet_of(getattr(request, "scope", {}) or {})
        self.started = time.monotonic()
        self.layer = get_channel_layer()
        self.channel = ""
        self.groups: list[str] = []

    async def join(self, *groups: str) -> None:
        self.held = Held(self.caller.user.pk)
        self.channel = await self.layer.new_channel()
        for group in groups:
            await self.layer.group_add(group, self.channel)
            self.groups.append(group)

    async def leave(self) -> None:
        if self.held is not None:
            self.held.release()
            self.held = None
        for group in self.groups:
            with contextlib.suppress(Exception):
                await self.layer.group_discard(group, self.channel)

    async def next_message(self, timeout: float) -> dict[str, Any] | None:
        try:
            message: dict[str, Any] = await asyncio.wait_for(self.layer.receive(self.channel), timeout)
            return message
        except TimeoutError:
            return None

    def out(self, data: bytes) -> bytes:
        """A chunk about to be sent, after the checks that drop a stream."""
        if time.monotonic() - self.started > float(settings.GAMES_API_STREAM_SECONDS):
            raise Dropped("time")
        if self.outlet is not None:
            waiting = self.outlet.buffered()
            # What waits already, not counting this line: one big line (Ruhd's legal placements) is not a flood.
            if waiting is not None and waiting > int(settings.GAMES_API_STREAM_BYTES):
                log.info("API stream of %s dropped: %s bytes unread", self.caller.user.username, waiting)
                self.outlet.abort()
                raise Dropped("unread")
        return data

    async def still_valid(self) -> bool:
        return bool(await database_sync_to_async(still_valid)(self.caller.token.pk))


async def authorized(request: HttpRequest, scope: str | None) -> Caller | HttpResponse:
    try:
        return await sync_to_async(authorize)(request, scope)
    except ApiError as error:
        return error_response(error.status, str(error), error.headers, **error.extra)


def streaming(body: AsyncIterator[bytes]) -> StreamingHttpResponse:
    response = StreamingHttpResponse(body, content_type="application/x-ndjson")
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"  # a proxy in front (nginx) passes each line on at once
    return response
