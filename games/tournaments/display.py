"""What a tournament's page shows, as display-ready data: its header, standings, matches being played and podium,
and a person's own entry. The lists and a person's tournaments are games.tournaments.lists. Nothing here writes."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.template.loader import render_to_string
from django.utils import timezone

from accounts.models import Viewer

from .. import boards
from ..catalog import GAMES
from ..core.shared_draw import SharedDraw
from ..models import Entrant, Match, Seat, Tournament, TournamentGame
from ..play.clock import clock_label
from . import lists, points, services
from .lists import length_text
from .places import NO_PLACE, Place

RESULT_WORDS = {points.WIN: "Win", points.DRAW: "Draw", points.MIDDLE: "Middle place", points.LOSS: "Loss",
                points.BYE: "Bye"}


# ---------------------------------------------------------------------------------------------------------------
# One tournament


@dataclass(frozen=True)
class Header:
    """The page's header: what it is and where it stands."""

    id: int
    name: str
    game: str
    game_name: str
    kind: str
    kind_label: str
    clock_label: str
    length: str
    status: str
    status_label: str
    starts_at: datetime
    ends_at: datetime | None  # an arena's end (its countdown)
    time_up: bool  # an arena past its end, its last matches finishing
    round: int
    rounds: int | None
    table_size: int
    rated: bool
    private: bool
    players: int
    finished_at: datetime | None
    now: datetime  # when it was read: the countdowns' text before the page's script takes over

    @property
    def starts_ms(self) -> int:
        return int(self.starts_at.timestamp() * 1000)

    @property
    def ends_ms(self) -> int:
        return int(self.ends_at.timestamp() * 1000) if self.ends_at else 0

    @property
    def starts_in(self) -> str:
        return _clock_text((self.starts_at - self.now).total_seconds())

    @property
    def time_left(self) -> str:
        return _clock_text((self.ends_at - self.now).total_seconds() if self.ends_at else 0)


def _clock_text(seconds: float) -> str:
    """"1:02:03", "4:05" (as static/js/tournament.js writes it)."""
    whole = max(0, int(seconds + 0.999))
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def header(tournament: Tournament, *, now: datetime | None = None) -> Header:
    now = now or timezone.now()
    end = services.ends_at(tournament)
    players = Entrant.objects.filter(tournament=tournament, withdrawn=False).count()
    return Header(
        id=tournament.pk, name=tournament.name, game=tournament.game, game_name=GAMES[tournament.game].name,
        kind=tournament.kind, kind_label=tournament.get_kind_display(), clock_label=clock_label(tournament.clock),
        length=length_text(tournament), status=tournament.status, status_label=tournament.get_status_display(),
        starts_at=tournament.starts_at, ends_at=end,
        time_up=tournament.status == Tournament.Status.RUNNING and end is not None and now >= end,
        round=tournament.round, rounds=tournament.rounds, table_size=tournament.table_size,
        rated=tournament.rated, private=tournament.is_private, players=players,
        finished_at=tournament.finished_at, now=now,
    )


@dataclass(frozen=True)
class Mark:
    """One result on a player's sheet: its letter, points, whether the streak doubled it, and its match."""

    result: str
    points: int
    doubled: bool
    match_id: int | None
    title: str


@dataclass(frozen=True)
class Standing:
    """A line of the standings."""

    place: Place  # games.tournaments.places: None for an entrant without a result
    user_id: int
    username: str
    name: str
    avatar_url: str
    score: int
    marks: list[Mark]
    on_fire: bool
    paused: bool
    withdrawn: bool
    playing: bool
    buchholz: float | None
    sonneborn: float | None

    @property
    def rank(self) -> str:
        """The standings' "#" column: "1", "=2", or "" without a place."""
        return self.place.label


def _marks(sheet: list[dict[str, Any]]) -> list[Mark]:
    marks = []
    for line in sheet:
        result, scored, doubled = str(line.get("r", "")), int(line.get("p", 0)), bool(line.get("x"))
        title = f"{RESULT_WORDS.get(result, result)}: {scored} point{'s' if scored != 1 else ''}"
        if doubled:
            title += " (doubled: a win in a row)"
        if line.get("round"):
            title = f"Round {line['round']}: {title}"
        marks.append(Mark(result, scored, doubled, line.get("m"), title))
    return marks


def standings(tournament: Tournament) -> list[Standing]:
    """Every entrant in the standings' order with their place (services.ranked: the places a finished tournament
    stored are the same), their sheet as marks and the flame."""
    swiss = tournament.kind == Tournament.Kind.SWISS
    rows = []
    for row in services.ranked(tournament):
        entrant, user = row.entrant, row.entrant.user
        tiebreak = list(entrant.tiebreak or [])
        rows.append(Standing(
            place=row.place, user_id=user.pk, username=user.username, name=user.name,
            avatar_url=user.avatar_url, score=entrant.score, marks=_marks(entrant.sheet),
            on_fire=not swiss and points.on_fire(entrant.streak), paused=entrant.paused, withdrawn=entrant.withdrawn,
            playing=entrant.match_id is not None,
            buchholz=float(tiebreak[0]) if swiss and len(tiebreak) > 0 else None,
            sonneborn=float(tiebreak[1]) if swiss and len(tiebreak) > 1 else None,
        ))
    return rows


@dataclass(frozen=True)
class Playing:
    """A tournament match in progress, to watch."""

    match_id: int
    url: str
    players: list[str]
    round: int


def playing(tournament: Tournament) -> list[Playing]:
    """The tournament's matches being played now, newest first, with the link to watch each (a private
    tournament's matches are private: the link carries the match's code, for those who may see this page)."""
    games = (TournamentGame.objects.filter(tournament=tournament, counted_at__isnull=True,
                                           match__status=Match.Status.ACTIVE)
             .select_related("match").order_by("-created_at", "-pk")[:50])
    found = list(games)
    names: dict[int, list[tuple[int, str]]] = {}
    for match_id, index, username, display in (Seat.objects.filter(match_id__in=[g.match_id for g in found])
                                               .values_list("match_id", "index", "user__username",
                                                            "user__display_name")):
        names.setdefault(match_id, []).append((index, display or username or "?"))
    rows = []
    for game in found:
        url = game.match.get_absolute_url()
        if not game.match.is_public:
            url += f"?code={game.match.invite_code}"
        rows.append(Playing(game.match_id, url, [n for _, n in sorted(names.get(game.match_id, []))], game.round))
    return rows


def podium(rows: list[Standing], tournament: Tournament) -> list[Standing]:
    """Who holds the first three places of a finished tournament, as the standings write them (a shared place
    puts everyone holding it there); nothing before the end, and nobody without a result (a counted game or a
    bye: games.tournaments.places)."""
    if tournament.status != Tournament.Status.FINISHED:
        return []
    return [row for row in rows if row.place.on_podium]


@dataclass(frozen=True)
class Mine:
    """The person's own place in the tournament: what their box shows and which buttons it offers."""

    signed_in: bool
    entered: bool
    paused: bool
    withdrawn: bool
    match_url: str | None
    score: int
    may_join: bool
    may_start: bool  # the creator of a private one, before its start
    invite_url: str | None  # to entrants and the creator of a private one
    join_code: str  # what the Join button posts for the creator of a private one (others come with the link's)
    place: Place = NO_PLACE  # their final place
    elsewhere: str = ""  # where they play now, when that keeps the tournament from pairing them (games.boards)


def mine(tournament: Tournament, user: Viewer, *, now: datetime | None = None) -> Mine:
    """One query or two: the person's entry and what they may do now."""
    now = now or timezone.now()
    if not user.is_authenticated:
        return Mine(False, False, False, False, None, 0, False, False, None, "")
    entrant = Entrant.objects.filter(tournament=tournament, user=user).select_related("match").first()
    running = tournament.status == Tournament.Status.RUNNING
    end = services.ends_at(tournament)
    arena_open = running and tournament.kind == Tournament.Kind.ARENA and end is not None and now < end
    gone = entrant is not None and entrant.withdrawn
    # services.join's rules: anyone before the start, anyone into an arena still running, and who withdrew back.
    may_join = not user.is_bot and ((tournament.status == Tournament.Status.UPCOMING and entrant is None)
                                    or (arena_open and (entrant is None or gone)) or (running and gone))
    is_creator = tournament.created_by_id == user.pk
    match_url = None
    if entrant is not None and entrant.match is not None and entrant.match.status == Match.Status.ACTIVE:
        match_url = entrant.match.get_absolute_url()
    elsewhere = ""
    if running and entrant is not None and not (entrant.paused or gone) and match_url is None:
        held = boards.held_by(user.pk)
        if held is not None:
            elsewhere = held.where
    invite = None
    # A link to share only while a friend could still enter by it (before the start, or into an arena still open).
    open_to_friends = tournament.status == Tournament.Status.UPCOMING or arena_open
    if tournament.is_private and open_to_friends and (entrant is not None or is_creator):
        invite = f"{tournament.get_absolute_url()}?code={tournament.invite_code}"
    return Mine(
        signed_in=True, entered=entrant is not None, paused=bool(entrant and entrant.paused),
        withdrawn=bool(entrant and entrant.withdrawn), match_url=match_url, score=entrant.score if entrant else 0,
        may_join=may_join,
        may_start=is_creator and tournament.is_private and tournament.status == Tournament.Status.UPCOMING,
        invite_url=invite, join_code=tournament.invite_code if is_creator and tournament.is_private else "",
        place=_stored_place(tournament.pk, entrant.place) if entrant else NO_PLACE, elsewhere=elsewhere,
    )


def _stored_place(tournament_id: int, number: int | None) -> Place:
    """A final place as stored at the end, shared when another entrant holds the same."""
    if number is None:
        return NO_PLACE
    return Place(number, Entrant.objects.filter(tournament_id=tournament_id, place=number).count() > 1)


# ---------------------------------------------------------------------------------------------------------------
# The page's live fragments
#
# A tournament page's live fragments: the public ones (header, standings, matches being played, podium), the
# same for everyone who may see the page, and the person's own box.
#
# The public HTML is drawn once per process for a burst of changes and shared by every socket of this process on
# that tournament (REDRAWS, games.core.shared_draw): a finished match in an arena of 200 players would otherwise draw
# 200 standings tables. It is drawn on the sockets' side, not in news.changed, so the transaction that ends a match
# (the live move path) only sends a message and never waits for a drawing.

PAGE = "games/tournaments/page.html"
PUBLIC_PARTS = ("head", "standings", "playing", "podium")
# A burst of changes (a round's matches ending together, players joining) is drawn once after this pause.
COALESCE_SECONDS = 0.25


def public_context(tournament: Tournament, *, now: datetime | None = None) -> dict[str, Any]:
    """What the public fragments show (one read of each)."""
    now = now or timezone.now()
    rows = standings(tournament)
    return {
        "head": header(tournament, now=now),
        "standings": rows,
        "playing": playing(tournament),
        "podium": podium(rows, tournament),
        "finished": tournament.status == Tournament.Status.FINISHED,
        "swiss": tournament.kind == Tournament.Kind.SWISS,
    }


def mine_context(tournament: Tournament, user: Viewer, csrf_token: str, code: str = "") -> dict[str, Any]:
    return {"tournament": tournament, "mine": mine(tournament, user), "csrf_token": csrf_token,
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
