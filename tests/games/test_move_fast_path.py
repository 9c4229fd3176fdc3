"""The move fast path (services._act_warm) and the socket's page updates (rendering.SocketPage).

A process keeps the match it last moved and writes the next move with one guarded UPDATE and one INSERT.
These tests check that it reads nothing, that it writes what the slow path would, and that a copy made
stale by another process (simulated: a move, a claim or a presence change it did not make) never applies.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.db import connection
from django.template.loader import render_to_string
from django.test.utils import CaptureQueriesContext

from games import services
from games.broadcast import build_messages
from games.engines import get_engine
from games.models import Match, Move
from games.rendering import SocketPage, table_context
from games.services import MatchMovedOn, ServiceError

pytestmark = pytest.mark.django_db
ENGINE = get_engine("gomori")


def fresh(match: Match) -> Match:
    return Match.objects.get(pk=match.pk)


def next_move(match: Match) -> tuple[int, dict[str, Any], int]:
    """(seat to act, a legal action, version) read from the database."""
    match = fresh(match)
    state = ENGINE.load(match.state)
    (seat,) = ENGINE.to_act(state)
    return seat, ENGINE.legal_actions(state, seat)[-1], match.version


def play(match: Match, users: dict[int, Any]) -> int:
    seat, action, version = next_move(match)
    services.act(match_id=match.pk, user=users[seat], seat=seat, action=action, expected_version=version)
    return version + 1


def replayed(match: Match) -> dict[str, Any]:
    state = ENGINE.new_game(match.players, seed=match.seed, options=match.options)
    for move in Move.objects.filter(match=match).order_by("number"):
        state = ENGINE.apply(state, move.seat, move.action)
    return ENGINE.dump(state)


@pytest.fixture(autouse=True)
def _no_warm_copies() -> Any:
    services._warm.clear()
    yield
    services._warm.clear()


def test_a_warm_move_reads_nothing_and_writes_one_update_and_one_insert(
    gomori_match: Match, alice: Any, bob: Any
) -> None:
    users = {0: alice, 1: bob}
    play(gomori_match, users)  # the slow path, which leaves the match warm
    assert gomori_match.pk in services._warm
    seat, action, version = next_move(gomori_match)
    with CaptureQueriesContext(connection) as queries:
        services.act(match_id=gomori_match.pk, user=users[seat], seat=seat, action=action, expected_version=version)
    statements = [q["sql"].split()[0].upper() for q in queries.captured_queries]
    assert "SELECT" not in statements, queries.captured_queries
    assert statements.count("UPDATE") == 1 and statements.count("INSERT") == 1
    assert fresh(gomori_match).version == version + 1


def test_whole_games_on_the_fast_path_store_what_the_replay_gives(alice: Any, bob: Any, start_gomori: Any) -> None:
    for seed in (3, 4):
        match = start_gomori(alice, bob, seed=seed)
        users = {0: alice, 1: bob}
        while fresh(match).status == Match.Status.ACTIVE:
            play(match, users)
            stored = fresh(match)
            numbers = list(Move.objects.filter(match=match).order_by("number").values_list("number", flat=True))
            assert numbers == list(range(1, stored.version + 1))
            assert replayed(stored) == stored.state
        assert fresh(match).status == Match.Status.FINISHED  # finishing went through the slow path
        assert fresh(match).result["reason"] == "normal"


def test_a_copy_another_process_made_stale_fails_the_guard(gomori_match: Match, alice: Any, bob: Any) -> None:
    users = {0: alice, 1: bob}
    version = play(gomori_match, users)
    stale = services._warm[gomori_match.pk]
    seat, action, _ = next_move(gomori_match)
    # Another process (no warm copy of its own) makes the move.
    services._warm.clear()
    services.act(match_id=gomori_match.pk, user=users[seat], seat=seat, action=action, expected_version=version)
    # This process still holds its copy of the older position; the same move from it is refused.
    services._warm.clear()
    services._warm[gomori_match.pk] = stale
    with pytest.raises(MatchMovedOn):
        services.act(match_id=gomori_match.pk, user=users[seat], seat=seat, action=action, expected_version=version)
    match = fresh(gomori_match)
    assert match.version == version + 1 and Move.objects.filter(match=match).count() == version + 1
    assert replayed(match) == match.state


def bobs_seat_handed_to_a_bot_elsewhere(match: Match, alice: Any, bob: Any, settings: Any) -> tuple[int, Match]:
    """Black plays here, then another process (no copy of its own) hands red's absent seat to a bot:
    (the version this process's copy shows, that copy)."""
    version = play(match, {0: alice, 1: bob})  # black played: the game waits on red (Bob)
    stale = services._warm[match.pk]
    services._warm.clear()
    settings.GAMES_ABANDON_SECONDS = 0
    services.seat_disconnected(match_id=match.pk, seat=1)
    services.claim_abandoned(match_id=match.pk, user=alice, absent_seat=1, take_over_with_bot=True)
    return version, stale


def bob_is_refused(match: Match, bob: Any, version: int) -> None:
    seat, action, _ = next_move(match)
    assert seat == 1
    with pytest.raises(ServiceError, match="your own seat"):
        services.act(match_id=match.pk, user=bob, seat=1, action=action, expected_version=version)


def test_a_seat_handed_to_a_bot_elsewhere_is_not_played_from_a_stale_copy(
    gomori_match: Match, alice: Any, bob: Any, settings: Any
) -> None:
    version, stale = bobs_seat_handed_to_a_bot_elsewhere(gomori_match, alice, bob, settings)
    services._warm[gomori_match.pk] = stale  # a process that saw none of it
    bob_is_refused(gomori_match, bob, version)
    assert fresh(gomori_match).version == version


def test_presence_changes_retire_the_warm_copy(gomori_match: Match, alice: Any, bob: Any) -> None:
    play(gomori_match, {0: alice, 1: bob})
    before = fresh(gomori_match).updated_at
    for change in (services.seat_connected, services.seat_disconnected):
        services._warm[gomori_match.pk] = services._warm.get(gomori_match.pk) or fresh(gomori_match)
        change(match_id=gomori_match.pk, seat=1)
        assert gomori_match.pk not in services._warm
        assert fresh(gomori_match).updated_at > before  # so other processes' copies fail the guard
        before = fresh(gomori_match).updated_at


def test_a_heartbeat_keeps_a_current_warm_copy_up_to_date(gomori_match: Match, alice: Any, bob: Any) -> None:
    users = {0: alice, 1: bob}
    version = play(gomori_match, users)
    copy = services._warm[gomori_match.pk]
    other_processes_saw = fresh(gomori_match).updated_at
    services.seat_heartbeat(match_id=gomori_match.pk, seat=1)
    stored = fresh(gomori_match)
    assert stored.updated_at > other_processes_saw  # their copies fail the guard
    assert services._warm[gomori_match.pk] is copy and copy.updated_at == stored.updated_at
    seen = {s.index: s.last_seen for s in stored.seats.all()}
    assert {s.index: s.last_seen for s in copy.__dict__["_seats_cache"]}[1] == seen[1]
    # The next move still takes the fast path: it reads nothing.
    seat, action, _ = next_move(gomori_match)
    with CaptureQueriesContext(connection) as queries:
        services.act(match_id=gomori_match.pk, user=users[seat], seat=seat, action=action, expected_version=version)
    assert not [q for q in queries.captured_queries if q["sql"].lstrip().upper().startswith("SELECT")]
    assert replayed(fresh(gomori_match)) == fresh(gomori_match).state


def test_a_heartbeat_drops_a_copy_that_another_change_made_stale(
    gomori_match: Match, alice: Any, bob: Any, settings: Any
) -> None:
    version, stale = bobs_seat_handed_to_a_bot_elsewhere(gomori_match, alice, bob, settings)
    services._warm[gomori_match.pk] = stale
    services.seat_heartbeat(match_id=gomori_match.pk, seat=0)  # must not make the stale copy pass the guard
    assert gomori_match.pk not in services._warm
    services._warm[gomori_match.pk] = stale  # even if it were still held, its updated_at is behind the row's
    bob_is_refused(gomori_match, bob, version)


def test_an_illegal_move_on_a_warm_match_is_refused_and_changes_nothing(
    gomori_match: Match, alice: Any, bob: Any
) -> None:
    from games.engines import IllegalAction

    version = play(gomori_match, {0: alice, 1: bob})
    stored = fresh(gomori_match)
    with pytest.raises(IllegalAction):
        services.act(match_id=gomori_match.pk, user=bob, seat=1, action={"type": "play", "card": "XX", "at": [0, 0]},
                     expected_version=version)
    assert (fresh(gomori_match).version, fresh(gomori_match).state) == (version, stored.state)


# ---------------------------------------------------------------------------------------------
# The socket's page: only what changed


def seat_payload(match: Match, seat: int) -> tuple[dict[str, Any], dict[str, Any]]:
    for group, message in build_messages(fresh(match)):
        if group.endswith(f"seat-{seat}"):
            meta, view = json.loads(message["data"])
            return meta, view
    raise AssertionError("no message for that seat")


def test_updates_send_the_new_log_entries_and_only_the_fragments_that_changed(
    gomori_match: Match, alice: Any, bob: Any
) -> None:
    users = {0: alice, 1: bob}
    play(gomori_match, users)  # a log with an entry (an empty one shows "Nothing has happened yet")
    page = SocketPage()
    first = page.update(*seat_payload(gomori_match, 1), 1, {})
    for element in ('id="players"', 'id="status"', 'id="board"', 'id="hand"', 'id="log"', 'id="error"'):
        assert element in first
    seat_payload_log_before = seat_payload(gomori_match, 1)[1]["log"]
    play(gomori_match, users)
    meta, view = seat_payload(gomori_match, 1)
    update = page.update(meta, view, 1, {})
    assert 'id="board"' in update and 'id="status"' in update
    assert 'id="error"' not in update, "the error slot was empty and still is"
    # The log: only the new entries, added at the top of the list the first page drew.
    entries = re.search(r'<ol id="log-entries" hx-swap-oob="afterbegin">(.*?)</ol>', update, re.S)
    shown_before = len(seat_payload_log_before)
    assert entries and entries.group(1).count("<li>") == len(view["log"]) - shown_before >= 1
    assert 'id="log"' not in update
    # Nothing new: nothing to send.
    assert page.update(meta, view, 1, {}) == ""
    # A page drawn afresh (a reconnect) gets everything, the whole log included.
    page.reset()
    again = page.update(meta, view, 1, {})
    assert 'id="log"' in again and again.count("<li>") >= len(view["log"])


def test_a_renamed_player_gets_the_whole_log_drawn_again(gomori_match: Match, alice: Any, bob: Any) -> None:
    play(gomori_match, {0: alice, 1: bob})  # Alice's play is in the log
    page = SocketPage()
    assert "Alice" in page.update(*seat_payload(gomori_match, 1), 1, {})
    alice.display_name = "Alicia"
    alice.save()
    meta, view = seat_payload(gomori_match, 1)
    update = page.update(meta, view, 1, {})
    # Not new entries added on top of ones naming Alice: the log the page shows is replaced, as a reload has it.
    assert 'id="log"' in update and "hx-swap-oob" not in update
    log = re.search(r'<section id="log".*?</section>', update, re.S)
    assert log and "Alicia" in log.group(0) and "Alice<" not in log.group(0)


def test_the_shared_gomori_board_is_what_each_viewer_would_render(gomori_match: Match, alice: Any, bob: Any) -> None:
    play(gomori_match, {0: alice, 1: bob})
    boards = []
    for seat in (0, 1, None):
        if seat is None:
            match = fresh(gomori_match)
            meta = seat_payload(match, 0)[0]
            view = ENGINE.view(ENGINE.load(match.state), None)
        else:
            meta, view = seat_payload(gomori_match, seat)
        context = table_context(meta, view, seat, {})
        direct = render_to_string("games/match.html#board", context)
        shared = SocketPage().update(meta, view, seat, {}, fragments=("board",))
        assert shared == direct
        boards.append(direct)
    assert boards[0] == boards[1] == boards[2]
    # With a card selected the board is that seat's own (its targets), never the shared one.
    meta, view = seat_payload(gomori_match, 1)
    card = view["legal"][0]["card"]
    selected = SocketPage().update(meta, view, 1, {"card": card}, fragments=("board",))
    assert "target" in selected and selected != boards[1]
