"""The lobby's views: the home page, the lobby (its create forms and lists), creating a match, and the seat changes
its lists and pages post (join, leave, cancel, abandon), each one change through games.play.sync.run_change."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.middleware.csrf import get_token
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_GET, require_POST

from .. import boards
from ..boards import why_not_at
from ..catalog import GAMES
from ..challenges.queries import page_challenges
from ..core.web import HtmxRequest, SignedInRequest
from ..notify.goto import send_the_others
from ..play.create import create_match as create
from ..play.decide import decide_abandon
from ..play.seating import decide_cancel, decide_join, decide_leave
from ..play.snapshot import Player, ServiceError
from ..play.sync import run_change
from ..pool.display import quick_html
from ..results import Outcome, Termination
from ..tournaments.display import lobby_html as tournaments_html
from . import display
from .forms import CreateMatchForm, all_forms
from .invites import remember_join


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    return render(request, "games/home.html", {"games": GAMES.values()})


def _lobby_page(request: HttpRequest, forms: list[CreateMatchForm] | None, *, open_game: str = "",
                status: int = 200) -> HttpResponse:
    """The lobby page; `forms`: the create forms as posted, None for every game's blank."""
    csrf_token = get_token(request)
    challenge_read = page_challenges(request.user)
    # The person's board, read once for the grid and the lists (each socket, drawing one alone, reads its own).
    sitter = boards.sitter_of(request.user) if request.user.is_authenticated else None
    return render(request, "games/lobby.html", {
        "quick": quick_html(request.user, sitter=sitter),
        "challenges": challenge_read.open,
        "challenge_read": challenge_read,  # the header's notices too (games_tags.notify_socket)
        "create_forms": display.create_forms_html(forms, open_game=open_game, signed_in=request.user.is_authenticated,
                                               csrf_token=csrf_token),
        "lobby_lists": display.lists_html(request.user, csrf_token, sitter=sitter),
        "lobby_tournaments": mark_safe(tournaments_html(request.user, csrf_token)),
    }, status=status)


@require_GET
def play(request: HtmxRequest) -> HttpResponse:
    """The lobby: the create forms and the lists (only the lists for htmx)."""
    if request.htmx:
        return HttpResponse(display.lists_html(request.user, get_token(request)))
    return _lobby_page(request, None)


@login_required
@require_POST
def create_match(request: SignedInRequest, game: str) -> HttpResponse:
    if game not in GAMES:
        raise Http404("No such game.")
    form = CreateMatchForm(GAMES[game], request.POST)
    if form.is_valid():
        # The gate (games.boards): a person at a clocked board opens no second one (watching bots binds no one).
        try:
            clocked = boards.is_clocked(form.clock()) and not form.first_seat_bot()
            reason = boards.why_not(request.user, clocked=clocked)
            if reason:
                raise ServiceError(reason)
            match = create(
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
        except ServiceError as error:
            form.add_error(None, str(error))
        else:
            return redirect(match)
    forms = [form if f.info.slug == game else f for f in all_forms()]
    return _lobby_page(request, forms, open_game=game, status=400)


@require_POST
def join_match(request: HttpRequest, match_id: int) -> HttpResponse:
    code = (request.POST.get("code") or "")[:64] or None
    if not request.user.is_authenticated:
        # An invite opened signed out: the seat is taken when they sign in or sign up (games.lobby.invites).
        messages.info(request, "Sign in, or create an account, to take your seat. It stays open meanwhile.")
        return redirect(remember_join(request, match_id, code))
    try:
        # The gate first, with its own words (someone at a clocked board sits nowhere else till it ends).
        reason = why_not_at(request.user, match_id)
        if reason:
            raise ServiceError(reason)
        snap = run_change(match_id, decide_join, player=Player.of(request.user), invite_code=code)
    except ServiceError as error:
        messages.error(request, str(error))
        return redirect("play")
    send_the_others(snap, joiner=request.user.pk)
    return redirect(reverse("match", args=[match_id]))


@login_required
@require_POST
def leave_match(request: SignedInRequest, match_id: int) -> HttpResponse:
    try:
        run_change(match_id, decide_leave, user_id=request.user.pk)
    except ServiceError as error:
        messages.error(request, str(error))
    return redirect("play")


@login_required
@require_POST
def cancel_match(request: SignedInRequest, match_id: int) -> HttpResponse:
    """The creator calls off a match still waiting for players (the lobby's Cancel)."""
    try:
        run_change(match_id, decide_cancel, user_id=request.user.pk)
    except ServiceError as error:
        messages.error(request, str(error))
    else:
        messages.success(request, "The match was cancelled.")
    return redirect("play")


@login_required
@require_POST
def abandon_match(request: SignedInRequest, match_id: int) -> HttpResponse:
    """Walk away from a match against bots ("Your matches"): aborted before your first move, else resigned."""
    try:
        after = run_change(match_id, decide_abandon, user_id=request.user.pk)
    except ServiceError as error:
        messages.error(request, str(error))
    else:
        outcome = Outcome.of(after.result)
        resigned = outcome is not None and outcome.termination == Termination.RESIGN
        messages.success(request, "The match was resigned: a loss." if resigned
                         else "The match was called off: it counts for nothing.")
    return redirect("play")
