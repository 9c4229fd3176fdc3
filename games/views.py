"""Plain function views for the games side of the site."""

from __future__ import annotations

import secrets

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from . import selectors, services
from .catalog import GAMES
from .engines import get_engine
from .forms import CreateMatchForm, all_forms
from .models import Match
from .rendering import match_meta, page_fragments, page_view, table_context


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    return render(request, "games/home.html", {"games": GAMES.values()})


@require_GET
def lobby(request: HttpRequest) -> HttpResponse:
    if request.htmx:
        return render(request, "games/lobby.html#lists", selectors.lobby_lists(request.user))
    return render(request, "games/lobby.html", {"forms": all_forms(), **selectors.lobby_lists(request.user)})


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
    context = {"forms": forms, "open_game": game, **selectors.lobby_lists(request.user)}
    return render(request, "games/lobby.html", context, status=400)


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
    snap = services.load(match_id)
    if snap is None:
        raise Http404("No such match.")
    code = request.GET.get("code", "")[:64]
    held = snap.seat_of(request.user.pk if request.user.is_authenticated else None)
    seat = held.index if held is not None and not held.is_bot else None
    has_code = bool(code) and secrets.compare_digest(code, snap.invite_code)
    if not (snap.is_public or held is not None or has_code):
        raise Http404("No such match.")
    view = None
    if snap.state is not None:
        engine = get_engine(snap.game)
        view = page_view(engine.view(engine.load(snap.state), seat))
    context = table_context(match_meta(snap, services.presence_of(snap.id)), view, seat)
    context["ws_url"] += f"?code={code}" if code else ""
    can_join = (
        snap.status == Match.Status.WAITING
        and seat is None
        and any(s.player is None and (not s.invite_only or has_code) for s in snap.seats)
    )
    invite_url = ""
    if seat is not None and snap.status == Match.Status.WAITING:
        invite_url = request.build_absolute_uri(f"{reverse('match', args=[snap.id])}?code={snap.invite_code}")
    context.update({"match": snap, "code": code, "can_join": can_join, "invite_url": invite_url,
                    "fragments": page_fragments(context)})
    return render(request, "games/match.html", context)
