"""A raw HTTP client for the Bot API tests: what a bot author's program sends, over a real socket to daphne."""

from __future__ import annotations

import http.client
import json
import shutil
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit


class Reply:
    def __init__(self, status: int, headers: dict[str, str], body: bytes) -> None:
        self.status, self.headers, self.body = status, headers, body

    @property
    def json(self) -> Any:
        return json.loads(self.body)

    def __repr__(self) -> str:
        return f"<Reply {self.status} {self.body[:300]!r}>"


class Api:
    def __init__(self, base: str, token: str | None) -> None:
        parts = urlsplit(base)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        self.token = token

    def headers(self, extra: dict[str, str] | None = None) -> dict[str, str]:
        headers = {"Accept": "application/json"}
        if self.token is not None:
            headers["Authorization"] = f"Bearer {self.token}"
        return {**headers, **(extra or {})}

    def request(self, method: str, path: str, body: Any = None, raw: bytes | None = None,
                headers: dict[str, str] | None = None) -> Reply:
        connection = http.client.HTTPConnection(self.host, self.port, timeout=30)
        try:
            data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
            extra = {"Content-Type": "application/json"} if data is not None else {}
            connection.request(method, path, body=data, headers=self.headers({**extra, **(headers or {})}))
            response = connection.getresponse()
            return Reply(response.status, {k.lower(): v for k, v in response.getheaders()}, response.read())
        finally:
            connection.close()

    def get(self, path: str) -> Reply:
        return self.request("GET", path)

    def post(self, path: str, body: Any = None) -> Reply:
        return self.request("POST", path, body if body is not None else {})

    def stream(self, path: str) -> Stream:
        return Stream(self, path)


class Stream:
    """A newline-delimited JSON stream, read line by line (keep-alive newlines skipped)."""

    def __init__(self, api: Api, path: str, timeout: float = 30) -> None:
        self.connection = http.client.HTTPConnection(api.host, api.port, timeout=timeout)
        self.connection.request("GET", path, headers=api.headers())
        self.response = self.connection.getresponse()
        self.status = self.response.status
        self.lines: list[bytes] = []  # every line received, keep-alives included (the leak scan reads them all)

    def next(self) -> dict[str, Any] | None:
        """The next JSON line; None when the stream ended."""
        while True:
            raw = self.response.readline()
            if not raw:
                return None
            self.lines.append(raw)
            if raw.strip():
                return dict(json.loads(raw))

    def until(self, predicate: Any) -> dict[str, Any]:
        while True:
            item = self.next()
            if item is None:
                raise AssertionError("the stream ended")
            if predicate(item):
                return item

    def close(self) -> None:
        self.connection.close()


def raw_get(base: str, path: str, token: str, receive_buffer: int = 2048) -> socket.socket:
    """A GET whose reader never reads: a small receive buffer, so what the server sends stays in its buffers."""
    parts = urlsplit(base)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
    sock.connect((parts.hostname or "127.0.0.1", parts.port or 80))
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}\r\n\r\n".encode())
    return sock


def make_bot(owner: Any, username: str, scopes: tuple[str, ...] = ("play", "challenge")) -> tuple[Any, str]:
    from games.api.tokens import create_bot, make_token

    bot = create_bot(owner, username)
    _, key = make_token(bot, name="test", scopes=scopes)
    return bot, key


REPO = Path(__file__).resolve().parents[3]
BRIDGE = REPO / "clients" / "computer_gomori_bridge.py"
PROTOCOL_BOT = REPO / "tests" / "games" / "gomori_protocol_bot.py"


def start_bridge(server_url: str, key: str, where: Path, log: Path) -> subprocess.Popen[bytes]:
    """The bridge as its author runs it: a copy of the one file, a plain python3, no Django on its path."""
    bridge = where / "computer_gomori_bridge.py"
    shutil.copy(BRIDGE, bridge)
    bot = where / "my_bot.py"
    shutil.copy(PROTOCOL_BOT, bot)
    python = shutil.which("python3") or sys.executable
    return subprocess.Popen([python, "-I", str(bridge), "--server", server_url, "--token", key, "--",
                             python, "-I", str(bot)], cwd=where, stdout=log.open("wb"), stderr=subprocess.STDOUT)
