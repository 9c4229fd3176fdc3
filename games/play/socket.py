"""The match socket: thin. Read and type-check a frame (games.play.frames), check who is asking, hand the change
to the live match (games.play.owner) with its decider, send the HTML it gives back. Nothing a client sends can
raise out of it."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from django.urls import reverse

from accounts.sessions import SessionBound

from ..catalog import kit
from ..core.faults import DATABASE, db_unavailable
from ..engines.base import IllegalAction, View
from .bot_accounts import takeover_bot
from .chat import ChatSocket
from .decide import (
    Decider,
    decide_abort,
    decide_claim,
    decide_decline_rematch,
    decide_rematch,
    decide_resign,
)
from .display import RenderCache, SocketPage, error_fragment, render_fragment, seat_notice, seat_notice_html
from .frames import (
    CLOSE_FORBIDDEN,
    CLOSE_NOT_FOUND,
    CLOSE_TOO_MANY,
    TokenBucket,
    Unreadable,
    int_field,
    json_field,
    read_frame,
)
from .hub import BUSY, hub
from .owner import LiveMatch
from .presence import presence_of
from .seating import decide_cancel, decide_leave, decide_retake
from .snapshot import MatchMovedOn, ServiceError, Status
from .wording import name_seats

log = logging.getLogger(__name__)

# A slap that lost the race is told so; the winner's update, right behind, must not wipe the message at once.
LATE_NOTICE_SECONDS = 4.0


@dataclass(frozen=True)
class MatchOp:
    """A frame's op that changes the match: its decider, what the decision needs besides who asks, and where
    the page goes afterwards."""

    decide: Decider
    seat: bool = False  # the frame names a seat (a claim)
    presence: bool = False  # decided on the database's presence and copy (a claim)
    bot: bool = False  # the bot that takes a seat over
    goto: str = ""  # "lobby" or "match" afterwards


MATCH_OPS: dict[str, MatchOp] = {
    "resign": MatchOp(decide_resign),
    "abort": MatchOp(decide_abort),
    "claim": MatchOp(decide_claim, seat=True, presence=True),
    "claim_bot": MatchOp(decide_claim, seat=True, presence=True, bot=True),
    "rematch": MatchOp(decide_rematch),
    "decline": MatchOp(decide_decline_rematch),
    "cancel": MatchOp(decide_cancel, goto="lobby"),
    "leave": MatchOp(decide_leave, goto="lobby"),
    "retake": MatchOp(decide_retake, goto="match"),  # the page comes back as the seat's own
}


class MatchConsumer(ChatSocket, SessionBound):
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
        # The viewer's chosen time zone (blank: the browser's), for a correspondence match's due times.
        self.zone: str = getattr(user, "time_zone", "") if self.user_id is not None else ""
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
        self.notice: tuple[int | None, int] | None = None  # what its seat_notice was last sent as
        self.rematch_url: str | None = None
        if not live.snap.may_watch(self.user_id, code):
            await self.close(code=CLOSE_FORBIDDEN)
            return
        self.ui: dict[str, Any] = {}
        self.late: tuple[str, float] | None = None  # a lost slap's message and until when it stays up
        self.shown_version = -1  # the newest version this page was drawn: it is never drawn an older one
        self.page = SocketPage()
        self.bucket = TokenBucket()
        # Accepted as soon as the answer is known, before the rest is read and written: daphne drops a handshake
        # not answered within 5 s, and a busy process's database thread has a queue (at N=1000 a third of the
        # sockets were dropped and opened again, and their reopenings fed the queue: issue 41). No frame of this
        # socket is handled before connect returns (Channels dispatches its messages one at a time).
        await self.accept()
        self.muted: frozenset[int] = frozenset()
        await self.join_user_group()
        self.live = live
        # Its mutes come with its presence's trip, gathered with the other sockets opening meanwhile: joined to the
        # person's group first, so a mute made while it opens is read or heard, never missed.
        self.muted = await live.arrive(self) or frozenset()
        live.attach(self)
        # The chat panel comes with the page, in the one message a page opens with.
        await self.show(live, live.render_cache(), full=True, extra=await self.chat_panel())

    async def disconnect(self, code: int) -> None:
        await self.leave()

    async def ended(self) -> None:
        await self.leave()

    async def leave(self) -> None:
        live, self.live = self.live, None
        if live is not None:
            try:
                await live.detach(self)
            except Exception as error:
                if db_unavailable(error):  # its presence row stops counting with this process's pulse, or is
                    DATABASE.failed(error)  # deleted when the socket's process is forgotten (games.play.liveness)
                else:
                    log.exception("socket left match %s", self.match_id)
            await self.leave_user_group()

    # -- incoming ------------------------------------------------------------------------------

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if self.live is None:  # closing already: frames still on their way
            return
        if not self.bucket.take():
            await self.send(text_data=error_fragment("Too many messages: the connection was closed. Reload to go on."))
            await self.close(code=CLOSE_TOO_MANY)
            await self.leave()
            return
        try:
            await self.handle(read_frame(text_data))
        except Unreadable as error:
            await self.send_error(str(error) or "That message could not be read.")
        except Exception as error:  # a bug must cost this frame only, never the socket or the match
            if db_unavailable(error):  # the database away while this frame read it: nothing was written
                DATABASE.failed(error)
                await self.send_error(BUSY)
                return
            log.exception("frame on match %s", self.match_id)
            await self.send_error("Something went wrong with that request; the game goes on.")

    async def handle(self, frame: dict[str, Any]) -> None:
        op = frame.get("op")
        if "ui" in frame:
            await self.handle_ui(frame["ui"])
        elif "action" in frame:
            await self.handle_action(frame["action"], frame.get("version"))
        elif isinstance(op, str) and (op in MATCH_OPS or op in self.chat_ops):
            if self.live is None or self.user_id is None:
                await self.send_error("Sign in to take part.")
            elif op in MATCH_OPS:
                await self.handle_op(MATCH_OPS[op], frame)
            else:
                await self.chat_ops[op](self, frame)
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
        cache = live.render_cache()
        self.ui = kit(live.snap.game).presenter.clean_ui(cache.view(self.seat), self.seat, raw)
        await self.send_page(live, cache, fragments=("board", "hand", "status", "error"))

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
            await live.move(seat=self.seat, action=action, user_id=self.user_id, expected_version=expected)
        except MatchMovedOn as error:
            await self.show(live, live.render_cache(), full=True, error=str(error))
        except (IllegalAction, ServiceError) as error:
            message = self.named(str(error))
            if isinstance(error, kit(live.snap.game).lingering_refusals):  # e.g. a slap that came too late
                self.late = (message, time.monotonic() + LATE_NOTICE_SECONDS)
            await self.send_error(message)
        else:
            self.bucket.give_back()  # a move is never a flood
            self.late = None  # this socket's own move went through: an older "too late" is no longer news

    def named(self, message: str) -> str:
        """A refusal with the players' names in place of the engine's {sN} tokens."""
        if self.live is None:
            return message
        return name_seats(message, self.live.render_cache().meta.names, self.seat)

    async def handle_op(self, op: MatchOp, frame: dict[str, Any]) -> None:
        """A change of the match other than a move: resign, claim, rematch, cancel, leave, abort, take back."""
        live = self.live
        assert live is not None
        kw: dict[str, Any] = {"user_id": self.user_id}
        try:
            if op.seat:
                try:
                    target = int_field(frame.get("seat"))
                except Unreadable:
                    target = None
                if target is None:
                    raise ServiceError("Say which seat to claim.")
                kw["absent_seat"] = target
            if op.presence:
                kw["presence"] = await database_sync_to_async(presence_of)(self.match_id)
            if op.bot:
                kw["bot"] = await database_sync_to_async(takeover_bot)(live.snap.game)
            await live.change(op.decide, fresh=op.presence, **kw)
        except ServiceError as error:
            await self.send_error(str(error))
            return
        if op.goto == "lobby":
            await self.goto(reverse("play"))
        elif op.goto == "match":
            await self.goto(live.snap_url())

    async def goto(self, url: str) -> None:
        """Move this page to another address (the match was left, a seat taken back)."""
        await self.send(text_data=render_fragment("goto", {"goto": url}))

    # -- outgoing ------------------------------------------------------------------------------

    async def show(
        self, live: LiveMatch, cache: RenderCache, full: bool = False, error: str = "", extra: str = "",
    ) -> None:
        """The page after a change of the match (or all of it, on connect and when a move came too late)."""
        if full or live.snap.status != Status.ACTIVE:  # a selection ends with the match, and a page drawn anew
            if full:
                self.page.reset()
            self.ui = {}
        else:
            # A presenter may carry part of the selection into the new view (Columbo: its switches and flashes).
            view: View | None = cache.view(self.seat)
            self.ui = kit(live.snap.game).keep_ui(view, self.seat, self.ui) if view is not None else {}
        await self.send_page(live, cache, error=error, extra=extra)

    async def send_page(
        self, live: LiveMatch, cache: RenderCache, error: str = "", fragments: tuple[str, ...] | None = None,
        extra: str = "",
    ) -> None:
        if live.snap.version < self.shown_version:
            # Never a step back (a copy may only move forward, so this would be a bug): the page keeps the newer
            # position it has, and the next change draws it.
            log.warning("match %s: a page at version %s was about to be drawn version %s; not sent", self.match_id,
                        self.shown_version, live.snap.version)
            return
        self.shown_version = live.snap.version
        if not error and self.late is not None:
            if self.late[1] > time.monotonic():
                error = self.late[0]
            else:
                self.late = None
        meta, view = cache.meta, cache.view(self.seat)
        if fragments is None:
            html = self.page.update(meta, view, self.seat, self.ui, error=error, cache=cache, zone=self.zone)
        else:
            html = self.page.update(meta, view, self.seat, self.ui, error=error, fragments=fragments,
                                    changed_only=False, cache=cache, zone=self.zone)
        html += self.extras(live, meta.rematch_url) + extra
        if html:
            await self.send(text_data=html)

    def extras(self, live: LiveMatch, rematch_url: str) -> str:
        """What only this socket is sent: the notice of a seat handed to a bot, the move to a rematch."""
        html = ""
        if self.own_seat is not None:
            notice = seat_notice(live.snap, self.own_seat)
            if notice != self.notice:
                self.notice = notice
                html += seat_notice_html(notice)
        if self.rematch_url is None:
            self.rematch_url = rematch_url  # what the page had when it opened: an old rematch moves nobody
        elif rematch_url and rematch_url != self.rematch_url:
            self.rematch_url = rematch_url
            html += render_fragment("goto", {"goto": rematch_url})
        return html

    async def send_error(self, message: str) -> None:
        await self.send(text_data=error_fragment(message))
