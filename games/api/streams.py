"""The Bot API's streams: newline-delimited JSON held open (an async streaming response under daphne).

- /api/v1/stream/events: the bot's events: a challenge received or sent ("challenge"), answered
  ("challengeAnswered": accepted, declined, withdrawn, expired, cancelled), a match started ("matchStart", also
  for every match in progress when the stream opens, so a reconnecting bot finds its matches) and ended
  ("matchFinish").
- /api/v1/matches/<id>/stream: the match as the bot's seat sees it ("state", games.api.state) at the start and
  after every change, and the players' chat ("chat"); it ends after the match's last change. While it is open it
  is the seat's presence, as a table's socket is (games.play.presence): when it closes the away rules run as
  for a person who closed their tab.

A newline every GAMES_API_KEEPALIVE seconds; a stream ends when its token is revoked or its bot suspended (checked
at each keep-alive), after GAMES_API_STREAM_SECONDS, and at once when more than GAMES_API_STREAM_BYTES wait
unread (games.api.outlet): a reader that stops reading holds nothing of the server's."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from collections.abc import AsyncIterator
from typing import Any

import orjson
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from django.conf import settings
from django.db.models import Q
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.utils import timezone
from django.views.decorators.csrf import csrf_exempt

from accounts.sessions import notices_group

from ..models import Challenge, Match
from ..play.chat import recent
from ..play.liveness import ensure_pulse
from ..play.news import match_group, readers_group
from ..play.presence import presence_close, presence_open
from ..play.snapshot import Snapshot, Status, state_of
from ..play.store import load
from .auth import error_response, failure_response
from .challenges import challenge_json
from .pipe import Dropped, Pipe, authorized, line, streaming, too_many
from .state import seat_state

log = logging.getLogger(__name__)

EVENTS_POLL_SECONDS = 1.0  # the events stream also looks for itself this often: a lost wake-up costs a second


# ---------------------------------------------------------------------------------------------
# The match's stream


@csrf_exempt
async def match_stream(request: HttpRequest, match_id: int) -> HttpResponseBase:
    try:
        return await _open_match_stream(request, match_id)
    except Exception as error:  # JSON, as every answer of the API
        return failure_response(request, error)


async def _open_match_stream(request: HttpRequest, match_id: int) -> HttpResponseBase:
    if request.method != "GET":
        return error_response(405, "Use GET here.", {"Allow": "GET"})
    caller = await authorized(request, "play")
    if isinstance(caller, HttpResponse):
        return caller
    snap = await database_sync_to_async(load)(match_id)
    seat = snap.seat_of(caller.user.pk) if snap is not None else None
    if snap is None or seat is None:
        return error_response(404, "No such match of yours.")
    refused = too_many(caller.user.pk)
    if refused is not None:
        return refused
    return streaming(_match_lines(Pipe(request, caller), match_id, seat.index))


def _chat_history(match_id: int) -> list[dict[str, Any]]:
    return [{"type": "chat", "id": li.id, "user": li.name, "text": li.text}
            for li in recent(match_id=match_id, room="players", muted=frozenset())]


def _state_of(snap: Snapshot, seat: int) -> tuple[dict[str, Any], bool]:
    """The seat's state, and whether the match is done with (ended, its statistics written)."""
    done = snap.status in (Status.FINISHED, Status.ABORTED) and not snap.stats_due
    return seat_state(snap, state_of(snap), seat), done


def _state_now(match_id: int, seat: int) -> tuple[dict[str, Any], bool] | None:
    snap = load(match_id)
    return _state_of(snap, seat) if snap is not None else None


async def _tell_tables(match_id: int) -> None:
    """The live tables redraw who is present (their hub reads the attendance again)."""
    with contextlib.suppress(Exception):
        await get_channel_layer().group_send(match_group(match_id), {"type": "match.presence", "id": match_id})


async def _match_lines(pipe: Pipe, match_id: int, seat: int) -> AsyncIterator[bytes]:
    socket = f"api.{uuid.uuid4().hex}"
    present = False
    try:
        # The match's group (every change from sync code, and on Redis every change at all) and the readers'
        # group (the live match's changes in a process alone: games.play.news.readers_group).
        await pipe.join(match_group(match_id), readers_group(match_id))
        await database_sync_to_async(presence_open)(match_id=match_id, seat=seat, socket=socket)
        ensure_pulse()  # the stream's presence counts while this process lives (games.play.liveness)
        present = True
        await _tell_tables(match_id)
        now = await database_sync_to_async(_state_now)(match_id, seat)
        if now is None:
            return
        shown, done = now
        yield pipe.out(line({"type": "state", **shown}))
        for chat_line in await database_sync_to_async(_chat_history)(match_id):
            yield pipe.out(line(chat_line))
        version = shown["version"]
        keepalive = float(settings.GAMES_API_KEEPALIVE)
        while not done:
            message = await pipe.next_message(keepalive)
            if message is None:
                if not await pipe.still_valid():
                    yield line({"type": "end", "reason": "The token was revoked or the bot suspended."})
                    return
                yield pipe.out(b"\n")
                # A lost message costs a keep-alive's wait at most: the version is read again.
                message = {"type": "api.changed", "version": version + 1}
            elif message.get("type") == "layer.resumed":  # the channel layer is back: what it missed, read now
                message = {"type": "api.changed", "version": version + 1}
            kind = message.get("type")
            if kind in ("api.changed", "match.changed") and int(message.get("version", 0)) > version:
                if "data" in message:  # the news carries the snapshot: no read of the database
                    shown, done = _state_of(Snapshot.from_json(message["data"]), seat)
                else:
                    now = await database_sync_to_async(_state_now)(match_id, seat)
                    if now is None:
                        return
                    shown, done = now
                if shown["version"] > version:
                    version = shown["version"]
                    yield pipe.out(line({"type": "state", **shown}))
            elif kind == "match.chat":
                said = orjson.loads(message["line"])
                if said.get("room") == "players":
                    yield pipe.out(line({"type": "chat", "id": said["id"], "user": said["name"],
                                         "text": said["text"]}))
    except Dropped:
        return
    finally:
        await asyncio.shield(_close_match_stream(pipe, match_id, seat, socket if present else None))


async def _close_match_stream(pipe: Pipe, match_id: int, seat: int, socket: str | None) -> None:
    try:
        await pipe.leave()
        if socket is not None:
            await database_sync_to_async(presence_close)(match_id=match_id, seat=seat, socket=socket)
            await _tell_tables(match_id)
    except Exception:  # a row left behind stops counting once its process stops its pulse
        log.exception("closing an API stream of match %s", match_id)


# ---------------------------------------------------------------------------------------------
# The bot's events


def _challenge_event(row: Challenge) -> dict[str, Any]:
    return challenge_json(row)


def _events_now(user_id: int, since: Any) -> tuple[dict[int, dict[str, Any]], dict[int, dict[str, Any]]]:
    """The bot's challenges open now or closed since the stream opened, and its matches in progress or ended since."""
    challenges = {
        row.pk: _challenge_event(row)
        for row in Challenge.objects.filter(Q(challenger_id=user_id) | Q(challenged_id=user_id))
        .filter(Q(status=Challenge.Status.OPEN) | Q(closed_at__gte=since))
        .select_related("challenger", "challenged")
    }
    matches = {
        pk: {"id": pk, "game": game, "status": status, "rated": rated, "result": result}
        for pk, game, status, rated, result in Match.objects.filter(seats__user_id=user_id)
        .filter(Q(status=Match.Status.ACTIVE) | Q(finished_at__gte=since, started_at__isnull=False))
        .values_list("pk", "game", "status", "rated", "result").distinct()
    }
    return challenges, matches


@csrf_exempt
async def event_stream(request: HttpRequest) -> HttpResponseBase:
    try:
        return await _open_event_stream(request)
    except Exception as error:  # JSON, as every answer of the API
        return failure_response(request, error)


async def _open_event_stream(request: HttpRequest) -> HttpResponseBase:
    if request.method != "GET":
        return error_response(405, "Use GET here.", {"Allow": "GET"})
    caller = await authorized(request, None)  # the scopes say what the bot may do about what it hears
    if isinstance(caller, HttpResponse):
        return caller
    refused = too_many(caller.user.pk)
    if refused is not None:
        return refused
    return streaming(_event_lines(Pipe(request, caller)))


async def _event_lines(pipe: Pipe) -> AsyncIterator[bytes]:
    user_id = pipe.caller.user.pk
    since = timezone.now()
    known_challenges: dict[int, str] = {}
    known_matches: dict[int, str] = {}
    first = True
    last_check = time.monotonic()
    try:
        # An empty first chunk sends the status line and headers at once (daphne writes them on the first body
        # message, even an empty one, and sends no bytes for it): a bot with nothing to hear yet knows it is
        # connected now, not after the first keep-alive.
        yield b""
        await pipe.join(notices_group(user_id))
        keepalive = float(settings.GAMES_API_KEEPALIVE)
        while True:
            challenges, matches = await database_sync_to_async(_events_now)(user_id, since)
            for pk, data in sorted(challenges.items()):
                before = known_challenges.get(pk)
                if before is None and data["status"] == Challenge.Status.OPEN:
                    yield pipe.out(line({"type": "challenge", "challenge": data}))
                elif before is not None and before != data["status"]:
                    yield pipe.out(line({"type": "challengeAnswered", "challenge": data}))
                elif before is None:
                    # Made and answered (withdrawn, declined...) between two looks: both told, in order, as a match
                    # started and ended meanwhile (_events_now gives only those closed since the stream opened).
                    yield pipe.out(line({"type": "challenge", "challenge": data}))
                    yield pipe.out(line({"type": "challengeAnswered", "challenge": data}))
                known_challenges[pk] = data["status"]
            for pk, data in sorted(matches.items()):
                before = known_matches.get(pk)
                if data["status"] == Match.Status.ACTIVE and before is None:
                    yield pipe.out(line({"type": "matchStart", "match": data}))
                elif data["status"] != Match.Status.ACTIVE and before == Match.Status.ACTIVE:
                    yield pipe.out(line({"type": "matchFinish", "match": data}))
                elif data["status"] != Match.Status.ACTIVE and before is None and not first:
                    # Started and ended between two looks: both told, in order.
                    yield pipe.out(line({"type": "matchStart", "match": data}))
                    yield pipe.out(line({"type": "matchFinish", "match": data}))
                known_matches[pk] = data["status"]
            first = False
            # Wait for a wake-up (a challenge or turn news to the bot), or poll.
            message = await pipe.next_message(EVENTS_POLL_SECONDS)
            while message is not None:  # take every wake-up that queued meanwhile: one look serves them all
                message = await pipe.next_message(0.01)
            if time.monotonic() - last_check >= keepalive:
                last_check = time.monotonic()
                if not await pipe.still_valid():
                    yield line({"type": "end", "reason": "The token was revoked or the bot suspended."})
                    return
                yield pipe.out(b"\n")
    except Dropped:
        return
    finally:
        await asyncio.shield(pipe.leave())
