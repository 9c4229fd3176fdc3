"""The notification socket's part in challenges (one of games.site.socket's parts): a challenge to
or from this person came, was answered, withdrawn, expired or cancelled, so the notices (every page: the incoming
challenges and the recent "no"s) and the lobby's list of challenges are drawn again, out of band by their ids.
Expiry is the runner's (services.expire_due tells both people); this socket's only timer takes a "no" away when
it has been said for RECENT_MINUTES."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from channels.db import database_sync_to_async
from django.template.loader import render_to_string

from ..notify.parts import Part
from .queries import challenges_of, notices_html


def _drawn(user: Any, lobby: bool, csrf: str, reasons: dict[int, str]) -> tuple[str, float | None]:
    """The frames to send (notices; the lobby's list too on a lobby page) and the seconds until a "no" said
    in them is no longer said."""
    read = challenges_of(user, reasons=reasons)
    html = notices_html(user, read=read)
    if lobby:
        html += render_to_string("games/challenges/_challenges.html", {"challenges": read.open, "csrf_token": csrf})
    soonest = min((outcome.seconds_left for outcome in read.outcomes), default=None)
    return html, (soonest + 0.5 if soonest is not None else None)


def _reasons(event: dict[str, Any]) -> dict[int, str]:
    """Why the server cancelled challenges (services.withdraw_all), by id (string keys over the layer)."""
    given = event.get("reasons") or {}
    return {int(pk): str(text) for pk, text in given.items() if str(pk).isdigit()}


class ChallengeNotices(Part):
    hears = {"challenges.changed": "challenges_changed"}

    challenge_expiry: asyncio.Task[None] | None = None

    async def resumed(self) -> None:
        await self.challenges_changed({})

    async def challenges_changed(self, event: dict[str, Any]) -> None:
        if not self.signed_in:
            return
        html, expires_in = await database_sync_to_async(_drawn)(
            self.user, self.socket.page.lobby, self.socket.csrf(), _reasons(event))
        await self.send(html)
        self.challenges_stop()
        if expires_in is not None:
            self.challenge_expiry = asyncio.ensure_future(self._expire(expires_in))

    async def _expire(self, seconds: float) -> None:
        await asyncio.sleep(seconds)
        await self.challenges_changed({})

    def challenges_stop(self) -> None:
        task, self.challenge_expiry = self.challenge_expiry, None
        if task is not None and task is not asyncio.current_task():
            task.cancel()

    async def disconnect(self) -> None:
        task, self.challenge_expiry = self.challenge_expiry, None
        if task is not None and task is not asyncio.current_task():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
