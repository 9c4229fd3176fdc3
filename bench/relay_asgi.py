"""A bare Channels relay, the yardstick of bench/live.py: each message sent to a room reaches its group.

Bare means Channels' own parts: with no REDIS_URL, Channels' InMemoryChannelLayer (the site's default too).
With REDIS_URL it uses the site's Redis layer: channels-redis's own pool fails beyond 100 operations in
flight (redis-py 8), which this bench's hundred rooms connecting at once exceed.
"""

import os

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django.setup()

from channels.generic.websocket import AsyncWebsocketConsumer  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from django.urls import path  # noqa: E402


class RelayConsumer(AsyncWebsocketConsumer):
    async def connect(self) -> None:
        self.room = f"relay-{self.scope['url_route']['kwargs']['room']}"
        await self.channel_layer.group_add(self.room, self.channel_name)
        await self.accept()

    async def disconnect(self, code: int) -> None:
        await self.channel_layer.group_discard(self.room, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        await self.channel_layer.group_send(self.room, {"type": "relay.message", "text": text_data})

    async def relay_message(self, event: dict) -> None:
        await self.send(text_data=event["text"])


application = ProtocolTypeRouter({"websocket": URLRouter([path("ws/relay/<int:room>/", RelayConsumer.as_asgi())])})
