"""One drawing of a page's public fragments per burst of changes, per process, shared by its sockets.

Many sockets show the same public HTML (a tournament's standings, the lobby's lists for people with nothing of
their own in them). Drawn per socket, a change costs one read and one render for each: the lobby's redraws, a
few ms each, queued on the one thread database work runs on, ahead of the moves' group commit (bench/README.md,
issue 30: the lobby cost O(N^2)). A socket asking joins the drawing that has not started reading yet, or starts
one; so what it gets was always read after it asked (nothing is missed), and a burst costs one read however many
sockets watch.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from channels.db import database_sync_to_async

K = TypeVar("K", bound=Hashable)
T = TypeVar("T")


class SharedDraw(Generic[K, T]):
    """`draw(key)` (sync, on the database thread) at most once per burst per key, its result shared."""

    def __init__(self, draw: Callable[[K], T], delay: float) -> None:
        self.draw, self.delay = draw, delay
        self._next: dict[K, asyncio.Task[tuple[float, T]]] = {}

    async def get(self, key: K) -> tuple[float, T]:
        """(when its read began, on the loop's clock; what was drawn): a change heard before then is in it."""
        loop = asyncio.get_running_loop()
        task = self._next.get(key)
        if task is None or task.done() or task.get_loop() is not loop:
            task = loop.create_task(self._draw(key))
            self._next[key] = task
        return await asyncio.shield(task)

    async def _draw(self, key: K) -> tuple[float, T]:
        try:
            await asyncio.sleep(self.delay)
        finally:  # from now on a new ask starts a new drawing: this one's read may be too early for it
            if self._next.get(key) is asyncio.current_task():
                del self._next[key]
        began = asyncio.get_running_loop().time()
        return began, await database_sync_to_async(self.draw)(key)


@dataclass(eq=False)
class _Batch(Generic[K]):
    keys: set[K] = field(default_factory=set)
    task: asyncio.Task[set[K]] | None = None


class Gathered(Generic[K]):
    """A yes-or-no question many sockets ask at once (each lobby watcher, on the same change: "has this person
    anything of their own in the lists?"), answered for all of them by one read: `read(keys)` (sync, on the
    database thread) gives the keys whose answer is yes. An ask joins the read that has not started yet, or starts
    one, so its answer was always read after it asked; a burst costs one query however many sockets ask (a query
    per socket per change was 5% of a club's server time at N=200, bench/README.md, issue 41)."""

    def __init__(self, read: Callable[[frozenset[K]], set[K]], delay: float) -> None:
        self.read, self.delay = read, delay
        self._open: _Batch[K] | None = None

    async def ask(self, key: K) -> bool:
        loop = asyncio.get_running_loop()
        batch = self._open
        if batch is None or batch.task is None or batch.task.done() or batch.task.get_loop() is not loop:
            batch = _Batch()
            batch.task = loop.create_task(self._read(batch))
            self._open = batch
        batch.keys.add(key)
        return key in await asyncio.shield(batch.task)

    async def _read(self, batch: _Batch[K]) -> set[K]:
        try:
            await asyncio.sleep(self.delay)
        finally:  # from now on an ask starts a new read: this one may have begun before it
            if self._open is batch:
                self._open = None
        return await database_sync_to_async(self.read)(frozenset(batch.keys))
