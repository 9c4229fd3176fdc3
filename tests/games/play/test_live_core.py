"""The live core through real sockets: pages drawn from what a match holds (never from an id), and
sockets that end with their session."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.core.management.color import no_style
from django.core.management.sql import sql_flush
from django.db import connection
from django.urls import reverse
from sockets import closed_within_a_second, open_with, signed_in_client
from test_socket import ENGINE, check_view, frame, legal_action, load, receive

from games.core.jinja import piece
from games.play import display, store
from games.play.news import match_group
from games.play.snapshot import Snapshot

pytestmark = pytest.mark.django_db(transaction=True)


def flush_database() -> None:
    """Empty every table and restart the ids, as a restored or flushed database (or the test database) does."""
    connection.ops.execute_sql_flush(sql_flush(no_style(), connection, reset_sequences=True))


async def test_two_matches_with_the_same_id_each_show_their_own_position(
    ws_client: Callable[..., Any], make_user: Callable[..., Any], start_gomori: Any
) -> None:
    async def play(seed: int, moves: int) -> tuple[int, dict[int | None, Any]]:
        alice, bob, carol = [await database_sync_to_async(make_user)(name) for name in ("alice", "bob", "carol")]
        match = await database_sync_to_async(start_gomori)(alice, bob, seed=seed)
        sockets = {}
        for seat, user in ((0, alice), (1, bob), (None, carol)):
            ok, _, sockets[seat] = await ws_client(match.pk, user)
            assert ok
        state = ENGINE.load((await load(match.pk)).state)
        for seat, socket in sockets.items():
            check_view(await socket.settle(), state, seat)
        for _ in range(moves):
            seat, action, version = await legal_action(match.pk)
            await sockets[seat].send_to(text_data=frame(action, version))
            pages = {viewer: await socket.settle() for viewer, socket in sockets.items()}
            state = ENGINE.load((await load(match.pk)).state)
            for viewer, html in pages.items():
                check_view(html, state, viewer)  # what each page shows: its own view of its own match
        for socket in sockets.values():
            await socket.disconnect()
        return match.pk, sockets

    await database_sync_to_async(flush_database)()
    first, _ = await play(seed=7, moves=3)
    await asyncio.sleep(0.1)
    await database_sync_to_async(flush_database)()
    second, _ = await play(seed=8, moves=3)
    assert first == second  # the same id, another match: each socket was checked against its own


def test_a_remembered_piece_of_html_is_the_one_its_values_make() -> None:
    # The only HTML kept between updates: card faces and board cells, keyed by every value they are drawn from.
    cell = {"classes": "cell target", "top": None, "id": "gc0_0", "name": "row 1, column 1: empty"}
    one = piece("games/tables/gomori.html#cell", cell=cell)
    two = piece("games/tables/gomori.html#cell", cell={**cell, "classes": "cell"})
    assert 'class="cell target"' in one and 'class="cell"' in two
    assert one == piece("games/tables/gomori.html#cell", cell=dict(cell))


async def test_a_socket_opening_while_the_bot_runner_lets_go_of_the_match_keeps_the_hubs_copy(
    ws_client: Callable[..., Any], alice: Any, bob: Any, start_gomori: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bot runner drops a copy nobody here watches when its turn is done. A socket between Hub.get and
    attach watches it already: dropped then, the socket was left on a copy the hub no longer knew, and every
    change made through the hub's next copy (the other player's moves) passed it by."""
    from games.play.hub import hub
    from games.play.owner import LiveMatch

    match = await database_sync_to_async(start_gomori)(alice, bob)
    opening = LiveMatch.arrive

    async def arrive(self: LiveMatch, socket: Any) -> None:
        await hub().drop(self)  # as Hub.bot_turn does when its turn is done
        await opening(self, socket)

    monkeypatch.setattr(LiveMatch, "arrive", arrive)
    _, _, black = await ws_client(match.pk, alice)
    monkeypatch.setattr(LiveMatch, "arrive", opening)
    _, _, red = await ws_client(match.pk, bob)
    await receive(black, 2)  # her page, Bob's arrival
    await receive(red, 1)  # his page
    seat, action, version = await legal_action(match.pk)
    mover, other = (black, red) if seat == 0 else (red, black)
    await mover.send_to(text_data=json.dumps({"action": action, "version": version}))
    assert 'id="board"' in await mover.receive_from(timeout=5)
    assert 'id="board"' in await other.receive_from(timeout=5)  # both sockets are on the same copy


async def test_a_copy_its_loader_dropped_is_not_handed_to_whoever_waited_for_it(
    alice: Any, bob: Any, start_gomori: Any
) -> None:
    """A socket asking for a match the bot runner is loading waits for that load. The runner's turn (no bot due
    here) ends with a drop before the waiting socket wakes up: it must get a copy the hub holds."""
    from games.play import hub as hub_module
    from games.play import scheduler

    match = await database_sync_to_async(start_gomori)(alice, bob)
    hub = hub_module.hub()
    try:
        runner = asyncio.get_running_loop().create_task(hub.bot_turn(match.pk))
        await asyncio.sleep(0)  # the runner is loading the match
        assert match.pk in hub.loading
        copy = await hub.get(match.pk)
        assert await runner is False
        assert copy is not None and hub.matches.get(match.pk) is copy
    finally:
        await scheduler.stop()


async def test_a_match_held_again_while_its_drop_leaves_its_group_keeps_the_news(
    alice: Any, bob: Any, start_gomori: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Dropping a copy takes this process out of the match's group, across the network on Redis. A copy loaded
    again meanwhile joined the group before that discard landed: the process must stay in it, or the other
    processes' moves would never reach the new copy's sockets."""
    from channels.layers import InMemoryChannelLayer

    from games.play import hub as hub_module
    from games.play import scheduler

    class SlowLayer(InMemoryChannelLayer):
        async def group_discard(self, group: str, channel: str) -> None:
            await asyncio.sleep(0.05)  # a round trip to Redis
            await super().group_discard(group, channel)

    layer = SlowLayer()
    monkeypatch.setattr(hub_module, "get_channel_layer", lambda: layer)
    match = await database_sync_to_async(start_gomori)(alice, bob)
    hub = hub_module.hub()
    try:
        first = await hub.get(match.pk)
        assert first is not None
        dropping = asyncio.get_running_loop().create_task(hub.drop(first))
        await asyncio.sleep(0)  # the drop is on its way to the layer
        again = await hub.get(match.pk)
        await dropping
        assert again is not first and hub.matches.get(match.pk) is again
        assert hub.channel in layer.groups.get(match_group(match.pk), {})
    finally:
        await scheduler.stop()


async def test_a_change_told_while_the_match_is_being_read_reaches_the_copy(
    alice: Any, bob: Any, start_gomori: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A page opening (the hub reading the match) while a move comes from sync code (a program's move through the
    Bot API, a view): the news can land after the read and before the copy is held. The copy must take it, or the
    page shows the old turn and the match waits on a move that was made."""
    import time

    from games.play import hub as hub_module
    from games.play import scheduler
    from games.play.decide import decide_move
    from games.play.sync import run_change

    match = await database_sync_to_async(start_gomori)(alice, bob)
    read = hub_module._load_attended
    players = {0: alice.pk, 1: bob.pk}
    versions: list[int] = []

    def read_then_move(match_id: int) -> Any:
        before = read(match_id)
        snap = before[0]
        versions.append(snap.version)
        state = ENGINE.load(snap.state)
        (seat,) = ENGINE.to_act(state)
        action = ENGINE.legal_actions(state, seat)[0]
        run_change(match_id, decide_move, seat=seat, action=action, user_id=players[seat])
        time.sleep(0.3)  # the news is read by the hub's listener while this read is still on its way back
        return before

    monkeypatch.setattr(hub_module, "_load_attended", read_then_move)
    hub = hub_module.hub()
    try:
        copy = await hub.get(match.pk)
        assert copy is not None
        assert copy.snap.version == (await load(match.pk)).version == versions[0] + 1
        assert not hub.early
    finally:
        await scheduler.stop()


async def test_signing_out_closes_the_sockets_of_that_session(alice: Any, bob: Any, start_gomori: Any,
                                                              ws_client: Any) -> None:
    match = await database_sync_to_async(start_gomori)(alice, bob)
    client, cookie = await database_sync_to_async(signed_in_client)(alice)
    _, other_cookie = await database_sync_to_async(signed_in_client)(alice)  # her other browser
    socket = await open_with(match.pk, cookie)
    other = await open_with(match.pk, other_cookie)
    await database_sync_to_async(client.post)(reverse("logout"))
    assert await closed_within_a_second(socket) == 4401  # signed out: the page offers to sign in again
    assert not await closed_within_a_second(other)  # her other session goes on
    _seat, action, version = await legal_action(match.pk)
    await other.send_to(text_data=json.dumps({"action": action, "version": version}))
    assert 'id="board"' in await other.receive_from(timeout=5)
    assert (await load(match.pk)).version == version + 1
    await other.disconnect()


async def test_a_password_changed_elsewhere_closes_the_other_sessions_sockets(
    alice: Any, bob: Any, start_gomori: Any, ws_client: Any, password: str
) -> None:
    match = await database_sync_to_async(start_gomori)(alice, bob)
    _, cookie = await database_sync_to_async(signed_in_client)(alice)
    changer, _ = await database_sync_to_async(signed_in_client)(alice)
    socket = await open_with(match.pk, cookie)

    def change_password() -> int:
        new = "a-whole-new-secret-77"
        response = changer.post(reverse("password_change"),
                                {"old_password": password, "new_password1": new, "new_password2": new})
        return response.status_code

    assert await database_sync_to_async(change_password)() == 302
    assert await closed_within_a_second(socket)
    # The browser that changed it stays signed in (under a new session key): its page's socket plays on.
    own = await open_with(match.pk, f"sessionid={changer.cookies['sessionid'].value}")
    _seat, action, version = await legal_action(match.pk)
    await own.send_to(text_data=json.dumps({"action": action, "version": version}))
    assert 'id="board"' in await own.receive_from(timeout=5)
    assert (await load(match.pk)).version == version + 1
    await own.disconnect()


def test_the_session_check_knows_a_flushed_session_and_a_changed_password(alice: Any) -> None:
    from accounts.sessions import session_user_id

    client, cookie = signed_in_client(alice)
    key = cookie.split("=", 1)[1]
    assert session_user_id(key) == alice.pk
    alice.set_password("another-long-secret-88")
    alice.save()
    assert session_user_id(key) is None
    client, cookie = signed_in_client(alice)
    key = cookie.split("=", 1)[1]
    client.logout()
    assert session_user_id(key) is None
    assert session_user_id("no-such-session") is None and session_user_id(None) is None


async def test_a_session_check_asked_from_synchronous_code_inside_a_running_loop_still_reaches_the_sockets() -> None:
    """Synchronous code in a loop's own thread (a browser test's) cannot block on the channel layer: the check
    goes out as a task of that loop instead of failing."""
    from channels.layers import get_channel_layer

    from accounts.sessions import user_group
    from games.signals import check_sessions

    layer = get_channel_layer()
    channel = await layer.new_channel()
    await layer.group_add(user_group(4242), channel)
    check_sessions(4242, ended="old-session")  # no await: called as a post_save handler would be
    message = await asyncio.wait_for(layer.receive(channel), timeout=2)
    assert message == {"type": "session.check", "ended": "old-session"}
    await layer.group_discard(user_group(4242), channel)


def test_a_snapshot_survives_its_trip_between_processes(gomori_match: Any) -> None:
    snap = store.load(gomori_match.pk)
    assert snap is not None
    assert Snapshot.from_json(snap.to_json()) == snap


async def test_each_viewer_is_presented_once_an_update_however_many_sockets_show_it(
    ws_client: Callable[..., Any], make_user: Callable[..., Any], start_gomori: Any, monkeypatch: Any,
) -> None:
    alice, bob = [await database_sync_to_async(make_user)(name) for name in ("alice", "bob")]
    match = await database_sync_to_async(start_gomori)(alice, bob)
    sockets: dict[str, tuple[int | None, Any]] = {}
    watchers = [await database_sync_to_async(make_user)(f"watcher{number}") for number in range(3)]
    viewers = [("alice", 0, alice), ("alice again", 0, alice), ("bob", 1, bob),
               *((f"watcher {number}", None, user) for number, user in enumerate(watchers))]
    for name, seat, user in viewers:
        ok, _, socket = await ws_client(match.pk, user)
        assert ok
        sockets[name] = seat, socket
    for _, socket in sockets.values():
        await socket.settle()

    presented: list[int | None] = []
    real = display.table_context

    def counting(meta: Any, view: Any, seat: int | None, *args: Any, **kwargs: Any) -> Any:
        presented.append(seat)
        return real(meta, view, seat, *args, **kwargs)

    monkeypatch.setattr(display, "table_context", counting)
    seat, action, version = await legal_action(match.pk)
    await sockets["alice" if seat == 0 else "bob"][1].send_to(text_data=frame(action, version))
    pages = {name: await socket.settle() for name, (_, socket) in sockets.items()}
    state = ENGINE.load((await load(match.pk)).state)
    for name, html in pages.items():
        check_view(html, state, sockets[name][0])  # each its own seat's view
    # Six sockets, three viewers: each seat's view presented once, the spectators' once for all three.
    assert sorted(presented, key=str) == sorted([0, 1, None], key=str)
    assert pages["alice"] == pages["alice again"]
    assert pages["watcher 0"] == pages["watcher 1"] == pages["watcher 2"]
