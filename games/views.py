"""Plain function views for the games side of the site."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.middleware.csrf import get_token
from django.shortcuts import redirect, render
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.middleware import HtmxDetails

from accounts.models import User

from . import lobby, selectors, services
from .catalog import GAMES
from .engines import get_engine
from .forms import CreateMatchForm, all_forms
from .models import Match
from .rendering import match_meta, page_fragments, page_view, render_fragment, table_context
from .results import Outcome, Termination


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    return render(request, "games/home.html", {"games": GAMES.values()})


class HtmxRequest(HttpRequest):
    """A request as django-htmx's middleware leaves it: `request.htmx` says whether htmx sent it, and how."""

    htmx: HtmxDetails


class SignedInRequest(HtmxRequest):
    """A request to a view behind login_required: its user is a person, never the anonymous visitor."""

    user: User


def _lobby_page(request: HttpRequest, forms: list[CreateMatchForm], *, open_game: str = "",
                status: int = 200) -> HttpResponse:
    csrf_token = get_token(request)
    return render(request, "games/lobby.html", {
        "create_forms": lobby.create_forms_html(forms, open_game=open_game, signed_in=request.user.is_authenticated,
                                                csrf_token=csrf_token),
        "lobby_lists": lobby.lists_html(request.user, csrf_token),
    }, status=status)


@require_GET
def play(request: HtmxRequest) -> HttpResponse:
    """The lobby: the create forms and the lists (only the lists for htmx)."""
    if request.htmx:
        return HttpResponse(lobby.lists_html(request.user, get_token(request)))
    return _lobby_page(request, all_forms())


@login_required
@require_POST
def create_match(request: SignedInRequest, game: str) -> HttpResponse:
    if game not in GAMES:
        raise Http404("No such game.")
    form = CreateMatchForm(GAMES[game], request.POST)
    if form.is_valid():
        try:
            match = services.create_match(
                creator=request.user,
                game=game,
                players=form.cleaned_data["players"],
                seats=form.seat_specs(),
                options=form.options(),
                is_public=form.cleaned_data["is_public"],
                rated=form.cleaned_data["rated"],
                first_seat_bot=form.first_seat_bot(),
                clock=form.clock(),
            )
        except services.ServiceError as error:
            form.add_error(None, str(error))
        else:
            return redirect(match)
    forms = [form if f.info.slug == game else f for f in all_forms()]
    return _lobby_page(request, forms, open_game=game, status=400)


@login_required
@require_POST
def join_match(request: SignedInRequest, match_id: int) -> HttpResponse:
    code = request.POST.get("code") or None
    try:
        match = services.join_match(match_id=match_id, user=request.user, invite_code=code)
    except services.ServiceError as error:
        messages.error(request, str(error))
        return redirect("play")
    return redirect(match)


@login_required
@require_POST
def leave_match(request: SignedInRequest, match_id: int) -> HttpResponse:
    try:
        services.leave_match(match_id=match_id, user=request.user)
    except services.ServiceError as error:
        messages.error(request, str(error))
    return redirect("play")


@login_required
@require_POST
def cancel_match(request: SignedInRequest, match_id: int) -> HttpResponse:
    """The creator calls off a match still waiting for players (the lobby's Cancel)."""
    try:
        services.cancel_match(match_id=match_id, user=request.user)
    except services.ServiceError as error:
        messages.error(request, str(error))
    else:
        messages.success(request, "The match was cancelled.")
    return redirect("play")


@login_required
@require_POST
def abandon_match(request: SignedInRequest, match_id: int) -> HttpResponse:
    """Walk away from a match against bots ("Your matches"): aborted before your first move, else resigned."""
    try:
        match = services.abandon_match(match_id=match_id, user=request.user)
    except services.ServiceError as error:
        messages.error(request, str(error))
    else:
        outcome = Outcome.of(match.result)
        resigned = outcome is not None and outcome.termination == Termination.RESIGN
        messages.success(request, "The match was resigned: a loss." if resigned
                         else "The match was called off: it counts for nothing.")
    return redirect("play")


@require_http_methods(["GET"])
def match_page(request: HttpRequest, match_id: int) -> HttpResponse:
    snap = services.load(match_id)
    if snap is None:
        raise Http404("No such match.")
    code = request.GET.get("code", "")[:64]
    held = snap.seat_of(request.user.pk if request.user.is_authenticated else None)
    seat = held.index if held is not None and not held.is_bot else None
    if not snap.may_watch(request.user.pk, code):
        raise Http404("No such match.")
    has_code = selectors.code_matches(code, snap.invite_code)
    view = None
    if snap.state is not None:
        engine = get_engine(snap.game)
        view = page_view(engine.view(engine.load(snap.state), seat))
    presence, watchers = selectors.attendance(snap.id)
    context = table_context(match_meta(snap, presence, watchers), view, seat)
    context["ws_url"] += f"?code={code}" if code else ""
    can_join = (
        snap.status == Match.Status.WAITING
        and seat is None
        and any(s.player is None and (not s.invite_only or has_code) for s in snap.seats)
    )
    # A person whose seat a bot plays since they left is told so, and may take it back.
    left = held is not None and held.left and snap.status == Match.Status.ACTIVE
    move = next((h["move"] for h in reversed(snap.handovers) if held and h["seat"] == held.index), 0)
    notice = render_fragment("seat_notice", {"left_seat": held.index if left and held else None, "left_move": move})
    context.update({"match": snap, "code": code, "can_join": can_join, "seat_notice": mark_safe(notice),
                    "fragments": page_fragments(context)})
    return render(request, "games/match.html", context)
