"""Plain function views for finished matches: history lists, replays, export and the leaderboard."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import urlencode

from django.contrib.auth import get_user_model
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBadRequest, HttpResponseForbidden
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.safestring import SafeString, mark_safe
from django.views.decorators.http import require_GET, require_POST

from accounts.models import User, Viewer

from ..catalog import GAMES, kit
from ..engines import get_engine
from ..jinja import render_block
from ..models import Match, Move, Seat
from ..play.access import can_watch
from ..play.meta import TableMeta, table_meta
from ..play.page import page_fragments, render_fragment, table_context
from ..play.presence import presence_of
from ..play.snapshot import NOTES_KEPT
from ..play.store import snapshot_of
from ..play.wording import describe_result, format_event, sentences
from ..results import OUTCOME_LABELS
from ..review import jobs, present
from ..review import news as review_news
from ..review import queries as review_queries
from ..web import HtmxRequest
from . import queries, replay, rows
from .forms import NAMES_LIST, HistoryFilterForm


def history_table(page: rows.HistoryPage, viewer: Viewer) -> SafeString:
    """The page's table of matches, drawn by Jinja2 (templates/jinja2/games/history_table.html)."""
    if not page.rows:
        return mark_safe("")
    return mark_safe(render_block("games/history_table.html", "table", {
        "rows": page.rows,
        "show_result": bool(page.subject or viewer.is_authenticated),
        "outcome_labels": OUTCOME_LABELS,
    }))


def chosen_name(person: User) -> str:
    """How a name field names one person among those who share a name (queries.players_named)."""
    return f"{person.name} (@{person.username})"


@dataclass
class Candidate:
    """One of the players a filter's name may mean, and this page filtered by that very person."""

    user: User
    url: str


def _candidates(request: HttpRequest, field_name: str, people: list[User]) -> list[Candidate]:
    """Each person as a link to the page filtered by them alone ("Name (@username)", queries.players_named), the
    other filters kept."""
    choices = []
    for person in people:
        params = request.GET.copy()
        params[field_name] = chosen_name(person)
        for name in ("page", "after"):
            params.pop(name, None)
        choices.append(Candidate(person, f"{request.path}?{params.urlencode()}"))
    return choices


@dataclass
class Named:
    """The one player a filter's name means, or why there is none: the notice, and the candidates when several
    players are called so."""

    person: User | None = None
    notice: str = ""
    candidates: list[Candidate] = field(default_factory=list)


def _named(request: HttpRequest, form: HistoryFilterForm) -> Named:
    name = " ".join(str(form.cleaned_data.get(form.name_field) or "").split()) if form.is_bound else ""
    if not name or form.errors:
        return Named()
    people = queries.players_named(name)
    if not people:
        return Named(notice=f"No player is called “{name}”.")
    if len(people) > 1:
        return Named(notice=f"Several players are called “{name}”: choose one.",
                     candidates=_candidates(request, form.name_field, people))
    return Named(person=people[0])


def _history_response(request: HtmxRequest, form: HistoryFilterForm, subject: User | None, *,
                      fixed: bool = False, named: Named | None = None) -> HttpResponse:
    """The history page, or only its results (the table and the page links) for an htmx request. `named`: the
    player (on the site-wide history) or the opponent (on a player's own) the form's name field means."""
    data = form.cleaned_data if form.is_bound else {}
    named = named or Named()
    if form.is_bound and form.errors:
        # Said in the results, which the form's every change redraws: an impossible filter is told at once
        # (and nothing is listed for it).
        page = None
        notice = " ".join(str(error) for errors in form.errors.values() for error in errors)
    elif named.notice:
        page, notice = None, named.notice
    else:
        page = rows.history_page(request.user, data, request.GET.get("page"), subject, request.GET.get("after"),
                                 opponent=named.person if fixed else None)
        notice = page.notice
    context = {
        "form": form,
        "history": page,
        "history_table": history_table(page, request.user) if page else "",
        "subject": page.subject if page else None,
        "fixed_subject": subject if fixed else None,
        "opponent": named.person if fixed else None,
        "notice": notice,
        "candidates": named.candidates,
        "names_list": NAMES_LIST,
    }
    if request.htmx and not request.htmx.boosted:
        return render(request, "games/history.html#results", context)
    return render(request, "games/history.html", context)


@require_GET
def history_list(request: HtmxRequest) -> HttpResponse:
    """Every finished match the visitor may see, newest first, with filters."""
    form = HistoryFilterForm(request.GET or None)
    form.is_valid()
    named = _named(request, form)
    return _history_response(request, form, named.person, named=named)


@require_GET
def player_history(request: HtmxRequest, username: str) -> HttpResponse:
    """One player's finished matches (their private ones only to the players of each), with whom they played
    against when asked."""
    subject = get_object_or_404(get_user_model(), username=username)
    form = HistoryFilterForm(request.GET or None, fixed_player=True)
    form.is_valid()
    return _history_response(request, form, subject, fixed=True, named=_named(request, form))


@dataclass
class Suggestion:
    """A name the field offers: what picking it fills in, and whose it is."""

    value: str
    user: User


@require_GET
def name_suggestions(request: HttpRequest) -> HttpResponse:
    """The names beginning with what is typed in a history's Player or "Played against" field, as the list under
    it (one query): each the name the pages show, the username beside it."""
    typed = (request.GET.get("player") or request.GET.get("opponent") or "")[:200]
    people = queries.name_suggestions(typed)
    shown = Counter(person.name.casefold() for person in people)
    # A name two of them share (accounts made before names were compared) is offered as each one's own choice.
    suggestions = [Suggestion(person.name if shown[person.name.casefold()] == 1 else chosen_name(person), person)
                   for person in people]
    return render(request, "games/_name_suggestions.html", {"suggestions": suggestions, "names_list": NAMES_LIST})


# ---------------------------------------------------------------------------------------------
# Replay


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


@require_GET
def export_match(request: HttpRequest, match_id: int) -> HttpResponse:
    """The finished match as JSON: game, options, seed, players and every action, enough to replay it."""
    match = queries.match_for_viewer(match_id)
    code = request.GET.get("code", "")[:64]
    if match is None or not can_watch(match, request.user, code):
        raise Http404("No such match.")
    if match.status != Match.Status.FINISHED:
        # The seed and the actions would reveal every hidden card of a game still being played.
        raise Http404("Only a finished match can be exported.")
    moves = list(Move.objects.filter(match_id=match.pk).order_by("number"))
    data = replay.export_data(match, list(match.seats.all()), moves)
    response = HttpResponse(json.dumps(data, indent=1), content_type="application/json")
    response["Content-Disposition"] = f'attachment; filename="cardclub-{match.game}-{match.pk}.json"'
    return response
