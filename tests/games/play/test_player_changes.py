"""A player's new name or picture shows at once on the tables of their live matches, over real sockets, and
stays shown as the game goes on; their finished matches and other people's matches are left alone, and a
save that changes nothing a table shows sends nothing at all."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import playing
import pytest
from channels.db import database_sync_to_async
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from fragments import section
from openings import play_openings

from games.engines import get_engine
from games.models import Match
from games.play.create import SeatSpec, create_match

pytestmark = pytest.mark.django_db(transaction=True)

ENGINE = get_engine("gomori")


@database_sync_to_async
def load(match_id: int) -> Match:
    return Match.objects.get(pk=match_id)


async def next_action(match_id: int) -> tuple[int, dict[str, Any], int]:
    """(seat to act, its first legal action, version): the test's privilege of reading the state."""
    match = await load(match_id)
    state = ENGINE.load(match.state)
    (seat,) = ENGINE.to_act(state)
    return seat, ENGINE.legal_actions(state, seat)[0], match.version


def save_user(user: Any, update_fields: list[str] | None = None, **fields: Any) -> None:
    """Change fields of a user and save them, as a view or the admin does."""
    for name, value in fields.items():
        setattr(user, name, value)
    user.save(update_fields=update_fields)


async def quiet(*sockets: Any) -> bool:
    """Nothing arrives on any of them."""
    return all([await socket.receive_nothing(timeout=0.3) for socket in sockets])


def players_of(socket: Any) -> str:
    return section(socket.page.html(), "players")


async def test_a_new_name_shows_on_the_players_live_tables_and_nowhere_else(
    ws_client: Callable[..., Any], alice: Any, bob: Any, carol: Any, start_gomori: Any
) -> None:
    live = await database_sync_to_async(start_gomori)(alice, bob)
    waiting = await database_sync_to_async(create_match)(
        creator=alice, game="gomori", players=2, seats=[SeatSpec("open")])
    finished = await database_sync_to_async(start_gomori)(alice, carol)
    await database_sync_to_async(play_openings)(finished)
    await database_sync_to_async(playing.resign)(match_id=finished.pk, user=carol)
    other = await database_sync_to_async(start_gomori)(bob, carol)  # not Alice's
    sockets = {}
    for name, match, user in (("black", live, alice), ("red", live, bob), ("watcher", live, carol),
                              ("waiting", waiting, bob), ("finished", finished, bob), ("other", other, carol)):
        ok, _, sockets[name] = await ws_client(match.pk, user)
        assert ok, name
    for socket in sockets.values():
        await socket.settle()
    for name in ("black", "red", "watcher", "waiting", "finished"):
        assert ">Alice<" in players_of(sockets[name]), name
    version = (await load(live.pk)).version

    await database_sync_to_async(save_user)(alice, display_name="Alicia")

    for name in ("black", "red", "watcher", "waiting"):
        await sockets[name].settle()
        players = players_of(sockets[name])
        assert "Alicia" in players and ">Alice<" not in players, name
    # Her finished match and Bob and Carol's match are not redrawn.
    assert await quiet(sockets["finished"], sockets["other"])
    assert ">Alice<" in players_of(sockets["finished"])
    # A new name is no change of the match: its version stays.
    assert (await load(live.pk)).version == version

    # The game goes on and the new name stays: a move over a socket (the table's own copy of the match)...
    seat, action, version = await next_action(live.pk)
    player = sockets["black"] if seat == 0 else sockets["red"]
    await player.send_to(text_data=json.dumps({"action": action, "version": version}))
    for name in ("black", "red", "watcher"):
        await sockets[name].settle()
        assert (await load(live.pk)).version == version + 1
        players = players_of(sockets[name])
        assert "Alicia" in players and ">Alice<" not in players, name
    # ... and a move made elsewhere (a view, a command, another server process), read from the database.
    seat, action, version = await next_action(live.pk)
    await database_sync_to_async(playing.act)(match_id=live.pk, user=alice if seat == 0 else bob, seat=seat,
                                               action=action, expected_version=version)
    for name in ("black", "red", "watcher"):
        await sockets[name].settle()
        players = players_of(sockets[name])
        assert "Alicia" in players and ">Alice<" not in players, name
    # A page opened now shows it too.
    ok, _, late = await ws_client(live.pk, carol)
    assert ok
    await late.settle()
    assert "Alicia" in players_of(late) and ">Alice<" not in players_of(late)


async def test_a_new_picture_shows_on_the_players_live_tables(
    ws_client: Callable[..., Any], alice: Any, bob: Any, carol: Any, start_gomori: Any
) -> None:
    match = await database_sync_to_async(start_gomori)(alice, bob)
    old = alice.avatar_url
    sockets = []
    for user in (bob, carol):
        ok, _, socket = await ws_client(match.pk, user)
        assert ok
        sockets.append(socket)
        await socket.settle()
        assert old.replace("&", "&amp;") in players_of(socket)

    await database_sync_to_async(save_user)(alice, ["avatar"], avatar=f"avatars/{alice.pk}/new-picture.png")

    new = alice.avatar_url
    assert new != old and "new-picture.png" in new
    for socket in sockets:
        await socket.settle()
        players = players_of(socket)
        assert f'src="{new}"' in players and old.replace("&", "&amp;") not in players


async def test_saves_that_change_nothing_shown_leave_live_tables_alone(
    ws_client: Callable[..., Any], alice: Any, bob: Any, carol: Any, start_gomori: Any
) -> None:
    match = await database_sync_to_async(start_gomori)(alice, bob)
    sockets = []
    for user in (alice, bob, carol):
        ok, _, socket = await ws_client(match.pk, user)
        assert ok
        sockets.append(socket)
    for socket in sockets:
        await socket.settle()
    before = await load(match.pk)
    pages = [socket.page.html() for socket in sockets]

    # A sign-in stamp: a save of fields no table shows sends nothing at all.
    await database_sync_to_async(save_user)(alice, ["last_login"], last_login=timezone.now())
    assert await quiet(*sockets)
    # A whole-row save can't say which fields it changed: the tables may be told, but show just the same.
    await database_sync_to_async(save_user)(alice, email="alice@example.org")
    for socket in sockets:
        await socket.settle()
    assert [socket.page.html() for socket in sockets] == pages

    after = await load(match.pk)
    assert (after.version, after.updated_at) == (before.version, before.updated_at)
    assert all(not socket.future.done() for socket in sockets)  # every socket still open, Alice's too


async def test_an_edited_profile_shows_on_the_other_players_table_at_once(
    ws_client: Callable[..., Any], alice: Any, bob: Any, start_gomori: Any
) -> None:
    match = await database_sync_to_async(start_gomori)(alice, bob)
    ok, _, red = await ws_client(match.pk, bob)
    assert ok
    page = await red.settle()
    assert "Alice" in section(page, "players")

    def edit_profile() -> int:
        client = Client()
        client.force_login(alice)
        return client.post(reverse("profile_edit"), {"display_name": "Alicia", "email": ""}).status_code

    assert await database_sync_to_async(edit_profile)() == 302
    page = await red.settle()
    players = section(page, "players")
    assert "Alicia" in players and "Alice<" not in players


async def test_a_gallery_picture_chosen_in_the_profile_shows_on_the_players_live_tables(
    ws_client: Callable[..., Any], alice: Any, bob: Any, carol: Any, start_gomori: Any
) -> None:
    match = await database_sync_to_async(start_gomori)(alice, bob)
    old = alice.avatar_url
    sockets = []
    for user in (bob, carol):
        ok, _, socket = await ws_client(match.pk, user)
        assert ok
        sockets.append(socket)
        await socket.settle()
        assert f'src="{old}"'.replace("&", "&amp;") in players_of(socket)

    def choose() -> int:
        client = Client()
        client.force_login(alice)
        return client.post(reverse("profile_edit"), {"display_name": alice.display_name, "email": "",
                                                     "avatar_choice": "owl"}).status_code

    assert await database_sync_to_async(choose)() == 302
    await database_sync_to_async(alice.refresh_from_db)()
    new = alice.avatar_url
    assert alice.avatar_choice == "owl" and new != old
    for socket in sockets:
        await socket.settle()
        players = players_of(socket)
        assert f'src="{new}"' in players and old not in players

    # A save of the choice alone (the admin, a command) is a change a table shows too.
    await database_sync_to_async(save_user)(alice, ["avatar_choice"], avatar_choice="moon")
    newer = alice.avatar_url
    assert newer != new
    for socket in sockets:
        await socket.settle()
        players = players_of(socket)
        assert f'src="{newer}"' in players and new not in players
