"""The bot runner: one asyncio task per server process asks due bot seats (and run-out clocks) to act.

A match this process holds moves its bots on its own timer (games.play.owner); this runner finds the others
in the database, so bots keep moving with nobody connected and after a restart. Every process runs one;
the version fence makes a duplicate harmless, so a bot moves exactly once a turn however many processes
serve the site.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from channels.db import database_sync_to_async
from django.utils import timezone

from ..core import lag
from ..core.faults import DATABASE, db_unavailable
from ..models import Match
from .hub import hub
from .tasks import raise_if_cancelled

log = logging.getLogger(__name__)

POLL_SECONDS = 0.5  # for matches nobody here watches (watched ones move on their own timers)
_task: asyncio.Task[None] | None = None

# Other due work the runner does every `seconds` (sync functions, run on the database thread), registered by the
# apps that need it at start-up (games.tournaments: start, pair and end tournaments), so the live core names none.
PERIODIC: list[tuple[float, Callable[[], Any]]] = []


def every(seconds: float, work: Callable[[], Any]) -> None:
    """Have every process's runner call `work` every `seconds` (once per registration)."""
    if all(fn is not work for _, fn in PERIODIC):
        PERIODIC.append((seconds, work))


def due_bot_matches(limit: int = 50) -> list[tuple[int, int]]:
    """(match id, version) of active matches whose bots are due to act or whose clock ran out."""
    now = timezone.now()
    active = Match.objects.filter(status=Match.Status.ACTIVE)
    bots = active.filter(bot_due_at__lte=now).order_by("bot_due_at").values_list("id", "version")[:limit]
    clocks = active.filter(clock_due_at__lte=now).order_by("clock_due_at").values_list("id", "version")[:limit]
    return list(dict.fromkeys([*clocks, *bots]))


async def run_due_bots() -> int:
    """Let every due bot act once; returns how many moves were made."""
    due = await database_sync_to_async(due_bot_matches)()
    moved = 0
    for match_id, _version in due:
        try:
            if await hub().bot_turn(match_id):
                moved += 1
        except Exception as error:
            if db_unavailable(error):
                raise  # the loop says it once, and waits
            log.exception("bot turn failed in match %s", match_id)
    return moved


async def run_periodic(last: dict[int, float]) -> None:
    """The registered periodic work that is due (`last`: when each last ran, by its place in PERIODIC)."""
    loop = asyncio.get_running_loop()
    for index, (seconds, work) in enumerate(PERIODIC):
        if loop.time() - last.get(index, float("-inf")) >= seconds:
            last[index] = loop.time()
            try:
                await database_sync_to_async(work)()
            except asyncio.CancelledError:
                raise
            except Exception as error:
                raise_if_cancelled()
                if db_unavailable(error):
                    raise  # the loop says it once, and waits
                log.exception("periodic work %s", getattr(work, "__qualname__", work))


async def _loop() -> None:
    last: dict[int, float] = {}
    while True:
        raise_if_cancelled()  # a cancellation taken by a database call returns normally (see there)
        try:
            await run_due_bots()
            await run_periodic(last)
            DATABASE.answered()
        except asyncio.CancelledError:
            raise
        except Exception as error:  # the database may be briefly away; keep trying
            raise_if_cancelled()
            if db_unavailable(error):
                DATABASE.failed(error)  # said once per outage (games.core.faults)
            else:
                log.exception("bot runner")
            await asyncio.sleep(1)
        await asyncio.sleep(POLL_SECONDS)


def ensure_running() -> None:
    """Start the runner on the current event loop, once per process (and the lag monitor, if asked: games.core.lag)."""
    global _task
    lag.start_if_asked()
    loop = asyncio.get_running_loop()
    # A task of another (ended) event loop never runs again: tests run one loop each, and so may a server
    # that restarts its loop.
    if _task is None or _task.done() or _task.get_loop() is not loop:
        _task = loop.create_task(_loop())


async def stop() -> None:
    """Stop this process's runner and its live matches' tasks (a clean shutdown; tests end every loop so)."""
    global _task
    task, _task = _task, None
    if task is not None and not task.done():
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
    hub().close()


class BotRunnerMiddleware:
    """ASGI wrapper that starts the bot runner with the first connection the process serves."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> Any:
        ensure_running()
        return await self.app(scope, receive, send)
