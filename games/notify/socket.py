"""The notification socket's own part (games.site.socket puts the socket together): the header's "your turn" cues
from a person's matches, and the frame that sends their pages to a new match (games.notify.goto)."""

from __future__ import annotations

from typing import Any

from channels.db import database_sync_to_async
from django.template.loader import render_to_string

from .goto import go_html
from .parts import Part
from .queries import Waiting, apply_cue, in_order, just_accepted_match, unopened_pairing, waiting_for


class TurnCues(Part):
    hears = {"turns.changed": "turns_changed", "notify.html": "notify_html"}

    waiting: dict[int, Waiting] | None = None  # the matches waiting on this person, from the first cue

    async def accepted(self) -> None:
        await self.go_if_just_seated()

    async def resumed(self) -> None:
        """Its turns read again, and a seat taken meanwhile sends the page to its match."""
        if self.signed_in:
            self.waiting = None
            await self.turns_changed({})
            await self.go_if_just_seated()

    async def go_if_just_seated(self) -> None:
        """A page that was loading when its person was seated (an arena's pairing while the tournament page
        opened, a quick pairing while the lobby reloaded, a program accepting a challenge within milliseconds)
        missed the frame that sent their pages to the match: it goes there now, unless the match's page was
        opened already (or this is it)."""
        if not self.signed_in:
            return
        user, page = self.user, self.socket.page
        match = await database_sync_to_async(unopened_pairing)(user, besides=page.here)
        if match is None and page.lobby:
            # A challenge to a program accepted while the challenger's lobby was on its way (any clock).
            match = await database_sync_to_async(just_accepted_match)(user.pk)
        if match is not None:
            await self.send(go_html(match))

    async def notify_html(self, event: dict[str, Any]) -> None:
        """A fragment for this person's pages as it is: the frame that sends them to a new match
        (games.notify.goto), an analysis's progress (games.review.news)."""
        here = self.socket.page.here
        if event.get("match") is not None and event.get("match") == here:
            return  # the match's own page: it is there already, and its table shows the start
        if event.get("spare_tables") and here is not None:
            return  # a correspondence match waits for days: a table open elsewhere is not taken from its player
        await self.send(event["html"])

    async def turns_changed(self, event: dict[str, Any]) -> None:
        """A match became this person's turn, or stopped being it (games.play.news): the header's "your turn"
        is drawn again (the lobby's list hears the same cue: games.lobby.socket). The matches waiting on them are
        read once, at the first cue; each cue after it says the one change itself (a cue per move, not a query)."""
        here = self.socket.page.here
        if self.waiting is None:
            found = await database_sync_to_async(waiting_for)(self.user, besides=here)
            self.waiting = {w.match_id: w for w in found}
        else:
            apply_cue(self.waiting, event, besides=here)
        await self.send(render_to_string("games/_turn_cue.html", {"waiting": in_order(self.waiting)}))
