"""A tournament page's notification socket (games.site.socket with ?tournament=): the standings arrive when a
match ends, drawn once per burst for every socket of the process; a private tournament's socket hears nothing
without its invite code."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.utils import timezone
from factories import make_user
from tournament_play import win

from config.asgi import application
from games.models import Entrant, Tournament
from games.tournaments import display, news, services

Headers = Callable[..., list[tuple[bytes, bytes]]]
pytestmark = pytest.mark.django_db(transaction=True)


def running_arena(is_private: bool = False) -> tuple[Tournament, Any, Any]:
    creator = make_user("host") if is_private else None
    arena = services.create_tournament(creator=creator, kind="arena", game="gomori", clock_key="3+2", minutes=30,
                                       starts_at=timezone.now(), is_private=is_private, name="Socket arena")
    ann, ben = make_user("ann", display_name="Ann"), make_user("ben", display_name="Ben")
    for user in (ann, ben):
        services.join(tournament_id=arena.pk, user=user, code=arena.invite_code)
    services.tick()
    return arena, ann, ben


def ann_row(message: str) -> str:
    found = re.search(r'<tr data-user="ann".*?</tr>', message, re.S)
    assert found is not None, message
    return found.group(0)


async def drawn(socket: WebsocketCommunicator) -> str:
    """The next tournament drawing on this socket (a player's socket also hears their turn cues)."""
    while True:
        message = await socket.receive_from(timeout=5)
        if 'id="tournament-standings"' in message:
            return message


async def connect(path: str, headers: list[tuple[bytes, bytes]]) -> WebsocketCommunicator:
    communicator = WebsocketCommunicator(application, path, headers=headers)
    connected, _ = await communicator.connect()
    assert connected
    return communicator


async def test_the_standings_arrive_when_a_match_ends(ws_headers: Headers) -> None:
    arena, ann, _ben = await sync_to_async(running_arena)()
    path = f"/ws/notify/?tournament={arena.pk}"
    watcher = await connect(path, ws_headers())
    player = await connect(path, await sync_to_async(ws_headers)(ann))
    # On connecting, each socket catches up with the public fragments; the person's own box, just drawn by the
    # page, is sent only once it changes.
    first = await watcher.receive_from(timeout=5)
    assert 'id="tournament-standings"' in first and 'id="tournament-head"' in first
    assert 'class="mark' not in ann_row(first) and 'id="tournament-me"' not in first
    assert 'id="tournament-me"' not in await drawn(player)
    match = await sync_to_async(lambda: Entrant.objects.get(tournament=arena, user=ann).match)()
    assert match is not None
    await sync_to_async(win)(match, ann)
    messages = {}
    for name, socket in (("watcher", watcher), ("player", player)):
        message = messages[name] = await drawn(socket)
        row = ann_row(message)
        assert re.search(r'class="mark mark-w"[^>]*>2<', row) and "<strong>2</strong>" in row
        assert 'id="tournament-playing"' in message and "No match in progress." in message
    # The player's own box changed and came along; the watcher's (signed out) did not change and did not.
    assert "Your match" not in messages["player"] and "waiting for an opponent" in messages["player"]
    assert 'id="tournament-me"' not in messages["watcher"]
    await watcher.disconnect()
    await player.disconnect()


async def test_a_burst_of_changes_is_drawn_once_for_every_socket_of_the_process(
    ws_headers: Headers, monkeypatch: pytest.MonkeyPatch
) -> None:
    arena, _ann, _ben = await sync_to_async(running_arena)()
    path = f"/ws/notify/?tournament={arena.pk}"
    sockets = [await connect(path, ws_headers()) for _ in range(3)]
    for socket in sockets:
        await socket.receive_from(timeout=5)  # the catch-up
    drawn: list[int] = []
    real = display.REDRAWS.draw

    def counted(tournament_id: int) -> str:
        drawn.append(tournament_id)
        return real(tournament_id)

    monkeypatch.setattr(display.REDRAWS, "draw", counted)
    await sync_to_async(Tournament.objects.filter(pk=arena.pk).update)(name="Renamed arena")
    layer = get_channel_layer()
    for _ in range(10):
        await layer.group_send(news.group(arena.pk), {"type": "tournament.changed", "id": arena.pk})
    for socket in sockets:
        assert "Renamed arena" in await socket.receive_from(timeout=5)
        assert await socket.receive_nothing(timeout=display.COALESCE_SECONDS * 2)
    assert drawn == [arena.pk]  # ten changes, three sockets: one drawing
    for socket in sockets:
        await socket.disconnect()


async def test_a_private_tournament_s_socket_needs_its_code(ws_headers: Headers) -> None:
    arena, _ann, _ben = await sync_to_async(running_arena)(True)
    stranger = await sync_to_async(make_user)("eve")
    outsider = await connect(f"/ws/notify/?tournament={arena.pk}", await sync_to_async(ws_headers)(stranger))
    guessed = await connect(f"/ws/notify/?tournament={arena.pk}&code=nope", ws_headers())
    invited = await connect(f"/ws/notify/?tournament={arena.pk}&code={arena.invite_code}", ws_headers())
    assert 'id="tournament-standings"' in await invited.receive_from(timeout=5)
    await sync_to_async(Tournament.objects.filter(pk=arena.pk).update)(name="Renamed arena")
    await get_channel_layer().group_send(news.group(arena.pk), {"type": "tournament.changed", "id": arena.pk})
    assert "Renamed arena" in await invited.receive_from(timeout=5)
    assert await outsider.receive_nothing(timeout=0.6)
    assert await guessed.receive_nothing(timeout=0.1)
    for socket in (outsider, guessed, invited):
        await socket.disconnect()


async def test_bad_tournament_queries_are_ignored(ws_headers: Headers) -> None:
    for query in ("abc", "99999999999", "424242", "-1"):
        socket = await connect(f"/ws/notify/?tournament={query}", ws_headers())
        assert await socket.receive_nothing(timeout=0.3)
        await socket.disconnect()
