"""Whose socket this is, asked for many sockets in one trip to the database thread.

Channels' AuthMiddleware reads each opening socket's session and user in a trip of its own (its `get_user`: two
queries). At a club's opening thousands of sockets open within seconds, and those trips queue one behind another
on the one database thread with the openings' own (games.core.batch): at N=1,000 on PostgreSQL + Redis the handshakes
waited there past daphne's timeout (bench/README.md, issue 47). Here the sessions that asked meanwhile are read in
one query and their users in another, and each socket's answer is the one Channels' `get_user` gives: the user
of a session whose backend is configured and whose hash still matches the user's password, otherwise an anonymous
user (and the session of a changed password is flushed, as Channels does).

A socket that opens while the database is away is told to try again (WebSocket's 1013, which the page's script
reads as "reconnecting"), as SessionBound does for the reads after this one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from channels.auth import AuthMiddleware
from channels.sessions import CookieMiddleware, SessionMiddleware
from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model, load_backend
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.models import AnonymousUser
from django.contrib.sessions.backends.db import SessionStore as DatabaseSessionStore
from django.utils import timezone
from django.utils.crypto import constant_time_compare

from games.core.batch import Batched
from games.core.faults import DATABASE, db_unavailable

from .sessions import CLOSE_TRY_AGAIN


def users_of_sessions(sessions: Sequence[Any]) -> list[Any]:
    """Each session's user, as channels.auth.get_user answers it (on the database thread)."""
    stored = [s for s in sessions if isinstance(s, DatabaseSessionStore) and s.session_key]
    rows = dict(DatabaseSessionStore.get_model_class().objects.filter(
        session_key__in=[s.session_key for s in stored], expire_date__gt=timezone.now(),
    ).values_list("session_key", "session_data")) if stored else {}
    datas: list[dict[str, Any]] = []
    for session in sessions:
        if isinstance(session, DatabaseSessionStore) and session.session_key:
            # What the store's own load() leaves behind (its data cached, a key not found forgotten), so that a
            # read of the session later asks the database nothing more.
            data = session.decode(rows[session.session_key]) if session.session_key in rows else {}
            if session.session_key not in rows:
                session._session_key = None
            session._session_cache = data  # type: ignore[attr-defined]
            datas.append(data)
        else:  # another session engine: its own load, one socket at a time
            datas.append(dict(session.items()))
    wanted: dict[str, set[Any]] = {}
    for data in datas:
        backend = data.get(BACKEND_SESSION_KEY)
        if SESSION_KEY in data and backend in settings.AUTHENTICATION_BACKENDS:
            wanted.setdefault(backend, set()).add(get_user_model()._meta.pk.to_python(data[SESSION_KEY]))
    found: dict[tuple[str, Any], Any] = {}
    for path, ids in wanted.items():
        backend = load_backend(path)
        if isinstance(backend, ModelBackend) and type(backend).get_user is ModelBackend.get_user:
            for row in get_user_model()._default_manager.filter(pk__in=ids):
                if backend.user_can_authenticate(row):
                    found[path, row.pk] = row
        else:  # a backend of its own making: asked as Channels asks it
            for user_id in ids:
                found[path, user_id] = backend.get_user(user_id)
    users: list[Any] = []
    for session, data in zip(sessions, datas, strict=True):
        user: Any = None
        if SESSION_KEY in data and data.get(BACKEND_SESSION_KEY) in settings.AUTHENTICATION_BACKENDS:
            user = found.get((data[BACKEND_SESSION_KEY], get_user_model()._meta.pk.to_python(data[SESSION_KEY])))
            if hasattr(user, "get_session_auth_hash"):
                session_hash = data.get(HASH_SESSION_KEY)
                if not (session_hash and constant_time_compare(session_hash, user.get_session_auth_hash())):
                    session.flush()
                    user = None
        users.append(user or AnonymousUser())
    return users


users_of = Batched(users_of_sessions)


class GatheredAuthMiddleware(AuthMiddleware):
    """Channels' AuthMiddleware with its reads gathered (users_of_sessions)."""

    async def resolve_scope(self, scope: dict[str, Any]) -> None:
        scope["user"]._wrapped = await users_of(scope["session"])

    async def __call__(self, scope: Any, receive: Any, send: Any) -> Any:
        scope = dict(scope)
        self.populate_scope(scope)
        try:
            await self.resolve_scope(scope)
        except Exception as error:
            if scope.get("type") != "websocket" or not db_unavailable(error):
                raise
            DATABASE.failed(error)  # said once per outage (games.core.faults)
            # Accepted, so that the page reads the code (a refused handshake has none).
            if (await receive()).get("type") == "websocket.connect":
                await send({"type": "websocket.accept"})
                await send({"type": "websocket.close", "code": CLOSE_TRY_AGAIN})
            return None
        return await self.inner(scope, receive, send)

def AuthStack(inner: Any) -> Any:
    return CookieMiddleware(SessionMiddleware(GatheredAuthMiddleware(inner)))
