"""Plain function views for the games side of the site."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    return render(request, "games/home.html")


@require_GET
def lobby(request: HttpRequest) -> HttpResponse:
    return render(request, "games/home.html")


@require_GET
def history(request: HttpRequest) -> HttpResponse:
    return render(request, "games/home.html")


@require_GET
def leaderboard(request: HttpRequest) -> HttpResponse:
    return render(request, "games/home.html")
