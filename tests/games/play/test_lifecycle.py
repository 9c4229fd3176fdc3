"""A match's life around its moves: cancel, abort, visible rematch offers, seats handed to a bot and taken
back on the record, and clocks kept by the server."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import playing
import pytest
from django.core.management import call_command
from django.test import Client
from django.utils import timezone
from openings import opened_on_turn, play_openings

from games.engines import get_engine
from games.models import FinishedMatch, Match, PlayerResult, PlayerStats, Presence, Seat
from games.play.bot_accounts import bot_player
from games.play.clock import clock_now, clock_spec
from games.play.create import SeatSpec, create_match
from games.play.decide import abort_allowed
from games.play.display import SocketPage, page_view, table_context
from games.play.finish import finish
from games.play.meta import table_meta
from games.play.scheduler import due_bot_matches
from games.play.seating import decide_join, hand_to_bot
from games.play.snapshot import Change, Player, ServiceError, state_of
from games.play.store import load

pytestmark = pytest.mark.django_db

GOMORI = get_engine("gomori")


def fresh(match: Match) -> Match:
    return Match.objects.get(pk=match.pk)


def first_move(match: Match, user: Any) -> None:
    """The seat the game waits on plays its first legal action."""
    match = fresh(match)
    engine = get_engine(match.game)
    state = engine.load(match.state)
    (seat,) = engine.must_act(state)
    playing.act(match_id=match.pk, user=user, seat=seat, action=engine.legal_actions(state, seat)[0],
                 expected_version=match.version)


def in_history(user: Any) -> int:
    return PlayerResult.objects.filter(user=user).count()


# ---------------------------------------------------------------------------------------------
# Cancel and abort


def test_the_creator_cancels_a_waiting_match_and_it_is_in_no_history(alice: Any, bob: Any) -> None:
    match = create_match(creator=alice, game="gomori", players=2, seats=[SeatSpec("open")])
    with pytest.raises(ServiceError, match="creator"):
        playing.cancel(match_id=match.pk, user=bob)
    playing.cancel(match_id=match.pk, user=alice)
    match = fresh(match)
    assert (match.status, match.result["reason"]) == (Match.Status.ABORTED, "cancelled")
    assert not FinishedMatch.objects.filter(match=match).exists() and in_history(alice) == 0
    with pytest.raises(ServiceError, match="no longer waiting"):
        playing.join(match_id=match.pk, user=bob)


def test_cancel_from_the_lobby(alice: Any, bob: Any) -> None:
    match = create_match(creator=alice, game="gomori", players=2, seats=[SeatSpec("open")])
    client = Client()
    client.force_login(alice)
    page = client.get("/play/").content.decode()
    assert f'action="/m/{match.pk}/cancel/"' in page
    assert client.post(f"/m/{match.pk}/cancel/").status_code == 302
    assert fresh(match).status == Match.Status.ABORTED
    assert f'action="/m/{match.pk}/cancel/"' not in client.get("/play/").content.decode()


def test_abort_before_everyone_moved_is_unrated_and_resign_is_refused(gomori_match: Match, alice: Any,
                                                                     bob: Any, carol: Any) -> None:
    with pytest.raises(ServiceError, match="abort the match instead"):
        playing.resign(match_id=gomori_match.pk, user=alice)
    first_move(gomori_match, alice)  # Bob has still not moved: still an abort
    with pytest.raises(ServiceError, match="Only a player"):
        playing.abort(match_id=gomori_match.pk, user=carol)
    playing.abort(match_id=gomori_match.pk, user=bob)
    match = fresh(gomori_match)
    assert (match.status, match.result["reason"], match.result["by"]) == (Match.Status.ABORTED, "aborted", 1)
    assert in_history(alice) == in_history(bob) == 0
    assert not PlayerStats.objects.filter(user__in=[alice, bob]).exists()


def test_once_everyone_moved_only_resigning_is_left(gomori_match: Match, alice: Any, bob: Any) -> None:
    play_openings(gomori_match)
    assert not abort_allowed(load(gomori_match.pk))
    with pytest.raises(ServiceError, match="can no longer be aborted"):
        playing.abort(match_id=gomori_match.pk, user=alice)
    playing.resign(match_id=gomori_match.pk, user=alice)
    assert PlayerResult.objects.get(user=alice).outcome == "lost"


def test_ten_resignations_at_move_zero_rate_nobody(alice: Any, bob: Any) -> None:
    for seed in range(10):
        match = create_match(creator=alice, game="gomori", players=2, seats=[SeatSpec("open")], seed=seed)
        playing.join(match_id=match.pk, user=bob)
        with pytest.raises(ServiceError):
            playing.resign(match_id=match.pk, user=alice)
        playing.abort(match_id=match.pk, user=alice)
    assert not PlayerStats.objects.filter(user=alice).exists()


def test_unfinished_matches_against_bots_can_be_abandoned(alice: Any, bob: Any, settings: Any) -> None:
    settings.GAMES_BOT_DELAY = 0
    fresh_one = create_match(creator=alice, game="gomori", players=2, seats=[SeatSpec("bot", "random")])
    played = play_openings(create_match(creator=alice, game="gomori", players=2,
                                                 seats=[SeatSpec("bot", "random")], seed=5))
    people = create_match(creator=alice, game="gomori", players=2, seats=[SeatSpec("open")])
    playing.join(match_id=people.pk, user=bob)
    client = Client()
    client.force_login(alice)
    page = client.get("/play/").content.decode()
    assert f'action="/m/{fresh_one.pk}/abandon/"' in page and f'action="/m/{played.pk}/abandon/"' in page
    assert f'action="/m/{people.pk}/abandon/"' not in page  # against a person: resign at the table
    client.post(f"/m/{fresh_one.pk}/abandon/")
    client.post(f"/m/{played.pk}/abandon/")
    assert fresh(fresh_one).result["reason"] == "aborted"  # nothing played yet: counts for nothing
    assert fresh(played).result["reason"] == "resign"  # a loss, as leaving a game is
    with pytest.raises(ServiceError, match="against bots"):
        playing.abandon(match_id=people.pk, user=alice)
    mine = client.get("/play/").content.decode().split('id="open-heading"')[0]
    assert f"/m/{fresh_one.pk}/" not in mine and f"/m/{played.pk}/" not in mine


# ---------------------------------------------------------------------------------------------
# Rematch offers


def test_a_rematch_offer_is_shown_to_the_other_player_and_can_be_declined(gomori_match: Match, alice: Any,
                                                                          bob: Any) -> None:
    play_openings(gomori_match)
    playing.resign(match_id=gomori_match.pk, user=bob)
    playing.rematch(match_id=gomori_match.pk, user=alice)
    snap = load(gomori_match.pk)
    meta = table_meta(snap, {})
    page = SocketPage().update(meta, None, 1, {})
    assert "Alice offers a rematch." in page and '"op": "decline"' in page and "Accept" in page
    mine = SocketPage().update(meta, None, 0, {})
    assert "You offered a rematch" in mine and "Alice offers" not in mine
    # After a reload: the page is drawn from the record.
    client = Client()
    client.force_login(bob)
    assert "Alice offers a rematch." in client.get(f"/m/{gomori_match.pk}/").content.decode()
    playing.decline_rematch(match_id=gomori_match.pk, user=bob)
    assert "Bob declined the rematch." in SocketPage().update(table_meta(load(gomori_match.pk), {}),
                                                              None, 0, {})
    with pytest.raises(ServiceError, match="declined"):
        playing.rematch(match_id=gomori_match.pk, user=bob)
    assert fresh(gomori_match).rematch_id is None


# ---------------------------------------------------------------------------------------------
# A seat handed to a bot stays its player's on the record


def hand_alice_to_a_bot(match: Match, bob: Any) -> Match:
    Presence.objects.filter(match=match, seat=0).delete()
    past = timezone.now() - timedelta(seconds=120)
    Seat.objects.filter(match=match, index=0).update(last_seen=past)
    Match.objects.filter(pk=match.pk).update(turn_started_at=past)
    playing.claim(match_id=match.pk, user=bob, absent_seat=0, take_over_with_bot=True)
    return fresh(match)


def test_the_record_keeps_who_played_each_move_and_alice_loses(alice: Any, bob: Any, settings: Any) -> None:
    settings.GAMES_BOT_DELAY = 0
    match = create_match(creator=alice, game="rummy", players=2, seats=[SeatSpec("open")], seed=4)
    playing.join(match_id=match.pk, user=bob)
    play_openings(match)
    moves_before = fresh(match).move_count
    # The game waits on Alice, who is gone: Bob hands her seat to a bot.
    while 0 not in get_engine("rummy").must_act(get_engine("rummy").load(fresh(match).state)):
        first_move(match, bob)
        moves_before = fresh(match).move_count
    match = hand_alice_to_a_bot(match, bob)
    (handover,) = match.handovers
    assert handover["seat"] == 0 and handover["move"] == moves_before + 1
    assert match.seats.get(index=0).user_id == alice.pk
    assert playing.bot_turn(match_id=match.pk, expected_version=match.version)

    snap = load(match.pk)
    engine = get_engine("rummy")
    context = table_context(table_meta(snap, {}), page_view(engine.view(engine.load(snap.state), None)), None)
    log = [str(entry["text"]) for entry in context["log"]]  # newest first
    said = next(i for i, text in enumerate(log) if "left; a bot plays their seat from move" in text)
    assert f"from move {moves_before + 1}." in log[said]
    assert all("Alice" not in text for text in log[:said])  # the bot's moves are the bot's
    assert any(">Alice<" in text for text in log[said + 1:])  # hers stay hers
    assert "left · Rummy" in SocketPage().update(table_meta(snap, {}), context["view"], None, {})

    # The match ends: Alice's result is a loss whatever the bot did; Bob's comes from play.
    playing.resign(match_id=match.pk, user=bob)
    match = fresh(match)
    assert match.result["left"] == [0]
    results = {r.user_id: r.outcome for r in PlayerResult.objects.filter(match=match)}
    assert results == {alice.pk: "lost", bob.pk: "lost"}
    assert PlayerStats.objects.get(user=alice, game="rummy").lost == 1


def test_the_other_player_wins_when_the_bot_outscores_them(alice: Any, bob: Any) -> None:
    snap = load(create_match(creator=alice, game="gomori", players=2,
                                               seats=[SeatSpec("open")]).pk)
    snap = decide_join(snap, None, player=Player.of(bob)).after
    bot = bot_player("gomori", "random")
    left = hand_to_bot(snap, state_of(snap), 0, bot, why="away")
    change = Change(left, left)
    finish(change, {"scores": [9, 3], "winners": [0], "draw": False}, reason="normal",
                     now=timezone.now())
    assert change.after.result["winners"] == [1] and change.after.result["left"] == [0]
    assert [s.place for s in change.after.seats] == [2, 1]


def test_alice_comes_back_and_takes_her_seat(gomori_match: Match, alice: Any, bob: Any, settings: Any) -> None:
    settings.GAMES_BOT_DELAY = 0
    match = opened_on_turn(gomori_match, 0)
    match = hand_alice_to_a_bot(match, bob)
    assert playing.bot_turn(match_id=match.pk, expected_version=match.version)
    client = Client()
    client.force_login(alice)
    page = client.get(f"/m/{match.pk}/").content.decode()
    assert f"a bot has played your seat since move {match.handovers[0]['move']}" in page
    assert '"op": "retake"' in page
    with pytest.raises(ServiceError, match="no seat to take back"):
        playing.retake(match_id=match.pk, user=bob)
    playing.retake(match_id=match.pk, user=alice)
    match = fresh(match)
    assert match.seats.get(index=0).substitute_id is None
    assert match.handovers[0]["until_move"] == match.move_count + 1
    assert match.bot_due_at is None
    snap = load(match.pk)
    assert snap.seat_of(alice.pk).is_person
    page = client.get(f"/m/{match.pk}/").content.decode()
    assert '"op": "retake"' not in page and "took your seat back" in page


def test_two_bots_of_one_level_have_two_names(alice: Any) -> None:
    match = create_match(creator=alice, game="columbo", players=3,
                                  seats=[SeatSpec("bot", "reference"), SeatSpec("bot", "reference")])
    names = [p.name for p in table_meta(load(match.pk), {}).players]
    assert len(set(names)) == 3 and names[2] == names[1].replace(" (bot)", " 2 (bot)")


# ---------------------------------------------------------------------------------------------
# Clocks


def clocked(alice: Any, bob: Any, clock: dict[str, Any], players: int = 2, carol: Any = None) -> Match:
    match = create_match(creator=alice, game="gomori" if players == 2 else "ruhd", players=players,
                                  seats=[SeatSpec("open")] * (players - 1), clock=clock, seed=7)
    for user in (bob, carol)[: players - 1]:
        playing.join(match_id=match.pk, user=user)
    return fresh(match)


def rewind(match: Match, seconds: float) -> None:
    """The current decision started `seconds` earlier (and with it the clock's reference)."""
    match = fresh(match)
    Match.objects.filter(pk=match.pk).update(
        turn_started_at=match.turn_started_at - timedelta(seconds=seconds),
        clock_due_at=match.clock_due_at - timedelta(seconds=seconds) if match.clock_due_at else None)


def test_a_clock_per_player_counts_down_the_mover_and_adds_the_increment(alice: Any, bob: Any) -> None:
    match = clocked(alice, bob, clock_spec("fischer", minutes=1, increment=2))
    assert match.clock_left == [60.0, 60.0] and match.clock_due_at is not None
    rewind(match, 10)
    first_move(match, alice)
    left = fresh(match).clock_left
    assert 51.5 <= left[0] <= 52.1 and left[1] == 60.0  # 60 - 10 + 2
    # The time is the record's: a reload (another process, a restart) reads the same figures.
    snap = load(match.pk)
    assert clock_now(snap, state_of(snap))[0] == pytest.approx(left[0], abs=0.01)


def test_running_out_of_time_loses_a_two_player_game(alice: Any, bob: Any) -> None:
    match = opened_on_turn(clocked(alice, bob, clock_spec("fischer", minutes=1, increment=0)), 0)
    assert playing.check_clock(match_id=match.pk).status == Match.Status.ACTIVE  # not yet
    rewind(match, 61)
    assert (match.pk, fresh(match).version) in due_bot_matches()
    playing.check_clock(match_id=match.pk)
    match = fresh(match)
    assert (match.status, match.result["reason"], match.result["loser"]) == ("finished", "time", 0)
    assert match.result["winners"] == [1] and match.clock_due_at is None


def test_a_turn_limit_runs_out_in_a_bigger_game_and_a_bot_takes_the_seat(alice: Any, bob: Any, carol: Any) -> None:
    match = play_openings(clocked(alice, bob, clock_spec("turn", turn_seconds=30), players=3, carol=carol))
    engine = get_engine("ruhd")
    (seat,) = engine.must_act(engine.load(match.state))
    rewind(match, 31)
    playing.check_clock(match_id=match.pk)
    match = fresh(match)
    assert match.status == Match.Status.ACTIVE
    assert match.seats.get(index=seat).substitute is not None
    assert [(h["seat"], h["why"]) for h in match.handovers] == [(seat, "time")]


def test_out_of_time_before_a_first_move_aborts_the_match_unrated(alice: Any, bob: Any) -> None:
    """lichess's rule: a clock that runs out before its player's first move ends the match for nobody."""
    match = clocked(alice, bob, clock_spec("fischer", minutes=1, increment=0))
    rewind(match, 61)
    playing.check_clock(match_id=match.pk)
    match = fresh(match)
    assert (match.status, match.result["reason"], match.result["why"], match.result["absent"]) == (
        "aborted", "aborted", "time", 0)
    assert not PlayerResult.objects.filter(match=match).exists()
    page = Client().get(f"/m/{match.pk}/").content.decode()
    assert "Alice ran out of time before their first move: the match is aborted and counts for nothing." in page


def test_clock_options_are_checked(alice: Any) -> None:
    for kind, options in (("fischer", {"minutes": 0}), ("turn", {"turn_seconds": 2}), ("sundial", {})):
        with pytest.raises(ServiceError):
            clock_spec(kind, **options)
    assert clock_spec("none") == {}


def test_a_rebuild_gives_the_figures_recorded_for_a_handed_over_match(alice: Any, bob: Any) -> None:
    match = create_match(creator=alice, game="gomori", players=2, seats=[SeatSpec("open")], seed=3)
    playing.join(match_id=match.pk, user=bob)
    match = play_openings(match)
    assert 0 in GOMORI.must_act(GOMORI.load(match.state))  # Alice's turn again: she is gone
    match = hand_alice_to_a_bot(match, bob)
    playing.resign(match_id=match.pk, user=bob)
    before = list(PlayerStats.objects.order_by("user_id").values_list("user_id", "lost", "won", "rating"))
    assert [row[1] for row in before] == [1, 1]
    call_command("rebuild_stats", verbosity=0)
    assert list(PlayerStats.objects.order_by("user_id").values_list("user_id", "lost", "won", "rating")) == before
    # History lists Alice as the seat's player, marked as having left.
    page = Client().get("/history/").content.decode()
    assert "Alice" in page and 'title="Left the match; a bot finished the seat">left</span>' in page
