"""The tournament pages: the list, one tournament (live over the notification socket: games.site.socket), the
form that makes a private one, and the buttons its page posts (join, pause, come back, withdraw, start now), each
one change through games.tournaments.services; a refusal is said to the person on the page."""

from __future__ import annotations

from datetime import timedelta
from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.middleware.csrf import get_token
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from ..core.web import SignedInRequest
from ..play.snapshot import ServiceError
from . import display, lists, queries, services
from .forms import NewTournamentForm


def _code(request: HttpRequest) -> str:
    return (request.POST.get("code") or request.GET.get("code") or "")[:64]


@require_GET
def tournament_list(request: HttpRequest) -> HttpResponse:
    """Upcoming, running and finished tournaments: the public ones, and the private ones the person is in."""
    return render(request, "games/tournaments/list.html", {"lists": lists.tournament_lists(request.user)})


@require_GET
def tournament_page(request: HttpRequest, tournament_id: int) -> HttpResponse:
    code = _code(request)
    tournament = queries.visible(tournament_id, request.user, code)
    if tournament is None:
        raise Http404("No such tournament.")
    query = {"tournament": str(tournament.pk)}
    if code:
        query["code"] = code
    context = {
        **display.public_context(tournament),
        **display.mine_context(tournament, request.user, get_token(request), code),
        "ws_url": "/ws/notify/?" + urlencode(query),
        "server_now_ms": int(timezone.now().timestamp() * 1000),
    }
    return render(request, "games/tournaments/page.html", context)


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def new_tournament(request: SignedInRequest) -> HttpResponse:
    """A private tournament, joined with its invite link (its creator joins from its page, like everyone)."""
    form = NewTournamentForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            tournament = services.create_tournament(
                creator=request.user, kind=data["kind"], game=data["game"], clock_key=data["clock"],
                starts_at=timezone.now() + timedelta(minutes=data["starts_in"]), table_size=data["table_size"],
                minutes=data.get("minutes"), rounds=data.get("rounds"), name=data.get("name") or "",
                is_private=True, rated=bool(data.get("rated")),
            )
        except ServiceError as error:
            form.add_error(None, str(error))
        else:
            messages.success(request, "Your tournament is made: send your friends its invite link.")
            return redirect(tournament)
    status = 400 if request.method == "POST" else 200
    return render(request, "games/tournaments/new.html", {"form": form}, status=status)


def _back(tournament_id: int, code: str = "") -> HttpResponse:
    url = reverse("tournament", args=[tournament_id])
    return redirect(f"{url}?{urlencode({'code': code})}" if code else url)


@require_POST
def join_tournament(request: HttpRequest, tournament_id: int) -> HttpResponse:
    code = _code(request)
    if queries.visible(tournament_id, request.user, code) is None:
        raise Http404("No such tournament.")
    if not request.user.is_authenticated:
        messages.info(request, "Sign in, or create an account, to play in tournaments.")
        page = reverse("tournament", args=[tournament_id]) + (f"?{urlencode({'code': code})}" if code else "")
        return redirect(f"{reverse('login')}?{urlencode({'next': page})}")
    try:
        services.join(tournament_id=tournament_id, user=request.user, code=code)
    except ServiceError as error:
        messages.error(request, str(error))
        return _back(tournament_id, code)
    return _back(tournament_id)


def _change(request: SignedInRequest, tournament_id: int, action: str) -> HttpResponse:
    if queries.visible(tournament_id, request.user) is None:
        raise Http404("No such tournament.")
    try:
        if action == "pause":
            services.pause(tournament_id=tournament_id, user=request.user)
        elif action == "resume":
            services.resume(tournament_id=tournament_id, user=request.user)
        elif action == "withdraw":
            services.withdraw(tournament_id=tournament_id, user=request.user)
            messages.info(request, "You withdrew from the tournament.")
        else:
            services.start_early(tournament_id=tournament_id, user=request.user)
    except ServiceError as error:
        messages.error(request, str(error))
    return _back(tournament_id)


@login_required
@require_POST
def pause_tournament(request: SignedInRequest, tournament_id: int) -> HttpResponse:
    return _change(request, tournament_id, "pause")


@login_required
@require_POST
def resume_tournament(request: SignedInRequest, tournament_id: int) -> HttpResponse:
    return _change(request, tournament_id, "resume")


@login_required
@require_POST
def withdraw_tournament(request: SignedInRequest, tournament_id: int) -> HttpResponse:
    return _change(request, tournament_id, "withdraw")


@login_required
@require_POST
def start_tournament(request: SignedInRequest, tournament_id: int) -> HttpResponse:
    """The creator of a private tournament starts it now."""
    return _change(request, tournament_id, "start")
