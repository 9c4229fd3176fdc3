"""Results by place (games.results.outcomes_by_place): one rule for every seat's outcome at every table size, read
by every page and feature; and ratings that move a table of n about as much as one game.

The rule: the sole first place won; a first place shared is drawn for those sharing it; every seat behind the first
place lost; the match is a draw for everyone only when every seat shares the first place; a table of one is solo.
"""

from __future__ import annotations

import math

import pytest
from django.utils import timezone
from hypothesis import given, settings
from hypothesis import strategies as st

from games.bots import LEVEL_RATINGS
from games.play.finish import places_of
from games.play.wording import closing_line, describe_result
from games.ratings import glicko2, stats
from games.ratings.facts import MatchFacts, SeatFacts
from games.ratings.rules import BOT_DEVIATION
from games.results import Outcome, SeatOutcome, outcomes_by_place
from games.tournaments import points

# Scores at tables of 1 to 6 seats, with every pattern of ties (few distinct values make ties common).
TABLES = st.lists(st.integers(min_value=0, max_value=4), min_size=1, max_size=6)


def expected_outcomes(scores: list[int], lower_is_better: bool) -> list[str]:
    """The rule worked out from the scores alone, independently of games.results and games.play.finish."""
    if len(scores) == 1:
        return ["solo"]
    best = min(scores) if lower_is_better else max(scores)
    at_best = scores.count(best)
    return [("won" if at_best == 1 else "drawn") if score == best else "lost" for score in scores]


def engine_winners(scores: list[int], lower_is_better: bool) -> list[int]:
    best = min(scores) if lower_is_better else max(scores)
    return [i for i, score in enumerate(scores) if score == best]


@settings(max_examples=400, deadline=None)
@given(TABLES, st.booleans())
def test_every_table_of_one_to_six_with_any_ties_gets_each_seat_its_outcome_from_its_place(
        scores: list[int], lower_is_better: bool) -> None:
    places = places_of(scores, engine_winners(scores, lower_is_better), lower_is_better)
    outcomes = outcomes_by_place(places)
    assert outcomes == expected_outcomes(scores, lower_is_better)
    # A draw for everyone only when every seat shares the first place.
    everyone = len(scores) > 1 and len(set(scores)) == 1
    result = {"reason": "normal", "scores": scores, "places": places}
    outcome = Outcome.of(result, len(scores))
    assert outcome is not None and outcome.everyone_drew == everyone
    assert [outcome.of_seat(i) for i in range(len(scores))] == outcomes
    # Tournament points follow the same outcome: won 2, drawn 1, lost 0 at the last place, 1 between.
    if len(scores) > 1:
        last = max(places)
        want = {"won": "w", "drawn": "d"}
        assert points.table_results(places) == [want.get(o) or ("l" if p == last else "m")
                                                for o, p in zip(outcomes, places, strict=True)]


@settings(max_examples=200, deadline=None)
@given(TABLES)
def test_the_engine_s_draw_flag_is_never_read_for_a_seat(scores: list[int]) -> None:
    """A result whose draw flag says the opposite of its places still gives each seat the outcome of its place."""
    places = places_of(scores, engine_winners(scores, False), False)
    for flag in (True, False):
        outcome = Outcome.of({"reason": "normal", "places": places, "draw": flag, "winners": []}, len(scores))
        assert outcome is not None and outcome.seat_outcomes == expected_outcomes(scores, False)


def test_the_tour_s_ruhd_table_10_16_16_is_a_loss_for_the_last_and_a_shared_first_place_for_the_others() -> None:
    places = places_of([10, 16, 16], [1, 2], False)
    assert places == [3, 1, 1]
    assert outcomes_by_place(places) == [SeatOutcome.LOST, SeatOutcome.DRAWN, SeatOutcome.DRAWN]
    result = {"reason": "normal", "scores": [10, 16, 16], "places": places, "winners": [1, 2], "draw": False}
    names = ["Alice", "Ruhd Regular", "Ruhd Regular 2"]
    said = describe_result(result, names, 0)
    assert said == "Ruhd Regular and Ruhd Regular 2 shared first place. You came 3rd."
    assert "draw" not in said.lower()
    assert describe_result(result, names, 1) == "You and Ruhd Regular 2 shared first place. Alice came 3rd."
    # The log's closing line says the places too (the game's own line only names the first place).
    assert closing_line(result, 3) == "{s1} and {s2} shared first place. {s0} came 3rd."


def test_a_draw_is_said_only_when_everyone_shares_the_first_place() -> None:
    names = ["Ann", "Bo", "Cy", "Di"]
    assert describe_result({"reason": "normal", "places": [1, 1, 1, 1]}, names, None) == "A draw."
    assert describe_result({"reason": "normal", "places": [1, 2, 2, 4]}, names, None) == (
        "Ann won. Bo and Cy shared 2nd place. Di came 4th.")
    # A legacy result without places: its winners first, the rest behind (never its draw flag when it has winners).
    legacy = {"reason": "normal", "scores": [10, 16, 16], "winners": [1, 2], "draw": True}
    assert Outcome.of(legacy, 3).seat_outcomes == ["lost", "drawn", "drawn"]  # type: ignore[union-attr]


def test_nobody_first_means_everyone_lost() -> None:
    """The only player who stayed resigned (the other had left): nobody is placed first."""
    assert outcomes_by_place([2, 3]) == ["lost", "lost"]


# ---------------------------------------------------------------------------------------------
# Ratings: a table of n moves a rating about as much as one game


def seat(index: int, user: int, place: int, *, bot: str = "") -> SeatFacts:
    return SeatFacts(index=index, user_id=user, is_bot=bool(bot), bot_level=bot, score=None, place=place)


def one_match(game: str, seats: list[SeatFacts]) -> MatchFacts:
    return MatchFacts(match_id=1, game=game, players=len(seats), finished_at=timezone.now(), is_public=True,
                      rated=True, reason="normal", places=[s.place or 0 for s in seats], seats=seats)  # type: ignore[arg-type]


def test_the_tour_s_columbo_table_moves_a_provisional_1500_no_more_than_one_game_against_the_table_s_average() -> None:
    """The tour: 1500, provisional, last of three against the Regular and the Rookie. Before, the two pairings were
    rated as two full games at once: 1500 -> 1042 in one match."""
    regular, rookie = LEVEL_RATINGS["columbo"]["reference"], LEVEL_RATINGS["columbo"]["random"]
    table: dict[int, object] = {}
    results = stats.apply_match(one_match("columbo", [seat(0, 1, 3), seat(1, 2, 1, bot="reference"),
                                                      seat(2, 3, 2, bot="random")]), table)  # type: ignore[arg-type]
    after = results[0].rating_after
    assert results[0].outcome == "lost" and results[0].rating_before == 1500 and after is not None
    moved = 1500 - after
    # The bound: one two-player game lost against an opponent of the opponents' average rating.
    average = glicko2.Rating((regular + rookie) / 2, BOT_DEVIATION)
    one_game = 1500 - glicko2.rate(glicko2.Rating(), [(average, 0.0)]).rating
    assert moved <= one_game + 1e-9
    assert moved == pytest.approx(one_game)  # last place is exactly that game lost
    # What the old rule did: each pairing a full game, all at once.
    both = 1500 - glicko2.rate(glicko2.Rating(), [(glicko2.Rating(regular, BOT_DEVIATION), 0.0),
                                                    (glicko2.Rating(rookie, BOT_DEVIATION), 0.0)]).rating
    assert both > moved + 50
    # The first match of a provisional player moves no more than a first two-player game against any single
    # opponent of the table would move them when lost (the weakest opponent gives the largest such move).
    weakest = 1500 - glicko2.rate(glicko2.Rating(), [(glicko2.Rating(rookie, BOT_DEVIATION), 0.0)]).rating
    assert moved <= weakest


RATINGS = st.floats(min_value=700, max_value=2300)
DEVIATIONS = st.floats(min_value=45, max_value=350)


@settings(max_examples=300, deadline=None)
@given(st.integers(min_value=3, max_value=6), st.data())
def test_no_seat_at_any_table_moves_more_than_one_game_won_or_lost_against_the_table_s_average(
        players: int, data: st.DataObject) -> None:
    ratings = [data.draw(RATINGS) for _ in range(players)]
    deviations = [data.draw(DEVIATIONS) for _ in range(players)]
    places = data.draw(st.lists(st.integers(min_value=1, max_value=players), min_size=players, max_size=players))
    places = [1 + sorted(set(places)).index(p) for p in places]  # dense: some seat is first
    table = {u: stats.new_stats(u, "ruhd", False, "") for u in range(players)}
    for u in range(players):
        table[u].rating, table[u].deviation = ratings[u], deviations[u]
    results = stats.apply_match(one_match("ruhd", [seat(i, i, places[i]) for i in range(players)]), table)
    for i, result in enumerate(results):
        others = [j for j in range(players) if j != i]
        opponent = glicko2.Rating(sum(ratings[j] for j in others) / len(others),
                                  math.sqrt(sum(deviations[j] ** 2 for j in others) / len(others)))
        me = glicko2.Rating(ratings[i], deviations[i])
        won = glicko2.rate(me, [(opponent, 1.0)]).rating - ratings[i]
        lost = glicko2.rate(me, [(opponent, 0.0)]).rating - ratings[i]
        assert result.rating_after is not None
        moved = result.rating_after - ratings[i]
        assert lost - 1e-6 <= moved <= won + 1e-6
        if result.outcome == "won":
            assert moved == pytest.approx(won)
        if places[i] == max(places) and places.count(max(places)) == 1:  # the sole last: that game lost
            assert moved == pytest.approx(lost)
