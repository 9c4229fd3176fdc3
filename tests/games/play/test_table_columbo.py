"""The Columbo table over real sockets: whole games with a spectator and per-seat leak checks after every move,
the memory presentation (flashes, "show what I know"), the card actions' controls and the solo game."""

from __future__ import annotations

import html as html_module
import json
import random
import re
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import playing
import pytest
from channels.db import database_sync_to_async
from fragments import error_text, section, text_of

from games.engines import get_engine
from games.engines.base import card_name, standard_deck
from games.engines.columbo import RANK
from games.models import Match, Move
from games.play import store
from games.play.create import SeatSpec, create_match
from games.presenters import columbo as presenter

pytestmark = pytest.mark.django_db(transaction=True)

ENGINE = get_engine("columbo")
CARDS = standard_deck()


# ---------------------------------------------------------------------------------------------
# Helpers


@database_sync_to_async
def load(match_id: int) -> Match:
    return Match.objects.get(pk=match_id)


async def state_of(match_id: int) -> Any:
    return ENGINE.load((await load(match_id)).state)


def start(
    players: list[Any], *, seed: int, options: dict[str, Any] | None = None, deal: list[str] | None = None
) -> Match:
    """A started Columbo match of these people (seat order as given); `deal` replaces the shuffle."""
    match = create_match(
        creator=players[0], game="columbo", players=len(players), seats=[SeatSpec("open")] * (len(players) - 1),
        options=options, seed=seed,
    )
    for user in players[1:]:
        playing.join(match_id=match.pk, user=user)
    if deal is not None:
        match = Match.objects.get(pk=match.pk)
        state = ENGINE.new_game(len(players), seed=seed, options=match.options, deal={"deck": deal})
        match.state = ENGINE.dump(state)
        match.save(update_fields=["state"])
    return Match.objects.get(pk=match.pk)


def mentions(html: str, code: str) -> bool:
    """Whether the text shows this card, by its code ("7C") or its name ("7♣")."""
    return any(
        re.search(rf"(?<![0-9A-Za-z]){re.escape(token)}(?![0-9A-Za-z])", html) for token in (code, card_name(code))
    )


SUIT_LETTER = {"♣": "C", "♦": "D", "♥": "H", "♠": "S"}
CARD_TOKEN = re.compile(r"(?<![0-9A-Za-z])(10|[2-9AJQK])([CDHS♣♦♥♠])(?![0-9A-Za-z])")


def shown_cards(text: str) -> set[str]:
    """Every card a text names, by its code ("7C", as in hx-vals) or its name ("7♣")."""
    return {rank + SUIT_LETTER.get(suit, suit) for rank, suit in CARD_TOKEN.findall(text)}


def slot_blocks(html: str) -> dict[tuple[int, int], str]:
    """The rendered card places of the grids, by (seat, slot)."""
    blocks = {}
    for found in re.finditer(r'<(div|span) data-at="(\d)-(\d+)"(.*?)</\1>', html, re.S):
        blocks[(int(found.group(2)), int(found.group(3)))] = found.group(0)
    return blocks


FACE = re.compile(r'<span class="card(?: card-red)?" title="([^"]+)"')


def check_view(html: str, state: Any, seat: int | None) -> None:
    """This viewer's HTML shows no card beyond its own view, and no face at a place its view does not know."""
    view = ENGINE.view(state, seat)
    leaked = sorted(shown_cards(html) - shown_cards(json.dumps(view, ensure_ascii=False)))
    assert not leaked, f"seat {seat} was shown {leaked}"
    blocks = slot_blocks(html)
    if view["over"]:  # the grids give way to the results, every hand open
        assert blocks == {}
        return
    for hand in view["hands"]:
        for k, slot in enumerate(hand["slots"]):
            block = blocks.get((hand["seat"], k))
            assert block is not None, f"no place for seat {hand['seat']} slot {k}"
            faces = FACE.findall(block)
            if slot["card"] is None:
                assert faces == [], f"seat {seat} sees a face at {hand['seat']}-{k}: {faces}"
            else:
                assert set(faces) <= {card_name(slot["card"])}
    for values in re.findall(r'hx-vals="([^"]*)"', html):
        if "slap" in values:
            assert "version" not in values, "a slap must not carry the expected version"





async def one(*communicators: Any) -> list[str]:
    """The next message of each socket (after an action, each connected socket gets exactly one update)."""
    return [await communicator.receive_from(timeout=10) for communicator in communicators]


async def quiet(*communicators: Any) -> bool:
    return all([await communicator.receive_nothing(timeout=0.3) for communicator in communicators])


async def connect(ws_client: Callable[..., Any], match_id: int, users: list[Any]) -> list[Any]:
    """Sockets for these users in this order, each past its page and the presence updates that follow it.

    A socket gets the page, then an update each time another seat's presence shows on it.
    """
    sockets = []
    for user in users:
        ok, _, socket = await ws_client(match_id, user)
        assert ok
        sockets.append(socket)
    for socket in sockets:
        await socket.settle()
    assert await quiet(*sockets)
    return sockets


async def act(socket: Any, action: dict[str, Any], everyone: list[Any]) -> list[str]:
    """Send an action and return the update every socket gets."""
    await socket.send_to(text_data=frame(action))
    return await one(*everyone)


def frame(action: dict[str, Any]) -> str:
    return json.dumps({"action": action})


def ui_frame(ui: dict[str, Any]) -> str:
    return json.dumps({"ui": ui})


def choose(state: Any, rng: random.Random) -> tuple[int, dict[str, Any]]:
    """A seat and its action: peeks, slaps (often matching ones), card actions, turns, and taps after a while."""
    to_act = ENGINE.to_act(state)
    if state.phase == "peek":
        seat = to_act[0]
        return seat, rng.choice(ENGINE.legal_actions(state, seat))
    legal = {seat: ENGINE.legal_actions(state, seat) for seat in to_act}
    slappers = [seat for seat in to_act if any(a["type"] == "slap" for a in legal[seat])]
    if slappers and rng.random() < 0.35:
        seat = rng.choice(slappers)
        slaps = [a for a in legal[seat] if a["type"] == "slap"]
        top = RANK[state.window["card"]]
        matching = [a for a in slaps if RANK[state.hands[a["seat"]][a["slot"]]] == top]
        return seat, rng.choice(matching if matching and rng.random() < 0.7 else slaps)
    if state.action is not None and rng.random() < 0.8:
        seat = state.action["seat"]
        moves = [a for a in legal[seat] if a["type"] in ("look", "exchange", "skip")]
        return seat, rng.choice(moves)
    seat = state.current
    moves = [a for a in legal[seat] if a["type"] not in ("slap", "look", "exchange", "skip")]
    taps = [a for a in moves if a["type"] == "tap"]
    if taps and state.turns >= 3 * state.players and rng.random() < 0.12:
        return seat, taps[0]
    moves = [a for a in moves if a["type"] != "tap"]
    if state.step == "draw" and len(moves) > 1 and rng.random() < 0.7:
        moves = [a for a in moves if a.get("from") == "stock"] or moves
    return seat, rng.choice(moves)


# ---------------------------------------------------------------------------------------------
# A whole game


async def test_three_players_and_a_spectator_play_a_whole_game(
    ws_client: Callable[..., Any], alice: Any, bob: Any, carol: Any, make_user: Callable[..., Any]
) -> None:
    dave = await database_sync_to_async(make_user)("dave", display_name="Dave")
    match = await database_sync_to_async(start)([alice, bob, carol], seed=11, options={"rounds": 2})
    sockets = dict(zip((None, 0, 1, 2), await connect(ws_client, match.pk, [dave, alice, bob, carol]), strict=True))
    state = await state_of(match.pk)
    rng = random.Random(11)
    seen = {"slap": 0, "look": 0, "exchange": 0, "tap": 0, "swap": 0, "discard": 0}
    updates: dict[int | None, str] = {}
    for _ in range(900):
        match = await load(match.pk)
        if match.status != Match.Status.ACTIVE:
            break
        state = ENGINE.load(match.state)
        seat, action = choose(state, rng)
        seen[action["type"]] = seen.get(action["type"], 0) + 1
        await sockets[seat].send_to(text_data=frame(action))
        updates = {viewer: await sockets[viewer].receive_from(timeout=10) for viewer in sockets}
        after = await load(match.pk)
        # One change a move; the last one's statistics follow in a change of their own (written by now or not).
        assert after.version == match.version + 1 or (
            after.status == Match.Status.FINISHED and after.version == match.version + 2
        ), f"{action} was refused: {error_text(updates[seat])}"
        new_state = ENGINE.load(after.state)
        for viewer, html in updates.items():
            check_view(html, new_state, viewer)
            assert error_text(html).strip() == ""
            if viewer is not None and after.status == Match.Status.ACTIVE:
                assert ("Your turn." in html) == (viewer in ENGINE.must_act(new_state))
            if action["type"] == "slap":  # every slap is shown to everyone as it happens
                assert "slapped" in section(html, "log")
                assert "Slap!" in section(html, "board")
    match = await load(match.pk)
    assert match.status == Match.Status.FINISHED, f"not over after {match.move_count} moves"
    assert all(seen[kind] for kind in ("slap", "look", "tap", "swap", "discard")), seen
    state = ENGINE.load(match.state)
    assert match.result["scores"] == state.totals
    for html in updates.values():
        board = section(html, "board")
        assert "Round 2 (the last)" in board
        for hand in state.hands:  # every hand is open at the end
            for code in hand:
                if code is not None:
                    assert mentions(board, code)
        assert "Total" in board
        assert "cb-slap" not in board and "cb-card-button" not in board
    # Then the statistics, in a change of their own: each result box says what the match did to the ratings.
    for viewer in sockets:
        assert "rating-changes" in section(await sockets[viewer].receive_from(timeout=10), "status")
    assert await quiet(*sockets.values())


async def test_slap_buttons_on_every_face_down_card_while_the_window_is_open(
    ws_client: Callable[..., Any], alice: Any, bob: Any
) -> None:
    deck = ["5C", "6C", "7C", "8C", "5D", "6D", "7D", "8D", "5H", *[c for c in CARDS if c not in
            {"5C", "6C", "7C", "8C", "5D", "6D", "7D", "8D", "5H"}]]
    match = await database_sync_to_async(start)([alice, bob], seed=3, options={"rounds": 1}, deal=deck)
    first, second = both = await connect(ws_client, match.pk, [alice, bob])
    await act(first, {"type": "peek", "slots": [0, 1]}, both)
    await act(second, {"type": "peek", "slots": [2, 3]}, both)
    await act(first, {"type": "draw", "from": "stock"}, both)
    pages = await act(first, {"type": "discard"}, both)  # the 5♥ opens a window
    for html in pages:
        assert html.count('class="cb-slap"') == 8
        assert "Slap now: the 5♥ is on the discard pile. Slap a face-down card of rank 5 onto it." in html
    # Bob slaps Alice's 5♣ (her top-left): a match, Alice takes two cards; everyone sees it.
    html_first, html_second = await act(second, {"type": "slap", "seat": 0, "slot": 0, "seq": 1}, both)
    for html, you in ((html_first, "Bob slapped your top-left card"), (html_second, "You slapped Alice's top-left")):
        assert you in text_of(html)
        assert 'class="cb-slap"' not in html  # one success per discard: the window is closed
    assert "Bob slapped first on the 5♥." in html_first
    state = await state_of(match.pk)
    assert [len(h) for h in state.hands] == [5, 4]



# ---------------------------------------------------------------------------------------------
# Memory: flashes and "show what I know"


async def test_peeked_cards_flash_then_stay_face_down_unless_asked(
    ws_client: Callable[..., Any], alice: Any, bob: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    match = await database_sync_to_async(start)([alice, bob], seed=5, options={"rounds": 1})
    me, other = both = await connect(ws_client, match.pk, [alice, bob])
    mine = (await state_of(match.pk)).hands[0]
    # Choosing the first card is this socket's selection only; the second click peeks.
    await me.send_to(text_data=ui_frame({"peek": 1}))
    (html,) = await one(me)
    assert re.search(r'aria-pressed="true"[^>]*><span class="visually-hidden">Don&#39;t peek at your top-right card<',
                     html)
    assert await quiet(other)
    html, _ = await act(me, {"type": "peek", "slots": [1, 2]}, both)
    for k in (1, 2):
        assert "cb-flash cb-flash-8" in slot_blocks(html)[(0, k)]
        assert mentions(slot_blocks(html)[(0, k)], mine[k])
    # Bob peeks a moment later: the flash goes on with the time it has left.
    html, _ = await act(other, {"type": "peek", "slots": [0, 3]}, both)
    assert re.search(r"cb-flash cb-flash-[5-8]", slot_blocks(html)[(0, 1)])
    # Once the flash is over, the faces are no longer sent at all...
    monkeypatch.setattr(presenter, "FLASH_SECONDS", 0.0)
    await me.send_to(text_data=ui_frame({}))
    (html,) = await one(me)
    for k in (1, 2):
        assert FACE.findall(slot_blocks(html)[(0, k)]) == []
        assert "cb-eye" in slot_blocks(html)[(0, k)]  # ... but the player is told they have seen them
        assert not mentions(section(html, "hand"), mine[k])
    # ... unless the player asks to see what they know, which lasts across updates.
    await me.send_to(text_data=ui_frame({"known": True}))
    (html,) = await one(me)
    for k in (1, 2):
        assert "cb-remembered" in slot_blocks(html)[(0, k)]
        assert mentions(slot_blocks(html)[(0, k)], mine[k])
    assert "Hide what I know" in html
    assert "You know 2 cards worth" in html
    html, _ = await act(me, {"type": "draw", "from": "stock"}, both)
    assert "cb-remembered" in slot_blocks(html)[(0, 1)]
    assert "cb-remembered" not in section(html, "board")  # Bob's cards: unknown to Alice


# ---------------------------------------------------------------------------------------------
# Card actions


def rigged(first_hands: list[str], stock_top: list[str]) -> list[str]:
    """A deck whose first cards are the hands and then the stock's top cards, the rest in order."""
    head = [*first_hands, *stock_top]
    return head + [c for c in CARDS if c not in head]


async def peek_all(sockets: list[Any]) -> None:
    for socket in sockets:
        await act(socket, {"type": "peek", "slots": [0, 1]}, sockets)


async def test_a_jack_swaps_two_cards_chosen_one_after_the_other(
    ws_client: Callable[..., Any], alice: Any, bob: Any
) -> None:
    deck = rigged(["2C", "3C", "4C", "5C", "2D", "3D", "4D", "5D"], ["JS"])
    match = await database_sync_to_async(start)([alice, bob], seed=8, options={"rounds": 1}, deal=deck)
    me, other = both = await connect(ws_client, match.pk, [alice, bob])
    await peek_all(both)
    html, _ = await act(me, {"type": "draw", "from": "stock"}, both)
    assert "You drew the J♠: swap it with one of your cards, or discard it." in html
    html, _ = await act(me, {"type": "discard"}, both)
    assert "Your J♠ lets you swap any two cards on the table without looking until Bob draws" in html
    assert html.count("cb-do-exchange") == 8
    await me.send_to(text_data=ui_frame({"pick": [0, 3]}))
    (html,) = await one(me)
    assert "now choose the card to swap with your bottom-right card." in html
    found = re.search(r'hx-vals="([^"]*)"[^>]*><span class="visually-hidden">Swap your bottom-right card with '
                      r'Bob&#39;s top-left card<', html)
    assert found
    await me.send_to(text_data=html_module.unescape(found.group(1)))
    html, other_html = await one(me, other)
    assert "Alice swapped their bottom-right card with your top-left card (J♠)." in text_of(other_html)
    assert "cb-mark-exchanged" in slot_blocks(other_html)[(1, 0)]
    state = await state_of(match.pk)
    assert state.hands[0][3] == "2D" and state.hands[1][0] == "5C"
    move = await database_sync_to_async(lambda: Move.objects.filter(match_id=match.pk).order_by("-number").first())()
    assert move.action == {"type": "exchange", "a": [0, 3], "b": [1, 0]}


async def test_a_nine_looks_at_an_own_card_and_shows_it_for_a_moment(
    ws_client: Callable[..., Any], alice: Any, bob: Any
) -> None:
    deck = rigged(["2C", "3C", "4C", "KH", "2D", "3D", "4D", "5D"], ["9S"])
    match = await database_sync_to_async(start)([alice, bob], seed=9, options={"rounds": 1}, deal=deck)
    me, _ = both = await connect(ws_client, match.pk, [alice, bob])
    await peek_all(both)
    await act(me, {"type": "draw", "from": "stock"}, both)
    html, other_html = await act(me, {"type": "discard"}, both)
    assert "Alice may look at one of their own cards (9♠) until you draw." in other_html
    assert "Skip the card action" in html
    html, other_html = await act(me, {"type": "look", "seat": 0, "slot": 3}, both)
    assert "cb-flash cb-flash-8" in slot_blocks(html)[(0, 3)]
    assert mentions(slot_blocks(html)[(0, 3)], "KH")
    assert not mentions(other_html, "KH")
    assert "Alice looked at their bottom-right card." in text_of(other_html)


# ---------------------------------------------------------------------------------------------
# Refusals with names, and the solo game


async def test_refusals_name_the_players(ws_client: Callable[..., Any], alice: Any, bob: Any) -> None:
    match = await database_sync_to_async(start)([alice, bob], seed=4, options={"rounds": 1})
    _, other = both = await connect(ws_client, match.pk, [alice, bob])
    await peek_all(both)
    await other.send_to(text_data=frame({"type": "draw", "from": "stock"}))
    (html,) = await one(other)
    assert error_text(html).strip() == '<p class="error">It is Alice&#39;s turn, not yours.</p>'


async def test_solo_against_the_clock(ws_client: Callable[..., Any], alice: Any, carol: Any) -> None:
    match = await database_sync_to_async(
        lambda: create_match(creator=alice, game="columbo", players=1, seats=[], seed=21)
    )()
    ok, _, me = await ws_client(match.pk, alice)
    html = await me.settle()
    ok2, _, watcher = await ws_client(match.pk, carol)
    assert ok and ok2
    await watcher.settle()
    await me.settle()  # the table counts one more watching
    assert re.search(r"Time [0-5] s", html)
    assert 'class="countdown" data-seconds="' in html
    both = [me, watcher]
    await act(me, {"type": "peek", "slots": [0, 1]}, both)
    await act(me, {"type": "draw", "from": "stock"}, both)
    html, _ = await act(me, {"type": "discard"}, both)
    assert "Turn 1" in html
    if (await state_of(match.pk)).action is not None:
        await act(me, {"type": "skip"}, both)
    html, seen = await act(me, {"type": "tap", "seconds": 0}, both)  # the server times it, not the browser
    match = await load(match.pk)
    assert match.status == Match.Status.FINISHED
    state = ENGINE.load(match.state)
    move = await database_sync_to_async(lambda: Move.objects.filter(match_id=match.pk).order_by("-number").first())()
    assert move.action["type"] == "tap" and 0 <= move.action["seconds"] <= 30
    assert match.result["scores"] == [state.solo]
    for page in (html, seen):
        assert f"Solo score: {state.solo}" in page
        for code in state.hands[0]:
            if code is not None:
                assert mentions(section(page, "board"), code)


def test_a_card_action_counts_down_until_the_bot_draws_and_its_lapse_is_logged(alice: Any) -> None:
    """A card action (7-Q) lasts until the next card is drawn: when a bot draws next, the board counts down its
    known pause; the draw that ends it says so in the log."""
    from games.play.display import render_fragment, table_context
    from games.play.meta import table_meta

    match = create_match(creator=alice, game="columbo", players=2, seats=[SeatSpec("bot", "reference")],
                                  options={"rounds": 1}, seed=3)
    for _ in range(80):  # alice peeks, then draws and discards until a discarded 7-Q gives her an action
        snap = store.load(match.pk)
        state = ENGINE.load(snap.state)
        view = ENGINE.view(state, 0)
        if view.get("action") and view["action"]["seat"] == 0 and view.get("current") == 1:
            break
        legal = ENGINE.legal_actions(state, 0)
        kinds = {a["type"]: a for a in legal}
        if 0 in ENGINE.must_act(state):
            action = kinds.get("peek") or kinds.get("discard") or kinds.get("draw")
            playing.act(match_id=match.pk, user=alice, seat=0, action=action)
        else:  # the bot's turn, without waiting for its pause
            past = snap.turn_started_at - timedelta(minutes=5)
            Match.objects.filter(pk=match.pk).update(bot_due_at=past, turn_started_at=past)
            assert playing.bot_turn(match_id=match.pk, expected_version=snap.version)
    else:
        raise AssertionError("no card action came")
    meta = table_meta(snap, {})
    html = render_fragment("board", table_context(meta, view, 0))
    card = card_name(view["action"]["card"])
    found = re.search(r'The (\S+) action lapses when (.+?) draws: <span class="cb-seconds" role="timer" '
                      r'data-countdown="(\d+)" data-done="any moment now">in \d+ s</span>', html)
    assert found, text_of(section(html, "board"))
    assert found.group(1) == card and "(bot)" in found.group(2) and 0 < int(found.group(3)) <= 6

    # The bot draws: the action lapses, and the log says so.
    snap = store.load(match.pk)
    state = ENGINE.apply(ENGINE.load(snap.state), 1, {"type": "draw", "from": "stock"})
    log = [e["text"] for e in ENGINE.view(state, None)["log"]]
    assert f"{{s0}}'s {card} action lapsed unused: the next card was drawn first." in log
