"""One person, one board counts clocked real-time matches only: a correspondence match (days a move) is no board.
A person at a real-time board makes and accepts correspondence challenges and seeks in the correspondence row;
a person with dozens of correspondence matches is quick-paired in real time and paired by tournaments; a
correspondence pairing leaves a page at another table where it is. Each case beside its real-time counterpart,
still refused or moved, so the tests tell the two apart."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.utils import timezone
from factories import make_user

from config.asgi import application
from games import boards
from games.challenges import services as challenges
from games.models import Board, Entrant, Match, PlayerStats
from games.notify.goto import send_to_match
from games.play.clock import clock_spec
from games.play.create import create_table
from games.play.snapshot import ServiceError
from games.pool import pairing
from games.pool.display import grid
from games.tournaments import services

pytestmark = pytest.mark.django_db(transaction=True)

LIVE = clock_spec("fischer", minutes=5, increment=3)
CORRESPONDENCE = clock_spec("days", days=3)
Headers = Callable[..., list[tuple[bytes, bytes]]]


def person(name: str) -> Any:
    user = make_user(name, display_name=name.title())
    PlayerStats.objects.create(user=user, game="gomori", rating=1500)
    return user


def at_a_live_board(name: str) -> tuple[Any, Match]:
    """A person in a real-time clocked match (against a bot, which binds nobody else)."""
    user = person(name)
    return user, create_table(game="gomori", people=[user], bots=("reference",), clock=LIVE)


def test_only_a_real_time_clock_is_a_board() -> None:
    assert boards.is_clocked(LIVE) and boards.is_clocked(clock_spec("turn", turn_seconds=30))
    assert not boards.is_clocked(CORRESPONDENCE) and not boards.is_clocked({})
    pat, rosa = person("pat"), person("rosa")
    match = create_table(game="gomori", people=[pat, rosa], clock=CORRESPONDENCE)
    assert match.clock == CORRESPONDENCE and not Board.objects.exists()


def test_a_person_at_a_real_time_board_makes_and_accepts_correspondence_challenges() -> None:
    pat, live = at_a_live_board("pat")
    carol, dan = person("carol"), person("dan")
    with pytest.raises(ServiceError, match="You are playing in a match of Gomori"):
        challenges.challenge(pat, carol, game="gomori", clock="live")  # real time: still one board
    made = challenges.challenge(pat, carol, game="gomori", clock="3d")
    assert made.clock == CORRESPONDENCE
    match = challenges.accept(carol, made.pk)
    assert match.clock == {"kind": "days", "days": 3, "seconds": 259200}
    # And the other way round: Dan challenges Pat, who is still at his live board, and Pat accepts.
    incoming = challenges.challenge(dan, pat, game="rummy", clock="7d")
    assert challenges.accept(pat, incoming.pk).clock == clock_spec("days", days=7)
    assert Board.objects.get(user=pat).match_id == live.pk  # the real-time board is still the one


def test_a_person_at_a_real_time_board_seeks_and_is_paired_in_the_correspondence_row() -> None:
    pat, live = at_a_live_board("pat")
    sam = person("sam")
    with pytest.raises(ServiceError, match="You are playing in a match of Gomori"):
        pairing.seek(pat, "gomori-2-turn")
    busy = boards.why_not(pat)
    rows = {b.key: b for row in grid(pat, busy=busy) for b in row.buttons}
    corr = {b.key: b for row in grid(pat, busy=busy, correspondence=True) for b in row.buttons}
    assert rows["gomori-2-live"].refused and not rows["gomori-2-none"].refused
    assert set(corr) >= {"gomori-2-1d", "gomori-2-2d", "gomori-2-3d", "gomori-2-7d"}
    assert not any(b.refused for b in corr.values())
    assert pairing.seek(pat, "gomori-2-3d").match is None
    seated = pairing.seek(sam, "gomori-2-3d").match
    assert seated is not None and seated.clock == CORRESPONDENCE
    assert {s.user_id for s in seated.seats.all()} == {pat.pk, sam.pk}
    assert Board.objects.get(user=pat).match_id == live.pk


def test_thirty_correspondence_matches_do_not_keep_anyone_from_a_real_time_table() -> None:
    pat, rosa = person("pat"), person("rosa")
    for index in range(30):
        create_table(game="gomori", people=[pat, person(f"friend{index}")], clock=CORRESPONDENCE)
    assert Match.objects.filter(status=Match.Status.ACTIVE).count() == 30
    assert boards.why_not(pat) is None
    assert pairing.seek(pat, "gomori-2-live").match is None
    match = pairing.seek(rosa, "gomori-2-live").match
    assert match is not None and match.clock == LIVE
    assert Board.objects.get(user=pat).match_id == match.pk
    # Then that real-time board refuses a second real-time match, but not a 31st correspondence one.
    with pytest.raises(ServiceError, match="Pat is playing in a match of Gomori"):
        create_table(game="gomori", people=[pat, person("tom")], clock=LIVE)
    create_table(game="gomori", people=[pat, person("uma")], clock=CORRESPONDENCE)


def test_correspondence_matches_elsewhere_pause_no_one_in_a_tournament() -> None:
    staff = make_user("staff", is_staff=True)
    t = services.create_tournament(creator=staff, kind="arena", game="gomori", clock_key="5+3", minutes=30,
                                   starts_at=timezone.now(), table_size=2)
    ann, ben = person("ann"), person("ben")
    create_table(game="gomori", people=[ann, person("zed")], clock=CORRESPONDENCE)
    for user in (ann, ben):
        services.join(tournament_id=t.pk, user=user)
    services.tick()
    assert Entrant.objects.get(tournament=t, user=ann).match is not None


def test_a_correspondence_swiss_seats_someone_at_a_real_time_board_elsewhere() -> None:
    staff = make_user("staff", is_staff=True)
    t = services.create_tournament(creator=staff, kind="swiss", game="gomori", clock_key="3d", rounds=3,
                                   starts_at=timezone.now(), table_size=2)
    ann, ben = person("ann"), person("ben")
    dan, live = at_a_live_board("dan")
    cat = person("cat")
    for user in (ann, ben, cat, dan):
        services.join(tournament_id=t.pk, user=user)
    services.tick()
    seated = Entrant.objects.get(tournament=t, user=dan).match
    assert seated is not None and seated.clock == CORRESPONDENCE
    assert Board.objects.get(user=dan).match_id == live.pk


@pytest.mark.parametrize(("clock", "moved"), [(LIVE, True), (CORRESPONDENCE, False)], ids=["live", "days"])
async def test_a_correspondence_pairing_leaves_a_page_at_another_table_where_it_is(
    ws_headers: Headers, clock: dict[str, Any], moved: bool
) -> None:
    alice, bob = await sync_to_async(person)("alice"), await sync_to_async(person)("bob")
    elsewhere = await sync_to_async(create_table)(game="gomori", people=[alice], bots=("random",))
    headers = await sync_to_async(ws_headers)(alice)
    at_table = WebsocketCommunicator(application, f"/ws/notify/?here={elsewhere.pk}", headers=headers)
    lobby = WebsocketCommunicator(application, "/ws/notify/", headers=headers)
    for socket in (at_table, lobby):
        connected, _ = await socket.connect()
        assert connected
        assert await socket.receive_nothing(timeout=0.3)
    match = await sync_to_async(create_table)(game="gomori", people=[alice, bob], clock=clock)
    await sync_to_async(send_to_match)(match, [alice.pk])
    go = f'data-go="{match.get_absolute_url()}"'
    assert any(go in frame for frame in await frames(lobby))
    assert any(go in frame for frame in await frames(at_table)) is moved
    for socket in (at_table, lobby):
        await socket.disconnect()


async def frames(socket: WebsocketCommunicator) -> list[str]:
    """Every frame the socket gets until it has been quiet half a second (turn cues come too)."""
    got = []
    while not await socket.receive_nothing(timeout=0.5):
        got.append(str(await socket.receive_from(timeout=1)))
    return got
