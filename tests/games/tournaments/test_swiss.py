"""The Swiss rules (games/tournaments/swiss.py): pairings, byes, tables of more than two, points by place and
tie-breaks, against rounds worked out by hand. Pure: no database."""

from __future__ import annotations

import random
import subprocess
import sys
from collections.abc import Iterable, Sequence
from itertools import combinations
from pathlib import Path

import pytest

from games.tournaments import swiss
from games.tournaments.swiss import Entrant, Game, Round, pair_round, standing_order, tiebreaks

ROOT = Path(__file__).resolve().parents[3]


def entrant(person: int, score: int = 0, rating: float = 1500, met: Iterable[int] = (), byes: int = 0) -> Entrant:
    return Entrant(id=person, score=score, rating=rating, met=frozenset(met), byes=byes)


def seeded(count: int, met: dict[int, set[int]] | None = None) -> list[Entrant]:
    """Players 1..count on equal score, rated so that the order is 1, 2, 3, ...; met is given one way round."""
    met = met or {}
    return [entrant(person, rating=2000 - person, met=met.get(person, ())) for person in range(1, count + 1)]


def rematches(round_: Round, entrants: Sequence[Entrant]) -> int:
    met = {e.id: e.met for e in entrants}
    return sum(1 for table in round_.tables for a, b in combinations(table, 2) if b in met[a] or a in met[b])


# --- (a) five players, three rounds, by hand --------------------------------------------------------------------
#
# Ratings: 1: 1800, 2: 1700, 3: 1600, 4: 1500, 5: 1400 (ids in rating order).
#
# Round 1. All on 0, so the order is 1 2 3 4 5. Five is odd: the bye goes to the lowest with the fewest byes (none
#   has any): 5. Top-down: [1, 2], [3, 4].
#   Results: 1 beats 2; 3 and 4 draw; 5 has the bye (2 points).
#   Scores: 1: 2, 2: 0, 3: 1, 4: 1, 5: 2.
# Round 2. Order by score, then rating: 1 (2, 1800), 5 (2, 1400), 3 (1, 1600), 4 (1, 1500), 2 (0).
#   Bye: the fewest byes is 0 (everyone but 5); the lowest of them is 2.
#   Top-down would give [1, 5] and then [3, 4], but 3 and 4 have met: backtrack, 1 takes the next candidate, 3:
#   [1, 3], then [5, 4] (5 is the higher seed: score 2 against 1).
#   Results: 3 beats 1; 5 and 4 draw; 2 has the bye.
#   Scores: 1: 2, 2: 2, 3: 3, 4: 2, 5: 3.
# Round 3. Order: 3 (3, 1600), 5 (3, 1400), 1 (2, 1800), 2 (2, 1700), 4 (2, 1500).
#   Bye: 5 and 2 have had one; of 3, 1, 4 the lowest is 4.
#   Top-down: [3, 5], then 1 and 2 have met: backtrack. 3 has met 1, so 3 takes 2: [3, 2], then [5, 1].
#   Results: 3 beats 2; 1 beats 5; 4 has the bye.
#   Final scores: 1: 4, 2: 2, 3: 5, 4: 4, 5: 3.
#
# Tables played: {1: 2, 2: 0}, {3: 1, 4: 1}, {1: 0, 3: 2}, {5: 1, 4: 1}, {3: 2, 2: 0}, {5: 0, 1: 2}.
# Buchholz (final scores of the opponents):
#   1: met 2, 3, 5 -> 2 + 5 + 3 = 10
#   2: met 1, 3 -> 4 + 5 = 9;  3: met 4, 1, 2 -> 4 + 4 + 2 = 10;  4: met 3, 5 -> 5 + 3 = 8;
#   5: met 4, 1 -> 4 + 4 = 8.
# Sonneborn-Berger (points / 2 x the opponent's final score, per table):
#   1: 1 x 2 (beat 2) + 0 x 5 (lost to 3) + 1 x 3 (beat 5) = 5
#   2: 0 + 0 = 0
#   3: 1/2 x 4 (drew 4) + 1 x 4 (beat 1) + 1 x 2 (beat 2) = 8
#   4: 1/2 x 5 (drew 3) + 1/2 x 3 (drew 5) = 4
#   5: 1/2 x 4 (drew 4) + 0 x 4 (lost to 1) = 2
# Final order: 3 (5); then 1 and 4 on 4, Buchholz 10 against 8: 1, then 4; then 5 (3); then 2 (2).

RATINGS = {1: 1800.0, 2: 1700.0, 3: 1600.0, 4: 1500.0, 5: 1400.0}


def test_five_players_over_three_rounds_pair_as_worked_out_by_hand() -> None:
    round_1 = [entrant(person, 0, RATINGS[person]) for person in (1, 2, 3, 4, 5)]
    assert pair_round(round_1) == Round(tables=[[1, 2], [3, 4]], byes=[5])

    round_2 = [
        entrant(1, 2, RATINGS[1], met={2}),
        entrant(2, 0, RATINGS[2], met={1}),
        entrant(3, 1, RATINGS[3], met={4}),
        entrant(4, 1, RATINGS[4], met={3}),
        entrant(5, 2, RATINGS[5], byes=1),
    ]
    assert pair_round(round_2) == Round(tables=[[1, 3], [5, 4]], byes=[2])

    round_3 = [
        entrant(1, 2, RATINGS[1], met={2, 3}),
        entrant(2, 2, RATINGS[2], met={1}, byes=1),
        entrant(3, 3, RATINGS[3], met={4, 1}),
        entrant(4, 2, RATINGS[4], met={3, 5}),
        entrant(5, 3, RATINGS[5], met={4}, byes=1),
    ]
    assert pair_round(round_3) == Round(tables=[[3, 2], [5, 1]], byes=[4])


def test_five_players_final_tiebreaks_and_order_as_worked_out_by_hand() -> None:
    scores = {1: 4, 2: 2, 3: 5, 4: 4, 5: 3}
    games = [
        Game({1: 2, 2: 0}),
        Game({3: 1, 4: 1}),
        Game({1: 0, 3: 2}),
        Game({5: 1, 4: 1}),
        Game({3: 2, 2: 0}),
        Game({5: 0, 1: 2}),
    ]
    assert tiebreaks(scores, games) == {1: (10, 5), 2: (9, 0), 3: (10, 8), 4: (8, 4), 5: (8, 2)}
    assert standing_order(scores, games, RATINGS) == [3, 1, 4, 5, 2]


# --- tie-breaks -------------------------------------------------------------------------------------------------


def test_sonneborn_berger_decides_when_score_and_buchholz_are_equal() -> None:
    # 1 beat 3 (on 4) and lost to 4 (on 2); 2 beat 4 and lost to 3. Both on 2, Buchholz 6 each;
    # SB: 1 -> 1 x 4 = 4, 2 -> 1 x 2 = 2. The rating (2 higher) would have put 2 first.
    scores = {1: 2, 2: 2, 3: 4, 4: 2}
    games = [Game({1: 2, 3: 0}), Game({1: 0, 4: 2}), Game({2: 2, 4: 0}), Game({2: 0, 3: 2})]
    assert tiebreaks(scores, games)[1] == (6, 4)
    assert tiebreaks(scores, games)[2] == (6, 2)
    order = standing_order(scores, games, {1: 1400, 2: 1900, 3: 1500, 4: 1500})
    assert order.index(1) < order.index(2)


def test_rating_then_id_decide_when_every_tiebreak_is_equal() -> None:
    scores = {7: 1, 8: 1, 9: 1, 10: 1}
    games = [Game({7: 1, 8: 1}), Game({9: 1, 10: 1})]
    assert standing_order(scores, games, {7: 1500, 8: 1600, 9: 1500, 10: 1500}) == [8, 7, 9, 10]


def test_tiebreaks_at_a_table_of_three_and_byes_add_nothing() -> None:
    # A table of three: 1 sole first (2), 2 between (1), 3 last (0). 4 only had byes (no tables).
    scores = {1: 4, 2: 3, 3: 1, 4: 4}
    breaks = tiebreaks(scores, [Game({1: 2, 2: 1, 3: 0})])
    assert breaks[1] == (4, 4)  # (3 + 1), 2/2 x 4
    assert breaks[2] == (5, 2.5)  # (4 + 1), 1/2 x 5
    assert breaks[3] == (7, 0)
    assert breaks[4] == (0, 0)


# --- (b) and (c) rematches --------------------------------------------------------------------------------------


def test_backtracking_avoids_a_rematch_that_top_down_greed_would_force() -> None:
    # 3 has met 4, 5 and 6, and 5 has met 6. Top-down greed seats [1, 2] and leaves 3 only rematches; the first
    # pairing without one moves 3 up to 1's table: [1, 3], then [2, 4] would leave [5, 6] (met), so [2, 5], [4, 6].
    players = seeded(6, met={3: {4, 5, 6}, 5: {6}})
    result = pair_round(players)
    assert result == Round(tables=[[1, 3], [2, 5], [4, 6]], byes=[])
    assert rematches(result, players) == 0


def test_a_meeting_recorded_on_one_side_only_still_counts() -> None:
    players = seeded(4, met={2: {1}})
    assert pair_round(players).tables == [[1, 3], [2, 4]]


def test_the_fewest_rematches_when_none_can_be_avoided() -> None:
    # 1 has met everyone, and 3 and 4 have met: [1, 2] + [3, 4] has two rematches, [1, 3] + [2, 4] one.
    players = seeded(4, met={1: {2, 3, 4}, 3: {4}})
    result = pair_round(players)
    assert result.tables == [[1, 3], [2, 4]]
    assert rematches(result, players) == 1


def test_everyone_has_met_everyone_pairs_top_down() -> None:
    players = seeded(6, met={p: set(range(1, 7)) - {p} for p in range(1, 7)})
    assert pair_round(players).tables == [[1, 2], [3, 4], [5, 6]]


def test_when_the_search_budget_runs_out_the_pairing_is_greedy_and_complete(monkeypatch: pytest.MonkeyPatch) -> None:
    # The case above with no search: each seat takes the highest player who met the fewest at the table.
    monkeypatch.setattr(swiss, "SEARCH_BUDGET", 1)
    players = seeded(4, met={1: {2, 3, 4}, 3: {4}})
    assert pair_round(players).tables == [[1, 2], [3, 4]]


def test_a_large_field_with_an_unavoidable_rematch_still_pairs_everyone_once() -> None:
    # 198, 199 and 200 have met everyone but each other: three players who can only sit together, so one of them
    # must have a rematch. Proving that by search is exponential; the budget stops it and the greedy pairing
    # (one rematch, the fewest possible) is taken.
    bottom = {198, 199, 200}
    met = {p: set(range(1, 198)) for p in bottom}
    players = seeded(200, met=met)
    result = pair_round(players)
    assert sorted(p for table in result.tables for p in table) == list(range(1, 201))
    assert rematches(result, players) == 1
    assert result.tables[-2:] == [[197, 198], [199, 200]]


# --- (d) byes ---------------------------------------------------------------------------------------------------


def test_the_bye_skips_the_lowest_player_who_already_had_one() -> None:
    players = [
        entrant(1, 4, 1800),
        entrant(2, 2, 1700),
        entrant(3, 2, 1600),
        entrant(4, 2, 1500, byes=1),
        entrant(5, 0, 1400, byes=1),
    ]
    assert pair_round(players).byes == [3]


def test_no_second_bye_while_someone_has_none_even_the_leader() -> None:
    players = [entrant(1, 6, 1500)] + [entrant(p, 2, 1500, byes=1) for p in (2, 3, 4, 5)]
    result = pair_round(players)
    assert result.byes == [1]
    assert result.tables == [[2, 3], [4, 5]]


def test_seven_players_over_seven_rounds_each_get_exactly_one_bye() -> None:
    state = {p: entrant(p, rating=1500 + 10 * p) for p in range(1, 8)}
    for _ in range(7):
        result = pair_round(list(state.values()))
        assert len(result.byes) == 1
        (rest,) = result.byes
        assert state[rest].byes == min(e.byes for e in state.values())
        state = play(state, result)
    assert [e.byes for e in state.values()] == [1] * 7


def play(state: dict[int, Entrant], round_: Round) -> dict[int, Entrant]:
    """The next state after a round: the higher seed at each table wins outright (2), the last loses (0) and any
    between score 1, except that tables whose ids add up to a multiple of 5 are all draws (1 each)."""
    new = dict(state)
    for table in round_.tables:
        if sum(table) % 5 == 0:
            points = dict.fromkeys(table, 1)
        else:
            points = {p: 2 if place == 0 else 0 if place == len(table) - 1 else 1 for place, p in enumerate(table)}
        for p in table:
            e = new[p]
            new[p] = Entrant(e.id, e.score + points[p], e.rating, e.met | (set(table) - {p}), e.byes)
    for p in round_.byes:
        e = new[p]
        new[p] = Entrant(e.id, e.score + 2, e.rating, e.met, e.byes + 1)
    return new


# --- (e) tables of three and four -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("count", "table_size", "min_table", "tables", "byes"),
    [
        (9, 3, 2, [[1, 2, 3], [4, 5, 6], [7, 8, 9]], []),
        (8, 3, 2, [[1, 2, 3], [4, 5, 6], [7, 8]], []),  # remainder 2 >= min_table: a smaller bottom table
        (8, 3, 3, [[1, 2, 3], [4, 5, 6]], [7, 8]),  # remainder 2 < min_table: two byes
        (11, 4, 3, [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11]], []),
        (10, 4, 3, [[1, 2, 3, 4], [5, 6, 7, 8]], [9, 10]),
        (9, 4, 2, [[1, 2, 3, 4], [5, 6, 7, 8]], [9]),
        (3, 4, 3, [[1, 2, 3]], []),  # fewer than a table, enough for one
        (2, 4, 3, [], [1, 2]),  # fewer than min_table: everyone rests
    ],
)
def test_tables_of_more_than_two_with_remainders(
    count: int, table_size: int, min_table: int, tables: list[list[int]], byes: list[int]
) -> None:
    assert pair_round(seeded(count), table_size=table_size, min_table=min_table) == Round(tables=tables, byes=byes)


def test_a_table_of_three_avoids_rematches_with_anyone_already_seated() -> None:
    # 1 has met 2: 1's table takes the next two who have met nobody there, 3 and 4; then [2, 5, 6] - unless
    # 5 has met 2, when 2 sits with the next pair it can: here [2, 6, 7] leaves [5, 8, 9].
    assert pair_round(seeded(6, met={1: {2}}), table_size=3).tables == [[1, 3, 4], [2, 5, 6]]
    assert pair_round(seeded(9, met={1: {2}, 5: {2}}), table_size=3).tables == [[1, 3, 4], [2, 6, 7], [5, 8, 9]]


def test_a_table_of_three_with_an_unavoidable_rematch_takes_the_fewest() -> None:
    # 1 has met 2, 3, 4 and 5: any table of 1 has at least one rematch; [1, 2, 6] has exactly one, and the
    # others then sit without any.
    players = seeded(6, met={1: {2, 3, 4, 5}})
    result = pair_round(players, table_size=3)
    assert result.tables == [[1, 2, 6], [3, 4, 5]]
    assert rematches(result, players) == 1


def test_the_bye_at_tables_of_four_goes_to_the_fewest_byes() -> None:
    players = [entrant(p, rating=2000 - p, byes=1 if p in (9, 8) else 0) for p in range(1, 10)]
    assert pair_round(players, table_size=4, min_table=3).byes == [7]


@pytest.mark.parametrize(("table_size", "min_table"), [(1, 1), (2, 1), (2, 3), (4, 5)])
def test_sizes_the_rule_cannot_pair_are_refused(table_size: int, min_table: int) -> None:
    with pytest.raises(ValueError):
        pair_round(seeded(4), table_size=table_size, min_table=min_table)


def test_an_entrant_twice_is_refused() -> None:
    with pytest.raises(ValueError):
        pair_round([entrant(1), entrant(1)])


# --- (f) a large field, determinism, purity ---------------------------------------------------------------------


def test_two_hundred_players_over_eight_rounds_pair_without_rematches_and_deterministically() -> None:
    rng = random.Random(28)
    state = {p: entrant(p, rating=rng.uniform(1000, 2200)) for p in range(1, 201)}
    for _ in range(8):
        entrants = list(state.values())
        result = pair_round(entrants)
        seated = [p for table in result.tables for p in table]
        assert sorted(seated) == list(range(1, 201)) and result.byes == []
        assert rematches(result, entrants) == 0
        shuffled = entrants[:]
        rng.shuffle(shuffled)
        assert pair_round(shuffled) == result  # the input's order does not matter
        state = play(state, result)


def test_the_module_imports_no_django() -> None:
    code = "import sys, games.tournaments.swiss; print(any(m.split('.')[0] == 'django' for m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
