"""A tournament page's live fragments: the public ones (header, standings, matches being played, podium), the
same for everyone who may see the page, and the person's own box.

The public HTML is drawn once per process for a burst of changes and shared by every socket of this process on
that tournament (Redraws): a finished match in an arena of 200 players would otherwise draw 200 standings
tables. It is drawn on the sockets' side, not in news.changed, so the transaction that ends a match (the live
move path) only sends a message and never waits for a drawing."""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import Any

from channels.db import database_sync_to_async
from django.template.loader import render_to_string
from django.utils import timezone

from accounts.models import Viewer

from ..models import Tournament
from . import queries

PAGE = "games/tournaments/page.html"
PUBLIC_PARTS = ("head", "standings", "playing", "podium")
# A burst of changes (a round's matches ending together, players joining) is drawn once after this pause.
COALESCE_SECONDS = 0.25


def public_context(tournament: Tournament, *, now: datetime | None = None) -> dict[str, Any]:
    """What the public fragments show (one read of each)."""
    now = now or timezone.now()
    rows = queries.standings(tournament)
    return {
        "head": queries.header(tournament, now=now),
        "standings": rows,
        "playing": queries.playing(tournament),
        "podium": queries.podium(rows, tournament),
        "swiss": tournament.kind == Tournament.Kind.SWISS,
    }


def mine_context(tournament: Tournament, user: Viewer, csrf_token: str, code: str = "") -> dict[str, Any]:
    return {"tournament": tournament, "mine": queries.mine(tournament, user), "csrf_token": csrf_token,
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


class Redraws:
    """One drawing of a tournament's public fragments per burst of changes, per process, shared by its sockets.

    A socket asking joins the drawing that has not started reading yet, or starts one; so what it gets was
    always read after it asked (nothing is missed), and a burst costs one read however many sockets watch."""

    def __init__(self, delay: float = COALESCE_SECONDS) -> None:
        self.delay = delay
        self._next: dict[int, asyncio.Task[tuple[float, str]]] = {}

    async def public(self, tournament_id: int) -> tuple[float, str]:
        """(when its read began, on the loop's clock; the HTML): a change heard before then is in it."""
        loop = asyncio.get_running_loop()
        task = self._next.get(tournament_id)
        if task is None or task.done() or task.get_loop() is not loop:
            task = loop.create_task(self._draw(tournament_id))
            self._next[tournament_id] = task
        return await asyncio.shield(task)

    async def _draw(self, tournament_id: int) -> tuple[float, str]:
        try:
            await asyncio.sleep(self.delay)
        finally:  # from now on a new ask starts a new drawing: this one's read may be too early for it
            if self._next.get(tournament_id) is asyncio.current_task():
                del self._next[tournament_id]
        began = asyncio.get_running_loop().time()
        return began, await database_sync_to_async(public_html)(tournament_id)


REDRAWS = Redraws()


def lobby_html(user: Viewer, csrf_token: str) -> str:
    """The lobby's tournaments (#lobby-tournaments): running, then upcoming; the page and its socket draw it."""
    lists = queries.tournament_lists(user, finished=False)
    return render_to_string("games/tournaments/_lobby.html", {
        "rows": [*lists["running"], *lists["upcoming"]][:10], "csrf_token": csrf_token,
        "signed_in": user.is_authenticated,
    })
