"""Statistics and ratings: kept up to date as each match finishes, and rebuilt identically from the records."""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import playing
import pytest
from django.core.management import call_command
from django.utils import timezone
from history_helpers import SLUGS, fresh, play_random, play_with_bots, snapshot, start_match
from openings import play_openings

from games.bots import LEVEL_RATINGS
from games.catalog import GAMES
from games.engines import get_engine
from games.models import FinishedMatch, Match, Move, PlayerResult, PlayerStats
from games.play.bot_accounts import bot_levels
from games.ratings import glicko2, stats

pytestmark = pytest.mark.django_db

OPTIONS = {"columbo": {"rounds": 2}}


@pytest.fixture
def instant_bots(settings: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Bots act as soon as they are asked: no pause, no reaction time (Columbo's slaps), no patience
    (the time a bot leaves a person to use a card action or slap before it draws)."""
    settings.GAMES_BOT_DELAY = 0
    for slug in SLUGS:
        monkeypatch.setitem(GAMES, slug, dataclasses.replace(GAMES[slug], reaction_delay={}, patience=None))


def stats_of(user: Any, game: str) -> PlayerStats:
    return PlayerStats.objects.get(user=user, game=game)


def replayed_states(match: Match) -> list[Any]:
    """The deal and the state after every move (an independent replay, for the checks below)."""
    engine = get_engine(match.game)
    state = engine.new_game(match.players, seed=match.seed, options=match.options or None)
    states = [state]
    for move in Move.objects.filter(match=match).order_by("number"):
        state = engine.apply(state, move.seat, move.action)
        states.append(state)
    return states


# ---------------------------------------------------------------------------------------------
# A whole match, played by bots through the services


@pytest.mark.parametrize("game", SLUGS)
def test_stats_after_a_match_played_by_bots(game: str, alice: Any, instant_bots: None) -> None:
    level = bot_levels(game)[-1]
    match = play_with_bots(game, alice, [level], seed=7, rng=random.Random(7), options=OPTIONS.get(game))
    assert match.status == Match.Status.FINISHED
    assert match.result["reason"] == "normal"
    seats = list(match.seats.select_related("user").order_by("index"))
    bot = seats[1].user

    listing = FinishedMatch.objects.get(match=match)
    assert (listing.game, listing.with_bots, listing.finished_at) == (game, True, match.finished_at)

    mine = PlayerResult.objects.get(match=match, seat=0)
    theirs = PlayerResult.objects.get(match=match, seat=1)
    places = [seat.place for seat in seats]
    expected = "drawn" if places[0] == places[1] else "won" if places[0] < places[1] else "lost"
    assert mine.outcome == expected
    assert (mine.user, mine.score, mine.place, mine.vs_bots, mine.is_bot) == (alice, seats[0].final_score,
                                                                             seats[0].place, True, False)
    assert (theirs.user, theirs.is_bot, theirs.rated) == (bot, True, False)

    # The person is rated against the bot's fixed rating; the bot does not move.
    score = {"won": 1.0, "lost": 0.0, "drawn": 0.5}[expected]
    new = glicko2.rate(glicko2.Rating(), [(glicko2.Rating(LEVEL_RATINGS[game][level], stats.BOT_DEVIATION), score)])
    assert mine.rated and mine.rating_before == 1500
    assert mine.rating_after == pytest.approx(new.rating)
    row = stats_of(alice, game)
    assert (row.rating, row.deviation, row.volatility) == pytest.approx((new.rating, new.deviation, new.volatility))
    assert (row.played, row.rated_matches, row.peak_rating) == (1, 1, pytest.approx(new.rating))
    assert (row.won, row.lost, row.drawn) == tuple(int(expected == o) for o in ("won", "lost", "drawn"))
    assert row.streak == row.best_streak == int(expected == "won")
    assert row.win_rate == (1.0 if expected == "won" else 0.0)
    assert (row.scored, row.score_total, row.best_score) == (1, seats[0].final_score, seats[0].final_score)
    assert row.last_played_at == match.finished_at
    bot_row = stats_of(bot, game)
    assert (bot_row.played, bot_row.rating, bot_row.rated_matches) == (1, LEVEL_RATINGS[game][level], 0)

    # The game's own best figures, read independently of games.stats.
    engine = get_engine(game)
    states = replayed_states(match)
    assert engine.dump(states[-1]) == match.state
    if game == "columbo":
        rounds = engine.view(states[-1], None)["rounds_played"]
        assert len(rounds) == 2
        assert row.extras["best_round"] == min(entry["scores"][0] for entry in rounds)
    elif game == "ruhd":
        lasts = [engine.view(after, None)["last"] for after in states[1:]]
        points = [last["points"] for last in lasts if last["type"] == "place" and last["seat"] == 0]
        assert row.extras["best_placement"] == max(points)
        assert "best_placement" in stats_of(bot, game).extras
    else:
        assert row.extras == {}


def test_a_columbo_solo_game_counts_apart_from_wins_and_losses(alice: Any) -> None:
    match = start_match("columbo", [alice], seed=3)
    match = play_random(match, [alice], random.Random(3))
    row = stats_of(alice, "columbo")
    result = PlayerResult.objects.get(match=match)
    assert (result.outcome, result.rated) == ("solo", False)
    assert (row.played, row.solo_played, row.won, row.lost, row.drawn, row.rated_matches) == (1, 1, 0, 0, 0, 0)
    assert row.win_rate is None and row.scored == 0
    assert row.extras["best_solo"] == fresh(match).result["scores"][0]
    assert "best_round" in row.extras
    assert row.rating == 1500


def test_people_against_each_other_both_move_and_the_sum_of_changes_is_near_zero(alice: Any, bob: Any) -> None:
    match = play_random(start_match("gomori", [alice, bob], seed=11), [alice, bob], random.Random(11))
    a, b = stats_of(alice, "gomori"), stats_of(bob, "gomori")
    if match.result["draw"]:
        assert a.rating == pytest.approx(1500) == b.rating
    else:
        assert (a.rating - 1500) == pytest.approx(1500 - b.rating)
        winner = a if 0 in match.result["winners"] else b
        assert winner.rating > 1500 and winner.streak == 1
    assert a.rated_matches == b.rated_matches == 1


def test_an_unrated_match_counts_but_moves_no_rating(alice: Any, bob: Any) -> None:
    play_random(start_match("gomori", [alice, bob], seed=5, rated=False), [alice, bob], random.Random(5))
    for user in (alice, bob):
        row = stats_of(user, "gomori")
        assert (row.played, row.rated_matches, row.rating, row.deviation, row.peak_rating) == (1, 0, 1500, 350, None)
    assert not PlayerResult.objects.filter(rated=True).exists()


def test_a_resignation_is_a_loss_whose_score_is_not_averaged(alice: Any, bob: Any) -> None:
    match = start_match("gomori", [alice, bob], seed=9)
    rng = random.Random(9)
    engine = get_engine("gomori")
    for _ in range(6):
        match = fresh(match)
        state = engine.load(match.state)
        (seat,) = engine.to_act(state)
        playing.act(match_id=match.pk, user=[alice, bob][seat], seat=seat,
                     action=rng.choice(engine.legal_actions(state, seat)), expected_version=match.version)
    playing.resign(match_id=match.pk, user=alice)
    a, b = stats_of(alice, "gomori"), stats_of(bob, "gomori")
    assert (a.lost, a.won, a.streak, a.scored, a.best_score) == (1, 0, 0, 0, None)
    assert (b.won, b.streak, b.best_streak, b.scored) == (1, 1, 1, 0)
    assert b.rating > 1500 > a.rating


def test_recording_a_match_twice_changes_nothing(alice: Any, bob: Any) -> None:
    match = play_random(start_match("gomori", [alice, bob], seed=2), [alice, bob], random.Random(2))
    before = snapshot()
    stats.record_finished(fresh(match))
    assert snapshot() == before


# ---------------------------------------------------------------------------------------------
# The rebuild command gives exactly the incremental figures


def test_rebuild_stats_equals_the_incremental_figures(
    alice: Any, bob: Any, carol: Any, instant_bots: None, capsys: pytest.CaptureFixture[str]
) -> None:
    rng = random.Random(2024)
    play_random(start_match("gomori", [alice, bob], seed=1), [alice, bob], rng)
    play_random(start_match("gomori", [bob, alice], seed=2, is_public=False), [bob, alice], rng)
    play_random(start_match("ruhd", [alice, bob, carol], seed=3), [alice, bob, carol], rng)
    play_random(start_match("rummy", [carol, alice], seed=4, rated=False), [carol, alice], rng)
    play_random(start_match("columbo", [alice, bob, carol], seed=5, options={"rounds": 1}), [alice, bob, carol], rng)
    play_random(start_match("columbo", [carol], seed=6), [carol], rng)
    play_with_bots("gomori", alice, ["search"], seed=7, rng=rng)
    play_with_bots("ruhd", bob, ["random", "reference"], seed=8, rng=rng)
    resigned = play_openings(start_match("gomori", [carol, bob], seed=9))
    playing.resign(match_id=resigned.pk, user=bob)
    unfinished = start_match("gomori", [alice, carol], seed=10)

    incremental = snapshot()
    assert len(incremental["listings"]) == 9
    assert unfinished.pk not in incremental["listings"]
    assert incremental["stats"][(alice.pk, "gomori")]["rated_matches"] == 3

    call_command("rebuild_stats")
    assert "from 9 finished matches" in capsys.readouterr().out
    assert snapshot() == incremental


# ---------------------------------------------------------------------------------------------
# The pure step, case by case


def facts(seats: list[tuple[int, bool, str, int | None, int]], *,
          game: str = "gomori", rated: bool = True, reason: str = "normal", match_id: int = 1) -> stats.MatchFacts:
    """A finished match's facts from (user id, is bot, bot level, score, place) per seat: the places decide."""
    return stats.MatchFacts(
        match_id=match_id, game=game, players=len(seats), finished_at=timezone.now(), is_public=True, rated=rated,
        reason=reason, places=[place for *_, place in seats],
        seats=[stats.SeatFacts(index=i, user_id=u, is_bot=b, bot_level=lv, score=sc, place=pl)
               for i, (u, b, lv, sc, pl) in enumerate(seats)],
    )


def test_streaks_count_wins_in_a_row_and_a_draw_ends_them() -> None:
    table: dict[int, PlayerStats] = {}
    for number, (winners, draw) in enumerate([([0], False), ([0], False), ([], True), ([0], False), ([1], False)]):
        places = (1, 1) if draw else (1, 2) if winners == [0] else (2, 1)
        stats.apply_match(facts([(1, False, "", 10, places[0]), (2, False, "", 5, places[1])], match_id=number),
                          table)
    me = table[1]
    assert (me.played, me.won, me.drawn, me.lost, me.streak, me.best_streak) == (5, 3, 1, 1, 0, 2)
    assert me.win_rate == pytest.approx(0.6)
    assert me.best_score == 10 and me.average_score == 10


def test_multiplayer_matches_are_rated_as_one_game_by_place_against_the_table() -> None:
    """Each pairing scored by place (ahead 1, level 0.5, behind 0), averaged, against the opponents' average: one
    game, so a table of three moves a rating as much as one two-player game would."""
    table: dict[int, PlayerStats] = {}
    results = stats.apply_match(
        facts([(1, False, "", 30, 1), (2, False, "", 20, 2), (3, False, "", 20, 2)], game="ruhd"), table
    )
    new = glicko2.Rating()
    assert table[1].rating == pytest.approx(glicko2.rate(new, [(new, 1.0)]).rating)
    assert table[2].rating == pytest.approx(glicko2.rate(new, [(new, 0.25)]).rating)
    assert table[2].rating == table[3].rating
    assert [r.outcome for r in results] == ["won", "lost", "lost"]
    assert all(r.rating_before == 1500 for r in results)


def test_bots_keep_their_fixed_rating_and_people_are_rated_against_it() -> None:
    table: dict[int, PlayerStats] = {}
    for number in range(3):
        stats.apply_match(facts([(1, False, "", 3, 2), (9, True, "search", 8, 1)], match_id=number),
                          table)
    shark = LEVEL_RATINGS["gomori"]["search"]  # the level's measured rating: the one number every page shows
    assert (table[9].rating, table[9].deviation, table[9].rated_matches) == (shark, stats.BOT_DEVIATION, 0)
    expected = glicko2.Rating()
    for _ in range(3):
        expected = glicko2.rate(expected, [(glicko2.Rating(shark, stats.BOT_DEVIATION), 0.0)])
    assert table[1].rating == pytest.approx(expected.rating)
    assert table[1].rated_matches == 3 and table[1].peak_rating < 1500


def test_lower_is_better_games_keep_the_lowest_score_as_best() -> None:
    table: dict[int, PlayerStats] = {}
    for number, penalty in enumerate([40, 12, 55]):
        stats.apply_match(facts([(1, False, "", penalty, 2), (2, False, "", 0, 1)], game="rummy",
                                match_id=number), table)
    assert table[1].best_score == 12 and table[1].average_score == pytest.approx(107 / 3)
    assert table[2].best_score == 0


def test_a_match_with_one_person_and_only_bots_of_the_same_account_rates_each_seat() -> None:
    table: dict[int, PlayerStats] = {}
    results = stats.apply_match(
        facts([(1, False, "", 10, 1), (9, True, "random", 20, 2), (9, True, "random", 30, 3)],
              game="columbo"), table)
    assert table[9].played == 2
    assert [r.rated for r in results] == [True, False, False]
    bot = glicko2.Rating(LEVEL_RATINGS["columbo"]["random"], stats.BOT_DEVIATION)
    assert table[1].rating == pytest.approx(glicko2.rate(glicko2.Rating(), [(bot, 1.0)]).rating)
