"""The notification socket's part in quick pairing (one of games.site.socket's parts): the lobby's grid's clicks
arrive here, the seek belongs to this socket (closing it, by leaving the page, withdraws it), and while its
person waits the socket asks for the pool to be decided again at the moments their range widens (10 s, 30 s),
redraws the grid when the offer of a bot comes due, and keeps the seek fresh. Every decision is
games.pool.pairing's, in the database; nothing here holds a lock or a pool."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

from channels.db import database_sync_to_async

from ..models import Seek
from ..notify.parts import Part
from ..play.snapshot import ServiceError
from . import matchmaking, pairing
from .display import quick_html

log = logging.getLogger(__name__)

# A decision just after each moment a waiter's range widens or the offer comes due (the rules compare with >=).
MOMENTS = (matchmaking.WIDEN_AFTER + 0.05, matchmaking.ANYONE_AFTER + 0.05)


def _toggle(user: Any, key: str, socket: str) -> str:
    """A click on a pool's button: get up if waiting there, else sit down there (leaving any other pool)."""
    if Seek.objects.filter(user=user, pool=key, match__isnull=True).exists():
        pairing.withdraw(user)
        return "up"
    seated = pairing.seek(user, key, socket=socket)
    return "seated" if seated.match is not None else "waiting"


class QuickPairing(Part):
    hears = {"quick.changed": "quick_changed"}
    ops = ("seek", "start")

    quick_waiting: asyncio.Task[None] | None = None
    quick_redraw: asyncio.Task[None] | None = None
    quick_used = False  # this socket made a seek (only then does closing it look for one to withdraw)

    async def receive(self, frame: dict[str, Any]) -> None:
        user = self.user
        if not self.socket.page.lobby or not self.signed_in or not isinstance(frame.get("pool"), str):
            return
        op, key = frame.get("op"), frame["pool"]
        error = ""
        try:
            if op == "seek":
                self.quick_used = True
                outcome = await database_sync_to_async(_toggle)(user, key, self.socket.channel_name)
                self._stop_waiting()
                if outcome == "waiting":
                    self.quick_waiting = asyncio.ensure_future(self._wait(key))
            elif op == "start":
                bots = frame.get("bots") in (1, "1", True)
                await database_sync_to_async(pairing.start_now)(user, key, bots=bots)
                self._stop_waiting()
            else:
                return
        except ServiceError as refused:
            error = str(refused)
        # The grid drawn again carries the refusal: a separate frame would be wiped by this redraw.
        await self._send_grid(error)

    async def _wait(self, key: str) -> None:
        """While this socket's person waits: the pool decided again as their range widens, the grid redrawn when
        the offer comes due, and the seek kept fresh (a seek nobody keeps is dropped after SEEK_STALE_SECONDS)."""
        loop = asyncio.get_running_loop()
        began = loop.time()
        try:
            for moment in MOMENTS:
                await asyncio.sleep(max(0.0, began + moment - loop.time()))
                await database_sync_to_async(pairing.pair_pool)(key)
                await self._send_grid()
            while True:
                await asyncio.sleep(pairing.SEEK_HEARTBEAT_SECONDS)
                if not await database_sync_to_async(pairing.touch)(self.socket.channel_name):
                    return  # seated, or got up
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("quick pairing's timer for %s", key)

    def _stop_waiting(self) -> None:
        if self.quick_waiting is not None:
            self.quick_waiting.cancel()
            self.quick_waiting = None

    async def resumed(self) -> None:
        if self.socket.page.lobby:
            await self.quick_changed({})

    async def quick_changed(self, event: dict[str, Any]) -> None:
        """A pool's count changed: redraw this person's grid, at most a few times a second."""
        if self.quick_redraw is None or self.quick_redraw.done():
            self.quick_redraw = asyncio.ensure_future(self._redraw_soon())

    async def _redraw_soon(self) -> None:
        await asyncio.sleep(0.2)
        await self._send_grid()

    async def _send_grid(self, error: str = "") -> None:
        html = await database_sync_to_async(quick_html)(self.user, error=error)
        await self.send(html)

    async def disconnect(self) -> None:
        """Leaving the page gets the person up from waiting (the seek made from this socket)."""
        for task in (self.quick_waiting, self.quick_redraw):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        if self.quick_used:
            await database_sync_to_async(pairing.withdraw)(socket=self.socket.channel_name)
