"""The notification socket's part in friends (one of games.site.socket's parts): every signed-in page's socket says
its person is online while it is open (services.sockets_opened / sockets_closed, the sockets opening or closing
together gathered in one trip); on the lobby (?lobby=1) it also
keeps the Friends panel: it joins the group of each person followed and redraws the panel from the statuses the
messages carry (games.social.news), with no query per change; an "away" line goes when its time is up."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import Any

from channels.db import database_sync_to_async

from ..core.batch import Batched
from ..core.faults import DATABASE, db_unavailable
from ..notify.parts import Part
from . import queries, services
from .display import panel_html
from .news import friends_group
from .queries import Status

log = logging.getLogger(__name__)

opened: Batched[tuple[int, str], None] = Batched(services.sockets_opened)
closed: Batched[tuple[int, str], None] = Batched(services.sockets_closed)


def said(error: Exception, user_id: int) -> None:
    """An online row not written: the database away is said once per outage (games.core.faults), as everywhere;
    anything else is a bug, with its traceback."""
    if db_unavailable(error):
        DATABASE.failed(error)
    else:
        log.error("online status of %s", user_id, exc_info=error)


class FriendsPanel(Part):
    hears = {"social.status": "status_changed", "social.follows": "follows_changed"}

    people: dict[int, tuple[str, str]] | None = None  # whom this person follows: {id: (username, name)}
    status: dict[int, Status]
    recorded = False  # this socket's row was written (services.socket_opened)
    away_timer: asyncio.Task[None] | None = None

    async def accepted(self) -> None:
        if not self.signed_in:
            return
        try:
            await opened((self.user.pk, self.socket.channel_name))
            self.recorded = True
        except Exception as error:  # the page works without it: its person only looks offline to their followers
            said(error, self.user.pk)
        if self.socket.page.lobby:
            await self.follows_changed({"opening": True})

    async def resumed(self) -> None:
        if self.signed_in and self.socket.page.lobby:
            await self.follows_changed({})

    async def follows_changed(self, event: dict[str, Any]) -> None:
        """Whom this person follows is read (at the start, and when it changes): the groups joined, the panel
        drawn (one query for someone who follows nobody)."""
        if not (self.signed_in and self.socket.page.lobby):
            return
        people, status = await database_sync_to_async(self._read)(self.user.pk)
        await self.leave_groups()
        for user_id in people:
            await self.join(friends_group(user_id))
        self.people, self.status = people, status
        if people or not event.get("opening"):  # following nobody: the page's own panel stays as it was drawn
            await self.redraw()

    @staticmethod
    def _read(user_id: int) -> tuple[dict[int, tuple[str, str]], dict[int, Status]]:
        people = queries.friends(user_id)
        return people, queries.statuses(people) if people else {}

    async def status_changed(self, event: dict[str, Any]) -> None:
        """A followed person's status, as the message says it."""
        user_id = event.get("user")
        if self.people is None or not isinstance(user_id, int) or user_id not in self.people:
            return
        away_until = event.get("away_until")
        new = Status(str(event.get("state")), event.get("match"),
                     float(away_until) if isinstance(away_until, (int, float)) else None)
        if self.status.get(user_id) == new:
            return
        self.status[user_id] = new
        await self.redraw()

    async def redraw(self) -> None:
        if self.people is None:
            return
        now = time.time()
        lines = queries.shown_friends(self.people, self.status, now)
        await self.send(panel_html(lines, self.socket.csrf(), follows_anyone=bool(self.people)))
        self.stop_timer()
        ends = [line.status.away_until for line in lines if line.status.away_until is not None]
        if ends:
            self.away_timer = asyncio.ensure_future(self._redraw_at(min(ends)))

    async def _redraw_at(self, moment: float) -> None:
        await asyncio.sleep(max(0.0, moment - time.time()) + 0.5)
        await self.redraw()

    def stop_timer(self) -> None:
        task, self.away_timer = self.away_timer, None
        if task is not None and task is not asyncio.current_task():
            task.cancel()

    async def disconnect(self) -> None:
        task, self.away_timer = self.away_timer, None
        if task is not None and task is not asyncio.current_task():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        if self.recorded:
            self.recorded = False
            try:
                await closed((self.user.pk, self.socket.channel_name))
            except Exception as error:  # its row stops counting with this process's pulse, or stays until the next page
                said(error, self.user.pk)
