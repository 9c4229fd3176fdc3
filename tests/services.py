"""A Redis and a PostgreSQL of a test's own, to stop and restart under a running site (tests/games/play/
test_faults_servers.py) without touching the servers the rest of the suite shares."""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

from servers import free_port

START_SECONDS = 30


def _wait_for_port(port: int, seconds: float = START_SECONDS) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return
        time.sleep(0.05)
    raise RuntimeError(f"nothing listens on port {port}")


class PrivateRedis:
    """redis-server on a free port, no persistence: a restart forgets every group and message, as a Redis restarted
    without its files does."""

    def __init__(self) -> None:
        self.port = free_port()
        self.dir = Path(tempfile.mkdtemp(prefix="cardclub-redis-"))
        self.process: subprocess.Popen[bytes] | None = None
        self.start()

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        server = shutil.which("redis-server")
        if server is None:
            raise RuntimeError("redis-server is not installed (the scale-out CI pass installs and runs it)")
        log = (self.dir / "redis.log").open("ab")
        self.process = subprocess.Popen(
            [server, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", str(self.dir)], stdout=log, stderr=subprocess.STDOUT)
        _wait_for_port(self.port)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)
        self.process = None

    def close(self) -> None:
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


def _postgres_bin() -> Path:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    if initdb is None:
        raise RuntimeError("PostgreSQL's initdb is not installed (the scale-out CI pass has it)")
    return Path(initdb).parent


class PrivatePostgres:
    """A PostgreSQL cluster of its own (initdb in a temporary folder, a free port), holding a copy of a database,
    to restart under a running site. As root (CI) it runs as the postgres user, as PostgreSQL requires."""

    def __init__(self) -> None:
        self.bin = _postgres_bin()
        self.port = free_port()
        self.dir = Path(tempfile.mkdtemp(prefix="cardclub-pg-"))
        self.data = self.dir / "data"
        self.as_postgres = os.geteuid() == 0
        if self.as_postgres:
            shutil.chown(self.dir, "postgres")
        self._run("initdb", "-D", str(self.data), "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8")
        self.start()

    def _run(self, tool: str, *args: str) -> None:
        command = [str(self.bin / tool), *args]
        if self.as_postgres:
            command = ["runuser", "-u", "postgres", "--", *command]
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=120)

    def url(self, name: str) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/{name}"

    def start(self) -> None:
        options = f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200"
        self._run("pg_ctl", "-D", str(self.data), "-o", options, "-l", str(self.dir / "postgres.log"), "-w", "start")

    def stop(self) -> None:
        """A fast shutdown: every connection is cut, what was committed is kept."""
        self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")

    def copy_of(self, source_url: str, name: str) -> str:
        """A copy of the database at `source_url` (schema and rows) made here as `name`; its URL."""
        subprocess.run([str(self.bin / "createdb"), "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", name],
                       check=True, timeout=60)
        dump = subprocess.run(["pg_dump", "--no-owner", "--no-privileges", source_url], check=True,
                              capture_output=True, timeout=120).stdout
        subprocess.run(["psql", "-q", "-v", "ON_ERROR_STOP=1", self.url(name)], input=dump, check=True,
                       stdout=subprocess.DEVNULL, timeout=120)
        return self.url(name)

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        shutil.rmtree(self.dir, ignore_errors=True)
