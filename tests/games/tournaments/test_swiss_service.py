"""A Swiss of five players over three rounds, through the services, against pairings worked out by hand (the
pure rule is tests/games/tournaments/test_swiss.py): the bye, no rematch, the next round starting when every match
of the round has ended, the tie-breaks and the final order.

Ratings: p1 1800, p2 1700, p3 1600, p4 1500, p5 1400 (the seeding after the score).

Round 1. All on 0: order p1..p5. Odd: the bye to the lowest with the fewest byes, p5. Tables [p1, p2], [p3, p4].
  Results: p1 beats p2, p4 beats p3. Scores: p1 2, p2 0, p3 0, p4 2, p5 2 (the bye).
Round 2. Order: p1 (2, 1800), p4 (2, 1500), p5 (2, 1400), p2 (0, 1700), p3 (0, 1600). Bye: the lowest of those
  without one, p3. Top-down: [p1, p4], [p5, p2]. Results: p1 beats p4, p2 beats p5.
  Scores: p1 4, p2 2, p3 2, p4 2, p5 2.
Round 3. Order: p1 (4), p2, p3, p4, p5 (2 each, by rating). Bye: of those without one (p1, p2, p4), the lowest, p4.
  Top-down: p1 has met p2; [p1, p3] would leave [p2, p5], who met in round 2: so p1 takes p5: [p1, p5], [p2, p3].
  Results: p1 beats p5, p3 beats p2. Final: p1 6, p2 2, p3 4, p4 4, p5 2.
Buchholz: p1 met p2, p4, p5: 2 + 4 + 2 = 8; p2 met p1, p5, p3: 6 + 2 + 4 = 12; p3 met p4, p2: 4 + 2 = 6;
  p4 met p3, p1: 4 + 6 = 10; p5 met p2, p1: 2 + 6 = 8.
Sonneborn-Berger: p1 2 + 4 + 2 = 8; p2 (beat p5) 2; p3 (beat p2) 2; p4 (beat p3) 4; p5 0.
Final order: p1 (6); p4 and p3 on 4, Buchholz 10 against 6: p4, p3; p2 and p5 on 2, Buchholz 12 against 8: p2, p5.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.utils import timezone
from factories import make_user
from tournament_play import win

from games.models import Entrant, Match, PlayerStats, Tournament, TournamentBye, TournamentGame
from games.tournaments import services

pytestmark = pytest.mark.django_db(transaction=True)


def player(number: int, rating: float) -> Any:
    user = make_user(f"p{number}", display_name=f"P{number}")
    PlayerStats.objects.create(user=user, game="gomori", rating=rating, deviation=80, rated_matches=20)
    return user


def tables(t: Tournament, round_: int) -> set[frozenset[int]]:
    return {frozenset(g.match.seats.values_list("user_id", flat=True))
            for g in TournamentGame.objects.filter(tournament=t, round=round_).select_related("match")}


def bye(t: Tournament, round_: int) -> list[int]:
    return list(TournamentBye.objects.filter(tournament=t, round=round_).values_list("user_id", flat=True))


def match_of(t: Tournament, round_: int, *users: Any) -> Match:
    want = frozenset(u.pk for u in users)
    for g in TournamentGame.objects.filter(tournament=t, round=round_).select_related("match"):
        if frozenset(g.match.seats.values_list("user_id", flat=True)) == want:
            return g.match
    raise AssertionError(f"no table of {sorted(want)} in round {round_}")


def test_five_players_three_rounds_pair_score_and_order_as_worked_out_by_hand() -> None:
    staff = make_user("staff", is_staff=True)
    t = services.create_tournament(creator=staff, kind="swiss", game="gomori", clock_key="5+3", rounds=3,
                                   starts_at=timezone.now())
    p1, p2, p3, p4, p5 = (player(n, r) for n, r in ((1, 1800), (2, 1700), (3, 1600), (4, 1500), (5, 1400)))
    for user in (p3, p1, p5, p2, p4):  # the order of joining does not matter
        services.join(tournament_id=t.pk, user=user)
    services.tick()

    def pair(a: Any, b: Any) -> frozenset[int]:
        return frozenset((a.pk, b.pk))

    t.refresh_from_db()
    assert t.round == 1 and tables(t, 1) == {pair(p1, p2), pair(p3, p4)} and bye(t, 1) == [p5.pk]
    win(match_of(t, 1, p1, p2), p1)
    t.refresh_from_db()
    assert t.round == 1  # the next round waits for every match of this one
    win(match_of(t, 1, p3, p4), p4)

    t.refresh_from_db()
    assert t.round == 2 and tables(t, 2) == {pair(p1, p4), pair(p5, p2)} and bye(t, 2) == [p3.pk]
    win(match_of(t, 2, p1, p4), p1)
    win(match_of(t, 2, p5, p2), p2)

    t.refresh_from_db()
    assert t.round == 3 and tables(t, 3) == {pair(p1, p5), pair(p2, p3)} and bye(t, 3) == [p4.pk]
    win(match_of(t, 3, p1, p5), p1)
    win(match_of(t, 3, p2, p3), p3)

    t.refresh_from_db()
    assert t.status == Tournament.Status.FINISHED and t.round == 3
    rows = {e.user_id: e for e in Entrant.objects.filter(tournament=t)}
    assert {u.pk: rows[u.pk].score for u in (p1, p2, p3, p4, p5)} == {p1.pk: 6, p2.pk: 2, p3.pk: 4, p4.pk: 4,
                                                                      p5.pk: 2}
    assert {u.pk: rows[u.pk].tiebreak for u in (p1, p2, p3, p4, p5)} == {
        p1.pk: [8, 8], p2.pk: [12, 2], p3.pk: [6, 2], p4.pk: [10, 4], p5.pk: [8, 0]}
    assert [e.user_id for e in Entrant.objects.filter(tournament=t).order_by("place")] == [
        p1.pk, p4.pk, p3.pk, p2.pk, p5.pk]
    # Swiss points are never doubled: p1's three wins are 2 each, and the byes are on the sheets.
    assert [line["p"] for line in rows[p1.pk].sheet] == [2, 2, 2]
    assert [line["r"] for line in rows[p5.pk].sheet] == ["b", "l", "l"]
    # Tournament matches are rated like others.
    assert all(m.rated for m in Match.objects.filter(tournament_game__tournament=t))
