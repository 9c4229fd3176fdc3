"""Arena tournaments as services (games.tournaments.services): joining, pairing whoever is free, counting each
finished match once with the streak rule, pause and withdraw, the absent player, the end and the podium, and
rebuilding the standings from the matches. Time is injected (`now`) where the rule depends on it."""

from __future__ import annotations

import io
from datetime import timedelta
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client
from django.utils import timezone
from factories import make_user
from tournament_play import opponent, win

from games.models import Entrant, Match, Tournament, TournamentGame
from games.play.decide import decide_resign, decide_timeout
from games.play.snapshot import ServiceError, must_act_of, state_of
from games.play.store import load
from games.play.sync import run_change
from games.tournaments import display, services

# Real commits: a match's end pairs the next tables after its commit (transaction.on_commit).
pytestmark = pytest.mark.django_db(transaction=True)


def arena(minutes: int = 30, game: str = "gomori", table_size: int = 2, **kw: Any) -> Tournament:
    staff = make_user("staff", is_staff=True)
    return services.create_tournament(creator=staff, kind="arena", game=game, clock_key="5+3", minutes=minutes,
                                      starts_at=timezone.now(), table_size=table_size, **kw)


def people(*names: str) -> list[Any]:
    return [make_user(name, display_name=name.title()) for name in names]


def entrant(tournament: Tournament, user: Any) -> Entrant:
    return Entrant.objects.get(tournament=tournament, user=user)


def current(tournament: Tournament, user: Any) -> Match | None:
    return entrant(tournament, user).match


def test_joined_players_are_paired_at_the_start_and_a_finished_match_counts_once_with_the_streak() -> None:
    t = arena()
    ann, ben, cat, dan = people("ann", "ben", "cat", "dan")
    for user in (ann, ben, cat, dan):
        services.join(tournament_id=t.pk, user=user)
    assert not TournamentGame.objects.exists()  # nobody is paired before the start
    services.tick()
    t.refresh_from_db()
    assert t.status == Tournament.Status.RUNNING
    matches = {current(t, u) for u in (ann, ben, cat, dan)}
    assert None not in matches and len(matches) == 2  # everyone at a table, two tables
    for match in matches:
        assert match is not None and match.clock["kind"] == "fischer" and match.rated
    # ann wins her first match: 2 points; she is free and paired again at once with the other winner (score first).
    first = current(t, ann)
    assert first is not None
    loser = opponent(first, ann)
    win(first, ann)
    assert entrant(t, ann).score == 2 and entrant(t, loser).score == 0
    other = current(t, cat)
    assert other is not None
    winner2 = cat if cat.pk != loser.pk else dan
    if other.pk == first.pk:
        other = current(t, dan)
        winner2 = dan
    assert other is not None
    win(other, winner2)
    second = current(t, ann)
    assert second is not None and second.pk not in (first.pk, other.pk)
    assert {s.user_id for s in second.seats.all()} == {ann.pk, winner2.pk}
    win(second, ann)
    row = entrant(t, ann)
    assert [line["p"] for line in row.sheet] == [2, 4] and row.score == 6 and row.streak == 2
    assert [line["x"] for line in row.sheet] == [False, True]
    # Counting the same match again changes nothing.
    assert services.count_ended(second.pk, result=second.result, seat_users=[ann.pk], places=[1],
                                now=timezone.now()) is None
    assert entrant(t, ann).score == 6


def test_a_player_is_never_in_two_matches_and_the_last_opponent_is_passed_over_while_another_is_free() -> None:
    t = arena()
    ann, ben, cat = people("ann", "ben", "cat")
    for user in (ann, ben):
        services.join(tournament_id=t.pk, user=user)
    services.tick()
    first = current(t, ann)
    assert first is not None and current(t, ben) == first
    services.join(tournament_id=t.pk, user=cat)  # alone while the others play
    assert current(t, cat) is None
    assert services.pair_arena(t.pk) == []  # the two at their table are not free: never paired twice
    win(first, ann)
    # ann and ben are free with cat: ann (the leader) is not paired with ben again while cat waits.
    match = current(t, ann)
    assert match is not None and {s.user_id for s in match.seats.all()} == {ann.pk, cat.pk}
    assert current(t, ben) is None


def test_pause_withdraw_and_a_player_absent_when_paired_is_paused_and_scores_nothing() -> None:
    t = arena()
    ann, ben, cat, dan = people("ann", "ben", "cat", "dan")
    for user in (ann, ben, cat, dan):
        services.join(tournament_id=t.pk, user=user)
    services.pause(tournament_id=t.pk, user=dan)
    services.withdraw(tournament_id=t.pk, user=cat)  # before the start: the entry goes
    assert not Entrant.objects.filter(tournament=t, user=cat).exists()
    services.tick()
    match = current(t, ann)
    assert match is not None and current(t, dan) is None  # paused: not paired
    # Whoever the game waits on first never moves: their clock runs out before their first move, so the match
    # is aborted (lichess's rule): it counts for nobody (no line on any sheet), and they are paused.
    snap = load(match.pk)
    assert snap is not None
    absent_user = snap.seats[sorted(must_act_of(snap, state_of(snap)))[0]].user_id
    present_user = next(s.user_id for s in snap.seats if s.user_id != absent_user)
    run_change(match.pk, decide_timeout, bot=None, now=timezone.now() + timedelta(minutes=30))
    match.refresh_from_db()
    assert match.status == Match.Status.ABORTED and match.result["why"] == "time"
    absent_row = Entrant.objects.get(tournament=t, user_id=absent_user)
    present_row = Entrant.objects.get(tournament=t, user_id=present_user)
    assert absent_row.paused and absent_row.sheet == [] and absent_row.score == 0
    assert not present_row.paused and present_row.sheet == [] and present_row.match is None
    assert absent_row.match is None
    services.resume(tournament_id=t.pk, user=dan)
    assert entrant(t, dan).paused is False


def test_time_up_lets_matches_finish_and_count_then_the_podium_and_rebuild_agrees() -> None:
    t = arena(minutes=30)
    ann, ben, cat, dan = people("ann", "ben", "cat", "dan")
    for user in (ann, ben, cat, dan):
        services.join(tournament_id=t.pk, user=user)
    services.tick()
    t.refresh_from_db()
    first = current(t, ann)
    assert first is not None
    win(first, ann)
    # The arena's time is up (it started 31 minutes ago): no new pairings, the matches in progress finish first.
    Tournament.objects.filter(pk=t.pk).update(started_at=timezone.now() - timedelta(minutes=31))
    playing = list(Match.objects.filter(tournament_game__tournament=t, status=Match.Status.ACTIVE))
    assert playing
    services.tick()
    t.refresh_from_db()
    assert t.status == Tournament.Status.RUNNING
    for match in playing:
        win(match, match.seats.order_by("index").first().user)
    assert not Entrant.objects.filter(tournament=t, match__isnull=False).exists()  # nobody paired after time
    services.tick()
    t.refresh_from_db()
    assert t.status == Tournament.Status.FINISHED
    assert not Match.objects.filter(tournament_game__tournament=t, status=Match.Status.ACTIVE).exists()
    standings = list(Entrant.objects.filter(tournament=t).order_by("place", "pk"))
    # Everyone played; all four joined at the same rating, so equal points share a place (1, =1, 3, =3 or so).
    assert all(e.place is not None for e in standings)
    assert standings[0].score >= standings[1].score >= standings[2].score >= standings[3].score
    for number, e in enumerate(standings, start=1):
        assert e.place == 1 + sum(1 for other in standings if other.score > e.score), (number, e.score)
    before = [(e.user_id, e.score, e.sheet, e.place) for e in standings]
    Entrant.objects.filter(tournament=t).update(score=0, sheet=[], streak=0, place=None)
    call_command("rebuild_tournament", str(t.pk), verbosity=0)
    after = [(e.user_id, e.score, e.sheet, e.place)
             for e in Entrant.objects.filter(tournament=t).order_by("place", "pk")]
    assert after == before
    with pytest.raises(ServiceError):
        services.join(tournament_id=t.pk, user=make_user("late"))


def test_private_tournaments_need_their_invite_code() -> None:
    host = make_user("host")
    t = services.create_tournament(creator=host, kind="swiss", game="rummy", clock_key="3+2", rounds=3,
                                   starts_at=timezone.now() + timedelta(hours=1), is_private=True)
    guest = make_user("guest")
    with pytest.raises(ServiceError, match="private"):
        services.join(tournament_id=t.pk, user=guest)
    with pytest.raises(ServiceError, match="private"):
        services.join(tournament_id=t.pk, user=guest, code="wrong")
    services.join(tournament_id=t.pk, user=guest, code=t.invite_code)
    assert entrant(t, guest).score == 0
    with pytest.raises(ServiceError, match="staff"):
        services.create_tournament(creator=host, kind="arena", game="gomori", clock_key="3+2", minutes=30,
                                   starts_at=timezone.now())


def test_an_annulled_tournament_match_leaves_the_standings() -> None:
    from games import moderation

    t = arena()
    ann, ben = people("ann", "ben")
    for user in (ann, ben):
        services.join(tournament_id=t.pk, user=user)
    services.tick()
    match = current(t, ann)
    assert match is not None
    win(match, ann)
    assert entrant(t, ann).score == 2
    moderation.annul_result(match.pk)
    assert entrant(t, ann).score == 0 and entrant(t, ann).sheet == [] and entrant(t, ben).sheet == []


def test_points_by_place_at_a_table_of_more_than_two() -> None:
    from games.tournaments.points import table_results

    assert table_results([1, 2, 3]) == ["w", "m", "l"]
    assert table_results([1, 1, 3]) == ["d", "d", "l"]
    assert table_results([2, 1, 2]) == ["l", "w", "l"]
    assert table_results([1, 2, 3, 4]) == ["w", "m", "m", "l"]
    assert table_results([1, 2]) == ["w", "l"] and table_results([1, 1]) == ["d", "d"]


def test_a_ruhd_arena_seats_tables_of_three_and_scores_them_by_place() -> None:
    t = arena(game="ruhd", table_size=3)
    players = people("ann", "ben", "cat", "dan")
    for user in players:
        services.join(tournament_id=t.pk, user=user)
    services.tick()
    tables = {m for m in (current(t, u) for u in players) if m is not None}
    assert len(tables) == 1  # one table of three; the fourth waits for the next table
    (match,) = tables
    assert match.players == 3
    seated = [s.user for s in match.seats.order_by("index")]
    waiting = next(u for u in players if u not in seated)
    assert current(t, waiting) is None
    from tournament_play import everyone_moves

    everyone_moves(match.pk)
    resign_seat = seated[0]
    run_change(match.pk, decide_resign, user_id=resign_seat.pk)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    sheets = {u.pk: [line["r"] for line in entrant(t, u).sheet] for u in seated}
    # The one who resigned is last (0); the two others share the first place: a draw each (1).
    assert sheets[resign_seat.pk] == ["l"] and entrant(t, resign_seat).score == 0
    assert all(sheets[u.pk] == ["d"] and entrant(t, u).score == 1 for u in seated[1:])


def finish_arena(t: Tournament) -> None:
    Tournament.objects.filter(pk=t.pk).update(started_at=timezone.now() - timedelta(minutes=31))
    services.tick()
    t.refresh_from_db()
    assert t.status == Tournament.Status.FINISHED


def test_an_arena_whose_only_match_was_a_no_show_places_nobody_and_says_so() -> None:
    """The arena whose only match was aborted on a no-show (the absent player's clock ran out before their first
    move): no loss for anyone, no place, no podium; the standings, the page and a rebuild agree."""
    t = arena()
    ann, ben = people("ann", "ben")
    for user in (ann, ben):
        services.join(tournament_id=t.pk, user=user)
    Entrant.objects.filter(tournament=t, user=ann).update(rating=1900)
    Entrant.objects.filter(tournament=t, user=ben).update(rating=1400)
    services.tick()
    match = current(t, ann)
    assert match is not None
    snap = load(match.pk)
    assert snap is not None
    absent = snap.seats[sorted(must_act_of(snap, state_of(snap)))[0]].user_id
    run_change(match.pk, decide_timeout, bot=None, now=timezone.now() + timedelta(minutes=30))
    finish_arena(t)
    rows = {e.user_id: (e.score, e.sheet, e.place) for e in Entrant.objects.filter(tournament=t)}
    assert rows == {ann.pk: (0, [], None), ben.pk: (0, [], None)}
    assert entrant(t, absent).paused
    standings = display.standings(t)
    assert [(row.user_id, row.rank) for row in standings] == [(ann.pk, ""), (ben.pk, "")]  # no place: "–"
    assert display.podium(standings, t) == []
    page = Client().get(f"/tournaments/{t.pk}/").content.decode()
    assert "No game was played in this tournament" in page and '<ol class="podium">' not in page
    # Rebuilt (an annulment elsewhere, the admin's action, manage.py rebuild_tournament): the same.
    call_command("rebuild_tournament", str(t.pk), stdout=io.StringIO())
    assert {e.user_id: (e.score, e.sheet, e.place) for e in Entrant.objects.filter(tournament=t)} == rows


def test_an_arena_in_which_nobody_played_says_so_instead_of_a_podium() -> None:
    t = arena()
    for user in people("ann", "ben", "cat"):
        services.join(tournament_id=t.pk, user=user)
        services.pause(tournament_id=t.pk, user=user)  # away all along: never paired
    services.tick()
    assert not Match.objects.filter(tournament_game__tournament=t).exists()
    finish_arena(t)
    assert list(Entrant.objects.filter(tournament=t).values_list("place", flat=True)) == [None] * 3
    assert display.podium(display.standings(t), t) == []
    page = Client().get(f"/tournaments/{t.pk}/").content.decode()
    assert "No game was played in this tournament" in page and '<ol class="podium">' not in page
