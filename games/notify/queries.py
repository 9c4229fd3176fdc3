"""The notification socket's reads: the matches in progress waiting on a person (the header's "your turn")."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from accounts.models import Viewer

from ..catalog import GAMES
from ..models import Match, Seat


@dataclass(frozen=True)
class Waiting:
    """A match in progress waiting on this person's move."""

    match_id: int
    game: str
    since: datetime | None  # when its turn began

    @property
    def game_name(self) -> str:
        return GAMES[self.game].name


def waiting_for(user: Viewer, *, besides: int | None = None) -> list[Waiting]:
    """The matches in progress that wait on this person, longest waiting first, but `besides` (one query, no game
    loaded: Match.waiting_on says whose move it is)."""
    if not user.is_authenticated:
        return []
    seats = Seat.objects.filter(user=user, substitute__isnull=True, match__status=Match.Status.ACTIVE)
    if besides is not None:
        seats = seats.exclude(match_id=besides)
    rows = (seats
            .values_list("index", "match_id", "match__game", "match__waiting_on", "match__turn_started_at"))
    waiting = [Waiting(match_id, game, since) for index, match_id, game, on, since in rows if index in (on or [])]
    return sorted(waiting, key=lambda w: (w.since is None, w.since, w.match_id))
