"""What the history pages show, as plain data (their reads are in games.history.queries).

Every page costs a constant number of queries: a capped count, the page's rows, and one prefetch of
their seats and players. A player's history is one index range of PlayerResult (user, finished_at);
the site-wide history reads FinishedMatch, whose indexes hold every filtered column.

A page reached by its "Older" link is read from where the page before it ended (keyset paging, as lichess's
history): `?page=N&after=<the last row's moment and match>`, an index range from that row on, the same cost for
page 50 as for page 1 (an OFFSET read and skipped every row before the page: 2 ms more at page 50, growing with the
page), and neither repeating nor skipping a match when others finish between the two reads. A plain `?page=N` (a
link someone kept, the "Newer" link) is read by its number as before.

The total is counted up to COUNT_CAP matches only. Counting everything read every visible entry, so
its cost grew with the club (8 -> 17 ms from 100,000 to 200,000 matches, issue 20); a count kept up to
date cannot answer "public or mine" within any date range, and paging without a count would drop the
page numbers people link to. Past the cap the page says "more than" and pages reach the newest
COUNT_CAP matches; the filters (dates, game, player) reach any older one.

Each row is built once into display-ready values (names, avatar and profile URLs, texts): the page
template only lays them out. The URLs come from games.core.web.Link (one reverse() a page) and the avatars'
from a cache keyed by what they are made from (accounts.avatars.generated_avatar_url).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from django.core.paginator import EmptyPage, Page, PageNotAnInteger, Paginator
from django.db.models import Q, QuerySet
from django.utils import timezone
from django.utils.dates import MONTHS_3
from django.utils.functional import cached_property

from accounts.models import PERSON_FIELDS, PersonRow, User, Viewer

from ..catalog import GAMES
from ..core.web import Link
from ..models import Seat
from ..play.wording import describe_result, distinct_names
from ..results import Outcome, SeatOutcome
from ..review.queries import accuracies
from . import queries

PAGE_SIZE = 50
# The history counts at most this many matches (100 pages); see the module's docstring.
COUNT_CAP = 5000


@dataclass
class PlayerCell:
    """One seat of a history row as shown: the player (or "Seat n"), their links and their score."""

    label: str  # the player's name, or "Seat n" for a seat nobody held
    avatar_url: str = ""
    profile_url: str = ""  # "" for a seat nobody held
    is_bot: bool = False
    winner: bool = False
    left: bool = False  # left the match, a bot finished the seat
    score: int | None = None
    accuracy: str = ""  # the seat's accuracy in the match's analysis ("87.4"), "" when not analysed


@dataclass(frozen=True)
class RowMatch:
    """What a history row reads of its match (ROW_MATCH_FIELDS), as plain values: no Match built for a row."""

    pk: int
    game: str
    players: int
    is_public: bool
    rated: bool
    result: dict[str, Any] | None
    move_count: int
    started_at: dt.datetime | None
    finished_at: dt.datetime | None


@dataclass(frozen=True)
class RowSeat:
    """One seat of a history row's match, with its player (None for a seat nobody held)."""

    index: int
    user_id: int | None
    final_score: int | None
    user: PersonRow | None


@dataclass
class HistoryRow:
    """One finished match as a history row, with the result from the subject's point of view, and every
    value its line shows already made (the template only lays them out)."""

    match: RowMatch
    seats: list[RowSeat]
    outcome: str  # won, lost, drawn, solo, or "" when the subject didn't play it
    winners: list[str]
    players: list[PlayerCell]
    game_name: str
    score_label: str
    score_title: str  # "penalty points: fewer is better"
    score_unit: str  # after each score where the number alone misleads ("pen.")
    draw: bool
    result_text: str  # how it ended, in the words of every page (games.play.wording.describe_result)
    duration_text: str
    finished_iso: str
    finished_text: str
    replay_url: str
    export_url: str
    # What the match did to the rating of the person whose history it is: "+12" ("" when unrated, or no subject).
    rating_change: str = ""
    rating_title: str = ""  # "1512 → 1524"
    rating_class: str = ""

    @property
    def duration(self) -> dt.timedelta | None:
        if self.match.started_at and self.match.finished_at:
            return self.match.finished_at - self.match.started_at
        return None

    @property
    def winners_text(self) -> str:
        return " and ".join(self.winners)


class CappedPaginator(Paginator):
    """A paginator whose count stops at COUNT_CAP (the pages then reach the newest COUNT_CAP rows). `counted`: the
    rows to count, the listing itself without the columns the page shows (counted through the page's own values()
    the count kept their join to the matches: 0.6 -> 6 ms)."""

    def __init__(self, object_list: Any, per_page: int, *, counted: QuerySet[Any] | None = None) -> None:
        super().__init__(object_list, per_page)
        self.counted = counted if counted is not None else object_list

    @cached_property
    def count(self) -> int:
        # No ORDER BY: any COUNT_CAP + 1 rows will do, and an ordered walk of the index costs more.
        return self.counted.order_by().values("pk")[:COUNT_CAP + 1].count()

    @property
    def capped(self) -> bool:
        return self.count > COUNT_CAP

    @cached_property
    def num_pages(self) -> int:
        return super().num_pages if not self.capped else COUNT_CAP // self.per_page


@dataclass
class HistoryPage:
    """What a history page shows: the rows, the page, the subject and why any filter was refused."""

    rows: list[HistoryRow]
    page: Page
    subject: User | None
    notice: str = ""
    after: str = ""  # where the next page starts (its "Older" link's ?after=): this page's last row

    @property
    def capped(self) -> bool:
        """Whether there are more than COUNT_CAP matches (the count shown is then "more than")."""
        return bool(getattr(self.page.paginator, "capped", False))

    @property
    def count_cap(self) -> int:
        return COUNT_CAP


EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
MICROSECOND = dt.timedelta(microseconds=1)


def position_text(finished_at: dt.datetime, match_id: int) -> str:
    """A row's place in the newest-first order, as the next page's ?after=: its end in whole microseconds (exact,
    whatever the time zone) and its match."""
    return f"{(finished_at - EPOCH) // MICROSECOND}-{match_id}"


def parse_position(text: str | None) -> tuple[dt.datetime, int] | None:
    """?after= read back; None for anything else (the page is then read by its number)."""
    moment, _, match_id = (text or "").partition("-")
    if not (moment.isdigit() and match_id.isdigit()) or len(moment) > 18 or len(match_id) > 18:
        return None
    try:
        return EPOCH + int(moment) * MICROSECOND, int(match_id)
    except OverflowError:
        return None


def _keyset_page(paginator: CappedPaginator, listed: QuerySet[Any], page_number: Any, after: str | None,
                 ) -> Page | None:
    """The page that follows the row named by ?after= (page_number only says which it is), or None when it
    names none or page 1: then the page is read by its number."""
    position = parse_position(after)
    if position is None:
        return None
    try:
        number = paginator.validate_number(page_number)
    except (PageNotAnInteger, EmptyPage):
        return None
    if number == 1:
        return None
    moment, match_id = position
    older = Q(finished_at__lt=moment) | Q(finished_at=moment, match_id__lt=match_id)
    rows = list(listed.filter(older)[:PAGE_SIZE])
    return Page(rows, number, paginator) if rows else None


def format_duration(value: dt.timedelta | None) -> str:
    """A match length as people say it: "45 s", "12 min", "1 h 05 min"."""
    if value is None:
        return ""
    seconds = max(0, int(value.total_seconds()))
    if seconds < 60:
        return f"{seconds} s"
    minutes = seconds // 60
    if minutes < 60:
        return f"{minutes} min"
    return f"{minutes // 60} h {minutes % 60:02d} min"


# What a row shows of a match and of its players, read as plain values (values()): the match's state, options
# and clocks (JSON decoded for every row, a third of the page's time) and the users' passwords and emails stay in
# the database, and no Match, Seat or User is built for a row (issue 47: 4.3 -> 1.8 ms for a page's rows and seats).
ROW_MATCH_FIELDS = ("id", "game", "players", "is_public", "rated", "result", "move_count", "started_at",
                    "finished_at")
ROW_SEAT_FIELDS = ("match_id", "index", "user_id", "final_score", *(f"user__{name}" for name in PERSON_FIELDS))


def _seats_of(match_ids: list[int]) -> dict[int, list[RowSeat]]:
    """Every seat of these matches with its player, by match, in seat order (one query)."""
    seats: dict[int, list[RowSeat]] = {match_id: [] for match_id in match_ids}
    for row in Seat.objects.filter(match_id__in=match_ids).order_by("match_id", "index").values(*ROW_SEAT_FIELDS):
        user_id = row["user_id"]
        seats[row["match_id"]].append(RowSeat(row["index"], user_id, row["final_score"],
                                              PersonRow.of(user_id, row, "user__") if user_id is not None else None))
    return seats


def finished_text(value: dt.datetime) -> str:
    """The date filter's "j M Y, H:i" (7 Mar 2026, 09:05) in the current time zone, without its parser:
    the same text for a hundred times less work (tests compare the two)."""
    return _local_text(timezone.localtime(value))


def _local_text(local: dt.datetime, months: dict[int, str] | None = None) -> str:
    """`months`: the month names already looked up (a page's rows share a few; each look-up is a translation's)."""
    month = months[local.month] if months is not None else MONTHS_3[local.month].title()
    return f"{local.day} {month} {local.year:04d}, {local.hour:02d}:{local.minute:02d}"


def seat_names(seats: list[RowSeat]) -> list[str]:
    """The seats' names as the table and its log give them: distinct (two bots of one level are "Regular" and
    "Regular 2"), "Seat n" for a seat nobody held."""
    names = distinct_names([seat.user.name if seat.user else "" for seat in seats])
    return [name or f"Seat {index + 1}" for index, name in enumerate(names)]


class _People:
    """A page's players' pictures and profile links, made once a page for each person however many rows they are
    in (the subject is in every row of their history): each avatar URL reads the script prefix and URLconf from
    context-locals, ~4 µs a seat. Keyed by the row's values, so a renamed player is a new entry."""

    def __init__(self) -> None:
        self.profile = Link("profile")
        self.seen: dict[PersonRow, tuple[str, str]] = {}

    def links(self, user: PersonRow) -> tuple[str, str]:
        """(avatar URL, profile URL)."""
        found = self.seen.get(user)
        if found is None:
            found = self.seen[user] = (user.avatar_url, self.profile(user.username))
        return found


def _cells(seats: list[RowSeat], winners: list[int], left: list[int], names: list[str], people: _People,
           accuracy: list[float | None]) -> list[PlayerCell]:
    cells = []
    for seat in seats:
        user = seat.user
        cell = PlayerCell(label=f"Seat {seat.index + 1}", winner=seat.index in winners, score=seat.final_score)
        if user is not None:
            cell.label = names[seat.index]
            cell.avatar_url, cell.profile_url = people.links(user)
            cell.is_bot, cell.left = user.is_bot or user.program, seat.index in left
        if seat.index < len(accuracy) and accuracy[seat.index] is not None:
            cell.accuracy = f"{accuracy[seat.index]:.1f}"
        cells.append(cell)
    return cells


def _rating_cells(change: tuple[float, float] | None) -> dict[str, str]:
    if change is None:
        return {}
    before, after = round(change[0]), round(change[1])
    diff = after - before
    return {"rating_change": f"{diff:+d}" if diff else "±0", "rating_title": f"{before} → {after}",
            "rating_class": "rating-up" if diff > 0 else "rating-down" if diff < 0 else "muted"}


def _rows(matches: list[RowMatch], seat_lists: dict[int, list[RowSeat]], subject: User | None,
          changes: dict[int, tuple[float, float]] | None = None) -> list[HistoryRow]:
    people, replay, export = _People(), Link("replay", numeric=True), Link("export_match", numeric=True)
    months = {month: MONTHS_3[month].title() for month in MONTHS_3}
    analysed = accuracies(match.pk for match in matches)  # one query: the page's analysed matches
    # Looked up once a page, not twice a row (timezone.localtime reads it from a context-local each time).
    zone = timezone.get_current_timezone()
    rows = []
    for match in matches:
        seats = seat_lists.get(match.pk, [])
        outcome = Outcome.of(match.result, match.players)
        # Each seat's result once a row: Outcome's properties derive them again from the places at every call.
        results = outcome.seat_outcomes if outcome is not None else []
        everyone_drew = bool(results) and all(result == SeatOutcome.DRAWN for result in results)
        firsts = [] if everyone_drew else [
            seat for seat, result in enumerate(results) if result in (SeatOutcome.WON, SeatOutcome.DRAWN)]
        names = seat_names(seats)
        winners = [names[i] if i < len(names) else f"Seat {i + 1}" for i in firsts]
        mine = next((s for s in seats if subject is not None and s.user_id == subject.pk), None)
        mine_outcome = (results[mine.index] if mine is not None and 0 <= mine.index < len(results) else None) or ""
        info = GAMES[match.game]
        duration = match.finished_at - match.started_at if match.started_at and match.finished_at else None
        local = match.finished_at.astimezone(zone) if match.finished_at else None
        rows.append(HistoryRow(
            match, seats, mine_outcome, winners,
            players=_cells(seats, firsts, outcome.left if outcome is not None else [], names, people,
                           analysed.get(match.pk, [])),
            game_name=info.name,
            score_label=info.score_label, score_title=info.score_title, score_unit=info.score_unit,
            draw=everyone_drew, result_text=describe_result(match.result, names, None, brief=True),
            duration_text=format_duration(duration),
            finished_iso=local.isoformat() if local else "",
            finished_text=_local_text(local, months) if local else "",
            replay_url=replay(match.pk), export_url=export(match.pk),
            **_rating_cells((changes or {}).get(match.pk)),
        ))
    return rows


def history_page(viewer: Viewer, data: dict[str, Any], page_number: Any, subject: User | None = None,
                 after: str | None = None, *, opponent: User | None = None) -> HistoryPage:
    """One page of finished matches: a player's (subject; only those against `opponent`, when given) or
    everyone's, filtered by the cleaned form data; `after`: the ?after= of an "Older" link (the previous page's
    last row), else the page is read by its number.

    A result filter is relative to the subject; without one it applies to the signed-in viewer, and
    is dropped (with a notice) for an anonymous visitor.
    """
    notice = ""
    if data.get("result") and subject is None:
        if viewer.is_authenticated:
            subject = viewer
        else:
            notice = "Sign in, or choose a player, to filter by result."
            data = {**data, "result": ""}
    rows = (queries.player_results(subject=subject, viewer=viewer, filters=data, opponent=opponent)
            if subject is not None
            else queries.finished_matches(viewer=viewer, filters=data))
    own = ("rated", "rating_before", "rating_after") if subject is not None else ()
    listed = rows.values("match_id", "finished_at", *own, *(f"match__{name}" for name in ROW_MATCH_FIELDS[1:]))
    paginator = CappedPaginator(listed, PAGE_SIZE, counted=rows)
    page = _keyset_page(paginator, listed, page_number, after) or paginator.get_page(page_number)
    read: list[dict[str, Any]] = list(page.object_list)
    matches = [RowMatch(row["match_id"], *(row[f"match__{name}"] for name in ROW_MATCH_FIELDS[1:])) for row in read]
    # A player's history says what each rated match did to their rating (lichess's "+12").
    changes = {row["match_id"]: (row["rating_before"], row["rating_after"]) for row in read
               if subject is not None and row["rated"] and row["rating_before"] is not None
               and row["rating_after"] is not None}
    # One query for every seat (and its player) of the page's matches.
    seat_lists = _seats_of([match.pk for match in matches])
    last = read[-1] if read else None
    return HistoryPage(rows=_rows(matches, seat_lists, subject or (viewer if viewer.is_authenticated else None),
                                  changes),
                       page=page, subject=subject, notice=notice,
                       after=position_text(last["finished_at"], last["match_id"]) if last is not None else "")
