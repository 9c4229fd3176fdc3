"""Tasks that run until they are cancelled (the hub's news reader, a table's heartbeat, the bot runner)."""

from __future__ import annotations

import asyncio


def raise_if_cancelled() -> None:
    """For a loop that runs until cancelled: stop if this task was asked to stop, though the await that took
    the cancellation did not raise it. Libraries swallow it: redis-py turns it into its own ConnectionError
    (which a loop that logs errors and goes on would catch), and asgiref's sync_to_async, cancelled while its
    thread runs, waits for the thread and returns the result as if nothing had happened. The loop would then
    run forever, holding up whoever waits for it (a server's shutdown, a test's teardown). Each such loop
    checks this at every turn, and after catching an error."""
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError
