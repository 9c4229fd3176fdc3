"""Computer Gomori through the Bot API (under /api/v1/matches/<id>/gomori/): the protocol's request and turn for
the bot's seat (games.engines.gomori_protocol), so that the bridge (clients/computer_gomori_bridge.py) stays thin.
A turn is checked whole by the protocol, then played action by action on the road of every move
(games.api.views.on_live)."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse, JsonResponse

from ..engines import gomori_protocol as protocol
from ..engines.base import IllegalAction
from ..play.owner import LiveMatch
from ..play.snapshot import Snapshot, State, Status, engine_of
from .auth import ApiError, Caller, api, api_async
from .state import seat_state
from .views import json_object, live_move, on_live, own_match, refused, version_of


def playing(snap: Snapshot, state: State | None) -> State:
    """The state of a Gomori match in progress; ApiError otherwise."""
    if snap.game != "gomori":
        raise ApiError(400, "This match is not of Gomori.")
    if snap.status != Status.ACTIVE or state is None:
        raise ApiError(409, "This match is not in progress.")
    return state


def seat_view(snap: Snapshot, state: State, seat: int) -> dict[str, Any]:
    view: dict[str, Any] = engine_of(snap).view(state, seat)
    return view


@api("play")
def gomori_request(request: HttpRequest, caller: Caller, match_id: int) -> HttpResponse:
    """The protocol's request for the turn the seat is to play (null when it is not its turn). `seen`: how many
    of the opponent's gathered cards the bot was told of already (the answer says the new count)."""
    snap, state, seat = own_match(caller, match_id)
    view = seat_view(snap, playing(snap, state), seat)
    try:
        seen = max(0, int(request.GET.get("seen", "0")))
    except ValueError:
        raise ApiError(400, "'seen' is a count.") from None
    if seat not in view["to_act"]:
        return JsonResponse({"request": None, "version": snap.version, "seen": seen,
                             "color": protocol.COLOR_NAMES[seat]})
    talker = protocol.ProtocolSeat(seat)
    talker.opponent_seen = seen
    made = talker.request(view)
    return JsonResponse({"request": made, "version": snap.version, "seen": talker.opponent_seen,
                         "color": protocol.COLOR_NAMES[seat]})


@api_async("play", methods=("POST",))
async def gomori_turn(request: HttpRequest, caller: Caller, match_id: int) -> HttpResponse:
    """A protocol answer to the request at `version`: checked whole on the current state (protocol.play_answer),
    then played action by action as any move (games.api.views.live_move)."""
    body = json_object(caller.body)
    version = version_of(body)

    async def turn(live: LiveMatch, seat: int) -> HttpResponse:
        snap = live.snap
        state = playing(snap, live.state)
        if version is not None and version != snap.version:
            raise ApiError(409, f"Stale turn: the match is at version {snap.version}, the request was for {version}.")
        kind = "PlayFirstTurn" if not seat_view(snap, state, seat)["field"] else "PlayTurn"
        try:
            _, actions = protocol.play_answer(state, seat, {"type": kind}, body.get("answer"))
        except IllegalAction as error:
            raise refused(snap, seat, error) from None
        for action in actions:
            await live_move(live, seat, caller, action, live.snap.version)
        return JsonResponse(seat_state(live.snap, live.state, seat))

    return await on_live(caller, match_id, turn)
