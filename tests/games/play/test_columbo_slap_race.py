"""Columbo's slap races: two seats slap the same discard at the same moment, again and again.

Exactly one slap wins each time; the other is refused as too late, with the winner's name and without any
penalty, so the table is exactly what the winning slap alone makes of it. Raced over real sockets (the
consumer path, both frames sent together) and, many more times, through playing.act from two threads.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable
from typing import Any

import playing
import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from django.db import connection

from games.engines import get_engine
from games.engines.base import standard_deck
from games.engines.columbo import SlapTooLate
from games.models import Match, Move
from games.play.create import SeatSpec, create_match
from games.play.news import changed_message, match_group
from games.play.store import load

pytestmark = pytest.mark.django_db(transaction=True)

ENGINE = get_engine("columbo")
SOCKET_ROUNDS = 40
THREAD_ROUNDS = 300
NAMES = ["Alice", "Bob"]

# Alice holds 5♣ 6♣ 7♣ 8♣, Bob 5♦ 6♦ 7♦ 8♦; Alice draws the 5♥ and discards it: window number 1 is open.
HEAD = ["5C", "6C", "7C", "8C", "5D", "6D", "7D", "8D", "5H"]
DECK = HEAD + [card for card in standard_deck() if card not in HEAD]

# Who slaps what, round after round: each their own 5, each the other's 5, both Alice's 5♣.
PAIRS: list[tuple[tuple[int, int], tuple[int, int]]] = [((0, 0), (1, 0)), ((1, 0), (0, 0)), ((0, 0), (0, 0))]


def slap(target: tuple[int, int]) -> dict[str, Any]:
    return {"type": "slap", "seat": target[0], "slot": target[1], "seq": 1}


def prepare(alice: Any, bob: Any) -> tuple[Match, dict[str, Any]]:
    """A started match of Alice and Bob at the open window, and that position (dumped) to go back to."""
    match = create_match(creator=alice, game="columbo", players=2, seats=[SeatSpec("open")],
                                  options={"rounds": 1}, seed=1)
    playing.join(match_id=match.pk, user=bob)
    state = ENGINE.new_game(2, seed=1, options={"rounds": 1}, deal={"deck": DECK})
    for seat, action in ((0, {"type": "peek", "slots": [0, 1]}), (1, {"type": "peek", "slots": [0, 1]}),
                         (0, {"type": "draw", "from": "stock"}), (0, {"type": "discard"})):
        state = ENGINE.apply(state, seat, action)
    assert state.window["open"] and state.window["seq"] == 1 and state.window["card"] == "5H"
    position = ENGINE.dump(state)
    match = Match.objects.get(pk=match.pk)
    reset(match.pk, position, match.version, match.move_count)
    return Match.objects.get(pk=match.pk), position


def reset(match_id: int, position: dict[str, Any], version: int, moves: int) -> None:
    """Back to the open window at this version, after `moves` moves (the moves made since are forgotten)."""
    Move.objects.filter(match_id=match_id, number__gt=moves).delete()
    Match.objects.filter(pk=match_id).update(state=position, version=version, move_count=moves)


def expected_after(position: dict[str, Any], winner: int, target: tuple[int, int]) -> Any:
    """The table after the winning slap alone."""
    return ENGINE.apply(ENGINE.load(position), winner, slap(target))


def check_round(match_id: int, position: dict[str, Any], version: int, moves: int,
                targets: tuple[tuple[int, int], tuple[int, int]]) -> int:
    """One move was made, by one of the two; the table is exactly its slap's. Returns the winner."""
    match = Match.objects.get(pk=match_id)
    assert (match.version, match.move_count) == (version + 1, moves + 1), "exactly one slap succeeds"
    assert list(Move.objects.filter(match_id=match_id, number__gt=moves).values_list("number", flat=True)) == [
        moves + 1]
    state = ENGINE.load(match.state)
    winner, onto = state.slapped["1"]
    assert onto == "5H"
    expected = expected_after(position, winner, targets[winner])
    assert state.hands == expected.hands, "the late slap cost its player nothing"
    assert state.stock == expected.stock and state.discard == expected.discard
    return winner


# ---------------------------------------------------------------------------------------------
# Over real sockets


async def next_message(socket: Any) -> str:
    """The next message itself (not the page after it): who got the table and who the refusal."""
    await socket.receive_from(timeout=10)
    return socket.message


async def test_two_sockets_slap_the_same_discard_at_once(
    ws_client: Callable[..., Any], alice: Any, bob: Any
) -> None:
    match, position = await database_sync_to_async(prepare)(alice, bob)
    sockets = []
    for user in (alice, bob):
        ok, _, socket = await ws_client(match.pk, user, paced=False)  # both slaps leave together
        assert ok
        sockets.append(socket)
    for socket in sockets:  # the page, and the seats arriving after it
        await socket.settle()
    layer = get_channel_layer()
    wins = [0, 0]
    for round_number in range(SOCKET_ROUNDS):
        targets = PAIRS[round_number % len(PAIRS)]
        # Each round at a version of its own, as in a real game: a page that already shows a position is
        # not sent it again, and the same slap winning twice would look like the same position.
        version = match.version + 2 * round_number
        await database_sync_to_async(reset)(match.pk, position, version, match.move_count)
        # The pages show the open window again: the news of a change, as another process would send it.
        snap = await database_sync_to_async(load)(match.pk)
        await layer.group_send(match_group(match.pk), changed_message(snap))
        for socket in sockets:
            await socket.settle(quiet=0.1)
        await asyncio.gather(*(sockets[seat].send_to(text_data=json.dumps({"action": slap(targets[seat])}))
                               for seat in (0, 1)))
        first = [await next_message(socket) for socket in sockets]  # one at least each
        winner = await database_sync_to_async(check_round)(match.pk, position, version, match.move_count, targets)
        wins[winner] += 1
        loser = 1 - winner
        # The winner gets the new table; the loser gets it too, and is told who was first.
        page = first[winner]
        assert 'id="board"' in page and "Too late" not in page
        got = [first[loser], await next_message(sockets[loser])]
        told = f"Too late: the 5♥ was already slapped by {NAMES[winner]}."
        refusal = [html for html in got if 'id="board"' not in html]
        assert len(refusal) == 1 and told in refusal[0]
        table = next(html for html in got if 'id="board"' in html)
        assert "slapped" in table
        if got[-1] is table:  # the winner's update came after the refusal: the message stays up over it
            assert told in sockets[loser].page.html()
        assert all([await socket.receive_nothing(timeout=0.05) for socket in sockets])
    assert sum(wins) == SOCKET_ROUNDS


# ---------------------------------------------------------------------------------------------
# Through the service, from two threads


def test_two_threads_slap_the_same_discard_at_once_hundreds_of_times(alice: Any, bob: Any) -> None:
    match, position = prepare(alice, bob)
    version, moves = match.version, match.move_count
    users = (alice, bob)
    start = threading.Barrier(3)
    done = threading.Barrier(3)
    targets_now: list[tuple[tuple[int, int], tuple[int, int]]] = [PAIRS[0]]
    outcomes: list[list[Any]] = [[None, None] for _ in range(THREAD_ROUNDS)]

    def player(seat: int) -> None:
        try:
            for round_number in range(THREAD_ROUNDS):
                start.wait(timeout=20)
                try:
                    playing.act(match_id=match.pk, user=users[seat], seat=seat,
                                 action=slap(targets_now[0][seat]))
                    outcomes[round_number][seat] = "ok"
                except SlapTooLate as error:
                    outcomes[round_number][seat] = error
                except Exception as error:  # anything else is a failure the main thread reports
                    outcomes[round_number][seat] = error
                done.wait(timeout=20)
        finally:
            connection.close()

    threads = [threading.Thread(target=player, args=(seat,)) for seat in (0, 1)]
    for thread in threads:
        thread.start()
    wins = [0, 0]
    try:
        for round_number in range(THREAD_ROUNDS):
            targets = PAIRS[round_number % len(PAIRS)]
            targets_now[0] = targets
            reset(match.pk, position, version, moves)
            start.wait(timeout=20)
            done.wait(timeout=20)
            results = outcomes[round_number]
            assert sorted(r == "ok" for r in results) == [False, True], results
            winner = results.index("ok")
            late = results[1 - winner]
            assert isinstance(late, SlapTooLate), late
            assert late.winner == winner
            assert str(late) == f"Too late: the 5♥ was already slapped by {{s{winner}}}."
            assert check_round(match.pk, position, version, moves, targets) == winner
            wins[winner] += 1
    except BaseException:
        start.abort()  # release the players, so a failure is reported rather than hung
        done.abort()
        raise
    finally:
        for thread in threads:
            thread.join(timeout=20)
    assert sum(wins) == THREAD_ROUNDS
