"""A person's notification socket, open on every page, put together from the features' parts (PARTS): the header's
"your turn" cues and the frame that sends their pages to a new match (games.notify.socket); quick pairing's grid
(games.pool.socket) and challenges' notices (games.challenges.socket); with ?lobby=1 the lobby's lists
(games.lobby.socket); with ?analysis=<match id> a replay's analysis as it runs (games.review.socket); with
?tournament=<id> a tournament's page (games.tournaments.socket); on every page its person's online status, and on the
lobby the Friends panel (games.social.socket). Anyone may watch the lobby, a public replay and a
public tournament; cues are for signed-in people. Each part reads the page (games.notify.parts.Page), never another
part: what a layer message means to several parts, each hears."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs

import orjson
from channels.db import aclose_old_connections
from django.conf import settings

from accounts.sessions import SessionBound

from ..challenges.socket import ChallengeNotices
from ..lobby.socket import LobbyLists
from ..notify.parts import Handler, Page, Part
from ..notify.socket import TurnCues
from ..pool.socket import QuickPairing
from ..review.socket import AnalysisFollow
from ..social.socket import FriendsPanel
from ..tournaments.socket import TournamentFollow

# The parts, in the order each hook is called (a message two parts hear reaches them in this order too).
PARTS: tuple[type[Part], ...] = (TurnCues, QuickPairing, ChallengeNotices, LobbyLists, AnalysisFollow, TournamentFollow,
                                 FriendsPanel)
MAX_FRAME = 1024  # the page sends only the grid's clicks


class NotifyConsumer(SessionBound):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.page = Page({})  # read from the query string as the socket connects
        self.parts = tuple(part(self) for part in PARTS)
        self.handlers: dict[str, list[Handler]] = {}  # by layer message type
        self.ops: dict[str, Part] = {}  # by a page's frame's "op"
        for part in self.parts:
            for kind, handler in part.handlers().items():
                self.handlers.setdefault(kind, []).append(handler)
            self.ops.update(dict.fromkeys(part.ops, part))

    async def connect(self) -> None:
        await self.join_user_group(notices=True)
        self.page = Page(parse_qs(self.scope.get("query_string", b"").decode("latin-1")))
        for part in self.parts:
            await part.connect()
        await self.accept()
        for part in self.parts:
            await part.accepted()

    async def dispatch(self, message: dict[str, Any]) -> None:
        """A layer message goes to each part that hears it; the socket's own (its frames, its session's checks)
        to the consumer as Channels routes them."""
        handlers = self.handlers.get(message["type"])
        if handlers is None:
            await super().dispatch(message)
            return
        await aclose_old_connections()
        for handler in handlers:
            await handler(message)

    async def chat_muted(self, event: dict[str, Any]) -> None:
        """A table's news sent on the person's group (games.play.chat): no part shows a chat. Without a handler,
        Channels would fail the socket on it (every page's header closed by a mute)."""

    async def layer_resumed(self, event: dict[str, Any]) -> None:
        """The channel layer is back after an outage (games.core.layers): what this page hears from it is read again,
        as a reconnecting page would (its turns, its challenges, the lobby's lists and grid, the tournament)."""
        for part in self.parts:
            await part.resumed()

    async def disconnect(self, code: int) -> None:
        await self.leave_user_group()
        for part in self.parts:
            await part.leave_groups()
            await part.disconnect()

    def csrf(self) -> str:
        """The page's CSRF secret (the cookie this socket came with), for the forms the parts draw."""
        return str(self.scope.get("cookies", {}).get(settings.CSRF_COOKIE_NAME, ""))

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        """A frame from the page, to the part whose op it names (only the lobby's quick-pairing grid speaks)."""
        if text_data is None or len(text_data) > MAX_FRAME:
            return
        try:
            frame = orjson.loads(text_data)
        except orjson.JSONDecodeError:
            return
        op = frame.get("op") if isinstance(frame, dict) else None
        part = self.ops.get(op) if isinstance(op, str) else None
        if part is not None:
            await part.receive(frame)
