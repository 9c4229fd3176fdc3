"""Challenges' views: made from a profile's form, answered from a notice (htmx) or the lobby's list (a form)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.views.decorators.http import require_POST
from django_htmx.http import HttpResponseClientRedirect

from ..core.web import SignedInRequest
from ..play.snapshot import ServiceError
from . import services as challenges
from .queries import notices_html


@login_required
@require_POST
def make_challenge(request: SignedInRequest, username: str) -> HttpResponse:
    other = get_object_or_404(get_user_model(), username=username)
    try:
        challenges.challenge(request.user, other, game=request.POST.get("game", ""),
                             clock=request.POST.get("clock", ""), rated=request.POST.get("rated", "1") == "1")
    except ServiceError as error:
        messages.error(request, str(error))
        return redirect(other)
    # No flash: the lobby's list says "Waiting for Bob to accept…" while the challenge is open, and the live
    # notices redraw it when it closes, so no banner outlives the challenge it speaks of.
    return redirect("play")


def _answered(request: SignedInRequest, *, error: ServiceError | None = None, to: str = "play") -> HttpResponse:
    """A notice's button (htmx) gets the notices drawn again, with the refusal's reason in them (a flash would
    wait for the next page); the lobby's form goes back to the lobby, the reason as a flash there."""
    if request.htmx:
        return HttpResponse(notices_html(request.user, error=str(error) if error else ""))
    if error is not None:
        messages.error(request, str(error))
    return redirect(to)


@login_required
@require_POST
def accept_challenge(request: SignedInRequest, challenge_id: int) -> HttpResponse:
    try:
        match = challenges.accept(request.user, challenge_id)
    except ServiceError as error:
        return _answered(request, error=error)
    if request.htmx:
        return HttpResponseClientRedirect(match.get_absolute_url())
    return redirect(match)


@login_required
@require_POST
def decline_challenge(request: SignedInRequest, challenge_id: int) -> HttpResponse:
    try:
        challenges.decline(request.user, challenge_id)
    except ServiceError as error:
        return _answered(request, error=error)
    return _answered(request)


@login_required
@require_POST
def withdraw_challenge(request: SignedInRequest, challenge_id: int) -> HttpResponse:
    try:
        challenges.withdraw(request.user, challenge_id)
    except ServiceError as error:
        return _answered(request, error=error)
    return _answered(request)
