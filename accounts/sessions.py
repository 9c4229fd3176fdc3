"""Sockets that belong to a signed-in person's session: their groups (every socket's: session checks; the
notification sockets': "your turn" cues and other notices), whose session a socket still is, and a consumer that
closes when that session ends (signing out, a password change from another browser: games.signals asks the
sockets to check)."""

from __future__ import annotations

import contextlib
import time
from importlib import import_module
from typing import Any

from autobahn.exception import Disconnected
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model
from django.utils.crypto import constant_time_compare

from games.core.faults import DATABASE, db_unavailable

CLOSE_UNAUTHENTICATED = 4401
CLOSE_SUSPENDED = 4423  # HTTP's 423 Locked: the account is suspended
CLOSE_TRY_AGAIN = 1013  # WebSocket's "Try Again Later": the database is away; the page reconnects by itself


def user_group(user_id: int) -> str:
    """The group of every socket of one person (session checks, chat mutes)."""
    return f"user-{user_id}"


def notices_group(user_id: int) -> str:
    """The group of one person's notification sockets only ("your turn" cues, quick pairing, challenges): a
    table's socket has its own news, and on Redis each message it would drop costs trips and a decode."""
    return f"user-{user_id}-notices"


def session_user_id(session_key: str | None) -> int | None:
    """Whose session this still is: None once it was signed out, flushed, or its password changed."""
    if not session_key:
        return None
    store = import_module(settings.SESSION_ENGINE).SessionStore(session_key)
    try:
        data = store.load()
        user_id = data.get(SESSION_KEY)
        backend = data.get(BACKEND_SESSION_KEY)
        if user_id is None or backend not in settings.AUTHENTICATION_BACKENDS:
            return None
        user = get_user_model()._meta.pk.to_python(user_id)
        found = get_user_model().objects.filter(pk=user).first()
    except Exception:
        return None
    if found is None or not constant_time_compare(data.get(HASH_SESSION_KEY, ""), found.get_session_auth_hash()):
        return None
    return int(found.pk)


# The periodic check (a table's heartbeat) asks once per session per interval, however many sockets the session
# has open in this process: (when it was asked, whose session it was). A signal's check (signing out, a password
# changed) always asks the database, and what it finds replaces the remembered answer. The periodic check is for
# what ends a session without a signal (its expiry, a row deleted by hand): a minute late is soon enough, and it
# was a third of an idle club's server time at 15 s (bench/README.md, issue 41).
SESSION_CHECK_SECONDS = 60.0
_checked: dict[str, tuple[float, int | None]] = {}


def _remember(key: str, user_id: int | None) -> None:
    if len(_checked) > 50_000:  # sessions long gone: start again rather than grow without end
        _checked.clear()
    _checked[key] = (time.monotonic(), user_id)


def remembered(session_key: str) -> tuple[bool, int | None]:
    """(whether this process asked within SESSION_CHECK_SECONDS, what it found): no trip to the database thread
    for a session asked already (every socket of a table's heartbeat asks)."""
    known = _checked.get(session_key)
    if known is not None and time.monotonic() - known[0] < SESSION_CHECK_SECONDS:
        return True, known[1]
    return False, None


def recent_session_user_id(session_key: str) -> int | None:
    """session_user_id, asked at most once per SESSION_CHECK_SECONDS per session in this process."""
    fresh, user_id = remembered(session_key)
    if fresh:
        return user_id
    user_id = session_user_id(session_key)
    _remember(session_key, user_id)
    return user_id


def is_active(user_id: int) -> bool:
    return get_user_model().objects.filter(pk=user_id, is_active=True).exists()


class SessionBound(AsyncWebsocketConsumer):
    """A signed-in person's socket that ends with their session: signing out, or a password change from
    another browser, closes it (games.signals sends the check). Also what every page's socket does about faults:
    a page that leaves while something is on its way to it is no error, and a socket that opens while the database
    is away is told to try again (the page reconnects by itself) rather than failed with an HTTP 500."""

    user_groups: list[str]
    accepted = False

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        async def quiet_send(message: dict[str, Any]) -> None:
            with contextlib.suppress(Disconnected):  # the page left while this was on its way: its disconnect follows
                await send(message)

        await super().__call__(scope, receive, quiet_send)

    async def accept(self, subprotocol: str | None = None, headers: Any = None) -> None:
        self.accepted = True
        await super().accept(subprotocol, headers)

    async def websocket_connect(self, message: dict[str, Any]) -> None:
        try:
            await super().websocket_connect(message)
        except Exception as error:
            if not db_unavailable(error):
                raise
            DATABASE.failed(error)  # said once per outage (games.core.faults)
            if not self.accepted:  # accepted, so that the page reads the code (a refused handshake has none)
                await self.accept()
            await self.close(code=CLOSE_TRY_AGAIN)

    async def layer_resumed(self, event: dict[str, Any]) -> None:
        """The channel layer is back after an outage (games.core.layers): a socket that kept state from its news reads
        it again (the notification socket); a table's copy is the hub's (games.play.hub)."""

    async def join_user_group(self, *, notices: bool = False) -> None:
        """Join the person's group, and with `notices` their notification sockets' group too."""
        user = self.scope.get("user")
        signed_in = user is not None and user.is_authenticated
        self.user_groups = ([user_group(user.pk)] + ([notices_group(user.pk)] if notices else [])) if signed_in else []
        for group in self.user_groups:
            await self.channel_layer.group_add(group, self.channel_name)

    async def leave_user_group(self) -> None:
        for group in getattr(self, "user_groups", []):
            await self.channel_layer.group_discard(group, self.channel_name)

    async def session_check(self, event: dict[str, Any]) -> None:
        """Close this socket if its session ended (signed out, flushed, or its password changed)."""
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            return
        key = getattr(self.scope.get("session"), "session_key", None)
        owner: int | None = None
        if key is not None and event.get("ended") != key:
            if event.get("periodic"):
                fresh, owner = remembered(key)
                if not fresh:
                    owner = await database_sync_to_async(recent_session_user_id)(key)
            else:
                owner = await database_sync_to_async(session_user_id)(key)
                _remember(key, owner)
        if key is None or event.get("ended") == key or owner != user.pk:
            # The code lets the page say why it stopped (static/js/site.js): a suspension, or a sign-out (daphne
            # sends no close reason, so each has a code of its own).
            suspended = not await database_sync_to_async(is_active)(user.pk)
            await self.close(code=CLOSE_SUSPENDED if suspended else CLOSE_UNAUTHENTICATED)
            await self.ended()

    async def ended(self) -> None:
        """What else a closed socket gives up (a match socket: its seat's presence)."""
