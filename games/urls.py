from django.urls import path

from . import views

urlpatterns = [
    path("", views.home, name="home"),
    path("play/", views.lobby, name="play"),
    path("history/", views.history, name="history"),
    path("leaderboard/", views.leaderboard, name="leaderboard"),
]
