"""A seat taken by someone who was signed out: "Take a seat" remembers the wish in the session, the person signs
in or signs up, and the wish is carried out at that moment (one place: the sign-in signal, which signing up
fires too), so they land seated at the match they came for, or are told why not."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.signals import user_logged_in
from django.dispatch import receiver
from django.http import HttpRequest
from django.urls import reverse
from django.utils.http import urlencode

from ..boards import why_not_at
from ..notify.goto import send_the_others
from ..play.seating import decide_join
from ..play.snapshot import Player, ServiceError
from ..play.sync import run_change

PENDING_JOIN = "pending_join"


def remember_join(request: HttpRequest, match_id: int, code: str | None) -> str:
    """Keep the wish to sit at `match_id`; the address of the sign-in page that comes back to the match."""
    request.session[PENDING_JOIN] = {"match": match_id, "code": code or ""}
    back = reverse("match", args=[match_id]) + (f"?{urlencode({'code': code})}" if code else "")
    return reverse("login") + "?" + urlencode({"next": back})


@receiver(user_logged_in)
def take_pending_seat(sender: Any, request: HttpRequest | None, user: Any, **kwargs: Any) -> None:
    # Django keeps the session's data across the key change at sign-in, so the wish is still there.
    if request is None or not hasattr(request, "session"):
        return
    wish = request.session.pop(PENDING_JOIN, None)
    if not isinstance(wish, dict) or not isinstance(wish.get("match"), int):
        return
    match_id = wish["match"]
    try:
        reason = why_not_at(user, match_id)  # the gate's own words, before deciding (as the lobby's Join)
        if reason:
            raise ServiceError(reason)
        snap = run_change(match_id, decide_join, player=Player.of(user),
                          invite_code=str(wish.get("code") or "") or None)
    except ServiceError as error:
        messages.error(request, f"You could not take the seat you chose: {error}")
    else:
        send_the_others(snap, joiner=user.pk)
        messages.success(request, "You took your seat.")
