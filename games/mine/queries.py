"""My games: every match a person is seated at that is in progress or waiting for players, laid out for the page
(games/my_games.html), the ones waiting on their move first, the least time left first.

Two queries however many matches (a person keeps dozens of correspondence matches): the matches, then their seats
with their players. Whose move it is comes from Match.waiting_on and the time left from the clock's columns
(clock_left as of turn_started_at), as the header's "your turn" reads them: no game is loaded.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from django.db.models import Prefetch
from django.utils import timezone

from accounts.models import User

from ..catalog import GAMES
from ..core.web import Link
from ..models import Match, Seat
from ..play.clock import clock_label, is_correspondence
from ..play.due import DueTime, due_time, left_text, seconds_text
from ..play.wording import distinct_names

# What the page shows of a match: its game, whose move, its clock; never its state, options or result.
MATCH_FIELDS = ("id", "game", "status", "created_at", "turn_started_at", "waiting_on", "clock", "clock_left",
                "clock_due_at")
SEAT_FIELDS = ("id", "match_id", "index", "user_id", "substitute_id", "user__id", "user__username",
               "user__display_name", "user__avatar", "user__avatar_choice", "user__is_bot", "user__program")


@dataclass(frozen=True)
class Opponent:
    name: str  # as the table names the seat
    profile_url: str
    avatar_url: str
    is_bot: bool  # the site's own bot: "bot"
    program: bool  # a program through the Bot API: "BOT"
    left: bool  # its player left: a bot plays the seat


@dataclass(frozen=True)
class GameRow:
    """One match as My games lists it."""

    match_id: int
    url: str
    game_name: str
    opponents: tuple[Opponent, ...]
    open_seats: int
    clock_label: str
    correspondence: bool
    whose: str  # "Your move", "Bob’s move", "Waiting for players"
    due: DueTime | None  # a correspondence move's due date, in the person's zone
    left: str  # "2 days 3 h left", "4:05 left", or for a match without a clock how long it has waited
    my_turn: bool
    lead: str  # the time cell's first words (before ", due <date>" for a correspondence move)
    detail: str  # its second line
    # Sorting: when the move shown runs out (None: no clock), then since when it is awaited.
    due_at: datetime | None = field(repr=False)
    since: datetime | None = field(repr=False)


@dataclass(frozen=True)
class MyGames:
    your_turn: list[GameRow]
    their_turn: list[GameRow]
    waiting: list[GameRow]  # waiting for players

    @property
    def empty(self) -> bool:
        return not (self.your_turn or self.their_turn or self.waiting)


def my_games(user: User, now: datetime | None = None) -> MyGames:
    """The person's matches in progress and waiting for players, grouped and ordered for the page."""
    now = now or timezone.now()
    seats = Seat.objects.select_related("user").only(*SEAT_FIELDS).order_by("index")
    matches = (Match.objects.filter(seats__user=user, status__in=[Match.Status.WAITING, Match.Status.ACTIVE])
               .distinct().only(*MATCH_FIELDS)
               # The attribute is declared on Match, which the stubs' plugin sees as a redefinition (as the lobby's).
               .prefetch_related(Prefetch("seats", queryset=seats, to_attr="seat_list")))  # type: ignore[no-redef]
    links = (Link("match", numeric=True), Link("profile"))
    rows = [_row(match, user, now, *links) for match in matches]
    active = [row for row in rows if row.whose != WAITING_FOR_PLAYERS]
    return MyGames(
        your_turn=sorted((row for row in active if row.my_turn), key=_urgency),
        their_turn=sorted((row for row in active if not row.my_turn), key=_urgency),
        waiting=sorted((row for row in rows if row.whose == WAITING_FOR_PLAYERS), key=_urgency),  # oldest first
    )


WAITING_FOR_PLAYERS = "Waiting for players"
_LONG_AGO = datetime.min.replace(tzinfo=UTC)


def _urgency(row: GameRow) -> tuple[bool, datetime, datetime, int]:
    """The least time left first; the matches without a clock after, the longest waiting first."""
    return (row.due_at is None, row.due_at or _LONG_AGO, row.since or _LONG_AGO, row.match_id)


def _row(match: Match, user: User, now: datetime, link: Link, profile: Link) -> GameRow:
    seat_list = match.seat_list
    names = distinct_names([seat.user.name if seat.user else "" for seat in seat_list])
    mine = next(seat for seat in seat_list if seat.user_id == user.pk)
    opponents = tuple(
        Opponent(name=names[position], profile_url=profile(seat.user.username), avatar_url=seat.user.avatar_url,
                 is_bot=seat.user.is_bot, program=seat.user.program, left=seat.substitute_id is not None)
        for position, seat in enumerate(seat_list) if seat.user is not None and seat.pk != mine.pk)
    open_seats = sum(seat.user_id is None for seat in seat_list)
    since: datetime | None
    due_at: datetime | None
    if match.status == Match.Status.WAITING:
        whose, my_turn, due, due_at, since = WAITING_FOR_PLAYERS, False, None, None, match.created_at
        left, lead = "", WAITING_FOR_PLAYERS
        detail = f"{open_seats} seat{'' if open_seats == 1 else 's'} to fill" if open_seats else ""
    else:
        waited = [i for i in (match.waiting_on or []) if isinstance(i, int)]
        # A seat a bot plays since its person left is the bot's to move: not this person's turn.
        my_turn = mine.index in waited and mine.substitute_id is None
        shown = [mine.index] if my_turn else [i for i in waited if i != mine.index]
        whose = "Your move" if my_turn else _whose(shown, seat_list, names)
        due_at, left = _time_left(match, shown, now)
        due = due_time(due_at, user.time_zone) if due_at is not None and is_correspondence(match.clock) else None
        since = match.turn_started_at
        if due_at is None and since is not None:
            left = f"{_waited_text(now - since)} since the last move"
        # Your own real-time clock is the headline ("4:05 left"); a date comes after "due"; else whose move.
        real_time = due_at is not None and due is None
        lead = "" if my_turn and due is not None else left if my_turn and real_time else whose
        detail = "" if lead == left else left
    return GameRow(match_id=match.pk, url=link(match.pk), game_name=GAMES[match.game].name, opponents=opponents,
                   open_seats=open_seats, clock_label=clock_label(match.clock),
                   correspondence=is_correspondence(match.clock),
                   whose=whose, due=due, left=left, my_turn=my_turn, lead=lead, detail=detail, due_at=due_at,
                   since=since)


def _whose(shown: list[int], seat_list: list[Seat], names: list[str]) -> str:
    by_index = {seat.index: position for position, seat in enumerate(seat_list)}
    who = [names[by_index[i]] or f"Seat {i + 1}" for i in shown if i in by_index]
    if not who:
        return "Their move"
    return f"{who[0]}’s move" if len(who) == 1 else "Waiting for " + " and ".join(who)


def _time_left(match: Match, shown: list[int], now: datetime) -> tuple[datetime | None, str]:
    """When the first of these seats runs out, and the time left in words (a date for a correspondence match,
    seconds for a real-time clock); (None, "") without a clock."""
    left = match.clock_left or []
    start = match.turn_started_at
    seats = [i for i in shown if i < len(left)]
    if not match.clock or start is None or not seats:
        return None, ""
    due_at = start + timedelta(seconds=min(float(left[i]) for i in seats))
    seconds = (due_at - now).total_seconds()
    return due_at, left_text(seconds) if is_correspondence(match.clock) else seconds_text(seconds)


def _waited_text(waited: timedelta) -> str:
    """How long a match without a clock has waited: "3 days", "5 h", "12 min", "a moment"."""
    minutes = int(waited.total_seconds() // 60)
    if minutes >= 2 * 24 * 60:
        return f"{minutes // (24 * 60)} days"
    if minutes >= 60:
        return f"{minutes // 60} h"
    return f"{minutes} min" if minutes else "a moment"
