from django.urls import path

from .play.socket import MatchConsumer
from .site.socket import NotifyConsumer

websocket_urlpatterns = [
    path("ws/notify/", NotifyConsumer.as_asgi()),
    path("ws/m/<int:match_id>/", MatchConsumer.as_asgi()),
]
