"""Real daphne servers on the test database, for the tests that need a process of their own: the browser
tests, two processes on PostgreSQL + Redis, and a kill -9 in the middle of play."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import quote

BASE_DIR = Path(__file__).resolve().parents[1]
SERVER_START_SECONDS = 40


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def database_url(settings_dict: dict[str, Any]) -> str:
    """A DATABASE_URL naming the test database this process set up, for a server subprocess."""
    engine, name = settings_dict["ENGINE"], str(settings_dict["NAME"])
    if engine.endswith("sqlite3"):
        if name == ":memory:" or name.startswith("file:") or "mode=memory" in name:
            raise RuntimeError("a server needs a file-based SQLite test database to share (see DATABASES TEST NAME)")
        return f"sqlite:///{Path(name).resolve()}"
    if "postgresql" in engine:
        user = quote(str(settings_dict.get("USER") or ""), safe="")
        password = quote(str(settings_dict.get("PASSWORD") or ""), safe="")
        credentials = f"{user}:{password}@" if password else (f"{user}@" if user else "")
        host = str(settings_dict.get("HOST") or "")
        port = f":{settings_dict['PORT']}" if settings_dict.get("PORT") else ""
        return f"postgres://{credentials}{host}{port}/{quote(name, safe='')}"
    raise RuntimeError(f"no server support for {engine}: the site runs on SQLite or PostgreSQL")


class Daphne:
    """config.asgi:application served by daphne in a subprocess on a free port."""

    def __init__(self, env: dict[str, str], log: Path, port: int | None = None) -> None:
        self.port = port or free_port()
        self.log = log
        daphne = shutil.which("daphne", path=str(Path(sys.executable).parent)) or "daphne"
        full = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", "PYTHONUNBUFFERED": "1", **env}
        full.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        log.parent.mkdir(parents=True, exist_ok=True)
        with log.open("ab") as output:
            self.process = subprocess.Popen(
                [daphne, "-b", "127.0.0.1", "-p", str(self.port), "config.asgi:application"],
                cwd=BASE_DIR, env=full, stdout=output, stderr=subprocess.STDOUT,
            )
        self._wait_for_port()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def _wait_for_port(self) -> None:
        deadline = time.monotonic() + SERVER_START_SECONDS
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"daphne exited with {self.process.returncode}:\n{self.log.read_text()[-4000:]}")
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                return
            time.sleep(0.1)
        self.process.terminate()
        raise RuntimeError(f"daphne did not listen on port {self.port}:\n{self.log.read_text()[-4000:]}")

    def kill(self) -> None:
        """kill -9: no shutdown, no cleanup, as a crash or a power cut would leave it."""
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)


# For the tests that play through a real server's sockets (tests/games/play/test_live_servers.py, tournaments).


def session_cookie(user: Any) -> str:
    from django.test import Client

    client = Client()
    client.force_login(user)
    return f"sessionid={client.cookies['sessionid'].value}"


def server_env(**extra: str) -> dict[str, str]:
    env = {
        "DATABASE_URL": database_url(_connection().settings_dict),
        "DJANGO_DEBUG": "true",
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
        "GAMES_BOT_DELAY": "0.05",
        "CHANNELS_REDIS_PREFIX": f"cardclub-live-{os.environ.get('PYTEST_XDIST_WORKER', 'main')}-{os.getpid()}",
    }
    return {**env, **extra}


async def until(sock: Any, predicate: Callable[[str], bool], timeout: float = 15) -> str:
    async with asyncio.timeout(timeout):
        while True:
            message = await sock.recv()
            if predicate(message):
                return message


def _connection() -> Any:
    from django.db import connection

    return connection
