"""The Bot API's endpoints for the bot's account and matches (JSON over HTTP, under /api/v1/): a match as the bot's
seat sees it, its move, resignation, abort and chat; challenges are games.api.challenges, the Computer Gomori
protocol games.api.gomori. A move takes the road a browser's move takes (`on_live`: this process's live match,
games.play.owner.LiveMatch.move, the same decider and version fence); resign and abort go through
games.play.sync.run_change, the chat through the table chat's service (games.play.chat.say): the live tables hear
each as any change. A match the bot has no seat in is 404, as a match that does not exist: no probing of others'
matches."""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Awaitable, Callable
from typing import Any

from django.http import HttpRequest, HttpResponse, JsonResponse

from ..engines.base import IllegalAction
from ..models import Match
from ..play import chat
from ..play.decide import decide_abort, decide_resign
from ..play.hub import hub
from ..play.owner import LiveMatch
from ..play.snapshot import MatchMovedOn, ServiceError, Snapshot, State, state_of
from ..play.store import load
from ..play.sync import run_change
from ..play.wording import distinct_names, name_seats
from .auth import ApiError, Caller, api, api_async
from .state import seat_state


def own_match(caller: Caller, match_id: int) -> tuple[Snapshot, State | None, int]:
    """The match and the caller's seat in it; 404 when there is none (or it is someone else's)."""
    snap = load(match_id)
    seat = snap.seat_of(caller.user.pk) if snap is not None else None
    if snap is None or seat is None:
        raise ApiError(404, "No such match of yours.")
    return snap, state_of(snap), seat.index


def named(snap: Snapshot, seat: int, message: str) -> str:
    return name_seats(message, distinct_names([s.player.name if s.player else "" for s in snap.seats]), seat)


def refused(snap: Snapshot, seat: int, error: Exception, status: int = 400) -> ApiError:
    return ApiError(status, named(snap, seat, str(error)))


def json_object(body: Any) -> dict[str, Any]:
    if not isinstance(body, dict):
        raise ApiError(400, "The body must be a JSON object.")
    return body


def version_of(body: dict[str, Any]) -> int | None:
    version = body.get("version")
    if version is None:
        return None
    if isinstance(version, bool) or not isinstance(version, int):
        raise ApiError(400, "'version' must be the integer the state gave.")
    return version


@api(None)
def account(request: HttpRequest, caller: Caller) -> HttpResponse:
    user = caller.user
    return JsonResponse({
        "id": user.pk, "username": user.username, "name": user.name, "bot": True,
        "owner": user.owner.username if user.owner else None,
        "token": {"name": caller.token.name, "scopes": caller.token.scopes, "prefix": caller.token.prefix},
    })


@api("play")
def matches(request: HttpRequest, caller: Caller) -> HttpResponse:
    """The bot's matches in progress."""
    rows = (Match.objects.filter(seats__user=caller.user, status=Match.Status.ACTIVE)
            .values_list("pk", "game").distinct().order_by("pk"))
    return JsonResponse({"matches": [{"id": pk, "game": game} for pk, game in rows]})


@api("play")
def match_state(request: HttpRequest, caller: Caller, match_id: int) -> HttpResponse:
    snap, state, seat = own_match(caller, match_id)
    return JsonResponse(seat_state(snap, state, seat))


# ---------------------------------------------------------------------------------------------
# Moves: on this process's live match, as a browser's


async def on_live(caller: Caller, match_id: int,
                  work: Callable[[LiveMatch, int], Awaitable[HttpResponse]]) -> HttpResponse:
    """`work(live, seat)` on this process's live copy of a match of the caller's (404 if it is none), the copy held
    while it runs. In a context of its own, as a socket's: the request's (Django runs an async view under a sync
    middleware's thread) names that thread's executor for the database calls, and the tasks the hub starts here
    (its writer's batch, its channel's reader) outlive the request: they would find that executor gone."""

    async def held() -> HttpResponse:
        live = await hub().get(match_id)
        if live is None:
            raise ApiError(404, "No such match of yours.")
        live.arriving += 1  # no await since get: the copy is still the hub's, and stays while the work is done
        try:
            seat = live.snap.seat_of(caller.user.pk)
            if seat is None:
                raise ApiError(404, "No such match of yours.")
            return await work(live, seat.index)
        finally:
            live.arriving -= 1
            await live.hub.drop(live)

    return await asyncio.get_running_loop().create_task(held(), context=contextvars.Context())


async def live_move(live: LiveMatch, seat: int, caller: Caller, action: Any, version: int | None) -> None:
    """One action of the caller's seat, decided and written as a browser's move is (the one decider call of moves,
    LiveMatch.move); ApiError to refuse."""
    try:
        await live.move(seat=seat, action=action, user_id=caller.user.pk, expected_version=version)
    except MatchMovedOn:
        raise ApiError(409, f"Stale move: the match moved on to version {live.snap.version} before it arrived "
                       f"(you sent {version}).") from None
    except (IllegalAction, ServiceError) as error:
        raise refused(live.snap, seat, error) from None


@api_async("play", methods=("POST",))
async def move(request: HttpRequest, caller: Caller, match_id: int) -> HttpResponse:
    """A move on this process's live match (games.play.owner), the road a browser's move takes: decided on the
    copy the process holds (no read of the database when a table here shows the match), written with the other
    matches' changes in one commit (the hub's Writer), shown to the tables and told to the streams."""
    body = json_object(caller.body)
    action, version = body.get("action"), version_of(body)
    if not isinstance(action, dict):
        raise ApiError(400, "'action' must be a JSON object in the game's move notation (see 'legal').")

    async def moved(live: LiveMatch, seat: int) -> HttpResponse:
        await live_move(live, seat, caller, action, version)
        return JsonResponse(seat_state(live.snap, live.state, seat))

    return await on_live(caller, match_id, moved)


# ---------------------------------------------------------------------------------------------
# Resign, abort, chat


def _match_op(caller: Caller, match_id: int, decide: Any) -> HttpResponse:
    snap, _, seat = own_match(caller, match_id)
    try:
        after = run_change(match_id, decide, user_id=caller.user.pk)
    except ServiceError as error:
        raise refused(snap, seat, error) from None
    return JsonResponse(seat_state(after, state_of(after), seat))


@api("play", methods=("POST",))
def resign(request: HttpRequest, caller: Caller, match_id: int) -> HttpResponse:
    return _match_op(caller, match_id, decide_resign)


@api("play", methods=("POST",))
def abort(request: HttpRequest, caller: Caller, match_id: int) -> HttpResponse:
    return _match_op(caller, match_id, decide_abort)


@api("play", methods=("POST",))
def post_chat(request: HttpRequest, caller: Caller, match_id: int) -> HttpResponse:
    """A line in the players' room, through the table chat's own service (games.play.chat.say)."""
    snap, _, _ = own_match(caller, match_id)
    body = json_object(caller.body)
    try:
        line = chat.say(snap, caller.user, body.get("text"))
    except chat.TooFast as error:
        raise ApiError(429, str(error), {"Retry-After": "2"}) from None
    except ServiceError as error:
        raise ApiError(400, str(error)) from None
    return JsonResponse({"ok": True, "id": line.id})
