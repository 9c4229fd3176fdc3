"""A browser tab's socket on a real server, as the fault tests watch it (tests/games/play/test_faults_servers.py):
every message it was sent, every version of the match it was drawn, in order, and how it closed."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
from collections.abc import Callable
from typing import Any

import websockets

VERSION = re.compile(r'data-move="(\d+)"')  # every game's board carries the version it was drawn from


class Page:
    def __init__(self, sock: Any, name: str) -> None:
        self.sock = sock
        self.name = name
        self.messages: list[str] = []
        self.versions: list[int] = []
        self.close_code: int | None = None
        self.closed = asyncio.Event()
        self._news = asyncio.Condition()
        self._reader = asyncio.get_running_loop().create_task(self._read())

    @classmethod
    async def open(cls, base_ws: str, path: str, cookie: str | None, origin: str, name: str = "",
                   first: str | None = 'id="board"', timeout: float = 15) -> Page:
        headers = {"Cookie": cookie} if cookie else {}
        sock = await websockets.connect(f"{base_ws}{path}", additional_headers=headers, origin=origin,
                                        max_size=2**22, open_timeout=timeout)
        page = cls(sock, name or path)
        if first is not None:
            await page.until(lambda m: first in m, timeout=timeout)
        return page

    async def _read(self) -> None:
        try:
            async for message in self.sock:
                text = message if isinstance(message, str) else message.decode()
                self.messages.append(text)
                self.versions.extend(int(v) for v in VERSION.findall(text))
                async with self._news:
                    self._news.notify_all()
        except websockets.ConnectionClosed:
            pass
        finally:
            self.close_code = self.sock.close_code
            self.closed.set()
            async with self._news:
                self._news.notify_all()

    @property
    def version(self) -> int:
        return self.versions[-1] if self.versions else -1

    async def until(self, predicate: Callable[[str], bool], timeout: float = 15, since: int = 0) -> str:
        """The first message from index `since` on that satisfies the predicate (waiting for it)."""
        async with asyncio.timeout(timeout), self._news:
            seen = since
            while True:
                for message in self.messages[seen:]:
                    if predicate(message):
                        return message
                seen = len(self.messages)
                if self.closed.is_set():
                    raise AssertionError(f"{self.name}: closed ({self.close_code}) while waiting")
                await self._news.wait()

    async def until_version(self, version: int, timeout: float = 15) -> None:
        async with asyncio.timeout(timeout), self._news:
            while self.version < version:
                if self.closed.is_set():
                    raise AssertionError(f"{self.name}: closed ({self.close_code}) at version {self.version}")
                await self._news.wait()

    def went_back(self) -> bool:
        return any(later < earlier for earlier, later in zip(self.versions, self.versions[1:], strict=False))

    async def send(self, frame: dict[str, Any]) -> None:
        await self.sock.send(json.dumps(frame))

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await self.sock.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self._reader, 5)
