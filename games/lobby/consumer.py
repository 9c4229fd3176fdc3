"""A person's notification socket, open on every page: "your turn" cues from their matches; with ?lobby=1 (the
lobby page) also the lobby's lists as matches open, fill and finish; with ?analysis=<match id> (a replay page,
&code= for a private match) the analysis of that match as it runs (games.review.news), if the match is finished
and the person may watch it; with ?tournament=<id> (a tournament's page, &code= for a private one) its standings,
matches and status as they change, and the person's own box. Anyone may watch the lobby, a public replay and a
public tournament; cues are for signed-in people."""

from __future__ import annotations

import asyncio
import logging
from typing import Any
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from django.conf import settings
from django.template.loader import render_to_string

from accounts.sessions import SessionBound

from ..play.news import LOBBY_GROUP
from ..review import news as review_news
from ..review.queries import followable
from ..tournaments import live as tournament_live
from ..tournaments import news as tournament_news
from ..tournaments.queries import visible as visible_tournament
from . import live as lobby_live
from .challenges_socket import ChallengeNotices
from .queries import waiting_for
from .quick_socket import QuickPairingSocket

log = logging.getLogger(__name__)


class NotifyConsumer(QuickPairingSocket, ChallengeNotices, SessionBound):
    async def connect(self) -> None:
        await self.join_user_group(notices=True)
        query = parse_qs(self.scope.get("query_string", b"").decode("latin-1"))
        self.lobby = query.get("lobby") == ["1"]
        # The match page this socket is on, if any: its own turn is said by its table, not by the header.
        here = (query.get("here") or [""])[0]
        self.here = int(here) if here.isdigit() and len(here) < 10 else None
        if self.lobby:
            await self.channel_layer.group_add(LOBBY_GROUP, self.channel_name)
        self.analysis = await self._follow_analysis(query)
        self.pending: asyncio.Task[None] | None = None
        self.tournament = await self._follow_tournament(query)
        self.tournament_task: asyncio.Task[None] | None = None
        self.tournament_heard = 0.0  # when the latest change was heard (the loop's clock)
        # What this socket's page shows: a fragment is sent again only when it changed, so a button the person is
        # pressing is not swapped under their pointer for an identical one when someone else's change comes.
        self.tournament_shown: dict[str, str] = {}
        if self.tournament is not None:  # the page was drawn a moment ago: its own box is this one
            self.tournament_shown["mine"] = await database_sync_to_async(tournament_live.mine_html)(
                self.tournament, self.scope["user"], self._csrf())
        await self.accept()
        if self.tournament is not None:  # a reconnect catches up with what changed meanwhile
            await self.tournament_changed({"id": self.tournament})

    async def disconnect(self, code: int) -> None:
        await self.leave_user_group()
        if getattr(self, "lobby", False):
            await self.channel_layer.group_discard(LOBBY_GROUP, self.channel_name)
        analysis = getattr(self, "analysis", None)
        if analysis is not None:
            await self.channel_layer.group_discard(review_news.analysis_group(analysis), self.channel_name)
            if review_news.is_local(self.channel_layer):
                review_news.RELAY.unwatch(analysis)
        tournament = getattr(self, "tournament", None)
        if tournament is not None:
            await self.channel_layer.group_discard(tournament_news.group(tournament), self.channel_name)
            task = getattr(self, "tournament_task", None)
            if task is not None:
                task.cancel()
        await self.quick_disconnect()
        await self.challenges_disconnect()

    async def _follow_analysis(self, query: dict[str, list[str]]) -> int | None:
        """Join the match's analysis group when the person may follow it; the match's id, or None."""
        raw = (query.get("analysis") or [""])[0]
        if not raw.isdigit() or len(raw) >= 10:
            return None
        match_id = int(raw)
        code = (query.get("code") or [""])[0][:64]
        allowed, key = await database_sync_to_async(followable)(match_id, self.scope.get("user"), code)
        if not allowed:
            return None
        await self.channel_layer.group_add(review_news.analysis_group(match_id), self.channel_name)
        if review_news.is_local(self.channel_layer) and (key is None or key[0] != "done"):
            review_news.RELAY.watch(match_id, key)
        return match_id

    async def _follow_tournament(self, query: dict[str, list[str]]) -> int | None:
        """Join the tournament's group when the person may see its page; its id, or None."""
        raw = (query.get("tournament") or [""])[0]
        if not raw.isdigit() or len(raw) >= 10:
            return None
        code = (query.get("code") or [""])[0][:64]
        found = await database_sync_to_async(visible_tournament)(int(raw), self.scope.get("user"), code)
        if found is None:
            return None
        await self.channel_layer.group_add(tournament_news.group(found.pk), self.channel_name)
        return int(found.pk)

    async def tournament_changed(self, event: dict[str, Any]) -> None:
        """The tournament changed (games.tournaments.news): its public fragments, drawn once for this process's
        sockets (games.tournaments.live.REDRAWS), then this person's own box; a burst is sent once, and a change
        heard after a drawing began reading is sent again after it."""
        if event.get("id") != self.tournament:
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
                began, public = await tournament_live.REDRAWS.get(tournament)
                mine = await database_sync_to_async(tournament_live.mine_html)(tournament, self.scope["user"],
                                                                               self._csrf())
            except asyncio.CancelledError:
                raise
            except Exception:  # the page keeps what it shows; the next change draws it again
                log.exception("could not draw tournament %s", tournament)
                return
            changed = [html for part, html in (("public", public), ("mine", mine))
                       if self.tournament_shown.get(part) != html]
            self.tournament_shown.update(public=public, mine=mine)
            if changed:
                await self.send(text_data="".join(changed))

    def _csrf(self) -> str:
        """The page's CSRF secret (the cookie this socket came with), for the forms it draws."""
        return str(self.scope.get("cookies", {}).get(settings.CSRF_COOKIE_NAME, ""))

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        """Only the lobby's quick-pairing grid speaks on this socket (games.lobby.quick_socket)."""
        await self.quick_receive(text_data)

    async def notify_html(self, event: dict[str, Any]) -> None:
        await self.send(text_data=event["html"])

    async def turns_changed(self, event: dict[str, Any]) -> None:
        """A match became this person's turn, or stopped being it (games.play.news): the header's "your turn"
        is drawn again from the matches waiting on them, and the lobby's list says whose turn it is."""
        user = self.scope.get("user")
        waiting = await database_sync_to_async(waiting_for)(user, besides=self.here)
        await self.send(text_data=render_to_string("games/_turn_cue.html", {"waiting": waiting}))
        if self.lobby:
            await self.lobby_changed(event)

    async def lobby_changed(self, event: dict[str, Any]) -> None:
        """Redraw this person's lobby lists, at most twice a second however busy the club is."""
        if self.pending is None or self.pending.done():
            self.pending = asyncio.ensure_future(self._send_lobby())

    async def _send_lobby(self) -> None:
        loop = asyncio.get_running_loop()
        heard = loop.time()
        # The lists' Join forms post with the page's CSRF secret (the cookie this socket came with).
        csrf = self.scope.get("cookies", {}).get(settings.CSRF_COOKIE_NAME, "")
        user = self.scope["user"]
        # Asked before the pause, so that every watcher who heard the change asks for the shared drawing at the
        # same moment after it (and one drawing serves them all).
        own = await database_sync_to_async(lobby_live.has_own)(user)
        await asyncio.sleep(max(0.0, heard + 0.5 - loop.time()))
        if own:
            html = await database_sync_to_async(lobby_live.lists_html)(user, csrf)
        else:  # the same lists as every other such watcher: drawn once for all of them (games.lobby.live)
            _, shared = await lobby_live.DRAWS.get(user.is_authenticated)
            html = lobby_live.with_csrf(shared, csrf)
        await self.send(text_data=html)
