"""The notification socket's reads: the matches in progress waiting on a person (the header's "your turn")."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.utils import timezone

from accounts.models import Viewer

from ..catalog import GAMES
from ..models import Board, Challenge, Match, Seat

# How long after a pairing a page that opens is still sent to the match: the frame that sent the person's pages
# there went out while this page was loading (its socket not yet open), so it missed it.
UNOPENED_PAIRING_SECONDS = 60


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
    # From the matches in progress (few, an index's range) to this person's seat in each, rather than from their
    # seats to each match: every page a person opens read all the seats they ever had with their matches' rows
    # (1.4 ms at 460 finished matches, growing with each one played; issue 41).
    active = Match.objects.filter(status=Match.Status.ACTIVE).values("pk")
    seats = Seat.objects.filter(user=user, substitute__isnull=True, match_id__in=active)
    if besides is not None:
        seats = seats.exclude(match_id=besides)
    rows = (seats
            .values_list("index", "match_id", "match__game", "match__waiting_on", "match__turn_started_at"))
    waiting = [Waiting(match_id, game, since) for index, match_id, game, on, since in rows if index in (on or [])]
    return sorted(waiting, key=_longest_waiting_first)


def _longest_waiting_first(w: Waiting) -> tuple[Any, ...]:
    return (w.since is None, w.since, w.match_id)


def in_order(waiting: dict[int, Waiting]) -> list[Waiting]:
    return sorted(waiting.values(), key=_longest_waiting_first)


def apply_cue(waiting: dict[int, Waiting], cue: dict[str, Any], *, besides: int | None) -> None:
    """A "your turn" cue (games.play.news.turn_cues) applied to the matches known to wait on this person."""
    match_id = cue.get("match")
    if not isinstance(match_id, int) or match_id == besides:
        return
    if cue.get("waiting") and cue.get("game") in GAMES:
        since = cue.get("since")
        waiting[match_id] = Waiting(match_id, cue["game"], datetime.fromisoformat(since) if since else None)
    else:
        waiting.pop(match_id, None)


def unopened_pairing(user: Viewer, *, besides: int | None = None) -> Match | None:
    """The clocked match this person was just seated at (their board, claimed in the last minute) whose page they
    have never opened (no socket of theirs wrote their seat's last_seen), unless it is `besides`: a page opening
    now goes there, as the frame it missed while loading would have sent it (one query, two when there is one)."""
    if not user.is_authenticated:
        return None
    since = timezone.now() - timedelta(seconds=UNOPENED_PAIRING_SECONDS)
    boards = Board.objects.filter(user_id=user.pk, since__gte=since, match__status=Match.Status.ACTIVE)
    if besides is not None:
        boards = boards.exclude(match_id=besides)
    # The match's id first (a person has one board): the whole match is read only when there is one to go to.
    found = list(boards.filter(match__seats__user_id=user.pk, match__seats__last_seen__isnull=True)
                 .values_list("match_id", flat=True).order_by()[:1])
    return next(iter(Match.objects.filter(pk__in=found)), None) if found else None


# How recent an accepted challenge must be for a lobby that opens to go to its match (games.notify.socket).
JUST_ACCEPTED_SECONDS = 10


def just_accepted_match(user_id: int) -> Match | None:
    """The match of this person's challenge to a program that the program accepted moments ago, still in progress
    (one query); None otherwise. People take seconds to accept: their challenger's lobby is open by then."""
    row = (Challenge.objects.filter(challenger_id=user_id, status=Challenge.Status.ACCEPTED,
                                    challenged__program=True, match__status=Match.Status.ACTIVE,
                                    closed_at__gte=timezone.now() - timedelta(seconds=JUST_ACCEPTED_SECONDS))
           .select_related("match").order_by("-closed_at").first())
    return row.match if row is not None else None
