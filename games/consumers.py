"""WebSocket consumers: thin. Authenticate, join groups, hand actions to services, send rendered HTML."""

from __future__ import annotations

from typing import Any

from channels.generic.websocket import AsyncWebsocketConsumer

# Close codes (4000-4999 are the application's own).
CLOSE_UNAUTHENTICATED = 4401
CLOSE_FORBIDDEN = 4403
CLOSE_NOT_FOUND = 4404
CLOSE_TOO_MANY = 4429


def user_group(user_id: int) -> str:
    return f"user-{user_id}"


class NotifyConsumer(AsyncWebsocketConsumer):
    """A signed-in person's own channel: "your turn" cues and lobby refreshes. Anonymous sockets are refused."""

    async def connect(self) -> None:
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self.close(code=CLOSE_UNAUTHENTICATED)
            return
        self.group = user_group(user.pk)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()

    async def disconnect(self, code: int) -> None:
        if hasattr(self, "group"):
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        # Nothing to say to the server on this socket; ignore anything sent.
        return

    async def notify_html(self, event: dict[str, Any]) -> None:
        await self.send(text_data=event["html"])
