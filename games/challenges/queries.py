"""Challenges, the reads: a person's open challenges, to them and from them, as the lobby lists them and as every
page's notices show the incoming ones."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db.models import Q
from django.template.loader import render_to_string
from django.utils import timezone

from accounts.models import Viewer

from ..catalog import GAMES
from ..models import Challenge
from ..pool.pools import clock_label

OPEN = Challenge.Status.OPEN


@dataclass(frozen=True)
class Notice:
    id: int
    incoming: bool  # to this person (Accept, Decline) or from them (Withdraw)
    other_name: str
    other_url: str
    game_name: str
    clock_label: str
    rated: bool
    seconds_left: int


def open_challenges(user: Viewer, now: datetime | None = None) -> list[Notice]:
    """This person's open challenges, to them and from them, newest first (one query)."""
    if not user.is_authenticated:
        return []
    now = now or timezone.now()
    rows = (Challenge.objects.filter(Q(challenged_id=user.pk) | Q(challenger_id=user.pk), status=OPEN,
                                     expires_at__gt=now)
            .select_related("challenger", "challenged").order_by("-created_at")[:20])
    notices = []
    for row in rows:
        incoming = row.challenged_id == user.pk
        other = row.challenger if incoming else row.challenged
        notices.append(Notice(row.pk, incoming, other.name, other.get_absolute_url(), GAMES[row.game].name,
                              clock_label(row.clock), row.rated, int((row.expires_at - now).total_seconds())))
    return notices


def notices_html(user: Viewer, now: datetime | None = None) -> str:
    """#challenge-notices: the incoming challenges' notices, on every page (templates/games/_notify.html)."""
    notices = [notice for notice in open_challenges(user, now) if notice.incoming]
    return render_to_string("games/challenges/_challenge_notices.html", {"notices": notices})


