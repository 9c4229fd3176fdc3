"""The match services: every change of a live match, written with the version as the only fence."""

from __future__ import annotations

import asyncio
import random
import threading
from collections.abc import Callable
from datetime import timedelta
from functools import partial
from typing import Any

import playing
import pytest
from channels.db import database_sync_to_async
from django.conf import settings as django_settings
from django.db import connection, connections
from django.utils import timezone
from openings import opened_on_turn, play_openings

from games.engines import IllegalAction, get_engine
from games.models import Match, Move, PlayerResult, Presence, Seat
from games.play import scheduler, sync
from games.play.bot_accounts import bot_user
from games.play.create import SeatSpec, create_match
from games.play.scheduler import due_bot_matches
from games.play.snapshot import MatchMovedOn, ServiceError

pytestmark = pytest.mark.django_db

ENGINE = get_engine("gomori")
SEED = 20240611  # as in conftest: the seed of the gomori_match fixture


# ---------------------------------------------------------------------------------------------
# Helpers


def fresh(match: Match) -> Match:
    return Match.objects.get(pk=match.pk)


def state_of(match: Match) -> Any:
    return ENGINE.load(fresh(match).state)


def replayed(match: Match) -> dict[str, Any]:
    """The engine's replay of the match's seed, options and recorded moves, dumped."""
    state = ENGINE.new_game(match.players, seed=match.seed, options=match.options)
    for move in Move.objects.filter(match=match).order_by("number"):
        state = ENGINE.apply(state, move.seat, move.action)
    return ENGINE.dump(state)


def assert_replay_equals_stored(match: Match) -> None:
    match = fresh(match)
    numbers = list(Move.objects.filter(match=match).order_by("number").values_list("number", flat=True))
    assert numbers == list(range(1, match.move_count + 1)), "moves are numbered 1..move_count without gaps"
    assert replayed(match) == match.state


def the_only_seat_to_act(match: Match) -> int:
    (seat,) = ENGINE.to_act(state_of(match))
    return seat


def play_to_empty_cell(match: Match, user: Any) -> dict[str, Any]:
    """The seat to act plays a card onto an empty cell (which ends its turn); returns the action."""
    match = fresh(match)
    seat = the_only_seat_to_act(match)
    state = ENGINE.load(match.state)
    occupied = {tuple(f["at"]) for f in ENGINE.view(state, seat)["field"]}
    action = next(a for a in ENGINE.legal_actions(state, seat) if tuple(a["at"]) not in occupied)
    playing.act(match_id=match.pk, user=user, seat=seat, action=action, expected_version=match.version)
    return action


def set_presence(match: Match, index: int, *, connections: int, seconds_ago: float) -> None:
    """A seat's presence: `connections` sockets open for it (a Presence row each) whose last heartbeat was
    `seconds_ago`, and the seat's last sign of life (its socket opening, or its last one closing) then too."""
    seen = timezone.now() - timedelta(seconds=seconds_ago)
    Presence.objects.filter(match=match, seat=index).delete()
    Presence.objects.bulk_create(
        Presence(socket=f"test-socket-{match.pk}-{index}-{n}", match=match, seat=index, last_seen=seen)
        for n in range(connections)
    )
    Seat.objects.filter(match=match, index=index).update(last_seen=seen)


def waiting_since(match: Match, seconds_ago: float) -> None:
    """The game has been waiting on its current decision this long."""
    Match.objects.filter(pk=match.pk).update(turn_started_at=timezone.now() - timedelta(seconds=seconds_ago))


def away_on_their_turn(match: Match, index: int, *, seconds: float, connections: int = 0) -> None:
    """The seat to act has shown no sign of life for `seconds`, all of them on its turn."""
    waiting_since(match, seconds + 1)
    set_presence(match, index, connections=connections, seconds_ago=seconds)


def make_bot_vs_bot(alice: Any, black: str, red: str, seed: int = SEED) -> Match:
    """A Gomori match between two bots, created by Alice, who only watches: a bot takes her seat 0."""
    return create_match(creator=alice, game="gomori", players=2, seats=[SeatSpec("bot", red)], seed=seed,
                                 first_seat_bot=black)


def run_threads(targets: list[Callable[[], Any]]) -> list[tuple[str, Any]]:
    """Run the callables in real threads released together by a barrier; ("ok", value) or ("error", exc) each."""
    barrier = threading.Barrier(len(targets))
    results: list[tuple[str, Any]] = [("missing", None)] * len(targets)

    def run(i: int, target: Callable[[], Any]) -> None:
        try:
            barrier.wait(timeout=10)
            results[i] = ("ok", target())
        except Exception as error:  # recorded and checked by the test
            results[i] = ("error", error)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i, t)) for i, t in enumerate(targets)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert not any(thread.is_alive() for thread in threads)
    return results


# ---------------------------------------------------------------------------------------------
# create, join, leave


def test_create_waits_for_the_open_seat(alice: Any) -> None:
    match = create_match(creator=alice, game="gomori", players=2, seats=[SeatSpec("open")], seed=SEED)
    match = fresh(match)
    assert match.status == Match.Status.WAITING
    assert match.state is None
    assert match.seed == SEED
    assert [(s.index, s.user_id) for s in match.seats.all()] == [(0, alice.pk), (1, None)]


def test_join_fills_the_last_seat_and_deals_from_the_seed(alice: Any, bob: Any, start_gomori: Any) -> None:
    match = start_gomori(alice, bob)
    match = fresh(match)
    assert match.status == Match.Status.ACTIVE
    assert (match.version, match.move_count) == (1, 0)  # created at 0, moved on once by the join that dealt
    assert match.started_at is not None
    assert match.state == ENGINE.dump(ENGINE.new_game(2, seed=SEED))
    assert [s.user_id for s in match.seats.all()] == [alice.pk, bob.pk]
    assert match.bot_due_at is None  # no bot seated


def test_create_with_a_bot_starts_at_once(alice: Any) -> None:
    match = create_match(
        creator=alice, game="gomori", players=2, seats=[SeatSpec("bot", "reference")], seed=SEED
    )
    match = fresh(match)
    assert match.status == Match.Status.ACTIVE
    bot_seat = match.seats.get(index=1)
    assert bot_seat.user.is_bot and bot_seat.user.bot_level == "reference"
    assert match.bot_due_at is None  # black (Alice) begins


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"game": "chess"}, "four games"),
        ({"players": 3, "seats": [SeatSpec("open"), SeatSpec("open")]}, "2 to 2 players"),
        ({"seats": []}, "each other seat"),
        ({"seats": [SeatSpec("robot")]}, "open, by invitation, or a bot"),
        ({"seats": [SeatSpec("bot", "grandmaster")]}, "no grandmaster bot"),
    ],
)
def test_create_refuses_what_cannot_be_played(alice: Any, kwargs: dict[str, Any], message: str) -> None:
    arguments = {"creator": alice, "game": "gomori", "players": 2, "seats": [SeatSpec("open")], **kwargs}
    with pytest.raises(ServiceError, match=message):
        create_match(**arguments)
    assert Match.objects.count() == 0


def test_bots_do_not_create_matches() -> None:
    bot = bot_user("gomori", "random")
    with pytest.raises(ServiceError, match="Bots don't create"):
        create_match(creator=bot, game="gomori", players=2, seats=[SeatSpec("open")])


def test_join_refusals(alice: Any, bob: Any, carol: Any) -> None:

    match = create_match(creator=alice, game="gomori", players=2, seats=[SeatSpec("open")])
    with pytest.raises(ServiceError, match="already have a seat"):
        playing.join(match_id=match.pk, user=alice)
    with pytest.raises(ServiceError, match="no such match"):
        playing.join(match_id=match.pk + 1000, user=bob)
    playing.join(match_id=match.pk, user=bob)
    with pytest.raises(ServiceError, match="no longer waiting"):
        playing.join(match_id=match.pk, user=carol)


def test_private_match_and_invite_seat_need_the_code(alice: Any, bob: Any, carol: Any) -> None:
    private = create_match(
        creator=alice, game="gomori", players=2, seats=[SeatSpec("open")], is_public=False
    )
    for wrong in (None, "", "not-the-code"):
        with pytest.raises(ServiceError, match="private"):
            playing.join(match_id=private.pk, user=bob, invite_code=wrong)
    playing.join(match_id=private.pk, user=bob, invite_code=private.invite_code)
    assert fresh(private).status == Match.Status.ACTIVE

    invite = create_match(creator=alice, game="gomori", players=2, seats=[SeatSpec("invite")])
    with pytest.raises(ServiceError, match="no free seat"):
        playing.join(match_id=invite.pk, user=carol)
    playing.join(match_id=invite.pk, user=carol, invite_code=invite.invite_code)
    assert fresh(invite).seats.get(index=1).user_id == carol.pk


def test_leave_frees_the_seat_and_the_creator_leaving_cancels(alice: Any, bob: Any) -> None:
    match = create_match(creator=alice, game="gomori", players=2, seats=[SeatSpec("invite")])
    playing.join(match_id=match.pk, user=bob, invite_code=match.invite_code)
    # Bob joined the last seat, so the match started: leaving is no longer possible.
    with pytest.raises(ServiceError, match="resign instead"):
        playing.leave(match_id=match.pk, user=bob)

    match = create_match(
        creator=alice, game="gomori", players=2, seats=[SeatSpec("open")]
    )
    Seat.objects.filter(match=match, index=1).update(user=bob)  # a seat taken, the match still waiting
    playing.leave(match_id=match.pk, user=bob)
    assert fresh(match).seats.get(index=1).user is None
    playing.leave(match_id=match.pk, user=alice)
    match = fresh(match)
    assert match.status == Match.Status.ABORTED
    assert match.result["reason"] == "cancelled"


@pytest.mark.django_db(transaction=True)
def test_two_people_racing_for_the_last_seat(alice: Any, bob: Any, carol: Any) -> None:
    match = create_match(creator=alice, game="gomori", players=2, seats=[SeatSpec("open")], seed=SEED)
    results = run_threads([partial(playing.join, match_id=match.pk, user=user) for user in (bob, carol)])
    kinds = sorted(kind if kind == "ok" else str(value) for kind, value in results)
    assert kinds == ["This match is no longer waiting for players.", "ok"], results
    match = fresh(match)
    assert match.status == Match.Status.ACTIVE
    assert match.seats.get(index=1).user_id in (bob.pk, carol.pk)


# ---------------------------------------------------------------------------------------------
# act


def test_act_applies_appends_the_move_and_saves_the_state(gomori_match: Match, alice: Any) -> None:
    version = fresh(gomori_match).version
    before = state_of(gomori_match)
    action = ENGINE.legal_actions(before, 0)[2]
    playing.act(match_id=gomori_match.pk, user=alice, seat=0, action=action, expected_version=version)
    match = fresh(gomori_match)
    assert (match.version, match.move_count) == (version + 1, 1)
    (move,) = Move.objects.filter(match=match)
    assert (move.number, move.seat, move.action) == (1, 0, action)
    assert match.state == ENGINE.dump(ENGINE.apply(before, 0, action))


@pytest.mark.parametrize(
    "action",
    [
        {"type": "play", "card": "5D", "at": [0, 0]},  # a red card: not in black's hand
        {"type": "play", "card": "AC", "at": [3, 3]},  # the first card goes on [0, 0]
        {"type": "pass"},
        {"type": "play", "card": "AC", "at": [0, 0], "extra": 1},
        {"type": "play", "card": ["AC"], "at": "0,0"},
        None,
        [],
        "play",
        7,
    ],
)
def test_illegal_or_malformed_action_changes_nothing(gomori_match: Match, alice: Any, action: Any) -> None:
    before = fresh(gomori_match)
    with pytest.raises(IllegalAction):
        playing.act(match_id=before.pk, user=alice, seat=0, action=action, expected_version=before.version)
    after = fresh(before)
    assert (after.version, after.move_count, after.state, Move.objects.count()) == (
        before.version, 0, before.state, 0)


@pytest.mark.parametrize("error", [KeyError, TypeError, ValueError, IndexError, AttributeError])
def test_an_action_the_engine_cannot_read_is_refused_as_one_it_does_not_know(
    gomori_match: Match, alice: Any, error: type[Exception], monkeypatch: pytest.MonkeyPatch
) -> None:
    """An engine whose own checks missed an action's odd shape fails on it in its code: the decider refuses it as
    an illegal action (the one refusal every caller shows, the table's socket and the Bot API), nothing written."""
    real = ENGINE.apply

    def unreadable(state: Any, seat: int, action: Any) -> Any:
        if isinstance(action, dict) and "odd" in action:
            raise error("the engine tripped over it")
        return real(state, seat, action)

    monkeypatch.setattr(ENGINE, "apply", unreadable)
    before = fresh(gomori_match)
    action = {**ENGINE.legal_actions(state_of(gomori_match), 0)[0], "odd": [None]}
    with pytest.raises(IllegalAction, match="That move is not one the game knows"):
        playing.act(match_id=before.pk, user=alice, seat=0, action=action, expected_version=before.version)
    after = fresh(before)
    assert (after.version, after.move_count, after.state) == (before.version, 0, before.state)


def test_only_the_seat_holder_acts_for_a_seat(gomori_match: Match, alice: Any, bob: Any, carol: Any) -> None:
    from django.contrib.auth.models import AnonymousUser

    version = fresh(gomori_match).version
    action = ENGINE.legal_actions(state_of(gomori_match), 0)[0]
    for user, seat in [(bob, 0), (carol, 0), (AnonymousUser(), 0), (alice, 1), (alice, 7)]:
        with pytest.raises(ServiceError, match="your own seat"):
            playing.act(match_id=gomori_match.pk, user=user, seat=seat, action=action)
    # Bob acting for his own seat out of turn is the engine's call.
    with pytest.raises(IllegalAction, match="not your turn"):
        playing.act(match_id=gomori_match.pk, user=bob, seat=1, action=action)
    assert (fresh(gomori_match).version, Move.objects.count()) == (version, 0)


def test_a_stale_version_is_told_the_game_moved_on(gomori_match: Match, alice: Any) -> None:
    version = fresh(gomori_match).version
    action = ENGINE.legal_actions(state_of(gomori_match), 0)[0]
    for stale in (version - 1, version + 1, -1, 99):
        with pytest.raises(MatchMovedOn, match="moved on"):
            playing.act(match_id=gomori_match.pk, user=alice, seat=0, action=action, expected_version=stale)
    assert (fresh(gomori_match).version, Move.objects.count()) == (version, 0)
    playing.act(match_id=gomori_match.pk, user=alice, seat=0, action=action, expected_version=version)
    assert (fresh(gomori_match).version, fresh(gomori_match).move_count) == (version + 1, 1)


def test_act_needs_a_match_in_progress(alice: Any, bob: Any) -> None:
    waiting = create_match(creator=alice, game="gomori", players=2, seats=[SeatSpec("open")])
    with pytest.raises(ServiceError, match="not in progress"):
        playing.act(match_id=waiting.pk, user=alice, seat=0, action={"type": "play", "card": "AC", "at": [0, 0]})


def test_broadcast_happens_after_commit_only(
    gomori_match: Match, alice: Any, monkeypatch: pytest.MonkeyPatch, django_capture_on_commit_callbacks: Any
) -> None:
    sent: list[tuple[int, int]] = []
    monkeypatch.setattr(sync, "publish", lambda snap, before=None: sent.append((snap.id, snap.version)))
    version = fresh(gomori_match).version
    action = ENGINE.legal_actions(state_of(gomori_match), 0)[0]
    illegal = {"type": "play", "card": "5D", "at": [0, 0]}
    with django_capture_on_commit_callbacks(execute=False) as refused, pytest.raises(IllegalAction):
        playing.act(match_id=gomori_match.pk, user=alice, seat=0, action=illegal)
    assert refused == [] and sent == []  # a refused action publishes nothing
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        playing.act(match_id=gomori_match.pk, user=alice, seat=0, action=action, expected_version=version)
        assert sent == []  # nothing is sent inside the transaction
    assert len(callbacks) == 1
    assert sent == []
    callbacks[0]()
    assert sent == [(gomori_match.pk, version + 1)]  # the version the move made


@pytest.mark.django_db(transaction=True)
def test_two_racing_actions_on_one_version_only_one_applies(alice: Any, bob: Any, start_gomori: Any) -> None:
    match = start_gomori(alice, bob)
    for round_ in range(3):
        match = fresh(match)
        seat = the_only_seat_to_act(match)
        user = alice if seat == 0 else bob
        state = ENGINE.load(match.state)
        legal = ENGINE.legal_actions(state, seat)
        first, second = legal[0], legal[-1]
        assert first != second
        version, moves = match.version, match.move_count
        attempts = [
            partial(playing.act, match_id=match.pk, user=user, seat=seat, action=action, expected_version=version)
            for action in (first, second)
        ]
        results = run_threads(attempts)
        kinds = sorted("ok" if kind == "ok" else type(value).__name__ for kind, value in results)
        assert kinds == ["MatchMovedOn", "ok"], (round_, results)
        winner = first if results[0][0] == "ok" else second
        match = fresh(match)
        assert (match.version, match.move_count) == (version + 1, moves + 1)
        assert Move.objects.filter(match=match).count() == moves + 1
        assert match.state == ENGINE.dump(ENGINE.apply(state, seat, winner))
        assert_replay_equals_stored(match)


# ---------------------------------------------------------------------------------------------
# resign


def test_resign_ends_the_match_for_the_others(gomori_match: Match, alice: Any, bob: Any, carol: Any) -> None:
    play_to_empty_cell(gomori_match, alice)
    with pytest.raises(ServiceError, match="no seat"):
        playing.resign(match_id=gomori_match.pk, user=carol)
    # Bob has not moved yet: the match can be aborted, not resigned.
    with pytest.raises(ServiceError, match="abort the match instead"):
        playing.resign(match_id=gomori_match.pk, user=alice)
    play_to_empty_cell(gomori_match, bob)
    play_to_empty_cell(gomori_match, alice)
    # Alice resigns while the game waits on Bob: resigning is always possible once everyone has moved.
    playing.resign(match_id=gomori_match.pk, user=alice)
    match = fresh(gomori_match)
    assert match.status == Match.Status.FINISHED
    assert match.finished_at is not None
    assert match.result["reason"] == "resign"
    assert (match.result["winners"], match.result["loser"], match.result["draw"]) == ([1], 0, False)
    assert [(s.index, s.place) for s in match.seats.all()] == [(0, 2), (1, 1)]
    with pytest.raises(ServiceError, match="not in progress"):
        playing.resign(match_id=match.pk, user=bob)
    with pytest.raises(ServiceError, match="not in progress"):
        play_to_empty_cell(match, bob)


# ---------------------------------------------------------------------------------------------
# claim an abandoned match


def test_claim_is_refused_before_the_wait_is_over(gomori_match: Match, alice: Any, bob: Any) -> None:
    # Alice is to act, has never connected, joined just now.
    with pytest.raises(ServiceError, match=r"Alice may still come back: you can claim in \d+ s\.") as refused:
        playing.claim(match_id=gomori_match.pk, user=bob, absent_seat=0)
    seconds = int(str(refused.value).split("claim in ")[1].split(" ")[0])
    assert 55 <= seconds <= 60
    # Away for 20 seconds of her turn: 40 left.
    away_on_their_turn(gomori_match, 0, seconds=20)
    with pytest.raises(ServiceError, match=r"claim in (39|40|41) s"):
        playing.claim(match_id=gomori_match.pk, user=bob, absent_seat=0, take_over_with_bot=True)
    # Connected, with a fresh heartbeat, however long the turn has lasted: not claimable.
    waiting_since(gomori_match, 3600)
    set_presence(gomori_match, 0, connections=1, seconds_ago=5)
    with pytest.raises(ServiceError, match="may still come back"):
        playing.claim(match_id=gomori_match.pk, user=bob, absent_seat=0)
    match = fresh(gomori_match)
    assert match.status == Match.Status.ACTIVE
    assert match.seats.get(index=0).user_id == alice.pk


def test_claim_refusals(gomori_match: Match, alice: Any, bob: Any, carol: Any) -> None:
    away_on_their_turn(gomori_match, 0, seconds=300)
    set_presence(gomori_match, 1, connections=0, seconds_ago=300)
    with pytest.raises(ServiceError, match="Only players"):
        playing.claim(match_id=gomori_match.pk, user=carol, absent_seat=0)
    with pytest.raises(ServiceError, match="can't be claimed"):
        playing.claim(match_id=gomori_match.pk, user=alice, absent_seat=0)
    for nonsense in (2, -1, 10**30):
        with pytest.raises(ServiceError, match="can't be claimed"):
            playing.claim(match_id=gomori_match.pk, user=alice, absent_seat=nonsense)
    # Bob is away too, but the game waits on Alice, not on him.
    with pytest.raises(ServiceError, match="not waiting on that player"):
        playing.claim(match_id=gomori_match.pk, user=alice, absent_seat=1)
    assert fresh(gomori_match).status == Match.Status.ACTIVE


def test_claim_the_win_after_sixty_seconds_away(gomori_match: Match, bob: Any) -> None:
    gomori_match = opened_on_turn(gomori_match, 0)
    away_on_their_turn(gomori_match, 0, seconds=61)
    playing.claim(match_id=gomori_match.pk, user=bob, absent_seat=0)
    match = fresh(gomori_match)
    assert match.status == Match.Status.FINISHED
    assert match.result["reason"] == "abandon"
    assert (match.result["winners"], match.result["loser"]) == ([1], 0)


def test_the_wait_counts_only_while_the_game_waits_on_the_absent_player(
    gomori_match: Match, alice: Any, bob: Any
) -> None:
    # Bob left five minutes ago, during Alice's long turn; his own turn starts only now.
    gomori_match = opened_on_turn(gomori_match, 0)
    waiting_since(gomori_match, 600)
    set_presence(gomori_match, 1, connections=0, seconds_ago=300)
    gomori_match = opened_on_turn(gomori_match, 1)
    with pytest.raises(ServiceError, match=r"Bob may still come back: you can claim in (59|60) s"):
        playing.claim(match_id=gomori_match.pk, user=alice, absent_seat=1)
    waiting_since(gomori_match, 61)
    playing.claim(match_id=gomori_match.pk, user=alice, absent_seat=1)
    match = fresh(gomori_match)
    assert (match.result["reason"], match.result["winners"]) == ("abandon", [0])


def test_a_player_away_before_their_first_move_aborts_the_match_unrated(gomori_match: Match, bob: Any) -> None:
    """lichess's rule: away from the start, nobody loses: the match is aborted, unrated, in nobody's history."""
    away_on_their_turn(gomori_match, 0, seconds=61)
    playing.claim(match_id=gomori_match.pk, user=bob, absent_seat=0)
    match = fresh(gomori_match)
    assert match.status == Match.Status.ABORTED
    assert (match.result["reason"], match.result["why"], match.result["absent"]) == ("aborted", "away", 0)
    assert not PlayerResult.objects.filter(match=match).exists()


def test_a_stale_heartbeat_counts_as_away(gomori_match: Match, bob: Any) -> None:
    # A socket counted as open whose heartbeats stopped (its server process died): away.
    gomori_match = opened_on_turn(gomori_match, 0)
    away_on_their_turn(gomori_match, 0, seconds=61, connections=1)
    playing.claim(match_id=gomori_match.pk, user=bob, absent_seat=0)
    assert fresh(gomori_match).result["reason"] == "abandon"


def test_hand_an_abandoned_seat_to_a_bot(gomori_match: Match, alice: Any, bob: Any, settings: Any) -> None:
    settings.GAMES_BOT_DELAY = 0
    gomori_match = opened_on_turn(gomori_match, 0)
    moves = gomori_match.move_count
    away_on_their_turn(gomori_match, 0, seconds=61)
    playing.claim(match_id=gomori_match.pk, user=bob, absent_seat=0, take_over_with_bot=True)
    match = fresh(gomori_match)
    assert match.status == Match.Status.ACTIVE
    seat = match.seats.get(index=0)
    # The seat keeps who sat there; the bot plays it, on the record from the next move.
    assert seat.user_id == alice.pk and seat.substitute.is_bot and seat.substitute.bot_game == "gomori"
    assert [(h["seat"], h["move"], h["why"]) for h in match.handovers] == [(0, moves + 1, "away")]
    assert (match.pk, match.version) in due_bot_matches()
    assert playing.bot_turn(match_id=match.pk, expected_version=match.version)
    move = Move.objects.get(match=match, number=moves + 1)
    assert move.seat == 0 and move.note
    with pytest.raises(ServiceError, match="your own seat"):
        playing.act(match_id=match.pk, user=alice, seat=0, action={"type": "play", "card": "AC", "at": [0, 1]})
    match = opened_on_turn(match, 1)  # the bot may play again before it is Bob's turn
    play_to_empty_cell(match, bob)
    # Bob resigns: the bot in Alice's seat does not win for her; she left, which is a loss too.
    playing.resign(match_id=match.pk, user=bob)
    match = fresh(match)
    assert (match.result["reason"], match.result["left"], match.result["winners"]) == ("resign", [0], [])
    assert [(s.index, s.user_id) for s in match.seats.all()] == [(0, alice.pk), (1, bob.pk)]


# ---------------------------------------------------------------------------------------------
# rematch


def test_rematch_rotates_seats_with_a_new_seed(gomori_match: Match, alice: Any, bob: Any, carol: Any) -> None:
    with pytest.raises(ServiceError, match="once the match is over"):
        playing.rematch(match_id=gomori_match.pk, user=alice)
    play_openings(gomori_match)
    playing.resign(match_id=gomori_match.pk, user=bob)
    with pytest.raises(ServiceError, match="Only players"):
        playing.rematch(match_id=gomori_match.pk, user=carol)
    assert playing.rematch(match_id=gomori_match.pk, user=alice) is None
    assert playing.rematch(match_id=gomori_match.pk, user=alice) is None
    assert fresh(gomori_match).rematch_votes == [0]
    assert Match.objects.count() == 1

    rematch = playing.rematch(match_id=gomori_match.pk, user=bob)
    assert rematch is not None
    rematch = fresh(rematch)
    old = fresh(gomori_match)
    assert old.rematch_id == rematch.pk
    assert rematch.status == Match.Status.ACTIVE
    assert [s.user_id for s in rematch.seats.all()] == [bob.pk, alice.pk]  # Bob now plays black and begins
    assert rematch.seed != old.seed
    assert rematch.state == ENGINE.dump(ENGINE.new_game(2, seed=rematch.seed))
    assert (rematch.game, rematch.players, rematch.is_public, rematch.rated) == ("gomori", 2, True, True)
    # Asking again leads to the same rematch, not a third match.
    assert playing.rematch(match_id=old.pk, user=alice).pk == rematch.pk
    assert Match.objects.count() == 2
    # And it can be played: Bob is to act.
    play_to_empty_cell(rematch, bob)
    assert (fresh(rematch).version, fresh(rematch).move_count) == (rematch.version + 1, 1)


@pytest.mark.django_db(transaction=True)
def test_both_asking_for_a_rematch_at_once_makes_one(alice: Any, bob: Any, start_gomori: Any) -> None:
    match = play_openings(start_gomori(alice, bob))
    playing.resign(match_id=match.pk, user=alice)
    results = run_threads([partial(playing.rematch, match_id=match.pk, user=user) for user in (alice, bob)])
    assert [kind for kind, _ in results] == ["ok", "ok"], results
    rematches = {value.pk for _, value in results if value is not None}
    assert Match.objects.count() == 2
    assert rematches == {fresh(match).rematch_id}


def test_rematch_against_a_bot_starts_with_the_bot(alice: Any, settings: Any) -> None:
    settings.GAMES_BOT_DELAY = 0
    match = play_openings(create_match(creator=alice, game="gomori", players=2,
                                                seats=[SeatSpec("bot", "random")]))
    playing.resign(match_id=match.pk, user=alice)
    rematch = playing.rematch(match_id=match.pk, user=alice)  # the bot needs no asking
    assert rematch is not None
    rematch = fresh(rematch)
    assert rematch.seats.get(index=0).user.is_bot
    assert rematch.seats.get(index=1).user_id == alice.pk
    assert rematch.bot_due_at is not None
    assert playing.bot_turn(match_id=rematch.pk, expected_version=rematch.version)
    assert Move.objects.get(match=rematch, number=1).seat == 0


# ---------------------------------------------------------------------------------------------
# bots


def test_a_bot_answers_once_its_turn_is_due(alice: Any, settings: Any) -> None:
    settings.GAMES_BOT_DELAY = 0
    match = create_match(
        creator=alice, game="gomori", players=2, seats=[SeatSpec("bot", "reference")], seed=SEED
    )
    assert due_bot_matches() == []
    play_to_empty_cell(match, alice)
    match = fresh(match)
    assert the_only_seat_to_act(match) == 1
    version = match.version
    assert due_bot_matches() == [(match.pk, version)]
    # A stale or future version does nothing.
    for wrong in (version - 1, version + 1):
        assert playing.bot_turn(match_id=match.pk, expected_version=wrong) is False
    assert (fresh(match).version, fresh(match).move_count) == (version, 1)
    assert playing.bot_turn(match_id=match.pk, expected_version=version) is True
    assert fresh(match).version == version + 1
    move = Move.objects.get(match=match, number=2)
    assert move.seat == 1 and move.note
    # The same request again (a second process with the old version) is harmless.
    assert playing.bot_turn(match_id=match.pk, expected_version=version) is False
    assert Move.objects.filter(match=match).count() == 2
    assert_replay_equals_stored(match)


def test_a_bot_moves_within_a_second_or_so_of_its_turn(alice: Any) -> None:
    assert django_settings.GAMES_BOT_DELAY <= 1.5
    match = create_match(creator=alice, game="gomori", players=2, seats=[SeatSpec("bot", "random")])
    play_to_empty_cell(match, alice)
    match = fresh(match)
    wait = match.bot_due_at - match.turn_started_at
    assert timedelta(0) <= wait <= timedelta(seconds=1.5)
    if timezone.now() < match.bot_due_at:  # not yet due: asking early does nothing, and leaves it due
        assert playing.bot_turn(match_id=match.pk, expected_version=match.version) is False
        assert fresh(match).bot_due_at == match.bot_due_at


@pytest.mark.django_db(transaction=True)
def test_racing_bot_runners_move_the_bot_exactly_once(alice: Any, settings: Any) -> None:
    settings.GAMES_BOT_DELAY = 0
    match = create_match(creator=alice, game="gomori", players=2, seats=[SeatSpec("bot", "reference")])
    play_to_empty_cell(match, alice)
    version = fresh(match).version
    results = run_threads([lambda: playing.bot_turn(match_id=match.pk, expected_version=version)] * 3)
    assert [kind for kind, _ in results] == ["ok"] * 3, results
    assert sorted(value for _, value in results) == [False, False, True]
    assert Move.objects.filter(match=match).count() == 2


@pytest.mark.django_db(transaction=True)
def test_the_bot_runner_plays_due_bots_with_nobody_connected(alice: Any, settings: Any) -> None:
    settings.GAMES_BOT_DELAY = 0
    match = create_match(creator=alice, game="gomori", players=2, seats=[SeatSpec("bot", "reference")])
    play_to_empty_cell(match, alice)

    async def run_until_idle() -> int:
        total = 0
        try:
            # A bot's turn can be a chain of plays, and a person who can't play passes automatically,
            # so the bot may move many times before the game waits on Alice again.
            for _ in range(60):
                moved = await scheduler.run_due_bots()
                if not moved:
                    return total
                total += moved
            raise AssertionError("the bot kept moving")
        finally:  # connections persist: close the worker thread's, or PostgreSQL can't drop the test database
            await database_sync_to_async(connections.close_all)()

    assert asyncio.run(run_until_idle()) >= 1
    match = fresh(match)
    assert the_only_seat_to_act(match) == 0  # back to Alice
    assert match.bot_due_at is None
    assert Move.objects.filter(match=match, seat=1).count() >= 1


def test_bot_against_bot_plays_to_the_end(alice: Any, settings: Any) -> None:
    settings.GAMES_BOT_DELAY = 0
    match = make_bot_vs_bot(alice, black="search", red="reference")
    assert fresh(match).status == Match.Status.ACTIVE
    assert [(s.user.is_bot, s.user.bot_level) for s in fresh(match).seats.all()] == [(True, "search"),
                                                                                      (True, "reference")]
    for _ in range(200):
        due = due_bot_matches()
        if not due:
            break
        assert due == [(match.pk, fresh(match).version)]
        assert playing.bot_turn(match_id=match.pk, expected_version=due[0][1]) is True
        assert_replay_equals_stored(match)
    match = fresh(match)
    assert match.status == Match.Status.FINISHED
    state = ENGINE.load(match.state)
    assert ENGINE.is_over(state)
    expected = ENGINE.result(state)
    places = [1, 1] if expected["draw"] else [1, 2] if expected["winners"] == [0] else [2, 1]
    assert match.result == {**expected, "places": places, "reason": "normal"}
    assert [s.final_score for s in match.seats.all()] == expected["scores"]
    assert all(move.note for move in Move.objects.filter(match=match))


# ---------------------------------------------------------------------------------------------
# replay: the stored state is always the engine's replay of seed + options + moves


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_stored_state_equals_replay_after_every_move_of_whole_games(
    alice: Any, bob: Any, start_gomori: Any, seed: int
) -> None:
    match = start_gomori(alice, bob, seed=seed)
    rng = random.Random(seed)
    users = {0: alice, 1: bob}
    for _ in range(200):
        match = fresh(match)
        if match.status != Match.Status.ACTIVE:
            break
        seat = the_only_seat_to_act(match)
        action = rng.choice(ENGINE.legal_actions(ENGINE.load(match.state), seat))
        playing.act(match_id=match.pk, user=users[seat], seat=seat, action=action, expected_version=match.version)
        assert_replay_equals_stored(match)
    match = fresh(match)
    assert match.status == Match.Status.FINISHED
    result = ENGINE.result(ENGINE.load(match.state))
    # The stored result is the engine's, with how it ended and what it did to the two people's ratings.
    ratings = match.result.pop("ratings")
    places = match.result.pop("places")  # the places every seat's result is read from (games.results)
    assert places == [seat.place for seat in match.seats.order_by("index")]
    assert places == ([1, 1] if result["draw"] else [1, 2] if result["winners"] == [0] else [2, 1])
    assert match.result == {**result, "reason": "normal"}
    assert [r["seat"] for r in ratings] == [0, 1]
    seats = list(match.seats.all())
    assert [s.final_score for s in seats] == result["scores"]
    if result["draw"]:
        assert [s.place for s in seats] == [1, 1]
    else:
        assert [s.place for s in seats] == [1 if i in result["winners"] else 2 for i in range(2)]
