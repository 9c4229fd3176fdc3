"""The Bot API's endpoints (JSON over HTTP, under /api/v1/): the account, a match as the bot's seat sees it, its
move, resignation, abort and chat, and challenges. A move goes through the same decider and version fence as a
browser's, on the same road (games.play.decide.decide_move on this process's live match, games.play.owner);
resign, abort and the Gomori protocol's turns through games.play.sync.run_change: the live tables hear each as
any change. A match the bot has no seat in is 404, as a match that does not exist: no probing of others' matches."""

from __future__ import annotations

import asyncio
import contextvars
from functools import partial
from typing import Any

import orjson
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.http import HttpRequest, HttpResponse, JsonResponse

from accounts.models import User

from ..challenges import services as challenges
from ..engines import gomori_protocol as protocol
from ..engines.base import IllegalAction
from ..models import Challenge, Match
from ..play import chat
from ..play.clock import correspondence_key
from ..play.decide import decide_abort, decide_move, decide_resign
from ..play.hub import hub
from ..play.news import match_group
from ..play.snapshot import MatchMovedOn, ServiceError, Snapshot, State, Status, engine_of, state_of
from ..play.store import load
from ..play.sync import run_change
from ..play.types import Line
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


def _version(body: dict[str, Any]) -> int | None:
    version = body.get("version")
    if version is None:
        return None
    if isinstance(version, bool) or not isinstance(version, int):
        raise ApiError(400, "'version' must be the integer the state gave.")
    return version


def _object(body: Any) -> dict[str, Any]:
    if not isinstance(body, dict):
        raise ApiError(400, "The body must be a JSON object.")
    return body


def play(caller: Caller, match_id: int, action: Any, version: int | None) -> Snapshot:
    """One action of the caller's seat, decided and written as a browser's move is; ApiError to refuse."""
    snap, _, seat = own_match(caller, match_id)
    if not isinstance(action, dict):
        raise ApiError(400, "'action' must be a JSON object in the game's move notation (see 'legal').")
    try:
        return run_change(match_id, decide_move, seat=seat, action=action, user_id=caller.user.pk,
                          expected_version=version)
    except MatchMovedOn:
        now = load(match_id)
        raise ApiError(409, "Stale move: the match moved on to version "
                       f"{now.version if now else '?'} before it arrived (you sent {version}).") from None
    except (IllegalAction, ServiceError) as error:
        raise refused(snap, seat, error) from None
    except (KeyError, TypeError, ValueError, IndexError, AttributeError):
        raise ApiError(400, "That move is not one the game knows: see 'legal' for the notation.") from None


@api_async("play", methods=("POST",))
async def move(request: HttpRequest, caller: Caller, match_id: int) -> HttpResponse:
    """A move on this process's live match (games.play.owner), the road a browser's move takes: decided on the
    copy the process holds (no read of the database when a table here shows the match), written with the other
    matches' changes in one commit (the hub's Writer), shown to the tables and told to the streams."""
    body = _object(caller.body)
    action, version = body.get("action"), _version(body)
    if not isinstance(action, dict):
        raise ApiError(400, "'action' must be a JSON object in the game's move notation (see 'legal').")
    # In a context of its own, as a socket's: the request's (Django runs an async view under a sync middleware's
    # thread) names that thread's executor for the database calls, and the tasks the hub starts here (its
    # writer's batch, its channel's reader) outlive the request: they would find that executor gone.
    task = asyncio.get_running_loop().create_task(_live_move(caller, match_id, action, version),
                                                  context=contextvars.Context())
    return await task


async def _live_move(caller: Caller, match_id: int, action: dict[str, Any], version: int | None) -> HttpResponse:
    live = await hub().get(match_id)
    if live is None:
        raise ApiError(404, "No such match of yours.")
    live.arriving += 1  # no await since get: the copy is still the hub's, and stays while this move is made
    try:
        seat = live.snap.seat_of(caller.user.pk)
        if seat is None:
            raise ApiError(404, "No such match of yours.")
        try:
            await live.change(decide_move, seat=seat.index, action=action, user_id=caller.user.pk,
                              expected_version=version)
        except MatchMovedOn:
            raise ApiError(409, f"Stale move: the match moved on to version {live.snap.version} before it arrived "
                           f"(you sent {version}).") from None
        except (IllegalAction, ServiceError) as error:
            raise refused(live.snap, seat.index, error) from None
        except (KeyError, TypeError, ValueError, IndexError, AttributeError):
            raise ApiError(400, "That move is not one the game knows: see 'legal' for the notation.") from None
        return JsonResponse(seat_state(live.snap, live.state, seat.index))
    finally:
        live.arriving -= 1
        await live.hub.drop(live)


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


def relay_chat(match_id: int, line: Line) -> None:
    """A line written through the API: to the live tables (every process holding the match) and its streams."""
    layer = get_channel_layer()
    message = {"type": "match.chat", "id": match_id, "from": "api", "line": orjson.dumps(line).decode()}
    # The match's group: every process holding the match, and the API's streams of it (games.api.streams).
    transaction.on_commit(partial(async_to_sync(layer.group_send), match_group(match_id), message))


@api("play", methods=("POST",))
def post_chat(request: HttpRequest, caller: Caller, match_id: int) -> HttpResponse:
    snap, _, _ = own_match(caller, match_id)
    body = _object(caller.body)
    try:
        if not chat.seats_two_people(snap):
            raise ServiceError("There is nobody at this table to talk to.")
        text = chat.clean_text(body.get("text"))
        if not chat.throttle.take(caller.user.pk):
            raise ApiError(429, "You are sending messages too fast: wait a moment.", {"Retry-After": "2"})
    except ServiceError as error:
        raise ApiError(400, str(error)) from None
    line = chat.post(match_id=match_id, user=caller.user, room="players", text=text)
    relay_chat(match_id, line)
    return JsonResponse({"ok": True, "id": line.id})


# ---------------------------------------------------------------------------------------------
# Challenges


def challenge_json(row: Challenge) -> dict[str, Any]:
    return {
        "id": row.pk, "status": row.status, "game": row.game, "clock": row.clock, "rated": row.rated,
        "from": row.challenger.username, "to": row.challenged.username,
        "match": row.match_id, "expires_at": row.expires_at.isoformat(),
    }


@api("challenge", methods=("POST",))
def make_challenge(request: HttpRequest, caller: Caller, username: str) -> HttpResponse:
    body = _object(caller.body)
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


# ---------------------------------------------------------------------------------------------
# Computer Gomori: the protocol's request and turn for the bot's seat, so that the bridge stays thin


def _gomori(caller: Caller, match_id: int) -> tuple[Snapshot, State, int]:
    snap, state, seat = own_match(caller, match_id)
    if snap.game != "gomori":
        raise ApiError(400, "This match is not of Gomori.")
    if snap.status != Status.ACTIVE or state is None:
        raise ApiError(409, "This match is not in progress.")
    return snap, state, seat


@api("play")
def gomori_request(request: HttpRequest, caller: Caller, match_id: int) -> HttpResponse:
    """The protocol's request for the turn the seat is to play (null when it is not its turn). `seen`: how many
    of the opponent's gathered cards the bot was told of already (the answer says the new count)."""
    snap, state, seat = _gomori(caller, match_id)
    try:
        seen = max(0, int(request.GET.get("seen", "0")))
    except ValueError:
        raise ApiError(400, "'seen' is a count.") from None
    view = snap_view(snap, state, seat)
    if seat not in view["to_act"]:
        return JsonResponse({"request": None, "version": snap.version, "seen": seen,
                             "color": protocol.COLOR_NAMES[seat]})
    talker = protocol.ProtocolSeat(seat)
    talker.opponent_seen = seen
    made = talker.request(view)
    return JsonResponse({"request": made, "version": snap.version, "seen": talker.opponent_seen,
                         "color": protocol.COLOR_NAMES[seat]})


def snap_view(snap: Snapshot, state: State, seat: int) -> dict[str, Any]:
    view: dict[str, Any] = engine_of(snap).view(state, seat)
    return view


@api("play", methods=("POST",))
def gomori_turn(request: HttpRequest, caller: Caller, match_id: int) -> HttpResponse:
    """A protocol answer to the request at `version`: checked whole on the current state (protocol.play_answer),
    then played action by action through the same decider and fence as any move."""
    body = _object(caller.body)
    version = _version(body)
    snap, state, seat = _gomori(caller, match_id)
    if version is not None and version != snap.version:
        raise ApiError(409, f"Stale turn: the match is at version {snap.version}, the request was for {version}.")
    kind = "PlayFirstTurn" if not snap_view(snap, state, seat)["field"] else "PlayTurn"
    try:
        _, actions = protocol.play_answer(state, seat, {"type": kind}, body.get("answer"))
    except IllegalAction as error:
        raise refused(snap, seat, error) from None
    except (KeyError, TypeError, ValueError, IndexError, AttributeError):
        raise ApiError(400, "That answer is not one the protocol knows.") from None
    after = snap
    for action in actions:
        after = play(caller, match_id, action, after.version)
    return JsonResponse(seat_state(after, state_of(after), seat))
