"""WebSocket consumers: thin. Authenticate, join groups, hand actions to services, send rendered HTML."""

from __future__ import annotations

import asyncio
import json
import logging
import re
import secrets
import time
from collections import deque
from typing import Any
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer

from . import services
from .broadcast import (
    abroadcast_match,
    collected,
    read_message,
    seat_group,
    send_messages,
    spectator_html,
    watch_group,
)
from .engines import IllegalAction, get_engine
from .engines.columbo import SlapTooLate
from .models import Match
from .rendering import SocketPage, error_fragment, match_meta, presenter, seat_names

log = logging.getLogger(__name__)

# Close codes (4000-4999 are the application's own).
CLOSE_UNAUTHENTICATED = 4401
CLOSE_FORBIDDEN = 4403
CLOSE_NOT_FOUND = 4404
CLOSE_TOO_MANY = 4429

MAX_FRAME_BYTES = 4096
MAX_FRAMES_PER_SECOND = 20
HEARTBEAT_SECONDS = 15
OPS = {"resign", "claim", "claim_bot", "rematch"}
# A slap that lost the race is told so; the winner's update, right behind, must not wipe the message at once.
LATE_NOTICE_SECONDS = 4.0
_SEAT_TOKEN = re.compile(r"\{s(\d)\}('s)?")


def user_group(user_id: int) -> str:
    return f"user-{user_id}"


class Unreadable(ValueError):
    """A frame (or a JSON string inside one) that is not the JSON the socket expects."""


def parse_json(text: str) -> Any:
    """json.loads for untrusted text: deep nesting (RecursionError) is unreadable too, never a server error."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        raise Unreadable from None


class NotifyConsumer(AsyncWebsocketConsumer):
    """A signed-in person's own channel: "your turn" cues and lobby refreshes. Anonymous sockets are refused."""

    async def connect(self) -> None:
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self.close(code=CLOSE_UNAUTHENTICATED)
            return
        self.group = user_group(user.pk)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()

    async def disconnect(self, code: int) -> None:
        if hasattr(self, "group"):
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        # Nothing to say to the server on this socket; anything sent is ignored.
        return

    async def notify_html(self, event: dict[str, Any]) -> None:
        await self.send(text_data=event["html"])


def load_access(match_id: int, user: Any, code: str) -> tuple[Match | None, int | None, bool]:
    """(match, the user's seat or None, may watch) for a connecting socket."""
    match = Match.objects.filter(pk=match_id).first()
    if match is None:
        return None, None, False
    seat = services.seat_of(match, user)
    if seat is not None and seat.user is not None and seat.user.is_bot:
        seat = None
    allowed = match.is_public or seat is not None or (bool(code) and secrets.compare_digest(code, match.invite_code))
    return match, seat.index if seat else None, allowed


def name_seats(message: str, names: list[str], viewer: int | None) -> str:
    """An engine sentence with its {sN} tokens as player names ("you"/"your" for the viewer), as plain text."""

    def name(found: re.Match[str]) -> str:
        index = int(found.group(1))
        if index == viewer:
            word = "your" if found.group(2) else "you"
            start = found.start() == 0 or message[: found.start()].endswith((". ", ": "))
            return word.capitalize() if start else word
        return (names[index] if index < len(names) else f"Seat {index + 1}") + (found.group(2) or "")

    return _SEAT_TOKEN.sub(name, message)


def current_payload(match_id: int, seat: int | None) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """(meta, view) of a match as it is now, for one viewer."""
    match = Match.objects.get(pk=match_id)
    seats = list(match.seats.select_related("user").order_by("index"))
    meta = match_meta(match, seats)
    view = None
    if match.state is not None:
        engine = get_engine(match.game)
        view = engine.view(engine.load(match.state), seat)
    return meta, view


class MatchConsumer(AsyncWebsocketConsumer):
    """One socket on one match: a seat's player or a spectator."""

    match_id: int
    seat: int | None
    groups_joined: list[str]
    closing = False
    # The newest match version this socket has shown: a broadcast older than that (two processes' broadcasts
    # can cross on the way) would put an old position back on the page, so it is dropped.
    shown_version = -1

    async def connect(self) -> None:
        self.match_id = int(self.scope["url_route"]["kwargs"]["match_id"])
        self.user = self.scope.get("user")
        query = parse_qs(self.scope.get("query_string", b"").decode("latin-1"))
        code = (query.get("code") or [""])[0][:64]
        match, seat, allowed = await database_sync_to_async(load_access)(self.match_id, self.user, code)
        if match is None:
            await self.close(code=CLOSE_NOT_FOUND)
            return
        if not allowed:
            await self.close(code=CLOSE_FORBIDDEN)
            return
        self.seat = seat
        self.ui: dict[str, Any] = {}
        self.late: tuple[str, float] | None = None  # a lost slap's message and until when it stays up
        self.meta: dict[str, Any] | None = None
        self.view: dict[str, Any] | None = None
        self.recent: deque[float] = deque()
        self.page = SocketPage()
        self.groups_joined = [seat_group(self.match_id, seat) if seat is not None else watch_group(self.match_id)]
        for group in self.groups_joined:
            await self.channel_layer.group_add(group, self.channel_name)
        if self.seat is not None:
            # Presence is announced before the socket is accepted, so whoever connects next can't get it late.
            await database_sync_to_async(services.seat_connected)(match_id=self.match_id, seat=self.seat)
            await abroadcast_match(self.match_id)
        await self.accept()
        await self.send_current()
        if self.seat is not None:
            self.heartbeat = asyncio.ensure_future(self.beat())

    async def disconnect(self, code: int) -> None:
        for group in getattr(self, "groups_joined", []):
            await self.channel_layer.group_discard(group, self.channel_name)
        if getattr(self, "seat", None) is not None:
            heartbeat = getattr(self, "heartbeat", None)
            if heartbeat is not None:
                heartbeat.cancel()
            await database_sync_to_async(services.seat_disconnected)(match_id=self.match_id, seat=self.seat)
            await abroadcast_match(self.match_id)

    async def beat(self) -> None:
        while True:
            await asyncio.sleep(HEARTBEAT_SECONDS)
            await database_sync_to_async(services.seat_heartbeat)(match_id=self.match_id, seat=self.seat)

    # -- incoming ------------------------------------------------------------------------------

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if self.closing:  # frames already on their way when the flood limit closed the socket
            return
        now = time.monotonic()
        self.recent.append(now)
        while self.recent and now - self.recent[0] > 1.0:
            self.recent.popleft()
        if len(self.recent) > MAX_FRAMES_PER_SECOND:
            self.closing = True
            await self.send(text_data=error_fragment("Too many messages: the connection was closed. Reload to go on."))
            await self.close(code=CLOSE_TOO_MANY)
            return
        raw = text_data if text_data is not None else (bytes_data or b"").decode("utf-8", "replace")
        if len(raw.encode("utf-8")) > MAX_FRAME_BYTES:
            await self.send_error("That message is too large to be a move.")
            return
        try:
            frame = parse_json(raw)
        except Unreadable:
            await self.send_error("That message could not be read.")
            return
        if not isinstance(frame, dict):
            await self.send_error("That message could not be read.")
            return
        if "ui" in frame:
            await self.handle_ui(frame["ui"])
        elif "action" in frame:
            await self.handle_action(frame.get("action"), frame.get("version"))
        elif frame.get("op") in OPS:
            await self.handle_op(frame)
        else:
            await self.send_error("Unknown request.")

    async def handle_ui(self, raw: Any) -> None:
        """A selection on the page (a card picked, a tile turned): re-render for this socket only."""
        if self.seat is None or self.view is None or self.meta is None:
            return
        if isinstance(raw, str):
            try:
                raw = parse_json(raw)
            except Unreadable:
                raw = {}
        self.ui = presenter(self.meta["game"]).clean_ui(self.view, self.seat, raw if isinstance(raw, dict) else {})
        await self.send_render(fragments=("board", "hand", "status", "error"))

    async def handle_action(self, action: Any, version: Any) -> None:
        if self.seat is None:
            await self.send_error("Spectators can't play: take a seat to play.")
            return
        if isinstance(action, str):
            try:
                action = parse_json(action)
            except Unreadable:
                await self.send_error("That move could not be read.")
                return
        expected = None
        if version not in (None, ""):
            try:
                if isinstance(version, bool):
                    raise TypeError(version)
                expected = int(version)  # JSON Infinity is a float: OverflowError
            except (TypeError, ValueError, OverflowError):
                await self.send_error("That move could not be read.")
                return
        try:
            messages = await database_sync_to_async(collected)(
                services.act, match_id=self.match_id, user=self.user, seat=self.seat, action=action,
                expected_version=expected,
            )
            await send_messages(messages)
            self.late = None  # this socket's own move went through: an older "too late" is no longer news
        except services.MatchMovedOn as error:
            await self.send_current(error=str(error))
        except SlapTooLate as error:
            message = self.named(str(error))
            self.late = (message, time.monotonic() + LATE_NOTICE_SECONDS)
            await self.send_error(message)
        except (IllegalAction, services.ServiceError) as error:
            await self.send_error(self.named(str(error)))

    def named(self, message: str) -> str:
        """A refusal with the players' names in place of the engine's {sN} tokens."""
        return name_seats(message, seat_names(self.meta), self.seat) if self.meta else message

    async def handle_op(self, frame: dict[str, Any]) -> None:
        op = frame["op"]
        try:
            if op == "resign":
                await database_sync_to_async(services.resign)(match_id=self.match_id, user=self.user)
            elif op in {"claim", "claim_bot"}:
                target = frame.get("seat")
                if isinstance(target, str) and target.isdigit():
                    target = int(target)
                if not isinstance(target, int) or isinstance(target, bool):
                    raise services.ServiceError("Say which seat to claim.")
                await database_sync_to_async(services.claim_abandoned)(
                    match_id=self.match_id, user=self.user, absent_seat=target, take_over_with_bot=op == "claim_bot"
                )
            elif op == "rematch":
                await database_sync_to_async(services.offer_rematch)(match_id=self.match_id, user=self.user)
        except services.ServiceError as error:
            await self.send_error(str(error))

    # -- outgoing ------------------------------------------------------------------------------

    async def send_current(self, error: str = "") -> None:
        self.meta, self.view = await database_sync_to_async(current_payload)(self.match_id, self.seat)
        self.shown_version = max(self.shown_version, self.meta["version"])
        self.ui = {}
        self.page.reset()
        await self.send_render(error=error)

    def is_stale(self, version: int) -> bool:
        """Whether a broadcast shows an older position than this socket already did (and remember the newest)."""
        if version < self.shown_version:
            return True
        self.shown_version = version
        return False

    async def send_render(self, error: str = "", fragments: tuple[str, ...] | None = None) -> None:
        assert self.meta is not None
        if not error and self.late is not None:
            if self.late[1] > time.monotonic():
                error = self.late[0]
            else:
                self.late = None
        if fragments is None:
            html = self.page.update(self.meta, self.view, self.seat, self.ui, error=error)
        else:
            html = self.page.update(
                self.meta, self.view, self.seat, self.ui, error=error, fragments=fragments, changed_only=False
            )
        if html:
            await self.send(text_data=html)

    async def send_error(self, message: str) -> None:
        await self.send(text_data=error_fragment(message))

    async def match_view(self, event: dict[str, Any]) -> None:
        """A seat's new view after a change: render it with a fresh selection."""
        if self.is_stale(event["version"]):
            return
        self.meta, self.view = read_message(event)
        # A presenter may carry part of the selection into the new view (Columbo: its switches and flashes).
        keep = getattr(presenter(self.meta["game"]), "keep_ui", None)
        self.ui = keep(self.view, self.seat, self.ui) if keep is not None and self.view is not None else {}
        await self.send_render()

    async def match_watch(self, event: dict[str, Any]) -> None:
        """The spectators' view after a change, rendered once per process and shared by its spectators."""
        if self.is_stale(event["version"]):
            return
        self.meta, self.view = read_message(event)
        await self.send(text_data=spectator_html(self.meta, self.view))
