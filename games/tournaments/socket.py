"""The notification socket's part in tournaments (one of games.site.socket's parts): a tournament page's socket
(?tournament=, &code= for a private one) joins its group when the person may see it, and redraws the public
fragments (drawn once per process for every socket on it: games.tournaments.display.REDRAWS) and the person's own box
as it changes."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from channels.db import database_sync_to_async

from ..notify.parts import Part, Socket
from . import display, news
from .queries import visible

log = logging.getLogger(__name__)


class TournamentFollow(Part):
    hears = {"tournament.changed": "tournament_changed"}

    tournament: int | None = None
    tournament_task: asyncio.Task[None] | None = None
    tournament_heard = 0.0  # when the latest change was heard (the loop's clock)

    def __init__(self, socket: Socket) -> None:
        super().__init__(socket)
        # What this socket's page shows: a fragment is sent again only when it changed, so a button the person is
        # pressing is not swapped under their pointer for an identical one when someone else's change comes.
        self.tournament_shown: dict[str, str] = {}

    async def connect(self) -> None:
        """Join the tournament's group when the person may see its page (before the socket is accepted)."""
        tournament_id = self.socket.page.id_param("tournament")
        if tournament_id is None:
            return
        code = self.socket.page.param("code", 64)
        found = await database_sync_to_async(visible)(tournament_id, self.user, code)
        if found is None:
            return
        await self.join(news.group(found.pk))
        self.tournament = int(found.pk)
        # The page was drawn a moment ago: its own box is this one.
        self.tournament_shown["mine"] = await database_sync_to_async(display.mine_html)(
            self.tournament, self.user, self.socket.csrf())

    async def accepted(self) -> None:
        await self.resumed()

    async def resumed(self) -> None:
        if self.tournament is not None:  # a reconnect (or the layer's return) catches up with what changed meanwhile
            await self.tournament_changed({"id": self.tournament})

    async def disconnect(self) -> None:
        if self.tournament_task is not None:
            self.tournament_task.cancel()

    async def tournament_changed(self, event: dict[str, Any]) -> None:
        """The tournament changed (games.tournaments.news): its public fragments, drawn once for this process's
        sockets, then this person's own box; a burst is sent once, and a change heard after a drawing began
        reading is sent again after it."""
        if self.tournament is None or event.get("id") != self.tournament:
            return
        self.tournament_heard = asyncio.get_running_loop().time()
        if self.tournament_task is None or self.tournament_task.done():
            self.tournament_task = asyncio.ensure_future(self._send_tournament())

    async def _send_tournament(self) -> None:
        tournament = self.tournament
        assert tournament is not None
        began = float("-inf")
        while self.tournament_heard >= began:
            try:
                began, public = await display.REDRAWS.get(tournament)
                mine = await database_sync_to_async(display.mine_html)(tournament, self.user, self.socket.csrf())
            except asyncio.CancelledError:
                raise
            except Exception:  # the page keeps what it shows; the next change draws it again
                log.exception("could not draw tournament %s", tournament)
                return
            changed = [html for part, html in (("public", public), ("mine", mine))
                       if self.tournament_shown.get(part) != html]
            self.tournament_shown.update(public=public, mine=mine)
            if changed:
                await self.send("".join(changed))
