"""The notification socket's part in the lobby page (one of games.site.socket's parts, ?lobby=1): the lobby's lists
redrawn as matches open, fill and finish, and as a turn changes hands (the lists say whose turn it is), at most
twice a second however busy the club is; a watcher with nothing of their own in the lists is sent the drawing shared
by every such watcher (games.lobby.news)."""

from __future__ import annotations

import asyncio
from typing import Any

from channels.db import database_sync_to_async

from ..notify.parts import Part
from ..play.news import LOBBY_GROUP
from . import news


class LobbyLists(Part):
    hears = {"lobby.changed": "lobby_changed", "turns.changed": "lobby_changed"}

    lobby_pending: asyncio.Task[None] | None = None

    async def connect(self) -> None:
        if self.socket.page.lobby:
            await self.join(LOBBY_GROUP)

    async def disconnect(self) -> None:
        if self.lobby_pending is not None:
            self.lobby_pending.cancel()

    async def resumed(self) -> None:
        await self.lobby_changed({})

    async def lobby_changed(self, event: dict[str, Any]) -> None:
        """Redraw this person's lobby lists, at most twice a second however busy the club is."""
        if not self.socket.page.lobby:
            return
        if self.lobby_pending is None or self.lobby_pending.done():
            self.lobby_pending = asyncio.ensure_future(self._send_lobby())

    async def _send_lobby(self) -> None:
        loop = asyncio.get_running_loop()
        heard = loop.time()
        # The lists' Join forms post with the page's CSRF secret (the cookie this socket came with).
        csrf = self.socket.csrf()
        user = self.user
        # Asked before the pause, so that every watcher who heard the change asks for the shared drawing at the
        # same moment after it (and one drawing serves them all).
        own = user.is_authenticated and await news.OWN.ask(user.pk)
        await asyncio.sleep(max(0.0, heard + 0.5 - loop.time()))
        if own:
            html = await database_sync_to_async(news.lists_html)(user, csrf)
        else:  # the same lists as every other such watcher: drawn once for all of them (games.lobby.news)
            _, shared = await news.DRAWS.get(None)
            html = news.with_csrf(shared[user.is_authenticated], csrf)
        await self.send(html)
