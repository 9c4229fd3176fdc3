from django.urls import path

from . import views

urlpatterns = [
    path("", views.home, name="home"),
    path("play/", views.lobby, name="play"),
    path("play/new/<slug:game>/", views.create_match, name="create_match"),
    path("m/<int:match_id>/", views.match_page, name="match"),
    path("m/<int:match_id>/join/", views.join_match, name="join_match"),
    path("m/<int:match_id>/leave/", views.leave_match, name="leave_match"),
    path("history/", views.history, name="history"),
    path("leaderboard/", views.leaderboard, name="leaderboard"),
]
