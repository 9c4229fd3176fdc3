"""The Bot API's addresses, under /api/v1/ (config/urls.py)."""

from django.urls import path, re_path

from . import challenges, gomori, streams, views
from .auth import not_found

urlpatterns = [
    path("account", views.account, name="api_account"),
    path("stream/events", streams.event_stream, name="api_events"),
    path("matches", views.matches, name="api_matches"),
    path("matches/<int:match_id>", views.match_state, name="api_match"),
    path("matches/<int:match_id>/stream", streams.match_stream, name="api_match_stream"),
    path("matches/<int:match_id>/move", views.move, name="api_move"),
    path("matches/<int:match_id>/resign", views.resign, name="api_resign"),
    path("matches/<int:match_id>/abort", views.abort, name="api_abort"),
    path("matches/<int:match_id>/chat", views.post_chat, name="api_chat"),
    path("matches/<int:match_id>/gomori/request", gomori.gomori_request, name="api_gomori_request"),
    path("matches/<int:match_id>/gomori/turn", gomori.gomori_turn, name="api_gomori_turn"),
    path("challenges", challenges.list_challenges, name="api_challenges"),
    path("challenge/<str:username>", challenges.make_challenge, name="api_challenge"),
    path("challenges/<int:challenge_id>/accept", challenges.accept_challenge, name="api_accept"),
    path("challenges/<int:challenge_id>/decline", challenges.decline_challenge, name="api_decline"),
    path("challenges/<int:challenge_id>/withdraw", challenges.withdraw_challenge, name="api_withdraw"),
    re_path(r"^(?P<path>.*)$", not_found),
]
