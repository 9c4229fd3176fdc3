"""The leaderboard page."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_GET

from ..catalog import GAMES
from ..core.jinja import render_block
from . import queries
from .glicko2 import START_DEVIATION, START_RATING
from .leaderboard import leaderboard_rows


@require_GET
def leaderboard(request: HttpRequest) -> HttpResponse:
    """Each game's top 100 by rating: established ratings first, then provisional ones, marked."""
    slug = request.GET.get("game", "")
    if slug not in GAMES:
        slug = next(iter(GAMES))
    rows = queries.leaderboard(game=slug)
    lines = leaderboard_rows(rows, request.user)
    return render(request, "games/leaderboard.html", {
        "games": list(GAMES.values()),
        "current": GAMES[slug],
        "rows": rows,
        "leaderboard_rows": mark_safe(render_block("games/leaderboard_rows.html", "rows", {"rows": lines})),
        "min_matches": queries.LEADERBOARD_MIN_MATCHES,
        "provisional_deviation": queries.PROVISIONAL_DEVIATION,
        "start_rating": START_RATING,
        "start_deviation": START_DEVIATION,
    })
