"""The notification socket's part in the lobby page (games.notify.consumer, ?lobby=1): the lobby's lists redrawn
as matches open, fill and finish, at most twice a second however busy the club is; a watcher with nothing of their
own in the lists is sent the drawing shared by every such watcher (games.lobby.live)."""

from __future__ import annotations

import asyncio
from typing import Any

from channels.db import database_sync_to_async

from ..play.news import LOBBY_GROUP
from . import live


class LobbyLists:
    """Needs: self.scope, self.channel_name, self.channel_layer, self.send, self.csrf()."""

    scope: dict[str, Any]
    channel_name: str
    channel_layer: Any
    send: Any
    csrf: Any
    lobby = False  # a lobby page's socket
    lobby_pending: asyncio.Task[None] | None = None

    async def lobby_connect(self, query: dict[str, list[str]]) -> None:
        self.lobby = query.get("lobby") == ["1"]
        if self.lobby:
            await self.channel_layer.group_add(LOBBY_GROUP, self.channel_name)

    async def lobby_disconnect(self) -> None:
        if self.lobby:
            await self.channel_layer.group_discard(LOBBY_GROUP, self.channel_name)
        if self.lobby_pending is not None:
            self.lobby_pending.cancel()

    async def lobby_changed(self, event: dict[str, Any]) -> None:
        """Redraw this person's lobby lists, at most twice a second however busy the club is."""
        if not self.lobby:
            return
        if self.lobby_pending is None or self.lobby_pending.done():
            self.lobby_pending = asyncio.ensure_future(self._send_lobby())

    async def _send_lobby(self) -> None:
        loop = asyncio.get_running_loop()
        heard = loop.time()
        # The lists' Join forms post with the page's CSRF secret (the cookie this socket came with).
        csrf = self.csrf()
        user = self.scope["user"]
        # Asked before the pause, so that every watcher who heard the change asks for the shared drawing at the
        # same moment after it (and one drawing serves them all).
        own = user.is_authenticated and await live.OWN.ask(user.pk)
        await asyncio.sleep(max(0.0, heard + 0.5 - loop.time()))
        if own:
            html = await database_sync_to_async(live.lists_html)(user, csrf)
        else:  # the same lists as every other such watcher: drawn once for all of them (games.lobby.live)
            _, shared = await live.DRAWS.get(None)
            html = live.with_csrf(shared[user.is_authenticated], csrf)
        await self.send(text_data=html)
