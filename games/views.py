"""Plain function views for the games side of the site."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from . import selectors, services
from .catalog import GAMES
from .engines import get_engine
from .forms import CreateMatchForm, all_forms
from .rendering import match_meta, table_context


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    return render(request, "games/home.html", {"games": GAMES.values()})


def _lobby_lists(request: HttpRequest) -> dict[str, object]:
    return {
        "open_matches": selectors.open_matches(request.user),
        "my_matches": selectors.my_matches(request.user),
        "watch_matches": selectors.watchable_matches(request.user),
    }


@require_GET
def lobby(request: HttpRequest) -> HttpResponse:
    if request.htmx:
        return render(request, "games/lobby.html#lists", _lobby_lists(request))
    return render(request, "games/lobby.html", {"forms": all_forms(), **_lobby_lists(request)})


@login_required
@require_POST
def create_match(request: HttpRequest, game: str) -> HttpResponse:
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
            )
        except services.ServiceError as error:
            form.add_error(None, str(error))
        else:
            return redirect(match)
    forms = [form if f.info.slug == game else f for f in all_forms()]
    return render(request, "games/lobby.html", {"forms": forms, "open_game": game, **_lobby_lists(request)},
                  status=400)


@login_required
@require_POST
def join_match(request: HttpRequest, match_id: int) -> HttpResponse:
    code = request.POST.get("code") or None
    try:
        match = services.join_match(match_id=match_id, user=request.user, invite_code=code)
    except services.ServiceError as error:
        messages.error(request, str(error))
        return redirect("play")
    return redirect(match)


@login_required
@require_POST
def leave_match(request: HttpRequest, match_id: int) -> HttpResponse:
    try:
        services.leave_match(match_id=match_id, user=request.user)
    except services.ServiceError as error:
        messages.error(request, str(error))
    return redirect("play")


@require_http_methods(["GET"])
def match_page(request: HttpRequest, match_id: int) -> HttpResponse:
    match = selectors.match_for_viewer(match_id)
    if match is None:
        raise Http404("No such match.")
    code = request.GET.get("code", "")[:64]
    if not selectors.can_watch(match, request.user, code):
        raise Http404("No such match.")
    seats = list(match.seats.all())
    seat_obj = services.seat_of(match, request.user)
    seat = seat_obj.index if seat_obj and not seat_obj.is_bot else None
    view = None
    if match.state is not None:
        engine = get_engine(match.game)
        view = engine.view(engine.load(match.state), seat)
    context = table_context(match_meta(match, seats), view, seat)
    context["ws_url"] += f"?code={code}" if code else ""
    can_join = (
        match.status == match.Status.WAITING
        and seat is None
        and any(s.user_id is None and (not s.invite_only or code == match.invite_code) for s in seats)
    )
    invite_url = ""
    if seat is not None and match.status == match.Status.WAITING:
        invite_url = request.build_absolute_uri(f"{match.get_absolute_url()}?code={match.invite_code}")
    context.update({"match": match, "code": code, "can_join": can_join, "invite_url": invite_url})
    return render(request, "games/match.html", context)
