"""The Bot API's challenges (under /api/v1/): made, listed and answered through the challenges' own services
(games.challenges.services), as a person's are."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db.models import Q
from django.http import HttpRequest, HttpResponse, JsonResponse

from accounts.models import User

from ..challenges import services as challenges
from ..models import Challenge
from ..play.clock import correspondence_key
from ..play.snapshot import ServiceError
from .auth import ApiError, Caller, api
from .views import json_object


def challenge_json(row: Challenge) -> dict[str, Any]:
    return {
        "id": row.pk, "status": row.status, "game": row.game, "clock": row.clock, "rated": row.rated,
        "from": row.challenger.username, "to": row.challenged.username,
        "match": row.match_id, "expires_at": row.expires_at.isoformat(),
    }


@api("challenge", methods=("POST",))
def make_challenge(request: HttpRequest, caller: Caller, username: str) -> HttpResponse:
    body = json_object(caller.body)
    other = User.objects.filter(username=username).first()
    if other is None:
        raise ApiError(404, "There is no such player.")
    # A program could ask everyone on the site at twenty a second: it has this many open at most (a new one to
    # the same player replaces the old, as for people).
    cap = int(settings.GAMES_API_OPEN_CHALLENGES)
    open_now = Challenge.objects.filter(challenger=caller.user, status=Challenge.Status.OPEN).exclude(challenged=other)
    if open_now.count() >= cap:
        raise ApiError(429, f"Too many open challenges: at most {cap}; wait for answers.", {"Retry-After": "10"})
    try:
        row = challenges.challenge(caller.user, other, game=str(body.get("game", "")), clock=_clock_key(body),
                                   rated=_flag(body, "rated", default=True))
    except ServiceError as error:
        raise ApiError(400, str(error)) from None
    return JsonResponse({"challenge": challenge_json(row)})


def _flag(body: dict[str, Any], name: str, *, default: bool) -> bool:
    """A yes/no field: JSON true or false (a form's "true"/"false" too); anything else is a 400 naming it, never
    taken for yes because it is a non-empty string."""
    value = body.get(name, default)
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("true", "false"):
        return value.lower() == "true"
    raise ApiError(400, f"{name} must be true or false.")


def _clock_key(body: dict[str, Any]) -> str:
    """The challenge's clock by its key ("none", "live", "turn", "1d" ... "7d"), or as {"clock": "days", "days": 3}
    (the days-a-move clock spelled out, as the match's own `clock` reads)."""
    clock = str(body.get("clock", "none"))
    if clock == "days":
        days = body.get("days", 3)
        return correspondence_key(days) if isinstance(days, int) and not isinstance(days, bool) else "days"
    return clock


@api("challenge")
def list_challenges(request: HttpRequest, caller: Caller) -> HttpResponse:
    rows = (Challenge.objects.filter(status=Challenge.Status.OPEN)
            .filter(models_q_either(caller.user.pk)).select_related("challenger", "challenged").order_by("pk"))
    return JsonResponse({"challenges": [challenge_json(row) for row in rows]})


def models_q_either(user_id: int) -> Any:
    return Q(challenger_id=user_id) | Q(challenged_id=user_id)


def _answer(caller: Caller, challenge_id: int, how: str) -> HttpResponse:
    row = Challenge.objects.filter(pk=challenge_id).filter(models_q_either(caller.user.pk)).first()
    if row is None:
        raise ApiError(404, "No such challenge of yours.")
    try:
        if how == "accept":
            match = challenges.accept(caller.user, challenge_id)
            return JsonResponse({"ok": True, "match": match.pk})
        if how == "decline":
            challenges.decline(caller.user, challenge_id)
        else:
            challenges.withdraw(caller.user, challenge_id)
    except ServiceError as error:
        raise ApiError(400, str(error)) from None
    return JsonResponse({"ok": True})


@api("challenge", methods=("POST",))
def accept_challenge(request: HttpRequest, caller: Caller, challenge_id: int) -> HttpResponse:
    return _answer(caller, challenge_id, "accept")


@api("challenge", methods=("POST",))
def decline_challenge(request: HttpRequest, caller: Caller, challenge_id: int) -> HttpResponse:
    return _answer(caller, challenge_id, "decline")


@api("challenge", methods=("POST",))
def withdraw_challenge(request: HttpRequest, caller: Caller, challenge_id: int) -> HttpResponse:
    return _answer(caller, challenge_id, "withdraw")
