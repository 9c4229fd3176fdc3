"""A club's opening (issue 47): the tables' sockets that open at once share their trips to the database thread
(games.core.batch), and what a gathered trip reads is what each socket's own trip read."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest
from channels.db import database_sync_to_async
from test_socket import receive

from games.core.batch import Batched
from games.models import ChatMute
from games.play import hub as hub_module
from games.play import owner
from games.play.decide import decide_move
from games.play.store import load, load_many
from games.play.sync import run_change

pytestmark = pytest.mark.django_db(transaction=True)


async def test_asks_made_meanwhile_share_a_trip_and_each_gets_its_own_answer() -> None:
    asked: list[list[int]] = []

    def run(asks: Any) -> list[int]:
        asked.append(list(asks))
        return [ask * 10 for ask in asks]

    batched: Batched[int, int] = Batched(run)
    assert await asyncio.gather(*(batched(i) for i in range(7))) == [i * 10 for i in range(7)]
    assert sum(len(trip) for trip in asked) == 7 and len(asked) < 7


async def test_asks_of_one_key_go_in_trips_of_their_own_in_order() -> None:
    """A table's sockets opening one after another: each reads the table back as its own opening left it."""
    asked: list[list[tuple[str, int]]] = []

    def run(asks: Any) -> list[int]:
        asked.append(list(asks))
        return [n for _, n in asks]

    batched: Batched[tuple[str, int], int] = Batched(run, key=lambda ask: ask[0])
    assert await asyncio.gather(*(batched(ask) for ask in (("a", 1), ("a", 2), ("b", 3), ("a", 4)))) == [1, 2, 3, 4]
    assert asked == [[("a", 1), ("b", 3)], [("a", 2)], [("a", 4)]]


async def test_one_asks_trouble_is_its_own() -> None:
    def run(asks: Any) -> list[int]:
        if 3 in asks:
            raise ValueError("no such row")
        return list(asks)

    batched: Batched[int, int] = Batched(run)
    outcomes = await asyncio.gather(*(batched(i) for i in range(5)), return_exceptions=True)
    assert [o if not isinstance(o, Exception) else "refused" for o in outcomes] == [0, 1, 2, "refused", 4]


def test_matches_loaded_together_equal_each_loaded_alone(alice: Any, bob: Any, carol: Any,
                                                         start_gomori: Callable[..., Any]) -> None:
    from games.engines import get_engine

    engine = get_engine("gomori")
    matches = [start_gomori(alice, bob), start_gomori(carol, alice, seed=7), start_gomori(bob, carol, seed=9)]
    players = {m.pk: {s.index: s.user_id for s in m.seats.all()} for m in matches}
    for match in matches[:2]:  # moves, so that the notes and who moved are read too
        for _ in range(3 if match is matches[0] else 1):
            snap = load(match.pk)
            assert snap is not None
            state = engine.load(snap.state)
            (seat,) = engine.to_act(state)
            run_change(match.pk, decide_move, seat=seat, action=engine.legal_actions(state, seat)[0],
                       user_id=players[match.pk][seat])
    ids = [m.pk for m in matches]
    together = load_many([*ids, 10**9])
    assert set(together) == set(ids)
    assert all(together[match_id] == load(match_id) for match_id in ids)
    assert together[ids[0]].notes and together[ids[0]].moved


async def test_pages_opening_at_once_share_the_trips_and_each_reads_its_own_mutes(
    ws_client: Callable[..., Any], alice: Any, bob: Any, carol: Any, start_gomori: Callable[..., Any],
) -> None:
    first = await database_sync_to_async(start_gomori)(alice, bob)
    second = await database_sync_to_async(start_gomori)(carol, alice, seed=7)
    await database_sync_to_async(ChatMute.objects.create)(match=first, user=alice, muted=bob)
    trips = owner.arrivals.trips, hub_module.loads.trips
    opened = await asyncio.gather(ws_client(first.pk, alice), ws_client(first.pk, bob), ws_client(second.pk, carol),
                                  ws_client(second.pk, alice), ws_client(first.pk, None))
    assert all(connected for connected, _, _ in opened)
    # Five sockets' arrivals and two matches' loads, in fewer trips than one each.
    assert owner.arrivals.trips - trips[0] < 5 and hub_module.loads.trips - trips[1] <= 2
    for _, _, communicator in opened:  # each was sent its page
        assert (await receive(communicator, 1))[0]
    live = await hub_module.hub().get(first.pk)
    assert live is not None
    muted = {socket.user_id: socket.muted for socket in live.sockets}  # type: ignore[attr-defined]
    assert muted == {alice.pk: frozenset({bob.pk}), bob.pk: frozenset(), None: frozenset()}
