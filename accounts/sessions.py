"""Sockets that belong to a signed-in person's session: their groups (every socket's: session checks; the
notification sockets': "your turn" cues and other notices), whose session a socket still is, and a consumer that
closes when that session ends (signing out, a password change from another browser: games.signals asks the
sockets to check)."""

from __future__ import annotations

from importlib import import_module
from typing import Any

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model
from django.utils.crypto import constant_time_compare

CLOSE_UNAUTHENTICATED = 4401
CLOSE_SUSPENDED = 4423  # HTTP's 423 Locked: the account is suspended


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


def is_active(user_id: int) -> bool:
    return get_user_model().objects.filter(pk=user_id, is_active=True).exists()


class SessionBound(AsyncWebsocketConsumer):
    """A signed-in person's socket that ends with their session: signing out, or a password change from
    another browser, closes it (games.signals sends the check)."""

    user_groups: list[str]

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
        if key is None or event.get("ended") == key or await database_sync_to_async(session_user_id)(key) != user.pk:
            # The code lets the page say why it stopped (static/js/site.js): a suspension, or a sign-out (daphne
            # sends no close reason, so each has a code of its own).
            suspended = not await database_sync_to_async(is_active)(user.pk)
            await self.close(code=CLOSE_SUSPENDED if suspended else CLOSE_UNAUTHENTICATED)
            await self.ended()

    async def ended(self) -> None:
        """What else a closed socket gives up (a match socket: its seat's presence)."""
