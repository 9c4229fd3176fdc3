"""Whose socket this is, gathered (accounts.socket_auth): each socket gets the answer Channels' own get_user gives,
sockets opening together share a trip to the database thread, and a socket that opens while the database is away
is told to try again."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import AnonymousUser
from django.contrib.sessions.backends.db import SessionStore
from django.contrib.sessions.models import Session
from django.db import OperationalError
from django.test import Client
from django.utils import timezone
from factories import make_user

from accounts import socket_auth

pytestmark = pytest.mark.django_db(transaction=True)


def session_of(user: Any) -> str:
    client = Client()
    client.force_login(user)
    return client.cookies["sessionid"].value


def people() -> dict[str, tuple[Any, str | None]]:
    """Who each kind of cookie is: (the user Channels would find, or None for an anonymous one; the session key)."""
    ann, ben = make_user("ann"), make_user("ben")
    changed = make_user("changed")
    changed_key = session_of(changed)
    changed.set_password("another password entirely")
    changed.save()
    gone = make_user("gone")
    gone_key = session_of(gone)
    gone.is_active = False
    gone.save()
    old = make_user("old")
    old_key = session_of(old)
    Session.objects.filter(session_key=old_key).update(expire_date=timezone.now() - timedelta(seconds=1))
    return {"ann": (ann, session_of(ann)), "ben": (ben, session_of(ben)), "changed": (None, changed_key),
            "suspended": (None, gone_key), "expired": (None, old_key), "unknown": (None, "x" * 32),
            "none": (None, None)}


def test_each_session_gets_channels_answer_in_two_queries(django_assert_num_queries: Any) -> None:
    from channels.auth import get_user

    cases = people()
    stores = [SessionStore(key) for _, key in cases.values()]
    with django_assert_num_queries(4):  # the sessions, the users; the changed password's session flushed (2)
        users = socket_auth.users_of_sessions(stores)
    for (name, (expected, _)), user in zip(cases.items(), users, strict=True):
        if expected is None:
            assert isinstance(user, AnonymousUser), name
        else:
            assert user.pk == expected.pk, name
    # The same as Channels' own answer, one session at a time (the changed password's session is gone now).
    for (name, (_, key)), user in zip(cases.items(), users, strict=True):
        theirs = get_user.func({"session": SessionStore(key)})
        assert (theirs.pk, theirs.is_authenticated) == (user.pk, user.is_authenticated), name
    assert not Session.objects.filter(session_key=cases["changed"][1]).exists()
    # The data read is kept with each store: reading the session again asks nothing.
    with django_assert_num_queries(0):
        assert stores[0].get("_auth_user_id") == str(cases["ann"][0].pk)
        assert stores[5].session_key is None  # an unknown key is forgotten, as the store's own load does


async def test_sockets_opening_together_share_a_trip_and_each_is_its_own_person() -> None:
    cases = await database_sync_to_async(people)()
    seen: dict[str, Any] = {}

    async def recorder(scope: Any, receive: Any, send: Any) -> None:
        seen[scope["path"].strip("/")] = scope["user"]._wrapped
        await receive()
        await send({"type": "websocket.accept"})

    app = socket_auth.AuthStack(recorder)
    sockets = [WebsocketCommunicator(app, f"/{name}/", headers=[(b"cookie", f"sessionid={key}".encode())]
                                     if key else []) for name, (_, key) in cases.items()]
    trips = socket_auth.users_of.trips
    results = await asyncio.gather(*(socket.connect(timeout=5) for socket in sockets))
    assert all(connected for connected, _ in results)
    assert socket_auth.users_of.trips - trips < len(sockets)  # gathered: not a trip each
    for name, (expected, _) in cases.items():
        user = seen[name]
        assert (user.pk if expected else None, user.is_authenticated) == (
            expected.pk if expected else None, expected is not None), name
    for socket in sockets:
        await socket.disconnect()


async def test_a_socket_opening_while_the_database_is_away_is_told_to_try_again(monkeypatch: Any) -> None:
    def away(sessions: Any) -> list[Any]:
        raise OperationalError("connection refused")

    monkeypatch.setattr(socket_auth.users_of, "run", away)
    reached: list[Any] = []

    async def inner(scope: Any, receive: Any, send: Any) -> None:
        reached.append(scope)

    socket = WebsocketCommunicator(socket_auth.AuthStack(inner), "/ws/notify/",
                                   headers=[(b"cookie", b"sessionid=" + b"y" * 32)])
    connected, _ = await socket.connect(timeout=5)
    assert connected  # accepted, so that the page reads the code
    assert (await socket.receive_output(timeout=5)) == {"type": "websocket.close", "code": 1013}
    assert not reached


async def test_the_site_s_sockets_are_authenticated_through_the_gathered_reads() -> None:
    from config.asgi import application

    keys = await database_sync_to_async(lambda: [session_of(make_user(f"crowd{i}")) for i in range(5)])()
    sockets = [WebsocketCommunicator(application, "/ws/notify/", headers=[
        (b"origin", b"http://testserver"), (b"host", b"testserver"), (b"cookie", f"sessionid={key}".encode())])
        for key in keys]
    trips = socket_auth.users_of.trips
    results = await asyncio.gather(*(socket.connect(timeout=5) for socket in sockets))
    assert all(connected for connected, _ in results)
    assert 1 <= socket_auth.users_of.trips - trips < len(sockets)
    for socket in sockets:
        await socket.disconnect()
