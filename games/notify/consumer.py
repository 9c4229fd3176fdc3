"""A person's notification socket, open on every page, put together from each feature's socket part: "your turn"
cues from their matches and the frame that sends their pages to a new match (here); quick pairing's grid
(games.pool.socket) and challenges' notices (games.challenges.socket); with ?lobby=1 the lobby's lists
(games.lobby.socket); with ?analysis=<match id> a replay's analysis as it runs (games.review.socket); with
?tournament=<id> a tournament's page (games.tournaments.socket). Anyone may watch the lobby, a public replay and a
public tournament; cues are for signed-in people."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from django.conf import settings
from django.template.loader import render_to_string

from accounts.sessions import SessionBound

from ..challenges.socket import ChallengeNotices
from ..lobby.socket import LobbyLists
from ..pool.socket import QuickPairingSocket
from ..review.socket import AnalysisFollow
from ..tournaments.socket import TournamentFollow
from .goto import go_html
from .queries import Waiting, apply_cue, in_order, just_accepted_match, unopened_pairing, waiting_for


class NotifyConsumer(QuickPairingSocket, ChallengeNotices, LobbyLists, AnalysisFollow, TournamentFollow,
                     SessionBound):
    async def connect(self) -> None:
        self.waiting: dict[int, Waiting] | None = None  # the matches waiting on this person, from the first cue
        await self.join_user_group(notices=True)
        query = parse_qs(self.scope.get("query_string", b"").decode("latin-1"))
        # The match page this socket is on, if any: its own turn is said by its table, not by the header.
        here = (query.get("here") or [""])[0]
        self.here = int(here) if here.isdigit() and len(here) < 10 else None
        await self.lobby_connect(query)
        await self.analysis_connect(query)
        await self.tournament_connect(query)
        await self.accept()
        await self.tournament_accepted()
        await self.go_if_just_seated()

    async def go_if_just_seated(self) -> None:
        """A page that was loading when its person was seated (an arena's pairing while the tournament page
        opened, a quick pairing while the lobby reloaded, a program accepting a challenge within milliseconds)
        missed the frame that sent their pages to the match: it goes there now, unless the match's page was
        opened already (or this is it)."""
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            return
        match = await database_sync_to_async(unopened_pairing)(user, besides=self.here)
        if match is None and self.lobby:
            # A challenge to a program accepted while the challenger's lobby was on its way (any clock).
            match = await database_sync_to_async(just_accepted_match)(user.pk)
        if match is not None:
            await self.send(text_data=go_html(match))

    async def layer_resumed(self, event: dict[str, Any]) -> None:
        """The channel layer is back after an outage (games.layers): what this page hears from it is read again,
        as a reconnecting page would (its turns, its challenges, the lobby's lists and grid, the tournament), and a
        seat taken meanwhile sends it to its match."""
        user = self.scope.get("user")
        if user is not None and user.is_authenticated:
            self.waiting = None
            await self.turns_changed({})  # the lobby's lists with it
            await self.challenges_changed({})
            await self.go_if_just_seated()
        else:
            await self.lobby_changed({})
        if self.lobby:
            await self.quick_changed({})
        if self.tournament is not None:
            await self.tournament_changed({"id": self.tournament})

    async def disconnect(self, code: int) -> None:
        await self.leave_user_group()
        await self.lobby_disconnect()
        await self.analysis_disconnect()
        await self.tournament_disconnect()
        await self.quick_disconnect()
        await self.challenges_disconnect()

    def csrf(self) -> str:
        """The page's CSRF secret (the cookie this socket came with), for the forms the parts draw."""
        return str(self.scope.get("cookies", {}).get(settings.CSRF_COOKIE_NAME, ""))

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        """Only the lobby's quick-pairing grid speaks on this socket (games.pool.socket)."""
        await self.quick_receive(text_data)

    async def notify_html(self, event: dict[str, Any]) -> None:
        """A fragment for this person's pages as it is: the frame that sends them to a new match
        (games.notify.goto), an analysis's progress (games.review.news)."""
        if event.get("match") is not None and event.get("match") == self.here:
            return  # the match's own page: it is there already, and its table shows the start
        if event.get("spare_tables") and self.here is not None:
            return  # a correspondence match waits for days: a table open elsewhere is not taken from its player
        await self.send(text_data=event["html"])

    async def turns_changed(self, event: dict[str, Any]) -> None:
        """A match became this person's turn, or stopped being it (games.play.news): the header's "your turn"
        is drawn again, and the lobby's list says whose turn it is. The matches waiting on them are read once,
        at the first cue; each cue after it says the one change itself (a cue per move, not a query)."""
        if self.waiting is None:
            user = self.scope.get("user")
            found = await database_sync_to_async(waiting_for)(user, besides=self.here)
            self.waiting = {w.match_id: w for w in found}
        else:
            apply_cue(self.waiting, event, besides=self.here)
        await self.send(text_data=render_to_string("games/_turn_cue.html", {"waiting": in_order(self.waiting)}))
        await self.lobby_changed(event)
