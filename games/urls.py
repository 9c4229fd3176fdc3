from django.urls import path

from . import history_views, rules_views, views

urlpatterns = [
    path("", views.home, name="home"),
    path("play/", views.play, name="play"),
    path("play/new/<slug:game>/", views.create_match, name="create_match"),
    path("m/<int:match_id>/", views.match_page, name="match"),
    path("m/<int:match_id>/join/", views.join_match, name="join_match"),
    path("m/<int:match_id>/leave/", views.leave_match, name="leave_match"),
    path("m/<int:match_id>/cancel/", views.cancel_match, name="cancel_match"),
    path("m/<int:match_id>/abandon/", views.abandon_match, name="abandon_match"),
    path("m/<int:match_id>/replay/", history_views.replay_page, name="replay"),
    path("m/<int:match_id>/export.json", history_views.export_match, name="export_match"),
    path("history/", history_views.history_list, name="history"),
    path("u/<str:username>/history/", history_views.player_history, name="player_history"),
    path("leaderboard/", history_views.leaderboard, name="leaderboard"),
    path("rules/", rules_views.rules_index, name="rules_index"),
    path("rules/<slug:game>/", rules_views.rules_page, name="rules"),
]
