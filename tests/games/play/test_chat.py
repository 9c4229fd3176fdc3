"""A match's chat over the table's own socket: two rooms, escaped text, a length and rate limit, muting, and
lines an administrator hides from every page at once."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.test import Client
from fragments import error_text, section

from games.models import ChatMessage
from games.play import chat

pytestmark = pytest.mark.django_db(transaction=True)


def say(text: Any) -> str:
    return json.dumps({"op": "chat", "text": text})


async def opened(ws_client: Callable[..., Any], match_id: int, *users: Any) -> list[Any]:
    sockets = []
    for user in users:
        ok, _, socket = await ws_client(match_id, user)
        assert ok
        sockets.append(socket)
    for socket in sockets:
        await socket.settle(0.2)
    return sockets


async def test_players_and_spectators_talk_in_separate_rooms(
    ws_client: Callable[..., Any], alice: Any, bob: Any, carol: Any, start_gomori: Any
) -> None:
    match = await database_sync_to_async(start_gomori)(alice, bob)
    black, red, watcher, anonymous = await opened(ws_client, match.pk, alice, bob, carol, None)
    assert "Players’ chat" in section(black.page.html(), "chat")
    assert "Spectators’ chat" in section(watcher.page.html(), "chat")
    assert "Sign in to chat" in section(anonymous.page.html(), "chat")

    await black.send_to(text_data=say("good luck <script>alert(1)</script>"))
    for socket in (black, red):
        page = await socket.receive_from(timeout=5)
        lines = section(page, "chat")
        assert "good luck &lt;script&gt;alert(1)&lt;/script&gt;" in lines and "<script>" not in lines
    await watcher.send_to(text_data=say("what a move"))
    for socket in (watcher, anonymous):
        assert "what a move" in section(await socket.receive_from(timeout=5), "chat")
    # Neither room hears the other.
    assert await black.receive_nothing(timeout=0.3) and await red.receive_nothing(timeout=0.3)
    assert "good luck" not in section(anonymous.page.html(), "chat")

    # A new page opens with its room's lines.
    ok, _, again = await ws_client(match.pk, bob)
    assert ok and "good luck" in section(await again.receive_from(timeout=5), "chat")
    rooms = await database_sync_to_async(lambda: sorted(ChatMessage.objects.values_list("room", flat=True)))()
    assert rooms == ["players", "spectators"]


async def test_what_the_chat_refuses(
    ws_client: Callable[..., Any], alice: Any, bob: Any, start_gomori: Any
) -> None:
    match = await database_sync_to_async(start_gomori)(alice, bob)
    black, anonymous = await opened(ws_client, match.pk, alice, None)
    for frame, answer in ((say("x" * 301), "at most 300"), (say("   "), "Write something"),
                          (say(["a"]), "is text"), (say({"a": 1}), "is text")):
        await black.send_to(text_data=frame)
        assert answer in error_text(await black.receive_from(timeout=5))
    await anonymous.send_to(text_data=say("hello"))
    assert "Sign in" in error_text(await anonymous.receive_from(timeout=5))
    # A person floods: after a burst, a clear answer and nothing stored.
    chat.throttle.buckets.clear()
    for i in range(chat.BURST):
        await black.send_to(text_data=say(f"line {i}"))
        assert f"line {i}" in section(await black.receive_from(timeout=5), "chat")
    await black.send_to(text_data=say("one more"))
    assert "too fast" in error_text(await black.receive_from(timeout=5))
    assert await database_sync_to_async(ChatMessage.objects.count)() == chat.BURST


async def test_a_player_mutes_another_for_the_match(
    ws_client: Callable[..., Any], alice: Any, bob: Any, start_gomori: Any
) -> None:
    chat.throttle.buckets.clear()
    match = await database_sync_to_async(start_gomori)(alice, bob)
    black, red = await opened(ws_client, match.pk, alice, bob)
    await red.send_to(text_data=say("you will lose"))
    await red.receive_from(timeout=5)
    assert "you will lose" in section(await black.receive_from(timeout=5), "chat")
    await black.send_to(text_data=json.dumps({"op": "mute", "user": bob.pk}))
    panel = section(await black.receive_from(timeout=5), "chat")
    assert "you will lose" not in panel and "You muted 1 person" in panel
    await red.send_to(text_data=say("still there?"))
    await red.receive_from(timeout=5)
    assert await black.receive_nothing(timeout=0.3)
    # Muted for this match, after a reload too.
    ok, _, again = await ws_client(match.pk, alice)
    assert ok and "still there" not in section(await again.receive_from(timeout=5), "chat")
    await black.send_to(text_data=json.dumps({"op": "mute", "user": alice.pk}))
    assert "mute yourself" in error_text(await black.receive_from(timeout=5))
    for nobody in (987654321, "x", None, [1]):
        await black.send_to(text_data=json.dumps({"op": "mute", "user": nobody}))
        assert "mute" in error_text(await black.receive_from(timeout=5))


async def test_a_mute_made_in_one_tab_holds_in_the_muters_other_tabs(
    ws_client: Callable[..., Any], alice: Any, bob: Any, start_gomori: Any
) -> None:
    """Point 17: Alice has the table open twice; she mutes Bob in one, and his next line reaches neither, and
    the other tab's panel is drawn again without his lines (and with the unmute)."""
    chat.throttle.buckets.clear()
    match = await database_sync_to_async(start_gomori)(alice, bob)
    first, red = await opened(ws_client, match.pk, alice, bob)
    ok, _, second = await ws_client(match.pk, alice)
    assert ok
    await second.receive_from(timeout=5)
    await red.send_to(text_data=say("before the mute"))
    await red.receive_from(timeout=5)
    for tab in (first, second):
        assert "before the mute" in section(await tab.receive_from(timeout=5), "chat")
    await first.send_to(text_data=json.dumps({"op": "mute", "user": bob.pk}))
    for tab in (first, second):
        panel = section(await tab.receive_from(timeout=5), "chat")
        assert "before the mute" not in panel and "You muted 1 person" in panel
    await red.send_to(text_data=say("after the mute"))
    await red.receive_from(timeout=5)
    assert await first.receive_nothing(timeout=0.3) and await second.receive_nothing(timeout=0.3)
    await second.send_to(text_data=json.dumps({"op": "unmute", "user": bob.pk}))
    for tab in (first, second):
        assert "after the mute" in section(await tab.receive_from(timeout=5), "chat")


async def test_an_administrator_hides_a_line_from_every_page(
    ws_client: Callable[..., Any], alice: Any, bob: Any, start_gomori: Any, make_user: Callable[..., Any]
) -> None:
    chat.throttle.buckets.clear()
    admin = await database_sync_to_async(make_user)("admin", is_staff=True, is_superuser=True)
    match = await database_sync_to_async(start_gomori)(alice, bob)
    black, red = await opened(ws_client, match.pk, alice, bob)
    await red.send_to(text_data=say("something rude"))
    for socket in (black, red):
        assert "something rude" in section(await socket.receive_from(timeout=5), "chat")
    line = await database_sync_to_async(ChatMessage.objects.get)()

    def hide() -> int:
        client = Client()
        client.force_login(admin)
        return client.post("/admin/games/chatmessage/", {"action": "hide_lines", "_selected_action": [line.pk]},
                           ).status_code

    assert await database_sync_to_async(hide)() == 302
    for socket in (black, red):
        await socket.receive_from(timeout=5)
        assert f'id="chat-{line.pk}" hx-swap-oob="delete"' in socket.message
        assert "something rude" not in section(socket.page.html(), "chat")
    ok, _, again = await ws_client(match.pk, alice)
    assert ok and "something rude" not in section(await again.receive_from(timeout=5), "chat")
    assert (await database_sync_to_async(ChatMessage.objects.get)()).hidden_by_id == admin.pk


async def test_a_table_that_can_never_seat_two_people_has_no_players_chat_and_offers_play_again(
    ws_client: Callable[..., Any], alice: Any, carol: Any
) -> None:
    """Point 10 of the seams issue: Columbo solo (and a person against bots) has nobody to talk to or to offer
    a rematch to; its end offers "Play again", which deals the same table at once. Spectators still talk."""
    import random

    import playing

    from games.engines import get_engine
    from games.models import Match
    from games.play.create import create_match

    def solo_to_the_end() -> Match:
        match = create_match(creator=alice, game="columbo", players=1, seats=[], options={"rounds": 1}, seed=4)
        engine, rng = get_engine("columbo"), random.Random(4)
        while not engine.is_over(state := engine.load(Match.objects.get(pk=match.pk).state)):
            seat = (engine.must_act(state) or engine.to_act(state))[0]
            playing.act(match_id=match.pk, user=alice, seat=seat, action=rng.choice(engine.legal_actions(state, seat)))
        return Match.objects.get(pk=match.pk)

    match = await database_sync_to_async(solo_to_the_end)()
    mine, watcher = await opened(ws_client, match.pk, alice, carol)
    page = mine.page.html()
    assert "Players’ chat" not in page and "chat-form" not in section(page, "chat")
    assert "Play again" in section(page, "status") and "Offer a rematch" not in page
    assert "Spectators’ chat" in section(watcher.page.html(), "chat")
    await mine.send_to(text_data=say("anyone?"))
    assert "nobody at this table" in error_text(await mine.receive_from(timeout=5))
    await mine.send_to(text_data=json.dumps({"op": "rematch"}))
    await mine.receive_from(timeout=5)
    fresh = await database_sync_to_async(lambda: Match.objects.get(pk=match.pk).rematch_id)()
    assert fresh is not None


async def test_pages_opening_on_a_table_share_one_read_of_each_room_and_see_every_line_since(
    ws_client: Callable[..., Any], alice: Any, bob: Any, carol: Any, start_gomori: Any, monkeypatch: Any
) -> None:
    from games.play.hub import hub
    from games.play.types import Line

    chat.throttle.buckets.clear()
    reads: list[str] = []
    real = chat.recent

    def counted(**kw: Any) -> list[Line]:
        reads.append(kw["room"])
        return real(**kw)

    monkeypatch.setattr(chat, "recent", counted)  # the live copy's kept lines read through it
    match = await database_sync_to_async(start_gomori)(alice, bob)
    (black,) = await opened(ws_client, match.pk, alice)
    (red,) = await opened(ws_client, match.pk, bob)
    (watcher,) = await opened(ws_client, match.pk, carol)
    assert "Spectators’ chat" in section(watcher.page.html(), "chat")
    for socket in (black, red):
        await socket.settle(0.2)  # the pages redrawn with the spectator come first
    await black.send_to(text_data=say("first"))
    for socket in (black, red):
        assert "first" in section(await socket.receive_from(timeout=5), "chat")
    # Another process's line, told after a later one was read here: it takes its place by id.
    live = await hub().get(match.pk)
    assert live is not None
    said = await database_sync_to_async(ChatMessage.objects.get)()
    await live.chat(Line(said.pk - 1, bob.pk, "Bob", "from elsewhere", "players"), publish=False)
    await live.chat(Line(said.pk, alice.pk, "Alice", "first", "players"), publish=False)  # told twice: kept once
    (again,) = await opened(ws_client, match.pk, bob)
    (another,) = await opened(ws_client, match.pk, None)
    panel = section(again.page.html(), "chat")
    assert panel.index("from elsewhere") < panel.index("first") and panel.count(">first<") <= 1
    assert panel.count("first") == 1
    assert "Spectators’ chat" in section(another.page.html(), "chat")
    assert reads == ["players", "spectators"]
