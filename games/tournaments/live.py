"""A tournament page's live fragments: the public ones (header, standings, matches being played, podium), the
same for everyone who may see the page, and the person's own box.

The public HTML is drawn once per process for a burst of changes and shared by every socket of this process on
that tournament (REDRAWS, games.shared_draw): a finished match in an arena of 200 players would otherwise draw
200 standings tables. It is drawn on the sockets' side, not in news.changed, so the transaction that ends a match
(the live move path) only sends a message and never waits for a drawing."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.template.loader import render_to_string
from django.utils import timezone

from accounts.models import Viewer

from ..models import Tournament
from ..shared_draw import SharedDraw
from . import display, lists

PAGE = "games/tournaments/page.html"
PUBLIC_PARTS = ("head", "standings", "playing", "podium")
# A burst of changes (a round's matches ending together, players joining) is drawn once after this pause.
COALESCE_SECONDS = 0.25


def public_context(tournament: Tournament, *, now: datetime | None = None) -> dict[str, Any]:
    """What the public fragments show (one read of each)."""
    now = now or timezone.now()
    rows = display.standings(tournament)
    return {
        "head": display.header(tournament, now=now),
        "standings": rows,
        "playing": display.playing(tournament),
        "podium": display.podium(rows, tournament),
        "finished": tournament.status == Tournament.Status.FINISHED,
        "swiss": tournament.kind == Tournament.Kind.SWISS,
    }


def mine_context(tournament: Tournament, user: Viewer, csrf_token: str, code: str = "") -> dict[str, Any]:
    return {"tournament": tournament, "mine": display.mine(tournament, user), "csrf_token": csrf_token,
            "code": code, "user": user}


def public_html(tournament_id: int) -> str:
    """The public fragments, each with its id, for the page's socket to swap ("" if the tournament is gone)."""
    tournament = Tournament.objects.filter(pk=tournament_id).first()
    if tournament is None:
        return ""
    context = public_context(tournament)
    return "".join(render_to_string(f"{PAGE}#{part}", context) for part in PUBLIC_PARTS)


def mine_html(tournament_id: int, user: Viewer, csrf_token: str) -> str:
    """The person's own box (their match, their buttons), drawn for their socket alone: one or two reads."""
    tournament = Tournament.objects.filter(pk=tournament_id).first()
    if tournament is None:
        return ""
    return render_to_string(f"{PAGE}#mine", mine_context(tournament, user, csrf_token))


# The public fragments, drawn once per burst per process for all its sockets on the tournament.
REDRAWS: SharedDraw[int, str] = SharedDraw(public_html, delay=COALESCE_SECONDS)


def lobby_html(user: Viewer, csrf_token: str) -> str:
    """The lobby's tournaments (#lobby-tournaments): running, then upcoming; the page and its socket draw it."""
    found = lists.tournament_lists(user, finished=False)
    return render_to_string("games/tournaments/_lobby.html", {
        "rows": [*found["running"], *found["upcoming"]][:10], "csrf_token": csrf_token,
        "signed_in": user.is_authenticated,
    })
