"""WebSocket consumers: thin. Read and type-check a frame, check who is asking, hand it to the live match
(games/live.py), send the HTML it gives back. Nothing a client sends can raise out of them."""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
from typing import Any
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.crypto import constant_time_compare

from . import chat, lobby, services
from .catalog import kit
from .engines import IllegalAction
from .live import LiveMatch, hub
from .rendering import SocketPage, error_fragment, match_meta, page_view, render_fragment, seat_names

log = logging.getLogger(__name__)

# Close codes (4000-4999 are the application's own).
CLOSE_UNAUTHENTICATED = 4401
CLOSE_FORBIDDEN = 4403
CLOSE_NOT_FOUND = 4404
CLOSE_TOO_MANY = 4429

MAX_FRAME_BYTES = 4096
# The frame limit is a token bucket: bursts of up to BURST frames, then RATE a second. A frame that makes a
# move gives its token back: the rules bound how many moves there can be, so a fast client that plays
# (the bench, a quick player) is never cut off, while a flood of anything else is closed.
BURST = 40
RATE = 20.0
OPS = frozenset({"resign", "claim", "claim_bot", "rematch", "decline", "cancel", "leave", "abort", "retake", "chat",
                 "mute", "unmute"})
# A slap that lost the race is told so; the winner's update, right behind, must not wipe the message at once.
LATE_NOTICE_SECONDS = 4.0
_SEAT_TOKEN = re.compile(r"\{s(\d)\}('s)?")
_DIGITS = re.compile(r"\d{1,9}")


class Unreadable(ValueError):
    """A frame (or a field inside one) that is not what the socket expects."""


def parse_json(text: str) -> Any:
    """json.loads for untrusted text: deep nesting (RecursionError) is unreadable too, never a server error,
    and so is a lone surrogate escape ("\\ud800"): a refusal that quoted it could not be sent as UTF-8."""
    try:
        value = json.loads(text)
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except (ValueError, RecursionError):  # UnicodeEncodeError is a ValueError
        raise Unreadable from None
    return value


def json_field(value: Any) -> dict[str, Any]:
    """An object field, sent as an object or as JSON text holding one (hx-vals sends both)."""
    if isinstance(value, str):
        value = parse_json(value)
    if not isinstance(value, dict):
        raise Unreadable
    return value


def int_field(value: Any) -> int | None:
    """A whole number field (form inputs send digits as text); None when absent; never a float or a bool."""
    if value is None or value == "":
        return None
    if type(value) is int and 0 <= value < 10**9:
        return value
    if isinstance(value, str) and _DIGITS.fullmatch(value):
        return int(value)
    raise Unreadable


def session_user_id(session_key: str | None) -> int | None:
    """Whose session this still is: None once it was signed out, flushed, or its password changed."""
    from importlib import import_module

    if not session_key:
        return None
    store = import_module(settings.SESSION_ENGINE).SessionStore(session_key)
    try:
        data = store.load()
        user_id = data.get(SESSION_KEY)
        backend = data.get(BACKEND_SESSION_KEY)
        if user_id is None or backend not in settings.AUTHENTICATION_BACKENDS:
            return None
        user = get_user_model()._meta.pk.to_python(user_id)
        found = get_user_model().objects.filter(pk=user).first()
    except Exception:
        return None
    if found is None or not constant_time_compare(data.get(HASH_SESSION_KEY, ""), found.get_session_auth_hash()):
        return None
    return found.pk


class SessionBound(AsyncWebsocketConsumer):
    """A signed-in person's socket that ends with their session: signing out, or a password change from
    another browser, closes it (games.signals sends the check)."""

    user_groups: list[str]

    async def join_user_group(self) -> None:
        user = self.scope.get("user")
        self.user_groups = [services.user_group(user.pk)] if user is not None and user.is_authenticated else []
        for group in self.user_groups:
            await self.channel_layer.group_add(group, self.channel_name)

    async def leave_user_group(self) -> None:
        for group in getattr(self, "user_groups", []):
            await self.channel_layer.group_discard(group, self.channel_name)

    async def session_check(self, event: dict[str, Any]) -> None:
        """Close this socket if its session ended (signed out, flushed, or its password changed)."""
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            return
        key = getattr(self.scope.get("session"), "session_key", None)
        if key is None or event.get("ended") == key or await database_sync_to_async(session_user_id)(key) != user.pk:
            await self.close(code=CLOSE_UNAUTHENTICATED)
            await self.ended()

    async def ended(self) -> None:
        """What else a closed socket gives up (a match socket: its seat's presence)."""


class NotifyConsumer(SessionBound):
    """A person's own channel: "your turn" cues from their matches; with ?lobby=1 (the lobby page) also the
    lobby's lists as matches open, fill and finish. Anyone may watch the lobby; cues are for signed-in people."""

    async def connect(self) -> None:
        await self.join_user_group()
        self.lobby = parse_qs(self.scope.get("query_string", b"").decode("latin-1")).get("lobby") == ["1"]
        if self.lobby:
            await self.channel_layer.group_add(services.LOBBY_GROUP, self.channel_name)
        self.pending: asyncio.Task[None] | None = None
        await self.accept()

    async def disconnect(self, code: int) -> None:
        await self.leave_user_group()
        if getattr(self, "lobby", False):
            await self.channel_layer.group_discard(services.LOBBY_GROUP, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        return  # nothing to say to the server on this socket

    async def notify_html(self, event: dict[str, Any]) -> None:
        await self.send(text_data=event["html"])

    async def turn_cue(self, event: dict[str, Any]) -> None:
        """It became this person's turn in a match they are not looking at (games.live)."""
        await self.send(text_data=render_to_string("games/_turn_cue.html", event))
        if self.lobby:  # their list of matches says whose turn it is
            await self.lobby_changed(event)

    async def lobby_changed(self, event: dict[str, Any]) -> None:
        """Redraw this person's lobby lists, at most twice a second however busy the club is."""
        if self.pending is None or self.pending.done():
            self.pending = asyncio.ensure_future(self._send_lobby())

    async def _send_lobby(self) -> None:
        await asyncio.sleep(0.5)
        # The lists' Join forms post with the page's CSRF secret (the cookie this socket came with).
        csrf = self.scope.get("cookies", {}).get(settings.CSRF_COOKIE_NAME, "")
        html = await database_sync_to_async(lobby.lists_html)(self.scope["user"], csrf)
        await self.send(text_data=html)


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


class MatchConsumer(SessionBound):
    """One socket on one match: a seat's player or a spectator."""

    live: LiveMatch | None = None
    seat: int | None = None

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        # However the socket ends (a close, an error, a cancelled task) its seat's presence is released.
        try:
            await super().__call__(scope, receive, send)
        finally:
            await self.leave()

    async def connect(self) -> None:
        self.match_id = int(self.scope["url_route"]["kwargs"]["match_id"])
        user = self.scope.get("user")
        self.user_id: int | None = user.pk if user is not None and user.is_authenticated else None
        query = parse_qs(self.scope.get("query_string", b"").decode("latin-1"))
        code = (query.get("code") or [""])[0][:64]
        live = await hub().get(self.match_id)
        if live is None:
            await self.close(code=CLOSE_NOT_FOUND)
            return
        live.arriving += 1  # no await since get: the copy is still the hub's
        try:
            await self.enter(live, code)
        finally:
            live.arriving -= 1
            await live.hub.drop(live)  # if this socket was refused and nobody else holds the copy

    async def enter(self, live: LiveMatch, code: str) -> None:
        held = live.snap.seat_of(self.user_id)
        self.seat = held.index if held is not None and not held.is_bot else None
        # A person whose seat a bot plays since they left watches, and may take it back.
        self.own_seat = held.index if held is not None and held.left else None
        self.notice: tuple[Any, ...] | None = None
        self.rematch_url: str | None = None
        self.muted = await database_sync_to_async(chat.muted_by)(match_id=self.match_id, user_id=self.user_id)
        if not live.snap.may_watch(self.user_id, code):
            await self.close(code=CLOSE_FORBIDDEN)
            return
        self.ui: dict[str, Any] = {}
        self.late: tuple[str, float] | None = None  # a lost slap's message and until when it stays up
        self.page = SocketPage()
        self.tokens = float(BURST)
        self.refilled = time.monotonic()
        await self.join_user_group()
        self.live = live
        await live.arrive(self)
        await self.accept()
        live.attach(self)
        # The chat panel comes with the page, in the one message a page opens with.
        await self.show(live, {}, full=True, extra=await self.chat_panel())

    async def disconnect(self, code: int) -> None:
        await self.leave()

    async def ended(self) -> None:
        await self.leave()

    async def turn_cue(self, event: dict[str, Any]) -> None:
        """A cue for this person's notification socket (it shares their group): a table has its own news."""

    async def notify_html(self, event: dict[str, Any]) -> None:
        """Likewise: for the notification socket only."""

    async def leave(self) -> None:
        live, self.live = self.live, None
        if live is not None:
            try:
                await live.detach(self)
            except Exception:
                log.exception("socket left match %s", self.match_id)
            await self.leave_user_group()

    # -- incoming ------------------------------------------------------------------------------

    def take_token(self) -> bool:
        now = time.monotonic()
        self.tokens = min(BURST, self.tokens + (now - self.refilled) * RATE)
        self.refilled = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if self.live is None:  # closing already: frames still on their way
            return
        if not self.take_token():
            await self.send(text_data=error_fragment("Too many messages: the connection was closed. Reload to go on."))
            await self.close(code=CLOSE_TOO_MANY)
            await self.leave()
            return
        try:
            if text_data is None:
                raise Unreadable("This socket takes text frames only.")
            if len(text_data) > MAX_FRAME_BYTES or len(text_data.encode("utf-8")) > MAX_FRAME_BYTES:
                raise Unreadable("That message is too large to be a move.")
            frame = parse_json(text_data)
            if not isinstance(frame, dict):
                raise Unreadable
            await self.handle(frame)
        except Unreadable as error:
            await self.send_error(str(error) or "That message could not be read.")
        except Exception:  # a bug must cost this frame only, never the socket or the match
            log.exception("frame on match %s", self.match_id)
            await self.send_error("Something went wrong with that request; the game goes on.")

    async def handle(self, frame: dict[str, Any]) -> None:
        if "ui" in frame:
            await self.handle_ui(frame["ui"])
        elif "action" in frame:
            await self.handle_action(frame["action"], frame.get("version"))
        elif isinstance(frame.get("op"), str) and frame["op"] in OPS:
            await self.handle_op(frame["op"], frame)
        else:
            await self.send_error("Unknown request.")

    async def handle_ui(self, raw: Any) -> None:
        """A selection on the page (a card picked, a tile turned): re-render for this socket only."""
        live = self.live
        if self.seat is None or live is None or live.state is None:
            return
        try:
            raw = json_field(raw)
        except Unreadable:
            raw = {}
        self.ui = kit(live.snap.game).presenter.clean_ui(page_view(live.view(self.seat)), self.seat, raw)
        await self.send_page(live, {}, fragments=("board", "hand", "status", "error"))

    async def handle_action(self, action: Any, version: Any) -> None:
        live = self.live
        if self.seat is None or live is None or self.user_id is None:
            await self.send_error("Spectators can't play: take a seat to play.")
            return
        try:
            action = json_field(action)
            expected = int_field(version)
        except Unreadable:
            await self.send_error("That move could not be read.")
            return
        try:
            await live.act(user_id=self.user_id, seat=self.seat, action=action, expected_version=expected)
        except services.MatchMovedOn as error:
            await self.show(live, {}, full=True, error=str(error))
        except (IllegalAction, services.ServiceError) as error:
            message = self.named(str(error))
            if isinstance(error, kit(live.snap.game).lingering_refusals):  # e.g. a slap that came too late
                self.late = (message, time.monotonic() + LATE_NOTICE_SECONDS)
            await self.send_error(message)
        except (KeyError, TypeError, ValueError, IndexError, AttributeError):
            # An engine meeting an action of the wrong shape: a refusal, not a server error.
            await self.send_error("That move is not one the game knows.")
        else:
            self.tokens = min(BURST, self.tokens + 1)  # a move is never a flood
            self.late = None  # this socket's own move went through: an older "too late" is no longer news

    def named(self, message: str) -> str:
        """A refusal with the players' names in place of the engine's {sN} tokens."""
        if self.live is None:
            return message
        return name_seats(message, seat_names(match_meta(self.live.snap, self.live.presence, self.live.watchers,
                                                         self.live.state)), self.seat)

    async def handle_op(self, op: str, frame: dict[str, Any]) -> None:
        live = self.live
        if live is None or self.user_id is None:
            await self.send_error("Sign in to take part.")
            return
        try:
            if op == "resign":
                await live.resign(user_id=self.user_id)
            elif op in {"claim", "claim_bot"}:
                try:
                    target = int_field(frame.get("seat"))
                except Unreadable:
                    target = None
                if target is None:
                    raise services.ServiceError("Say which seat to claim.")
                await live.claim(user_id=self.user_id, absent_seat=target, with_bot=op == "claim_bot")
            elif op in {"rematch", "decline"}:
                await live.rematch(user_id=self.user_id, accept=op == "rematch")
            elif op == "cancel":
                await live.cancel(user_id=self.user_id)
                await self.goto(reverse("play"))
            elif op == "leave":
                await database_sync_to_async(services.leave_match)(match_id=self.match_id, user=self.scope["user"])
                await self.goto(reverse("play"))
            elif op == "abort":
                await live.abort(user_id=self.user_id)
            elif op == "chat":
                await self.post_chat(frame.get("text"))
            elif op in {"mute", "unmute"}:
                try:
                    other = int_field(frame.get("user"))
                except Unreadable:
                    other = None
                if other is None:
                    raise services.ServiceError("Say whom to mute.")
                self.muted = await database_sync_to_async(chat.set_mute)(
                    match_id=self.match_id, user_id=self.user_id, other=other, mute=op == "mute")
                await self.send_chat()
            elif op == "retake":
                await live.retake(user_id=self.user_id)
                await self.goto(live.snap_url())  # the page comes back as the seat's own
        except services.ServiceError as error:
            await self.send_error(str(error))

    # -- chat ----------------------------------------------------------------------------------

    @property
    def room(self) -> str:
        """The seated players talk among themselves; everyone else in the spectators' room."""
        return "players" if self.seat is not None else "spectators"

    async def post_chat(self, raw: Any) -> None:
        live = self.live
        if live is None or self.user_id is None:
            raise services.ServiceError("Sign in to chat.")
        text = chat.clean_text(raw)
        if not chat.throttle.take(self.user_id):
            raise services.ServiceError("You are sending messages too fast: wait a moment.")
        line = await database_sync_to_async(chat.post)(match_id=self.match_id, user=self.scope["user"],
                                                       room=self.room, text=text)
        await live.chat(line)

    async def chat_panel(self) -> str:
        """The whole chat panel of this socket's room, as this person sees it (without the people they muted)."""
        lines = await database_sync_to_async(chat.recent)(match_id=self.match_id, room=self.room, muted=self.muted)
        return render_fragment("chat", {
            "lines": lines, "room": self.room, "me": self.user_id, "muted": self.muted, "max": chat.MAX_LENGTH})

    async def send_chat(self) -> None:
        await self.send(text_data=await self.chat_panel())

    async def chat_line(self, line: chat.Line) -> None:
        if line.room == self.room and line.user_id not in self.muted:
            await self.send(text_data=render_fragment("chat_line", {"line": line, "me": self.user_id}))

    async def chat_hidden(self, line_id: int) -> None:
        await self.send(text_data=f'<li id="chat-{int(line_id)}" hx-swap-oob="delete"></li>')

    async def goto(self, url: str) -> None:
        """Move this page to another address (the match was left, a seat taken back)."""
        await self.send(text_data=render_fragment("goto", {"goto": url}))

    # -- outgoing ------------------------------------------------------------------------------

    async def show(
        self, live: LiveMatch, shared: dict[Any, str], full: bool = False, error: str = "", extra: str = "",
    ) -> None:
        """The page after a change of the match (or all of it, on connect and when a move came too late)."""
        if full:
            self.page.reset()
            self.ui = {}
        else:
            # A presenter may carry part of the selection into the new view (Columbo: its switches and flashes).
            view = self.view_of(live, shared)
            self.ui = kit(live.snap.game).keep_ui(view, self.seat, self.ui) if view is not None else {}
        await self.send_page(live, shared, error=error, extra=extra)

    def view_of(self, live: LiveMatch, shared: dict[Any, Any]) -> dict[str, Any] | None:
        """This seat's view, made once per update of the match for every socket of the seat."""
        key = ("view", self.seat)
        if key not in shared:
            shared[key] = page_view(live.view(self.seat))
        return shared[key]

    async def send_page(
        self, live: LiveMatch, shared: dict[Any, Any], error: str = "", fragments: tuple[str, ...] | None = None,
        extra: str = "",
    ) -> None:
        if not error and self.late is not None:
            if self.late[1] > time.monotonic():
                error = self.late[0]
            else:
                self.late = None
        # What every socket of this update shares: the match's meta and each seat's view, made once.
        if "meta" not in shared:
            shared["meta"] = match_meta(live.snap, live.presence, live.watchers, live.state)
        meta = shared["meta"]
        view = self.view_of(live, shared)
        if fragments is None:
            html = self.page.update(meta, view, self.seat, self.ui, error=error, shared=shared)
        else:
            html = self.page.update(meta, view, self.seat, self.ui, error=error, fragments=fragments,
                                    changed_only=False, shared=shared)
        html += self.extras(live, meta) + extra
        if html:
            await self.send(text_data=html)

    def extras(self, live: LiveMatch, meta: dict[str, Any]) -> str:
        """What only this socket is sent: the notice of a seat handed to a bot, the move to a rematch."""
        html = ""
        if self.own_seat is not None:
            seat = live.snap.seat(self.own_seat)
            left = seat is not None and seat.left and live.snap.status == "active"
            move = next((h["move"] for h in reversed(live.snap.handovers) if h["seat"] == self.own_seat), 0)
            notice = (left, move)
            if notice != self.notice:
                self.notice = notice
                html += render_fragment("seat_notice", {"left_seat": self.own_seat if left else None,
                                                        "left_move": move})
        url = meta["rematch_url"]
        if self.rematch_url is None:
            self.rematch_url = url  # what the page had when it opened: an old rematch moves nobody
        elif url and url != self.rematch_url:
            self.rematch_url = url
            html += render_fragment("goto", {"goto": url})
        return html

    async def send_error(self, message: str) -> None:
        await self.send(text_data=error_fragment(message))
