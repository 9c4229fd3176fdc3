"""Plain function views for finished matches: the history lists, the names they suggest, a match's export (its
replay page, which puts the analysis beside it, is games.site.replay)."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field

from django.contrib.auth import get_user_model
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils.safestring import SafeString, mark_safe
from django.views.decorators.http import require_GET

from accounts.models import User, Viewer

from ..core.jinja import render_block
from ..core.web import HtmxRequest
from ..lobby.forms import field_view
from ..models import Match, Move
from ..play.access import can_watch
from ..results import OUTCOME_LABELS
from . import display, queries, replay
from .forms import NAMES_LIST, HistoryFilterForm


def history_table(page: display.HistoryPage, viewer: Viewer) -> SafeString:
    """The page's table of matches, drawn by Jinja2 (templates/jinja2/games/history_table.html)."""
    if not page.rows:
        return mark_safe("")
    return mark_safe(render_block("games/history_table.html", "table", {
        "rows": page.rows,
        "show_result": bool(page.subject or viewer.is_authenticated),
        "outcome_labels": OUTCOME_LABELS,
    }))


def filter_fields(form: HistoryFilterForm) -> SafeString:
    """The form's fields, drawn by Jinja2 from their widgets' own context (templates/jinja2/games/
    history_filters.html) rather than by Django's widget templates: 3.6 ms of a 13.5 ms page (issue 47)."""
    return mark_safe(render_block("games/history_filters.html", "fields", {
        "fields": [{"name": field.name, "view": field_view(field)} for field in form],
        "name_field": form.name_field,
        "names_list": NAMES_LIST,
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
        page = display.history_page(request.user, data, request.GET.get("page"), subject, request.GET.get("after"),
                                 opponent=named.person if fixed else None)
        notice = page.notice
    context = {
        "form": form,
        # Only the whole page has the form (an htmx request redraws the results alone).
        "filter_fields": "" if request.htmx and not request.htmx.boosted else filter_fields(form),
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
# Export


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
