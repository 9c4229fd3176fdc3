"""The replay page: a match stepped through move by move (games.history.replay), each position drawn as the live
table draws it (games.play), with its analysis once it is finished (games.review), and the "Analyse" that queues
one."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import urlencode

from django.db import transaction
from django.http import Http404, HttpResponse, HttpResponseBadRequest, HttpResponseForbidden
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.safestring import SafeString, mark_safe
from django.views.decorators.http import require_GET, require_POST

from accounts.models import Viewer

from ..catalog import GAMES, kit
from ..core.web import HtmxRequest
from ..engines import get_engine
from ..history import queries, replay
from ..models import Match, Seat
from ..play.access import can_watch
from ..play.display import page_fragments, render_fragment, table_context
from ..play.meta import TableMeta, table_meta
from ..play.presence import presence_of
from ..play.snapshot import NOTES_KEPT
from ..play.store import snapshot_of
from ..play.wording import describe_result, format_event, sentences
from ..review import display as present
from ..review import jobs
from ..review import news as review_news
from ..review import queries as review_queries


@dataclass
class Panel:
    """One perspective on the replayed position: whose view it is, and its board and hand HTML."""

    label: str
    seat: int | None
    board: SafeString
    hand: SafeString


def _replay_context(meta: TableMeta, view: dict[str, Any], seat: int | None, own: bool = False) -> dict[str, Any]:
    """The live table's context for a past position: nothing to act on, nobody's turn to take. Its words call the
    seat "you" only when it is the viewer's own (`own`); another's seat is named, as in the spectators' view."""
    context = table_context(meta, {**view, "legal": []}, seat, own=own)
    context["my_turn"] = False
    return context


def _int_param(raw: str | None, default: int, low: int, high: int) -> int:
    try:
        value = int(raw) if raw not in (None, "") else default
    except ValueError:
        value = default
    return max(low, min(high, value))


def _viewer_seat(seats: list[Seat], user: Viewer) -> Seat | None:
    if not user.is_authenticated:
        return None
    return next((s for s in seats if s.user_id == user.pk and not (s.user and s.user.is_bot)), None)


def _what_was_done(game: str, engine: Any, before: Any, after: Any, names: list[str]) -> list[SafeString]:
    """What the step's move did, as the public log says it (in words: its kit's places and tiles), the actor
    named: the entries the move added."""
    if before is None:
        return []
    seen = len(engine.view(before, None).get("log") or [])
    view = engine.view(after, None)
    words = kit(game).words
    return [format_event(words(entry.get("text", ""), view), names, None) for entry in (view.get("log") or [])[seen:]]


@require_GET
def replay_page(request: HtmxRequest, match_id: int) -> HttpResponse:
    """Step through a match move by move, the table drawn from the engine replayed to that move.

    Once a match is finished nothing is secret any more: every seat's view can be shown side by side.
    While it is still being played, a player sees only their own view and anyone else the spectators'.
    """
    match = queries.match_for_viewer(match_id)
    code = request.GET.get("code", "")[:64]
    if match is None or not can_watch(match, request.user, code):
        raise Http404("No such match.")
    if match.state is None or match.status not in (Match.Status.ACTIVE, Match.Status.FINISHED):
        raise Http404("This match has nothing to replay.")
    seats = list(match.seats.all())
    moves = replay.recorded_moves(match)
    total = len(moves)
    number = _int_param(request.GET.get("move"), total, 0, total)
    finished = match.status == Match.Status.FINISHED
    # The bots' reasons shown are those of the moves up to the one shown.
    notes = tuple((move.seat, move.note) for move in moves[:number])[-NOTES_KEPT:]
    # Who is at the table matters only while it is played (the away badges); a finished match has no presence.
    presence = presence_of(match.pk) if match.status == Match.Status.ACTIVE else {}
    snap = snapshot_of(match, seats, notes)
    if number < total:  # the result (and the log's closing line) belongs to the last step only
        snap = replace(snap, result=None)
    meta = table_meta(snap, presence)
    names = meta.names

    own = _viewer_seat(seats, request.user)
    perspectives: list[tuple[str, str]] = []
    if finished:
        perspectives = [("all", "Every hand"), ("table", "Spectator's view")]
        perspectives += [(str(i), f"{names[i]}'s view") for i in range(match.players)]
        chosen = request.GET.get("seat", "all")
        if chosen not in dict(perspectives):
            chosen = "all"
        seats_shown: list[int | None] = (
            list(range(match.players)) if chosen == "all" else [None] if chosen == "table" else [int(chosen)]
        )
    else:
        chosen = str(own.index) if own is not None else "table"
        seats_shown = [own.index if own is not None else None]

    engine = get_engine(match.game)
    before, state = replay.states_around(match, moves, number)
    public = _replay_context(meta, engine.view(state, None), None)
    contexts = {seat: public if seat is None else _replay_context(meta, engine.view(state, seat), seat,
                                                                  own=own is not None and own.index == seat)
                for seat in seats_shown}
    panels = [
        Panel(
            label="The table" if seat is None else f"{names[seat]}’s view",
            seat=seat,
            board=mark_safe(render_fragment("table_board", contexts[seat])),
            hand=mark_safe(render_fragment("table_hand", contexts[seat])),
        )
        for seat in seats_shown
    ]
    # The players' line and the log come from the one perspective shown, or else the public one.
    single = contexts[seats_shown[0]] if len(seats_shown) == 1 else public
    last = moves[number - 1] if number else None
    context = {
        "match": match,
        "meta": meta,
        "game": GAMES[match.game],
        "table_css": public.get("table_css", ""),
        "panels": panels,
        "fragments": page_fragments(single, ("players", "log")),
        "number": number,
        "total": total,
        "previous": max(0, number - 1),
        "next": min(total, number + 1),
        "last_move": last,
        "last_name": names[last.seat] if last is not None and last.seat < len(names) else "",
        "last_did": sentences(_what_was_done(match.game, engine, before, state, names)),
        "last_note": kit(match.game).words(last.note, engine.view(state, None)) if last is not None else "",
        "finished": finished,
        "outcome": describe_result(meta.result, names, None) if finished and number == total and meta.result else "",
        "perspectives": perspectives,
        "chosen": chosen,
        "own_seat": own.index if own is not None else None,
        "code": code,
        "all_hands": finished and chosen == "all",
    }
    if finished:
        # The analysis, of a finished match only: nothing of it exists, or is shown, before the end.
        params = {"seat": chosen if chosen != "all" else "", "code": code}
        context["analysis"] = present.panel(match, review_queries.job_of(match.pk), names, viewer=request.user,
                                            number=number, params=params)
    if request.htmx and not request.htmx.boosted:
        return render(request, "games/replay.html#replay", context)
    return render(request, "games/replay.html", context)


@require_POST
def analyse_match(request: HtmxRequest, match_id: int) -> HttpResponse:
    """"Analyse" on a finished match's replay: its analysis is queued (once, however often it is asked for) and
    the replay's analysis section comes back with its progress bar, which the notification socket then moves."""
    match = queries.match_for_viewer(match_id)
    code = (request.POST.get("code") or request.GET.get("code") or "")[:64]
    if match is None or not can_watch(match, request.user, code):
        raise Http404("No such match.")
    if not request.user.is_authenticated:
        return HttpResponseForbidden("Sign in to have a match analysed.")
    try:
        jobs.enqueue(match, by=request.user)
    except jobs.NotAnalysable as refused:
        return HttpResponseBadRequest(str(refused))
    transaction.on_commit(lambda: review_news.publish(match.pk))  # the other watchers (on Redis; else relayed)
    replay_url = reverse("replay", args=[match.pk]) + (f"?{urlencode({'code': code})}" if code else "")
    if not request.htmx:
        return redirect(replay_url)
    names = present.names_of(match)
    panel = present.panel(match, review_queries.job_of(match.pk), names, viewer=request.user,
                          params={"code": code})
    return render(request, "games/_analysis.html", {"analysis": panel, "code": code})
