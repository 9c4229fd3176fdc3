"""How much of a stream its reader has not read yet, and dropping it: what a streaming response cannot see.

Daphne buffers whatever the application sends without limit (Twisted's transport has no back-pressure toward
ASGI), so a client that stops reading would make the server hold every line meant for it. The stream asks
this outlet, before each line, how many bytes wait unread: in Twisted's buffer, plus what the kernel still holds
in the socket's send queue (SIOCOUTQ: sent but not acknowledged, or not yet sent); over the budget, the connection
is aborted. Under another server (the test client) nothing is known and nothing is dropped."""

from __future__ import annotations

import contextlib
import fcntl
import struct
import termios
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any

SIOCOUTQ = termios.TIOCOUTQ  # the same request on a TCP socket: bytes in the send queue
SCOPE_KEY = "cardclub.outlet"


class Outlet:
    def __init__(self, send: Any) -> None:
        protocol = send.args[0] if isinstance(send, partial) and send.args else None
        channel = getattr(protocol, "channel", None)
        self.transport: Any = getattr(channel, "transport", None)

    def buffered(self) -> int | None:
        """Bytes written to the connection that its reader has not taken; None when unknown."""
        transport = self.transport
        if transport is None:
            return None
        waiting = 0
        try:
            waiting += len(transport.dataBuffer) - int(getattr(transport, "offset", 0))
            waiting += int(getattr(transport, "_tempDataLen", 0))
        except (AttributeError, TypeError):
            return None
        try:
            handle = transport.getHandle()
            queued = struct.unpack("i", fcntl.ioctl(handle.fileno(), SIOCOUTQ, b"\0\0\0\0"))[0]
            waiting += queued
        except (AttributeError, OSError, ValueError):
            pass
        return waiting

    def abort(self) -> None:
        """Drop the connection now, without flushing what waits (a close would wait for the reader)."""
        transport = self.transport
        if transport is not None:
            with contextlib.suppress(Exception):  # gone already
                transport.abortConnection()


def outlet_of(scope: dict[str, Any]) -> Outlet | None:
    outlet = scope.get(SCOPE_KEY)
    return outlet if isinstance(outlet, Outlet) else None


class OutletMiddleware:
    """Gives the API's requests their outlet (config/asgi.py)."""

    def __init__(self, app: Callable[..., Awaitable[None]]) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope.get("type") == "http" and str(scope.get("path", "")).startswith("/api/"):
            scope = {**scope, SCOPE_KEY: Outlet(send)}
        await self.app(scope, receive, send)
