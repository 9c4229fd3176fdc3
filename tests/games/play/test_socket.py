"""The match socket, end to end through config.asgi.application: who may watch, who may act, what each one sees,
and how it copes with frames it should not get."""

from __future__ import annotations

import asyncio
import json
import random
import re
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import playing
import pytest
from channels.db import database_sync_to_async
from django.utils import timezone
from fragments import error_text, section, text_of
from openings import opened_on_turn, play_openings

from games.engines import get_engine
from games.models import Match, Move, Seat
from games.play import frames, store
from games.play.create import SeatSpec, create_match
from games.play.news import changed_message, match_group
from games.play.presence import presence_open

pytestmark = pytest.mark.django_db(transaction=True)

ENGINE = get_engine("gomori")


# ---------------------------------------------------------------------------------------------
# Helpers


@database_sync_to_async
def load(match_id: int) -> Match:
    return Match.objects.get(pk=match_id)


@database_sync_to_async
def move_count(match_id: int) -> int:
    return Move.objects.filter(match_id=match_id).count()


CARD_TOKEN = re.compile(r"(?<![0-9A-Za-z])(10|[2-9AJQK])([CDHS♣♦♥♠])(?![0-9A-Za-z])")
SUIT_LETTER = {"♣": "C", "♦": "D", "♥": "H", "♠": "S", "C": "C", "D": "D", "H": "H", "S": "S"}


def shown_cards(html: str) -> set[str]:
    """Every card the HTML shows, by its code ("7C", as in hx-vals) or its name ("7♣"), as codes."""
    return {rank + SUIT_LETTER[suit] for rank, suit in CARD_TOKEN.findall(html)}


def mentions(html: str, code: str) -> bool:
    return code in shown_cards(html)


def hidden_from(state: Any, seat: int | None) -> set[str]:
    """Cards this viewer may not see: the opponents' hands and both draw piles (the field and piles of
    gathered cards are public in Gomori, so nothing else is hidden)."""
    hidden = {card for pile in state.piles for card in pile}
    for index, hand in enumerate(state.hands):
        if index != seat:
            hidden.update(hand)
    return hidden



def check_view(html: str, state: Any, seat: int | None) -> None:
    """The HTML is this viewer's own: it shows nothing hidden from them, and a seat sees exactly its hand."""
    leaked = sorted(hidden_from(state, seat) & shown_cards(html))
    assert not leaked, f"seat {seat} was shown {leaked}"
    hand = section(html, "hand")
    shown = re.findall(r'<span class="card(?: card-[a-z]+)*" title=', hand)
    if seat is None:
        assert shown == []
    else:
        assert len(shown) == len(state.hands[seat])
        for card in state.hands[seat]:
            assert mentions(hand, card)



async def receive(communicator: Any, count: int) -> list[str]:
    """The next `count` messages. (A receive that times out cancels the consumer, so tests count what they expect.)"""
    return [await communicator.receive_from(timeout=10) for _ in range(count)]


async def quiet(*communicators: Any) -> bool:
    """Nothing more arrives on any of them."""
    return all([await communicator.receive_nothing(timeout=0.3) for communicator in communicators])


async def legal_action(match_id: int) -> tuple[int, dict[str, Any], int]:
    """(seat to act, its first legal action, version): the test's privilege of reading the state."""
    match = await load(match_id)
    state = ENGINE.load(match.state)
    (seat,) = ENGINE.to_act(state)
    return seat, ENGINE.legal_actions(state, seat)[0], match.version


def frame(action: dict[str, Any], version: int) -> str:
    return json.dumps({"action": action, "version": version})


# ---------------------------------------------------------------------------------------------
# A whole game


async def test_two_players_and_a_spectator_play_a_whole_game(
    ws_client: Callable[..., Any], alice: Any, bob: Any, carol: Any, start_gomori: Any
) -> None:
    match = await database_sync_to_async(start_gomori)(alice, bob, seed=7)
    ok, _, watcher = await ws_client(match.pk, carol)
    assert ok
    ok, _, black = await ws_client(match.pk, alice)
    assert ok
    ok, _, red = await ws_client(match.pk, bob)
    assert ok
    sockets = {0: black, 1: red, None: watcher}
    # Each got the whole current page on connecting, then a presence update per seat connecting after it.
    state = ENGINE.load((await load(match.pk)).state)
    for seat, expected in ((None, 3), (0, 2), (1, 1)):
        received = await receive(sockets[seat], expected)
        for html in received:
            check_view(html, state, seat)
    assert "away" not in section(received[-1], "players")  # both players are present

    rng = random.Random(7)
    for _ in range(200):
        match = await load(match.pk)
        if match.status != Match.Status.ACTIVE:
            break
        state = ENGINE.load(match.state)
        (seat,) = ENGINE.to_act(state)
        action = rng.choice(ENGINE.legal_actions(state, seat))
        await sockets[seat].send_to(text_data=frame(action, match.version))
        # Exactly one update each, its own view of the new position.
        updates = {viewer: await sockets[viewer].receive_from(timeout=10) for viewer in sockets}
        after = await load(match.pk)
        # One change a move; the last one's statistics follow in a change of their own (written by now or not).
        assert after.version == match.version + 1 or (
            after.status == Match.Status.FINISHED and after.version == match.version + 2)
        new_state = ENGINE.load(after.state)
        for viewer, html in updates.items():
            check_view(html, new_state, viewer)
            assert mentions(section(html, "board"), action["card"])  # the card just played is on the field
            assert error_text(html).strip() == ""
        your_turn = ENGINE.to_act(new_state)
        for viewer in (0, 1):
            assert ("Your turn." in updates[viewer]) == (viewer in your_turn)

    match = await load(match.pk)
    assert match.status == Match.Status.FINISHED
    assert match.result["reason"] == "normal"
    winners, names = match.result["winners"], ["Alice", "Bob"]
    for viewer, html in updates.items():
        status = section(html, "status")
        if match.result["draw"]:
            assert "A draw." in status
        elif viewer in winners:
            assert "You won." in status
        else:
            assert f"{names[winners[0]]} won." in status
    # Then the statistics, in a change of their own: each page's result box says what it did to the ratings.
    for viewer in sockets:
        assert "rating-changes" in section(await sockets[viewer].receive_from(timeout=10), "status")
    match = await load(match.pk)
    assert not match.stats_due
    # The join was the one change before the moves, the statistics the one after them.
    assert await move_count(match.pk) == match.version - 2
    assert await quiet(*sockets.values())


# ---------------------------------------------------------------------------------------------
# Who may act, who may watch


async def test_only_the_seated_players_act_and_only_for_their_seat(
    ws_client: Callable[..., Any], alice: Any, bob: Any, carol: Any, start_gomori: Any
) -> None:
    match = await database_sync_to_async(start_gomori)(alice, bob)
    seat, action, version = await legal_action(match.pk)
    assert seat == 0

    ok, _, stranger = await ws_client(match.pk, carol)  # signed in, no seat: a spectator
    assert ok
    ok, _, anonymous = await ws_client(match.pk)  # public match: anonymous may watch
    assert ok
    ok, _, red = await ws_client(match.pk, bob)
    assert ok
    # The page, then whoever came after: the anonymous watcher (one more watching) and Bob (his seat taken).
    for communicator, count in ((stranger, 3), (anonymous, 2), (red, 1)):
        first, *_ = await receive(communicator, count)
        assert 'id="board"' in first

    for communicator in (stranger, anonymous):
        await communicator.send_to(text_data=frame(action, version))
        assert "Spectators can&#39;t play" in error_text(await communicator.receive_from(timeout=5))
        for op in ("resign", "rematch"):
            await communicator.send_to(text_data=json.dumps({"op": op}))
            assert error_text(await communicator.receive_from(timeout=5)).strip()
    # Bob can't play black's card, nor act out of turn.
    await red.send_to(text_data=frame(action, version))
    assert "not your turn" in error_text(await red.receive_from(timeout=5))

    assert (await load(match.pk)).version == version and await move_count(match.pk) == 0


async def test_a_private_match_needs_its_code(
    ws_client: Callable[..., Any], alice: Any, bob: Any, carol: Any, start_gomori: Any
) -> None:
    match = await database_sync_to_async(start_gomori)(alice, bob, is_public=False)
    for user, code in ((None, None), (carol, None), (carol, "wrong-code"), (None, "x" * 100)):
        connected, close_code, _ = await ws_client(match.pk, user, code)
        assert (connected, close_code) == (False, 4403)
    connected, _, watcher = await ws_client(match.pk, carol, match.invite_code)
    assert connected
    (page,) = await receive(watcher, 1)
    check_view(page, ENGINE.load(match.state), None)
    # The players need no code for their own match.
    connected, _, black = await ws_client(match.pk, alice)
    assert connected
    check_view((await receive(black, 1))[0], ENGINE.load(match.state), 0)


async def test_unknown_match_and_foreign_origin_are_refused(
    ws_client: Callable[..., Any], alice: Any, bob: Any, start_gomori: Any
) -> None:
    from channels.testing import WebsocketCommunicator

    from config.asgi import application

    match = await database_sync_to_async(start_gomori)(alice, bob)
    assert (await ws_client(match.pk + 1000, alice))[:2] == (False, 4404)
    communicator = WebsocketCommunicator(application, f"/ws/m/{match.pk}/", headers=[(b"origin", b"http://evil.example")])
    connected, _ = await communicator.connect(timeout=5)
    assert not connected


# ---------------------------------------------------------------------------------------------
# Frames the socket should not get


async def test_malformed_unknown_and_oversized_frames_get_an_error_and_the_game_goes_on(
    ws_client: Callable[..., Any], alice: Any, bob: Any, start_gomori: Any, monkeypatch: pytest.MonkeyPatch
) -> None:

    monkeypatch.setattr(frames, "BURST", 1000)  # this test is about content; see the flood test
    match = await database_sync_to_async(start_gomori)(alice, bob)
    _, action, version = await legal_action(match.pk)
    ok, _, black = await ws_client(match.pk, alice)
    assert ok
    await receive(black, 1)  # the page
    legal = json.dumps(action)
    deep = "[" * 1900 + "]" * 1900
    bad_frames = [
        "not json",
        "[1, 2]",
        "null",
        '"a string"',
        '{"hello": 1}',
        '{"op": "dance"}',
        '{"action": "{not json"}',
        '{"action": 5}',
        '{"action": {"type": "play"}}',
        '{"action": {"type": "teleport", "to": [0, 0]}}',
        '{"action": ' + legal + ', "version": "seven"}',
        '{"action": ' + legal + ', "version": Infinity}',
        '{"action": ' + legal + ', "version": [0]}',
        deep,
        json.dumps({"action": deep}),
        json.dumps({"action": action, "pad": "x" * 5000}),
        '{"op": "claim", "seat": "first"}',
        '{"op": "claim", "seat": 99999999999999999999}',
        # A list or an object where a string or a number is meant.
        '{"op": ["resign"]}',
        '{"op": {"resign": 1}}',
        '{"op": "claim", "seat": [1]}',
        '{"op": "claim", "seat": 1.0}',
        '{"action": ' + legal + ', "version": ' + str(version) + '.5}',
        '{"action": ' + legal + ', "version": ' + str(version) + '.0}',
        '{"action": ' + legal + ', "version": true}',
        '{"action": [' + legal + ']}',
    ]
    for text in bad_frames:
        await black.send_to(text_data=text)
        reply = await black.receive_from(timeout=5)
        assert error_text(reply).strip(), text[:60]
    await black.send_to(bytes_data=b"\xff\xfe\x00 not text")
    assert error_text(await black.receive_from(timeout=5)).strip()
    # A binary frame holding a legal move is refused like any binary frame: text frames only.
    await black.send_to(bytes_data=frame(action, version).encode())
    assert "text frames only" in error_text(await black.receive_from(timeout=5))
    await black.send_to(text_data=json.dumps({"action": "x" * 5000}))
    assert "too large" in error_text(await black.receive_from(timeout=5))
    # Selections that make no sense are re-rendered without one, never an error page.
    for ui in ({"card": {"nested": 1}}, {"card": "5D", "at": "x"}, 5, "[" * 1900 + "]" * 1900, "{"):
        await black.send_to(text_data=json.dumps({"ui": ui}))
        reply = await black.receive_from(timeout=5)
        assert 'id="hand"' in reply and "selected" not in section(reply, "hand")

    match = await load(match.pk)
    assert (match.version, await move_count(match.pk)) == (version, 0)
    # The socket is still open and the game goes on.
    await black.send_to(text_data=frame(action, version))
    reply = await black.receive_from(timeout=5)
    assert error_text(reply).strip() == ""
    assert (await load(match.pk)).version == version + 1


async def test_an_action_the_engine_trips_over_is_refused_and_the_game_goes_on(
    ws_client: Callable[..., Any], alice: Any, bob: Any, start_gomori: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An action whose odd shape the engine's checks missed (it fails in the engine's code): the decider refuses
    it as a move the game does not know, never a server error; nothing is written and the socket plays on."""
    real = ENGINE.apply

    def unreadable(state: Any, seat: int, action: Any) -> Any:
        if "odd" in action:
            raise {"key": KeyError, "type": TypeError, "index": IndexError}[action["odd"]]("tripped")
        return real(state, seat, action)

    monkeypatch.setattr(ENGINE, "apply", unreadable)
    match = await database_sync_to_async(start_gomori)(alice, bob)
    _, action, version = await legal_action(match.pk)
    ok, _, black = await ws_client(match.pk, alice)
    assert ok
    await receive(black, 1)  # the page
    for odd in ("key", "type", "index"):
        await black.send_to(text_data=frame({**action, "odd": odd}, version))
        assert "That move is not one the game knows." in error_text(await black.receive_from(timeout=5))
    assert ((await load(match.pk)).version, await move_count(match.pk)) == (version, 0)
    await black.send_to(text_data=frame(action, version))
    await black.receive_from(timeout=5)
    assert "not one the game knows" not in black.message  # the move's own update: no refusal
    assert (await load(match.pk)).version == version + 1


async def test_a_flood_of_frames_closes_the_socket(
    ws_client: Callable[..., Any], alice: Any, bob: Any, start_gomori: Any
) -> None:
    from games.play.frames import BURST

    match = await database_sync_to_async(start_gomori)(alice, bob)
    ok, _, black = await ws_client(match.pk, alice, paced=False)
    assert ok
    await receive(black, 1)  # the page
    version = (await load(match.pk)).version
    for _ in range(BURST + 10):
        await black.send_to(text_data='{"hello": 1}')
    answered = 0
    while True:
        output = await black.receive_output(timeout=5)
        if output["type"] == "websocket.close":
            break
        assert "Unknown request" in output["text"] or "Too many messages" in output["text"]
        answered += "Unknown request" in output["text"]
    assert output["code"] == 4429
    assert answered == BURST  # a burst is answered, a sustained flood closed
    assert await quiet(black)  # the frames still queued get no answer once closed
    assert (await load(match.pk)).version == version


# ---------------------------------------------------------------------------------------------
# Races, absence, resigning and rematches over the socket


async def test_the_slower_of_two_racing_moves_gets_the_game_moved_on_and_the_fresh_view(
    ws_client: Callable[..., Any], alice: Any, bob: Any, start_gomori: Any
) -> None:
    match = await database_sync_to_async(start_gomori)(alice, bob)
    state = ENGINE.load(match.state)
    first, second = ENGINE.legal_actions(state, 0)[0], ENGINE.legal_actions(state, 0)[-1]
    _, _, tab_one = await ws_client(match.pk, alice)
    _, _, tab_two = await ws_client(match.pk, alice)
    await receive(tab_one, 1)  # the page (her second tab changes nobody's presence)
    await receive(tab_two, 1)
    version = match.version
    await asyncio.gather(tab_one.send_to(text_data=frame(first, version)),
                         tab_two.send_to(text_data=frame(second, version)))
    # Three messages in all: the move's view on both tabs, and the refusal on one of them.
    received: list[str] = []
    for _ in range(1000):
        if len(received) == 3:
            break
        for tab in (tab_one, tab_two):
            if not await tab.receive_nothing(timeout=0.01, interval=0.005):
                received.append(await tab.receive_from(timeout=10))
    assert len(received) == 3 and await quiet(tab_one, tab_two)
    moved_on = [html for html in received if "moved on" in error_text(html)]
    assert len(moved_on) == 1
    match = await load(match.pk)
    assert match.version == version + 1 and await move_count(match.pk) == 1
    check_view(moved_on[0], ENGINE.load(match.state), 0)  # the fresh position comes with the refusal


@pytest.mark.parametrize("op", ["claim", "claim_bot"])
async def test_an_absent_player_can_be_claimed_after_the_countdown(
    ws_client: Callable[..., Any], alice: Any, bob: Any, start_gomori: Any, settings: Any, op: str
) -> None:
    settings.GAMES_BOT_DELAY = 0
    match = await database_sync_to_async(start_gomori)(alice, bob)
    match = await database_sync_to_async(opened_on_turn)(match, 0)  # she has moved: leaving now is a loss
    moved = match.move_count
    _, _, black = await ws_client(match.pk, alice)
    _, _, red = await ws_client(match.pk, bob)
    await receive(red, 1)
    await black.disconnect()
    (update,) = await receive(red, 1)
    status = section(update, "status")
    assert "Alice has left the table" in status
    countdown = re.search(r'class="countdown" data-seconds="(\d+)"', status)
    assert countdown and 55 <= int(countdown.group(1)) <= 60
    # The buttons wait for the deadline: drawn disabled, the page's countdown opens them.
    for claim in ("claim", "claim_bot"):
        assert re.search(rf'hx-vals=\'{{"op": "{claim}", "seat": 0}}\' disabled>', status), status

    await red.send_to(text_data=json.dumps({"op": op, "seat": 0}))
    assert "Alice may still come back" in error_text(await red.receive_from(timeout=5))
    assert (await load(match.pk)).status == Match.Status.ACTIVE

    # A minute later (the disconnect, and the turn she is keeping everyone waiting on, moved back in time):
    a_minute_ago = timezone.now() - timedelta(seconds=61)
    await database_sync_to_async(lambda: Seat.objects.filter(match=match, index=0).update(last_seen=a_minute_ago))()
    await database_sync_to_async(lambda: Match.objects.filter(pk=match.pk).update(turn_started_at=a_minute_ago))()
    await red.send_to(text_data=json.dumps({"op": op, "seat": 0}))
    update = await red.receive_from(timeout=5)
    match = await load(match.pk)
    if op == "claim":
        status = section(update, "status")
        assert "You won. Alice left the match." in status
        assert "You won. Alice left the match." in text_of(section(update, "log"))  # its closing line says so
        assert match.status == Match.Status.FINISHED and match.result["reason"] == "abandon"
        return
    # A bot took Alice's seat, and plays it at once (this process's bot runner, started by the sockets). The
    # seat stays hers on the record, and the log says from when the bot plays it.
    assert re.search(r'seat-0.*?Alice.*?left · Gomori \w+ \(bot\) plays', section(update, "players"), re.S)
    assert re.search(rf">Alice</strong> left; a bot plays their seat from move {moved + 1}\.", section(update, "log"))
    assert match.status == Match.Status.ACTIVE and [h["seat"] for h in match.handovers] == [0]
    (bot_move,) = await receive(red, 1)
    assert mentions(section(bot_move, "board"), (await database_sync_to_async(
        lambda: Move.objects.get(match=match, number=moved + 1).action["card"])()))


async def test_resign_and_rematch_over_the_socket(
    ws_client: Callable[..., Any], alice: Any, bob: Any, start_gomori: Any
) -> None:
    match = await database_sync_to_async(start_gomori)(alice, bob)
    await database_sync_to_async(play_openings)(match)  # resigning is possible once everyone has moved
    _, _, black = await ws_client(match.pk, alice)
    _, _, red = await ws_client(match.pk, bob)
    await receive(black, 2)  # the page, Bob's arrival
    await receive(red, 1)
    await red.send_to(text_data=json.dumps({"op": "resign"}))  # not Bob's turn: resigning is always possible
    assert "You won. Bob resigned." in section(await black.receive_from(timeout=5), "status")
    assert "Alice won. You resigned." in section(await red.receive_from(timeout=5), "status")
    # Its statistics follow in a change of their own: the result box then says what it did to each rating.
    for communicator in (black, red):
        assert "rating-changes" in section(await communicator.receive_from(timeout=5), "status")

    await black.send_to(text_data=json.dumps({"op": "rematch"}))
    assert "You offered a rematch" in section(await black.receive_from(timeout=5), "status")
    offer = section(await red.receive_from(timeout=5), "status")
    assert "Alice offers a rematch." in offer and '"op": "rematch"' in offer and '"op": "decline"' in offer
    await red.send_to(text_data=json.dumps({"op": "rematch"}))
    updates = [await communicator.receive_from(timeout=5) for communicator in (black, red)]
    match = await load(match.pk)
    assert match.rematch_id is not None
    for update in updates:  # the way to the rematch, and the page sent there by itself
        assert f'href="/m/{match.rematch_id}/"' in section(update, "status") and "Go to the rematch" in update
        assert f'<div id="goto" data-goto="/m/{match.rematch_id}/"></div>' in update
    rematch = await load(match.rematch_id)
    assert rematch.status == Match.Status.ACTIVE
    assert await database_sync_to_async(lambda: [s.user_id for s in rematch.seats.all()])() == [bob.pk, alice.pk]


async def test_a_bot_answers_over_the_socket_without_being_asked(
    ws_client: Callable[..., Any], alice: Any, settings: Any
) -> None:
    settings.GAMES_BOT_DELAY = 0
    match = await database_sync_to_async(create_match)(
        creator=alice, game="gomori", players=2, seats=[SeatSpec("bot", "reference")], seed=3
    )
    _, _, black = await ws_client(match.pk, alice)  # starts this process's bot runner, as any connection does
    await receive(black, 1)
    state = ENGINE.load(match.state)
    action = next(a for a in ENGINE.legal_actions(state, 0))  # the first card: an empty field, so the turn ends
    await black.send_to(text_data=frame(action, match.version))
    deadline = asyncio.get_running_loop().time() + 15  # the bot is due at once; the table's own timer plays it
    while True:
        match = await load(match.pk)
        if match.version > 1 and ENGINE.to_act(ENGINE.load(match.state)) == [0]:
            break
        assert asyncio.get_running_loop().time() < deadline, "the bot did not move"
        await asyncio.sleep(0.1)
    received = await receive(black, await move_count(match.pk))  # one update per move: Alice's, then the bot's
    assert await quiet(black)
    assert "Your turn." in received[-1]
    check_view(received[-1], ENGINE.load(match.state), 0)


async def test_news_older_than_the_held_position_is_dropped(
    ws_client: Callable[..., Any], alice: Any, bob: Any, carol: Any, start_gomori: Any
) -> None:
    from channels.layers import get_channel_layer

    match = await database_sync_to_async(start_gomori)(alice, bob)
    stale = await database_sync_to_async(store.load)(match.pk)
    _, _, watcher = await ws_client(match.pk, carol)
    _, _, black = await ws_client(match.pk, alice)
    await watcher.settle()
    await black.settle()
    _, action, version = await legal_action(match.pk)
    await black.send_to(text_data=frame(action, version))
    await receive(black, 1)
    await receive(watcher, 1)
    # Another process's news crossing this one's on the way: the position before the move arrives after it.
    layer = get_channel_layer()
    await layer.group_send(match_group(match.pk), changed_message(stale))
    assert await quiet(black, watcher)
    # Presence news (Bob's socket in another process, say) still goes through.
    await database_sync_to_async(presence_open)(match_id=match.pk, seat=1, socket="elsewhere!1")
    await layer.group_send(match_group(match.pk), {"type": "match.presence", "id": match.pk})
    assert len(await receive(black, 1)) == len(await receive(watcher, 1)) == 1
    assert "badge-away" not in section(black.page.html(), "players")


async def test_the_lobby_socket_redraws_the_lists_as_matches_open_and_fill(
    ws_client: Callable[..., Any], alice: Any, bob: Any
) -> None:
    connected, _, anonymous = await ws_client(None, path="/ws/notify/?lobby=1")
    assert connected
    connected, _, notify = await ws_client(None, bob, path="/ws/notify/?lobby=1")
    assert connected
    await notify.send_to(text_data='{"anything": 1}')  # nothing to say on this socket: ignored
    assert await quiet(notify, anonymous)
    match = await database_sync_to_async(create_match)(
        creator=alice, game="gomori", players=2, seats=[SeatSpec("open")])
    for socket in (notify, anonymous):
        lists = await socket.receive_from(timeout=3)
        assert lists.startswith('<div id="lobby-lists"') and f'action="/m/{match.pk}/join/"' in lists
    await database_sync_to_async(playing.join)(match_id=match.pk, user=bob)
    mine = await notify.receive_from(timeout=3)
    assert f'href="/m/{match.pk}/"' in mine.split("Waiting for players")[0]  # now among Bob's own matches


async def test_your_turn_shows_and_clears_on_every_page_as_the_turn_changes_hands(
    ws_client: Callable[..., Any], alice: Any, bob: Any, start_gomori: Any
) -> None:
    """Bob's header says "Your turn" on every page he has open when Alice has moved, and says nothing again,
    on all of them, once he has played that turn (from his table) or the match is over."""
    match = await database_sync_to_async(start_gomori)(alice, bob)
    match = await database_sync_to_async(opened_on_turn)(match, 0)  # everyone has moved: resigning ends it
    _, _, one = await ws_client(None, bob, path="/ws/notify/")  # two other pages of the site
    _, _, two = await ws_client(None, bob, path="/ws/notify/")
    _, _, black = await ws_client(match.pk, alice)
    _, _, red = await ws_client(match.pk, bob)
    await black.settle()
    await red.settle()

    async def header(socket: Any) -> str:
        cue = await socket.receive_from(timeout=5)
        assert cue.startswith('<span id="turn-cue"'), cue
        return cue

    for _ in range(6):
        seat, action, version = await legal_action(match.pk)
        await (black if seat == 0 else red).send_to(text_data=frame(action, version))
        await black.settle()
        await red.settle()
        if seat == 0 and (await legal_action(match.pk))[0] == 1:
            break
    else:
        raise AssertionError("the turn never came to Bob")
    for page in (one, two):
        cue = await header(page)
        assert f'href="/m/{match.pk}/"' in cue and f"Your turn: Gomori #{match.pk}" in cue
    # Bob plays his turn at the table: every page of his says nothing any more.
    while True:
        seat, action, version = await legal_action(match.pk)
        if seat != 1:
            break
        await red.send_to(text_data=frame(action, version))
        await red.settle()
        await black.settle()
    for page in (one, two):
        cleared = await header(page)
        assert 'data-waiting="0"' in cleared and "Your turn" not in cleared
    # His turn again, then the match ends (Alice resigns while it waits on him): cleared again.
    while (await legal_action(match.pk))[0] == 0:
        _, action, version = await legal_action(match.pk)
        await black.send_to(text_data=frame(action, version))
        await black.settle()
        await red.settle()
    for page in (one, two):
        assert "Your turn" in await header(page)
    await black.send_to(text_data=json.dumps({"op": "resign"}))
    for page in (one, two):
        assert 'data-waiting="0"' in await header(page)


async def test_the_header_reads_the_waiting_matches_once_then_follows_the_cues(
    ws_client: Callable[..., Any], alice: Any, bob: Any, start_gomori: Any, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A cue says the change itself (match, game, whether it now waits on the person): the notification socket
    reads the matches waiting on its person at its first cue only, not once per move."""
    from games.notify import socket as consumer

    reads: list[int] = []
    real = consumer.waiting_for

    def counted(user: Any, **kw: Any) -> Any:
        reads.append(user.pk)
        return real(user, **kw)

    monkeypatch.setattr(consumer, "waiting_for", counted)
    match = await database_sync_to_async(start_gomori)(alice, bob)
    _, _, header = await ws_client(None, bob, path="/ws/notify/")
    _, _, black = await ws_client(match.pk, alice)
    _, _, red = await ws_client(match.pk, bob)
    await black.settle()
    await red.settle()
    cues = []
    for _ in range(8):
        seat, action, version = await legal_action(match.pk)
        await (black if seat == 0 else red).send_to(text_data=frame(action, version))
        await black.settle()
        await red.settle()
        while not await header.receive_nothing(timeout=0.3):
            cues.append(await header.receive_from(timeout=5))
    assert len(cues) >= 2 and reads == [bob.pk]
    bobs_turn = (await legal_action(match.pk))[0] == 1
    assert (f"Your turn: Gomori #{match.pk}" in cues[-1]) is bobs_turn, cues[-1]


async def test_turn_cues_go_to_the_notification_sockets_and_never_through_a_table_socket(
    ws_client: Callable[..., Any], alice: Any, bob: Any, start_gomori: Any, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The cues go to the person's notices group, which only notification sockets join: a table socket (which
    has its own news) is never handed one to drop (on Redis each costs trips to it and a decode)."""
    from games.notify.socket import TurnCues
    from games.play.socket import MatchConsumer

    heard: list[str] = []
    real = TurnCues.turns_changed

    async def table_heard(self: Any, event: dict[str, Any]) -> None:
        heard.append("table")

    async def header_heard(self: Any, event: dict[str, Any]) -> None:
        heard.append("header")
        await real(self, event)

    # A table socket has no handler for the cues at all: were one sent to it, this would hear it.
    monkeypatch.setattr(MatchConsumer, "turns_changed", table_heard, raising=False)
    monkeypatch.setattr(TurnCues, "turns_changed", header_heard)
    match = await database_sync_to_async(start_gomori)(alice, bob)
    _, _, header = await ws_client(None, bob, path="/ws/notify/")
    _, _, black = await ws_client(match.pk, alice)
    _, _, red = await ws_client(match.pk, bob)
    await black.settle()
    await red.settle()
    for _ in range(4):
        seat, action, version = await legal_action(match.pk)
        await (black if seat == 0 else red).send_to(text_data=frame(action, version))
        await black.settle()
        await red.settle()
    assert (await header.receive_from(timeout=5)).startswith('<span id="turn-cue"')
    assert "header" in heard and "table" not in heard, heard


async def test_a_match_that_starts_on_your_move_is_cued(
    ws_client: Callable[..., Any], alice: Any, bob: Any
) -> None:
    match = await database_sync_to_async(create_match)(
        creator=alice, game="gomori", players=2, seats=[SeatSpec("open")])
    _, _, header = await ws_client(None, alice, path="/ws/notify/")  # Alice waits on another page
    await database_sync_to_async(playing.join)(match_id=match.pk, user=bob)  # Bob joins from the lobby
    cue = await header.receive_from(timeout=5)
    assert f"Your turn: Gomori #{match.pk}" in cue  # black (Alice) begins


async def test_a_cue_from_another_match_leaves_the_table_socket_alone(
    ws_client: Callable[..., Any], alice: Any, bob: Any, start_gomori: Any
) -> None:
    # Alice at one table while her turn comes in another: the cue is her header's, and her table plays on.
    here = await database_sync_to_async(start_gomori)(alice, bob)
    there = await database_sync_to_async(start_gomori)(bob, alice)  # Bob begins there
    _, _, table = await ws_client(here.pk, alice)
    await table.settle()
    _, action, version = await legal_action(there.pk)
    await database_sync_to_async(playing.act)(match_id=there.pk, user=bob, seat=0, action=action,
                                               expected_version=version)
    assert await quiet(table) and not table.future.done()
    _, action, version = await legal_action(here.pk)
    await table.send_to(text_data=frame(action, version))
    assert 'id="board"' in await table.receive_from(timeout=5)


async def test_spectators_see_who_left_and_the_rematch(
    ws_client: Callable[..., Any], alice: Any, bob: Any, carol: Any, start_gomori: Any
) -> None:
    match = await database_sync_to_async(start_gomori)(alice, bob)
    await database_sync_to_async(play_openings)(match)
    _, _, watcher = await ws_client(match.pk, carol)
    _, _, red = await ws_client(match.pk, bob)
    _, _, black = await ws_client(match.pk, alice)
    *_, arrived = await receive(watcher, 3)  # the page, Bob's arrival, Alice's
    assert "badge-away" not in section(arrived, "players")
    await receive(red, 2)
    await receive(black, 1)
    await black.disconnect()
    (left,) = await receive(watcher, 1)
    assert "Alice has left the table" in section(left, "status")
    assert "badge-away" in section(left, "players")

    await red.send_to(text_data=json.dumps({"op": "resign"}))
    await receive(red, 2)  # the end, then the rating changes
    (over, rated) = await receive(watcher, 2)
    assert "Alice won. Bob resigned." in section(over, "status")
    assert "rating-changes" in section(rated, "status")
    # Both players ask for a rematch (Alice from a new tab): the spectator is shown the way to it.
    _, _, black = await ws_client(match.pk, alice)
    await receive(black, 1)
    await receive(watcher, 1)  # she is back
    await receive(red, 1)
    await black.send_to(text_data=json.dumps({"op": "rematch"}))
    await receive(watcher, 1)
    await red.send_to(text_data=json.dumps({"op": "rematch"}))
    (rematch,) = await receive(watcher, 1)
    match = await load(match.pk)
    assert f'href="/m/{match.rematch_id}/"' in section(rematch, "status")
    assert "Watch the rematch" in section(rematch, "status")
