from django.urls import path

from . import consumers

websocket_urlpatterns = [
    path("ws/notify/", consumers.NotifyConsumer.as_asgi()),
    path("ws/m/<int:match_id>/", consumers.MatchConsumer.as_asgi()),
]
