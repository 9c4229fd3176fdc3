from django.urls import path

from .notify.consumer import NotifyConsumer
from .play.socket import MatchConsumer

websocket_urlpatterns = [
    path("ws/notify/", NotifyConsumer.as_asgi()),
    path("ws/m/<int:match_id>/", MatchConsumer.as_asgi()),
]
