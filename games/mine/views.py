"""My games: the page listing every match a person is in (games.mine.queries)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from accounts.models import User

from .queries import my_games as read_my_games


@login_required
@require_safe
def my_games(request: HttpRequest) -> HttpResponse:
    user = request.user
    assert isinstance(user, User)  # login_required
    return render(request, "games/my_games.html", {"games": read_my_games(user)})
