"""The notification socket's part in challenges (mixed into games.notify.consumer.NotifyConsumer): a challenge to
or from this person came, was answered or withdrawn, so the notices (every page) and the lobby's list of
challenges are drawn again; and again when the next one expires, so an expired notice leaves by itself."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from channels.db import database_sync_to_async
from django.template.loader import render_to_string

from .queries import notices_html, open_challenges


def _drawn(user: Any, lobby: bool, csrf: str) -> tuple[str, float | None]:
    """The frames to send (notices; the lobby's list too on a lobby page) and the seconds until one expires."""
    notices = open_challenges(user)
    html = notices_html(user)
    if lobby:
        html += render_to_string("games/challenges/_challenges.html", {"challenges": notices, "csrf_token": csrf})
    soonest = min((n.seconds_left for n in notices), default=None)
    return html, (soonest + 0.5 if soonest is not None else None)


class ChallengeNotices:
    """Needs: self.scope, self.send, self.lobby (a lobby page's socket), self.csrf()."""

    scope: dict[str, Any]
    lobby: bool
    send: Any
    csrf: Any
    challenge_expiry: asyncio.Task[None] | None = None

    async def challenges_changed(self, event: dict[str, Any]) -> None:
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            return
        html, expires_in = await database_sync_to_async(_drawn)(user, self.lobby, self.csrf())
        await self.send(text_data=html)
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

    async def challenges_disconnect(self) -> None:
        task, self.challenge_expiry = self.challenge_expiry, None
        if task is not None and task is not asyncio.current_task():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
