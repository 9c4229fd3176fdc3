"""Helpers shared by the socket tests of several folders: a signed-in test client's cookie, a match socket opened
with it, and the close code a socket got (so no test module imports another)."""

from __future__ import annotations

import asyncio
from typing import Any

from django.test import Client


def signed_in_client(user: Any) -> tuple[Client, str]:
    client = Client()
    client.force_login(user)
    return client, f"sessionid={client.cookies['sessionid'].value}"


async def open_with(match_id: int, cookie: str) -> Any:
    from channels.testing import WebsocketCommunicator

    from config.asgi import application

    socket = WebsocketCommunicator(application, f"/ws/m/{match_id}/",
                                   headers=[(b"origin", b"http://testserver"), (b"host", b"testserver"),
                                            (b"cookie", cookie.encode())])
    connected, _ = await socket.connect(timeout=5)
    assert connected
    await socket.receive_from(timeout=5)
    return socket


async def closed_within_a_second(socket: Any) -> int | None:
    """The close code the server sent within a second (the page tells the person why by it), else None."""
    try:
        async with asyncio.timeout(1):
            while True:
                output = await socket.receive_output(timeout=1)
                if output["type"] == "websocket.close":
                    return int(output.get("code", 1000))
    except TimeoutError:
        return None
