"""Whether a server process is alive: one row per process, written once per heartbeat interval however many
sockets it serves (a row per socket was a database write per socket every 15 s: 4,600 sockets, 300 writes a
second of an idle club).

A Presence row names the process that holds its socket; it counts while that process's row is fresh. A process
killed with -9 stops writing its row, and every socket it held stops counting PRESENCE_STALE_SECONDS later, as
each socket's own heartbeat did before."""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import time
import uuid
from datetime import timedelta

from channels.db import database_sync_to_async
from django.utils import timezone

from .. import models
from ..core.faults import DATABASE, db_unavailable
from .snapshot import PRESENCE_STALE_SECONDS
from .tasks import raise_if_cancelled

log = logging.getLogger(__name__)

PULSE_SECONDS = 15.0  # a third of PRESENCE_STALE_SECONDS: two pulses may be late before a socket stops counting
# A dead process's rows (and its sockets' presence rows) are deleted once they are this old: long after they
# stopped counting, so that no reader ever tells a stale row from a missing one.
FORGET_AFTER = timedelta(hours=1)

_key: tuple[int, str] | None = None
_last_pulse = -PULSE_SECONDS  # time.monotonic() of this process's last write of its row
_pulses: dict[asyncio.AbstractEventLoop, asyncio.Task[None]] = {}


def process_key() -> str:
    """This process's name in the Process table (a forked child gets a name of its own)."""
    global _key
    if _key is None or _key[0] != os.getpid():
        _key = (os.getpid(), f"{socket.gethostname()[:40]}:{os.getpid()}:{uuid.uuid4().hex[:8]}")
    return _key[1]


def pulse() -> None:
    """This process is alive (one row written)."""
    global _last_pulse
    models.Process.objects.update_or_create(key=process_key(), defaults={"last_seen": timezone.now()})
    _last_pulse = time.monotonic()


def pulse_if_due() -> None:
    """Write this process's row unless it was written within the interval (a socket opening: its row counts from
    then on, whether or not the pulse task has run yet)."""
    if time.monotonic() - _last_pulse >= PULSE_SECONDS:
        pulse()


def ensure_pulse() -> None:
    """Keep this process's row fresh from now on, on the running event loop (at most one task per loop)."""
    loop = asyncio.get_running_loop()
    task = _pulses.get(loop)
    if task is None or task.done():
        for old in [old for old in _pulses if old.is_closed()]:
            del _pulses[old]
        _pulses[loop] = loop.create_task(_beat())


async def _beat() -> None:
    while True:
        raise_if_cancelled()
        await asyncio.sleep(PULSE_SECONDS)
        try:
            await database_sync_to_async(pulse)()
        except Exception as error:
            raise_if_cancelled()
            if db_unavailable(error):
                DATABASE.failed(error)  # said once per outage (games.core.faults); the next pulse tries again
            else:
                log.exception("process pulse")


def forget_dead() -> int:
    """Delete the rows of processes dead for long (their sockets' presence and online rows with them); how many
    processes."""
    gone = list(models.Process.objects.filter(last_seen__lt=timezone.now() - FORGET_AFTER)
                .values_list("key", flat=True)[:100])
    if gone:
        models.Presence.objects.filter(process__in=gone).delete()
        models.OnlineSocket.objects.filter(process__in=gone).delete()  # a person's pages there (games.social)
        models.Process.objects.filter(key__in=gone).delete()
    return len(gone)


assert PULSE_SECONDS * 3 <= PRESENCE_STALE_SECONDS
