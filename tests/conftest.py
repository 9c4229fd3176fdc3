"""Fixtures shared by every test package: the user factory (tests/factories.py), its password, and a temporary
media folder."""

from __future__ import annotations

import asyncio
import io
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from factories import PASSWORD
from factories import make_user as _make_user
from pytest_asyncio import is_async_test


@pytest.fixture(autouse=True, scope="session")
def _fast_password_hashing() -> Iterator[None]:
    """MD5 instead of a million PBKDF2 rounds: creating a user costs microseconds, not half a second.

    Only this test process; a live server subprocess (the e2e tests) keeps the real hasher.
    """
    from django.test import override_settings

    with override_settings(PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"]):
        yield


@pytest.fixture(autouse=True, scope="session")
def _flush_past_a_live_server_s_last_reads() -> Iterator[None]:
    """A transactional test's teardown empties the tables (TRUNCATE on PostgreSQL) while a live server of the test
    (daphne in a subprocess: the e2e and API modules) may still be reading them, a closing stream's last
    attendance, a process's pulse: PostgreSQL can then pick the flush as a deadlock's victim. The server's read
    goes on and ends a moment later; the flush is simply made again."""
    from django.core.management.base import CommandError
    from django.core.management.commands import flush

    handle = flush.Command.handle

    def retrying(self: Any, **options: Any) -> Any:
        for attempt in range(5):
            try:
                return handle(self, **options)
            except CommandError as error:
                if attempt == 4 or "deadlock" not in str(error.__cause__ or ""):
                    raise
                time.sleep(0.2 * (attempt + 1))
        return None

    flush.Command.handle = retrying  # type: ignore[method-assign]
    try:
        yield
    finally:
        flush.Command.handle = handle  # type: ignore[method-assign]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # The tests that take minutes by design go first: xdist hands out tests in this order, so one worker starts
    # them at once while the other runs the rest, rather than one of them starting last while the other waits.
    items.sort(key=lambda item: item.get_closest_marker("long") is None)
    for item in items:
        if is_async_test(item):
            # First, so that it is torn down after the test's other fixtures (its sockets, its bot runner).
            item.fixturenames.insert(0, "_every_task_ends")  # type: ignore[attr-defined]


async def _cancel(tasks: set[asyncio.Task[Any]], timeout: float) -> set[asyncio.Task[Any]]:
    """Cancel the tasks; those that have not ended after the timeout."""
    for task in tasks:
        task.cancel()
    if not tasks:
        return set()
    return (await asyncio.wait(tasks, timeout=timeout))[1]


@pytest.fixture
async def _every_task_ends() -> AsyncIterator[None]:
    """The tasks a coroutine test leaves are cancelled, as its event loop's runner would. One that does not
    end (it took its cancellation for an error, and went on) fails the test within seconds, with its stack,
    where the runner would wait for it until pytest-timeout stops the whole test after 300 s."""
    yield
    pending = await _cancel(asyncio.all_tasks() - {asyncio.current_task()}, timeout=10)  # type: ignore[operator]
    if not pending:
        return
    report = io.StringIO()
    for task in pending:
        report.write(f"{task!r} (cancelled {task.cancelling()} times)\n")
        task.print_stack(file=report)
    for _ in range(20):  # end them, so that the loop can close
        pending = await _cancel(pending, timeout=0.5)
        if not pending:
            break
    pytest.fail(f"tasks went on after they were cancelled:\n{report.getvalue()}", pytrace=False)


@pytest.fixture
def media_root(settings: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Uploads (avatars) go to a temporary folder for this test, never to the project's media/.

    Not autouse here, because Hypothesis refuses function-scoped fixtures on its tests; packages that
    store files make it autouse in their own conftest.
    """
    media = tmp_path_factory.mktemp("media")
    settings.MEDIA_ROOT = media
    yield media


@pytest.fixture
def password() -> str:
    return PASSWORD


@pytest.fixture
def make_user(db: None) -> Callable[..., Any]:
    """factories.make_user as a fixture, the database opened for it: make_user(), make_user("ada",
    display_name="Ada"), make_user(password=None) for unusable."""
    return _make_user
