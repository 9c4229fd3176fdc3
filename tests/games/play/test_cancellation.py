"""The live core's background loops stop when they are cancelled, even when a library turns the cancellation
into an error of its own (redis-py closes its connection and raises ConnectionError): a loop that logged that
error and went on ran forever, and the test's event loop waited for it at teardown (the scale-out CI pass hung
in test_table_columbo.py until pytest-timeout stopped it)."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import pytest

from games.play import hub as hub_module
from games.play.hub import Hub
from games.play.tasks import raise_if_cancelled


class SwallowingLayer:
    """A channel layer whose receive, once cancelled, raises a ConnectionError instead (as redis-py does)."""

    def __init__(self) -> None:
        self.receives = 0

    async def receive(self, channel: str) -> dict[str, Any]:
        self.receives += 1
        if self.receives > 1:  # a loop that went on after its cancellation: end it here, so the test can't hang
            raise asyncio.CancelledError
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            raise ConnectionError("Connection closed by server.") from None
        return {}


async def test_the_news_reader_stops_when_cancelled_though_the_layer_swallows_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    layer = SwallowingLayer()
    monkeypatch.setattr(hub_module, "get_channel_layer", lambda: layer)
    hub = Hub()
    hub.channel = "test-channel"
    reader = asyncio.get_running_loop().create_task(hub._read())
    await asyncio.sleep(0.05)
    reader.cancel()
    await asyncio.wait({reader}, timeout=2)
    assert reader.cancelled()
    assert layer.receives == 1  # it did not go back to the layer after the cancellation


async def test_raise_if_cancelled_only_raises_in_a_task_asked_to_stop() -> None:
    raise_if_cancelled()  # not cancelled: nothing happens

    async def swallowing() -> None:
        with contextlib.suppress(asyncio.CancelledError):  # swallowed, as a library might
            await asyncio.sleep(3600)
        raise_if_cancelled()

    task = asyncio.get_running_loop().create_task(swallowing())
    await asyncio.sleep(0)
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    assert task.cancelled()


# channels' database_sync_to_async closes its thread's stale connection before the call: when an earlier test
# left one open in that thread, that touches the database, so this test needs access though it reads nothing.
@pytest.mark.django_db(transaction=True)
async def test_the_bot_runner_stops_when_cancelled_during_a_database_call(monkeypatch: pytest.MonkeyPatch) -> None:
    """A database call that announces a change (services: async_to_sync(layer.group_send) in a try that logs a
    lost message) takes the runner's cancellation: redis-py turns it into a ConnectionError, the service logs it
    and returns, and asgiref's sync_to_async then returns the result as if nothing had happened. The runner went
    on polling forever, and scheduler.stop() waited for it: the scale-out pass hung in test_frame_fuzzing and
    test_changes (then test_services) until pytest-timeout stopped them."""
    from asgiref.sync import async_to_sync

    from games.play import scheduler

    calls: list[int] = []
    announcing = asyncio.Event()

    async def announce() -> None:  # as channels-redis' group_send under redis-py
        announcing.set()
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            raise ConnectionError("Connection closed by server.") from None

    def due_matches_announcing(limit: int = 50) -> list[tuple[int, int]]:
        calls.append(limit)
        with contextlib.suppress(Exception):  # as services.announce: a lost message is logged, never raised
            async_to_sync(announce)()
        return []

    monkeypatch.setattr(scheduler, "due_bot_matches", due_matches_announcing)
    runner = asyncio.get_running_loop().create_task(scheduler._loop())
    # The cancellation must land inside the call (the database thread may still be busy with another test's).
    await asyncio.wait_for(announcing.wait(), timeout=10)
    runner.cancel()
    await asyncio.wait({runner}, timeout=3)
    try:
        assert runner.done() and runner.cancelled()
        assert len(calls) == 1  # it did not poll again after the cancellation
    finally:
        runner.cancel()
        with contextlib.suppress(BaseException):
            await asyncio.wait({runner}, timeout=1)
