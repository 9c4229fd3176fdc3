"""Who calls the API and whether they may: the Bearer token (401 when missing, wrong or revoked; 403 without the
scope or for a suspended bot), a token bucket per token (429 with Retry-After), the body's size (413) and JSON
(400). Every refusal is JSON: {"error": "a sentence"}."""

from __future__ import annotations

import functools
import json
import logging
import math
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.urls import Resolver404, resolve
from django.views.decorators.csrf import csrf_exempt

from accounts.models import ApiToken, User

from ..core.errors import NO_SUCH_ADDRESS
from ..core.faults import DATABASE, RETRY_AFTER_SECONDS, db_unavailable
from .tokens import authenticate

log = logging.getLogger(__name__)


class ApiError(Exception):
    """A refusal with its HTTP status."""

    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None,
                 extra: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.headers = headers or {}
        self.extra = extra or {}


def error_response(status: int, message: str, headers: dict[str, str] | None = None, **extra: Any) -> JsonResponse:
    response = JsonResponse({"error": message, **extra}, status=status)
    for name, value in (headers or {}).items():
        response[name] = value
    if status == 401:
        response["WWW-Authenticate"] = 'Bearer realm="cardclub"'
    return response


def failure_response(request: HttpRequest, error: Exception) -> JsonResponse:
    """The answer to a request that failed: the database away is a 503 to try again (said once in the log, as every
    outage: games.core.faults), anything else a 500 whose cause is logged. JSON either way, as every answer of the
    API."""
    if db_unavailable(error):
        DATABASE.failed(error)
        return error_response(503, "The server is busy for a moment (its database is not answering); nothing was "
                                   "changed. Try again in a few seconds.", {"Retry-After": str(RETRY_AFTER_SECONDS)},
                              retry_after=RETRY_AFTER_SECONDS)
    log.error("API request %s %s", request.method, request.path, exc_info=error)
    return error_response(500, "Something went wrong on the server; the match goes on.")


class Buckets:
    """One token bucket per API token, in this process: BURST requests at once, then RATE a second."""

    def __init__(self) -> None:
        self.lock = threading.Lock()  # sync views run on several threads
        self.state: dict[int, tuple[float, float]] = {}

    def take(self, token_id: int) -> float:
        """0 if the request may go; otherwise the seconds until it may."""
        burst, rate = float(settings.GAMES_API_BURST), float(settings.GAMES_API_RATE)
        now = time.monotonic()
        with self.lock:
            tokens, then = self.state.get(token_id, (burst, now))
            tokens = min(burst, tokens + (now - then) * rate)
            if tokens < 1:
                self.state[token_id] = (tokens, now)
                return (1 - tokens) / rate if rate > 0 else 60.0
            self.state[token_id] = (tokens - 1, now)
            if len(self.state) > 100_000:  # a bound on memory: full buckets are the default anyway
                self.state = {k: v for k, v in self.state.items() if v[0] < burst}
            return 0.0


buckets = Buckets()


@dataclass
class Caller:
    token: ApiToken
    user: User
    body: Any = None


def bearer(request: HttpRequest) -> str:
    header = request.headers.get("Authorization", "")
    kind, _, key = header.partition(" ")
    if not header:
        raise ApiError(401, "No token: send the header 'Authorization: Bearer <your token>'.")
    if kind.lower() != "bearer" or not key.strip():
        raise ApiError(401, "The Authorization header must be 'Bearer <your token>'.")
    return key.strip()


def authorize(request: HttpRequest, scope: str | None) -> Caller:
    """The caller of this request, checked (sync: it reads the database). Raises ApiError to refuse."""
    token = authenticate(bearer(request))
    if token is None:
        raise ApiError(401, "This token is wrong or was revoked.")
    user = token.user
    if not user.is_active:
        raise ApiError(403, "This bot account is suspended.")
    if scope is not None and scope not in token.scopes:
        raise ApiError(403, f"This token lacks the '{scope}' scope.")
    wait = buckets.take(token.pk)
    if wait > 0:
        # Retry-After is whole seconds (HTTP's rule); the body says the wait exactly, for a bot that paces itself.
        raise ApiError(429, "Too many requests: slow down.", {"Retry-After": str(max(1, math.ceil(wait)))},
                       {"retry_after": math.ceil(wait * 1000) / 1000})  # never 0: rounded up to the ms
    return Caller(token, user)


def read_body(request: HttpRequest) -> Any:
    """The request's JSON body ({} when empty); ApiError 413 when too long, 400 when not JSON."""
    limit = int(settings.GAMES_API_BODY_BYTES)
    length = request.headers.get("Content-Length", "").strip()
    if length and not length.isdigit():  # daphne refuses it first; another server may pass it on to Django
        raise ApiError(400, "The Content-Length header is not a number of bytes.")
    if length.isdigit() and int(length) > limit:
        raise ApiError(413, f"The request body is too long: at most {limit} bytes.")
    try:
        # request.body, not a read of the stream: a middleware may have parsed a form-encoded body already (curl -d
        # sends that content type), and the body is still here. Daphne has the whole body in memory anyway.
        raw = request.body
    except RequestDataTooBig:
        raise ApiError(413, f"The request body is too long: at most {limit} bytes.") from None
    if len(raw) > limit:
        raise ApiError(413, f"The request body is too long: at most {limit} bytes.")
    if not raw.strip():
        return {}
    try:
        return json.loads(raw)
    except (ValueError, UnicodeDecodeError) as error:
        raise ApiError(400, f"The request body is not JSON: {error}.") from None
    except RecursionError:  # "[[[[...]]]]" a thousand deep
        raise ApiError(400, "The request body is nested too deep.") from None


View = Callable[..., HttpResponse]


AsyncView = Callable[..., Awaitable[HttpResponse]]


# What django.urls.path is given: django-stubs types a view as returning a response, not a coroutine.
RoutedView = Callable[..., Any]


def api_async(scope: str | None, *, methods: tuple[str, ...] = ("GET",)) -> Callable[[AsyncView], RoutedView]:
    """The same checks for a view on the event loop (a move, through this process's live match): the token's
    look-up is the one trip to the database thread."""

    def wrap(view: AsyncView) -> RoutedView:
        @csrf_exempt
        @functools.wraps(view)
        async def wrapped(request: HttpRequest, **kwargs: Any) -> HttpResponse:
            try:
                if request.method not in methods:
                    raise ApiError(405, f"Use {' or '.join(methods)} here.", {"Allow": ", ".join(methods)})
                caller = await sync_to_async(authorize)(request, scope)
                if request.method == "POST":
                    caller.body = read_body(request)  # already in memory: Django's ASGI handler read it
                return await view(request, caller, **kwargs)
            except ApiError as error:
                return error_response(error.status, str(error), error.headers, **error.extra)
            except Exception as error:  # JSON, as every answer of the API
                return failure_response(request, error)

        return wrapped

    return wrap


@csrf_exempt  # a POST, PUT or DELETE to a wrong address is told it is wrong, not refused for a browser's check
def not_found(request: HttpRequest, path: str = "") -> HttpResponse:
    """Any other address under /api/: JSON, as every answer of the API, whatever the method (with a hint for a
    trailing slash, the commonest slip: the API's addresses end without one)."""
    if path.endswith("/"):
        try:
            if resolve(request.path[:-1]).func is not not_found:
                return error_response(404, f"No such address: drop the trailing slash ({request.path[:-1]}).")
        except Resolver404:
            pass
    return error_response(404, NO_SUCH_ADDRESS)


def api(scope: str | None, *, methods: tuple[str, ...] = ("GET",)) -> Callable[[View], View]:
    """A sync API view: method, token, scope, rate and body checked; the view gets (request, caller, **kwargs) and
    may raise ApiError."""

    def wrap(view: View) -> View:
        @csrf_exempt
        @functools.wraps(view)
        def wrapped(request: HttpRequest, **kwargs: Any) -> HttpResponse:
            try:
                if request.method not in methods:
                    raise ApiError(405, f"Use {' or '.join(methods)} here.", {"Allow": ", ".join(methods)})
                caller = authorize(request, scope)
                if request.method == "POST":
                    caller.body = read_body(request)
                return view(request, caller, **kwargs)
            except ApiError as error:
                return error_response(error.status, str(error), error.headers, **error.extra)
            except Exception as error:  # a client's request must never get a page of HTML: a bug is JSON too
                return failure_response(request, error)

        return wrapped

    return wrap
