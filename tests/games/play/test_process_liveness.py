"""Presence counts through the process that holds a socket (games.play.liveness): an idle socket writes nothing,
the process writes one row per interval, and the sockets of a process that stopped (killed) stop counting."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.utils import timezone

from accounts import sessions
from games.models import Presence, Process
from games.play import hub as hub_module
from games.play import liveness
from games.play.presence import attendance, attendances, presence_close, presence_open
from games.play.snapshot import PRESENCE_STALE_SECONDS
from games.play.snapshot import Presence as SeatPresence

pytestmark = pytest.mark.django_db(transaction=True)


def _socket_row(match: Any, seat: int | None, process: str, opened_ago: float) -> None:
    Presence.objects.create(socket=f"s-{match.pk}-{seat}-{process}", match=match, seat=seat, process=process,
                            last_seen=timezone.now() - timedelta(seconds=opened_ago))


def test_a_socket_counts_while_its_process_pulses_and_stops_when_the_process_does(gomori_match: Any) -> None:
    old = PRESENCE_STALE_SECONDS + 60
    Process.objects.create(key="alive", last_seen=timezone.now())
    Process.objects.create(key="killed", last_seen=timezone.now() - timedelta(seconds=old))
    _socket_row(gomori_match, 0, "alive", opened_ago=old)  # opened long ago, its process still pulses
    _socket_row(gomori_match, 1, "killed", opened_ago=old)  # its process was killed: stale
    _socket_row(gomori_match, None, "alive", opened_ago=old)  # a spectator of a live process
    _socket_row(gomori_match, None, "killed", opened_ago=old)
    presence, watchers = attendance(gomori_match.pk)
    now = timezone.now()
    assert presence[0].has_socket(now)
    assert not presence[1].has_socket(now)
    assert watchers == 1


def test_a_socket_just_opened_counts_before_its_process_first_pulses(gomori_match: Any) -> None:
    _socket_row(gomori_match, 1, "never-pulsed", opened_ago=1)
    assert attendance(gomori_match.pk)[0][1].has_socket(timezone.now())


def test_opening_a_socket_writes_this_process_s_row(gomori_match: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(liveness, "_last_pulse", -liveness.PULSE_SECONDS)
    presence_open(match_id=gomori_match.pk, seat=0, socket="one")
    row = Process.objects.get()
    assert row.key == liveness.process_key() == Presence.objects.get(socket="one").process
    presence_open(match_id=gomori_match.pk, seat=1, socket="two")  # within the interval: no second write
    assert Process.objects.get().last_seen == row.last_seen


async def test_idle_sockets_write_nothing_of_their_own_the_process_writes_one_row(
    gomori_match: Any, alice: Any, bob: Any, carol: Any, ws_client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(hub_module, "HEARTBEAT_SECONDS", 0.05)
    monkeypatch.setattr(liveness, "PULSE_SECONDS", 0.05)
    for user in (alice, bob, carol, None):
        ok, _, socket = await ws_client(gomori_match.pk, user)
        assert ok
        await socket.receive_from(timeout=5)  # the first page: the socket has opened (its row written)

    def rows() -> tuple[dict[str, Any], list[Any]]:
        return (dict(Presence.objects.values_list("socket", "last_seen")),
                list(Process.objects.values_list("key", "last_seen")))

    sockets_before, processes_before = await database_sync_to_async(rows)()
    assert len(sockets_before) == 4
    await asyncio.sleep(0.5)  # ten heartbeats of the table, ten pulses of the process
    sockets_after, processes_after = await database_sync_to_async(rows)()
    assert sockets_after == sockets_before  # no socket's row was written
    assert len(processes_after) == 1 and processes_after[0][0] == liveness.process_key()
    assert not processes_before or processes_after[0][1] > processes_before[0][1]


def test_the_periodic_session_check_asks_once_per_session_per_interval(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[str] = []

    def session_user_id(key: str | None) -> int | None:
        asked.append(str(key))
        return 7

    monkeypatch.setattr(sessions, "session_user_id", session_user_id)
    monkeypatch.setattr(sessions, "_checked", {})
    for _ in range(5):  # five sockets of one session, each on its table's heartbeat
        assert sessions.recent_session_user_id("k1") == 7
    assert sessions.recent_session_user_id("k2") == 7
    assert asked == ["k1", "k2"]
    monkeypatch.setattr(sessions, "SESSION_CHECK_SECONDS", 0.0)  # the interval over: asked again
    sessions.recent_session_user_id("k1")
    assert asked == ["k1", "k2", "k1"]


class _Page:
    def __init__(self) -> None:
        self.shown = 0
        self.seat = 0

    async def show(self, live: Any, cache: Any, **kw: Any) -> None:
        self.shown += 1

    async def session_check(self, event: dict[str, Any]) -> None:
        self.checked = event


async def test_a_pulse_alone_redraws_no_table(gomori_match: Any) -> None:
    """The heartbeat's re-read finds newer pulses every time; the pages are drawn again only when what they show
    changes (a seat going away)."""
    from games.play.hub import hub
    from games.play.scheduler import stop

    live = await hub().get(gomori_match.pk)
    assert live is not None
    page = _Page()
    live.sockets.add(page)  # type: ignore[arg-type]
    try:
        now = timezone.now()
        here = {0: SeatPresence(heartbeat=now, left_at=None), 1: SeatPresence(heartbeat=now, left_at=None)}
        await live.refresh_presence(publish=False, known=(here, 0))
        drawn = page.shown
        later = {seat: SeatPresence(heartbeat=now + timedelta(seconds=15), left_at=None) for seat in (0, 1)}
        await live.refresh_presence(publish=False, known=(later, 0))
        assert page.shown == drawn and live.presence == later  # kept, not drawn
        gone = {**later, 1: SeatPresence(heartbeat=None, left_at=now)}
        await live.refresh_presence(publish=False, known=(gone, 0))
        assert page.shown == drawn + 1  # Bob left: drawn
    finally:
        live.sockets.discard(page)  # type: ignore[arg-type]
        await stop()


def test_the_attendance_of_several_tables_read_together_is_each_table_s_own(gomori_match: Any) -> None:
    from factories import make_match, make_user

    other = make_match(creator=make_user("dora"), game="rummy", seats=("open",))
    Process.objects.create(key="alive", last_seen=timezone.now())
    _socket_row(gomori_match, 0, "alive", opened_ago=1)
    _socket_row(gomori_match, None, "alive", opened_ago=1)
    _socket_row(other, 0, "alive", opened_ago=1)
    together = attendances([gomori_match.pk, other.pk])
    assert together == {gomori_match.pk: attendance(gomori_match.pk), other.pk: attendance(other.pk)}
    assert together[gomori_match.pk][1] == 1 and together[other.pk][1] == 0
    assert together[other.pk][0][0].has_socket(timezone.now())


async def test_the_heartbeat_reads_a_slice_of_tables_in_one_trip_and_leaves_an_overtaken_read_alone(
    gomori_match: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from games.play.hub import hub
    from games.play.scheduler import stop

    reads: list[list[int]] = []
    real = hub_module.attendances

    def counted(ids: list[int]) -> Any:
        reads.append(sorted(ids))
        return real(ids)

    monkeypatch.setattr(hub_module, "attendances", counted)
    live = await hub().get(gomori_match.pk)
    assert live is not None
    page = _Page()
    live.sockets.add(page)  # type: ignore[arg-type]
    try:
        gone = {0: SeatPresence(heartbeat=None, left_at=timezone.now()),
                1: SeatPresence(heartbeat=None, left_at=timezone.now())}
        await live.refresh_presence(publish=False, known=(gone, 0))
        await database_sync_to_async(presence_open)(match_id=gomori_match.pk, seat=0, socket="alice-tab")
        await hub().beat_slice([live])
        assert reads == [[gomori_match.pk]] and page.checked == {"periodic": True}
        assert live.presence[0].heartbeat is not None  # the heartbeat's read taken in: Alice's socket is there

        # A socket's opening reads the table after the heartbeat's read began: the older read is not shown over it.
        real_taken = live.presence_taken

        def overtaken(ids: list[int]) -> Any:
            live.presence_taken += 1  # as if a socket opened while the heartbeat's read was on its way
            return real(ids)

        monkeypatch.setattr(hub_module, "attendances", overtaken)
        await database_sync_to_async(presence_close)(match_id=gomori_match.pk, seat=0, socket="alice-tab")
        await hub().beat_slice([live])
        # Left as the newer read had it (the heartbeat's read, without Alice's socket, was not taken in).
        assert live.presence_taken == real_taken + 1 and live.presence[0].heartbeat is not None
    finally:
        live.sockets.discard(page)  # type: ignore[arg-type]
        await stop()


async def test_alone_an_opening_is_shown_without_reading_the_attendance_back_and_equals_the_read(
    ws_client: Any, gomori_match: Any, alice: Any, carol: Any, monkeypatch: Any
) -> None:
    """In one process (the in-memory layer) a socket's opening writes its row and takes what it changed (its
    seat here, one more spectator) without the two queries of the attendance; what the table shows is what a
    read would show."""
    from games.play import owner
    from games.play.hub import hub
    from games.play.owner import present_seats, shown_presence

    reads: list[int] = []
    real = owner.attendance
    monkeypatch.setattr(owner, "attendance", lambda match_id: reads.append(match_id) or real(match_id))
    ok, _, seat = await ws_client(gomori_match.pk, alice)
    assert ok
    ok, _, watcher = await ws_client(gomori_match.pk, carol)
    assert ok
    await seat.settle(0.2)
    await watcher.settle(0.2)
    live = await hub().get(gomori_match.pk)
    assert live is not None and reads == []
    presence, watchers = await database_sync_to_async(attendance)(gomori_match.pk)
    assert watchers == live.watchers == 1
    assert live.present == present_seats(presence) and 0 in live.present
    assert shown_presence(live.presence) == shown_presence(presence)
    await watcher.disconnect()
    for _ in range(50):
        if live.watchers == 0:
            break
        await asyncio.sleep(0.05)
    assert live.watchers == 0 == (await database_sync_to_async(attendance)(gomori_match.pk))[1]
