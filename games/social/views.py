"""Friends' views: follow, unfollow, block and unblock from a person's profile (plain POST forms with CSRF, back to
the profile with a sentence), and a person's page of whom they follow and who follows them."""

from __future__ import annotations

from collections.abc import Callable

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST, require_safe

from accounts.models import User

from ..core.web import SignedInRequest
from ..play.snapshot import ServiceError
from . import queries, services

Action = Callable[[User, User], None]
DONE = {
    "follow": "You follow {name}: you will see them in your Friends panel when they are online.",
    "unfollow": "You no longer follow {name}.",
    "block": "You blocked {name}: their challenges and chat lines no longer reach you.",
    "unblock": "You unblocked {name}.",
}
ACTIONS: dict[str, Action] = {"follow": services.follow, "unfollow": services.unfollow,
                              "block": services.block, "unblock": services.unblock}


def _act(request: SignedInRequest, username: str, verb: str) -> HttpResponse:
    other = get_object_or_404(User, username=username, is_active=True)
    try:
        ACTIONS[verb](request.user, other)
    except ServiceError as error:
        messages.error(request, str(error))
        return redirect(other)
    messages.success(request, DONE[verb].format(name=other.name))
    return redirect(other)


@login_required
@require_POST
def follow(request: SignedInRequest, username: str) -> HttpResponse:
    return _act(request, username, "follow")


@login_required
@require_POST
def unfollow(request: SignedInRequest, username: str) -> HttpResponse:
    return _act(request, username, "unfollow")


@login_required
@require_POST
def block(request: SignedInRequest, username: str) -> HttpResponse:
    return _act(request, username, "block")


@login_required
@require_POST
def unblock(request: SignedInRequest, username: str) -> HttpResponse:
    return _act(request, username, "unblock")


@require_safe
def friends_page(request: HttpRequest, username: str) -> HttpResponse:
    """Whom a person follows and who follows them (public, as lichess's are); their blocks are theirs alone."""
    person = get_object_or_404(User, username=username, is_active=True)
    return render(request, "games/social/friends.html", {
        "person": person, "following": queries.following(person), "followers": queries.followers(person)})
