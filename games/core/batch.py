"""Many sockets' reads and writes of the same kind gathered into one trip to the database thread.

A table's opening reads and writes a few rows for each socket (its match, its presence, its mutes). One trip per
socket queues them one behind another on the one thread database work runs on (Channels' database_sync_to_async
is thread-sensitive), each a round trip or several to the database: at a club's opening (1,000 tables, ~4,700
sockets in 30 s) the queue grew past daphne's 5 s handshake timeout, the dropped sockets came back, and their
reopenings fed the queue (bench/README.md, issue 47). Gathered, a trip serves whatever asked while the one before
it ran: the busier the process, the larger and cheaper per socket each trip, and the queue holds at most one trip
of each kind. That is the admission control: a storm of openings makes each trip larger rather than the queue
longer.

Each ask joins a trip that has not started yet, so what it gets was read after it asked (nothing is missed that a
trip of its own would have seen). A trip that fails other than by the database being away is run again one ask at
a time, so that one ask's trouble (a row gone meanwhile) is its own.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Hashable, Sequence
from typing import Generic, TypeVar

from channels.db import database_sync_to_async

from .faults import db_unavailable

A = TypeVar("A")
R = TypeVar("R")


class Batched(Generic[A, R]):
    """`run(asks)` (sync, on the database thread) answers a list of asks with a list of results in their order;
    `await batched(ask)` is that ask's result, from a trip shared with the asks that came meanwhile."""

    def __init__(self, run: Callable[[Sequence[A]], list[R]], limit: int = 200,
                 key: Callable[[A], Hashable] | None = None) -> None:
        # With `key`, a trip takes one ask per key, the others wait for the next trip in their order: what an ask
        # reads back then reflects the writes of those before it and not of those after (a table's sockets opening
        # one after another each see the table as their own opening left it, as with a trip each).
        self.run, self.limit, self.key = run, limit, key
        self.pending: list[tuple[A, asyncio.Future[R]]] = []
        self.running: asyncio.Task[None] | None = None
        self.trips = 0  # how many trips were made (the tests count them)

    async def __call__(self, ask: A) -> R:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[R] = loop.create_future()
        if self.running is None or self.running.done() or self.running.get_loop() is not loop:
            # Asks left by another event loop (a test's, closed) are nobody's now.
            self.pending = [(a, f) for a, f in self.pending if f.get_loop() is loop]
            self.running = loop.create_task(self._drain())
        self.pending.append((ask, future))
        return await future

    async def _drain(self) -> None:
        while self.pending:
            await asyncio.sleep(0)  # the asks of this loop iteration join the trip
            batch: list[tuple[A, asyncio.Future[R]]] = []
            rest: list[tuple[A, asyncio.Future[R]]] = []
            keys: set[Hashable] = set()
            for ask, future in self.pending:
                key = self.key(ask) if self.key is not None else None
                if len(batch) >= self.limit or (key is not None and key in keys):
                    rest.append((ask, future))
                else:
                    keys.add(key)
                    batch.append((ask, future))
            self.pending = rest
            batch = [(ask, future) for ask, future in batch if not future.done()]  # a cancelled socket's ask
            if not batch:
                continue
            self.trips += 1
            try:
                results = await database_sync_to_async(self._run)([ask for ask, _ in batch])
            except BaseException as error:
                for _, future in batch:
                    if not future.done():
                        future.set_exception(error)
                if isinstance(error, asyncio.CancelledError):
                    raise
                continue
            for (_, future), result in zip(batch, results, strict=True):
                if not future.done():
                    if isinstance(result, _Failed):
                        future.set_exception(result.error)
                    else:
                        future.set_result(result)

    def _run(self, asks: list[A]) -> list[R | _Failed]:
        try:
            return list(self.run(asks))
        except Exception as error:
            if db_unavailable(error) or len(asks) == 1:
                raise
        out: list[R | _Failed] = []
        for ask in asks:  # one ask's trouble is its own
            try:
                out.extend(self.run([ask]))
            except Exception as error:
                if db_unavailable(error):
                    raise
                out.append(_Failed(error))
        return out


class _Failed:
    def __init__(self, error: Exception) -> None:
        self.error = error
