"""Per-player results, statistics and Glicko-2 ratings, kept up to date as matches finish.

`on_recorded(match_id)` counts a finished match in the change that follows its end (games.play.events: the end is
written and shown first; Match.stats_due marks the matches whose figures are still to be written, and the runner's
sweep writes them after a crash), so a page view never recomputes them. The pure step, `apply_match`, is the one
games.ratings.rebuild replays for a rebuild or an annulment.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Iterable
from typing import Any

from ..catalog import GAMES
from ..kits.figures import MatchRecord, MoveLoader
from ..models import Match, Move, PlayerResult, PlayerStats, Seat
from ..results import SeatOutcome, Termination, outcomes_by_place
from . import glicko2
from .facts import MatchFacts, SeatFacts
from .rules import BOT_DEVIATION, bot_rating, is_provisional

log = logging.getLogger(__name__)

# The PlayerStats fields a finished match may change (for bulk_update).
STATS_FIELDS = [
    "played", "won", "lost", "drawn", "solo_played", "streak", "best_streak", "score_total", "scored",
    "best_score", "extras", "rating", "deviation", "volatility",
    "rated_matches", "peak_rating", "last_played_at",
]

# ---------------------------------------------------------------------------------------------
# Reading a finished match


def match_facts(match: Match, seats: Iterable[Seat], moves: MoveLoader) -> MatchFacts:
    """The facts of a finished match; `moves` loads its (seat, action) list only if the game needs it."""
    result = match.result or {}
    assert match.finished_at is not None, "only a finished match has facts"
    seats = list(seats)
    # The places decide the results: those the match recorded with its end (its seats' places before that).
    places = [int(p) for p in result.get("places") or []]
    if len(places) != match.players:
        by_index = {seat.index: seat.place for seat in seats}
        places = [by_index.get(index) or match.players for index in range(match.players)]
    facts = MatchFacts(
        match_id=match.pk,
        game=match.game,
        players=match.players,
        finished_at=match.finished_at,
        is_public=match.is_public,
        rated=match.rated,
        reason=Termination(result.get("reason", Termination.NORMAL)),
        places=places,
        seats=[
            SeatFacts(
                index=seat.index,
                user_id=seat.user_id,
                is_bot=seat.user.is_bot,  # type: ignore[union-attr]  # only occupied seats are passed
                bot_level=seat.user.bot_level,  # type: ignore[union-attr]
                score=seat.final_score,
                place=places[seat.index],
            )
            for seat in seats
            if seat.user_id is not None
        ],
    )
    extra = GAMES[match.game].stats_extra
    if extra is not None:
        try:
            extra(MatchRecord(match.players, match.seed, match.options or {}, match.state), facts, moves)
        except Exception:  # a replay that no longer works must not stop a match from finishing
            log.exception("could not read the game-specific figures of match %s", match.pk)
            facts.extras.clear()
    return facts


def outcome_of(facts: MatchFacts, seat: int) -> SeatOutcome:
    """won, lost, drawn or solo: the seat's result from its place (games.results.outcomes_by_place)."""
    return outcomes_by_place(facts.places)[seat]


def _pair_score(mine: SeatFacts, other: SeatFacts) -> float:
    """One pairing of a match as a game: 1 if placed ahead of the other, 0.5 level, 0 behind."""
    if mine.place is None or other.place is None or mine.place == other.place:
        return 0.5
    return 1.0 if mine.place < other.place else 0.0


def table_game(mine: SeatFacts, others: list[tuple[SeatFacts, glicko2.Rating]]) -> tuple[glicko2.Rating, float]:
    """A match at a table of n as one game, the opponent and the score a seat is rated with: the pairings' scores
    by place averaged, against the opponents' average rating (their deviations' root mean square). Each opponent
    weighs 1/(n-1), so a match moves a rating exactly as one two-player game against an opponent of the table's
    average rating would with that score: last place is that game lost, sole first that game won. (Glicko-2 with
    each pairing weighted 1/(n-1) instead moved up to 30 times further at mixed tables: a pairing far from one's
    rating informs the deviation little, so the step grows; bench/multiplayer_ratings.py.) At a table of two it
    is the one game itself."""
    count = len(others)
    rating = sum(r.rating for _, r in others) / count
    deviation = math.sqrt(sum(r.deviation ** 2 for _, r in others) / count)
    score = sum(_pair_score(mine, other) for other, _ in others) / count
    return glicko2.Rating(rating, deviation), score


# ---------------------------------------------------------------------------------------------
# Applying a match to the statistics (pure: no queries)


def new_stats(user_id: int, game: str, is_bot: bool, bot_level: str) -> PlayerStats:
    """A fresh row: the Glicko-2 start for people, the level's fixed rating for bots."""
    if is_bot:
        return PlayerStats(user_id=user_id, game=game, rating=bot_rating(game, bot_level), deviation=BOT_DEVIATION)
    return PlayerStats(
        user_id=user_id,
        game=game,
        rating=glicko2.START_RATING,
        deviation=glicko2.START_DEVIATION,
        volatility=glicko2.START_VOLATILITY,
    )


def _highest(old: int | None, new: int) -> int:
    return new if old is None else max(old, new)


def _lowest(old: int | None, new: int) -> int:
    return new if old is None else min(old, new)


def _better(game: str, old: int | None, new: int) -> int:
    """The better of two final scores in this game's direction."""
    return _lowest(old, new) if GAMES[game].lower_is_better else _highest(old, new)


def apply_match(facts: MatchFacts, stats: dict[int, PlayerStats]) -> list[PlayerResult]:
    """Update the players' rows (user id -> PlayerStats of this game) with one match; its result rows.

    Ratings move for people only, each match as one game against the table (table_game), with the opponents'
    ratings from before the match; a bot opponent counts at its level's measured rating.
    """
    game = facts.game
    for seat in facts.seats:
        if seat.user_id not in stats:
            stats[seat.user_id] = new_stats(seat.user_id, game, seat.is_bot, seat.bot_level)
    before = {
        seat.index: glicko2.Rating(
            bot_rating(game, seat.bot_level) if seat.is_bot else stats[seat.user_id].rating,
            BOT_DEVIATION if seat.is_bot else stats[seat.user_id].deviation,
            stats[seat.user_id].volatility,
        )
        for seat in facts.seats
    }
    rated_match = facts.rated and not facts.solo and len(facts.seats) > 1
    results: list[PlayerResult] = []
    updates: dict[int, glicko2.Rating] = {}
    for seat in facts.seats:
        row = stats[seat.user_id]
        outcome = outcome_of(facts, seat.index)
        row.played += 1
        row.last_played_at = facts.finished_at
        if outcome == PlayerResult.Outcome.SOLO:
            row.solo_played += 1
        elif outcome == PlayerResult.Outcome.WON:
            row.won += 1
            row.streak += 1
            row.best_streak = max(row.best_streak, row.streak)
        else:
            row.lost += outcome == PlayerResult.Outcome.LOST
            row.drawn += outcome == PlayerResult.Outcome.DRAWN
            row.streak = 0
        if outcome != PlayerResult.Outcome.SOLO and facts.played_out and seat.score is not None:
            row.score_total += seat.score
            row.scored += 1
            row.best_score = _better(game, row.best_score, seat.score)
        if seat.index in facts.extras:
            figures = GAMES[game].figure
            row.extras = {**row.extras, **{key: figures[key].best(row.extras.get(key), value)
                                           for key, value in facts.extras[seat.index].items()}}
        result = PlayerResult(
            match_id=facts.match_id,
            seat=seat.index,
            user_id=seat.user_id,
            game=game,
            finished_at=facts.finished_at,
            is_public=facts.is_public,
            outcome=outcome,
            is_bot=seat.is_bot,
            vs_bots=any(other.is_bot for other in facts.seats if other.index != seat.index),
            score=seat.score,
            place=seat.place,
        )
        if rated_match and not seat.is_bot:
            others = [(other, before[other.index]) for other in facts.seats
                      if other.index != seat.index and other.user_id != seat.user_id]
            if others:
                updates[seat.index] = glicko2.rate(before[seat.index], [table_game(seat, others)])
                result.rated = True
                result.rating_before = before[seat.index].rating
        results.append(result)
    # Simultaneous: every player's new rating came from the others' ratings before the match.
    for result in results:
        new = updates.get(result.seat)
        if new is None:
            continue
        row = stats[result.user_id]
        row.rating, row.deviation, row.volatility = new.rating, new.deviation, new.volatility
        row.rated_matches += 1
        row.peak_rating = new.rating if row.peak_rating is None else max(row.peak_rating, new.rating)
        result.rating_after = new.rating
        result.deviation_after = new.deviation
    return results


# ---------------------------------------------------------------------------------------------
# Database: one match as it finishes, or everything again


def _move_loader(match_id: int) -> MoveLoader:
    def load() -> list[tuple[int, dict[str, Any]]]:
        return list(Move.objects.filter(match_id=match_id).order_by("number").values_list("seat", "action"))

    return load


def rating_changes(results: list[PlayerResult], stats: dict[int, PlayerStats]) -> list[dict[str, Any]]:
    """What a rated match did to each person's rating, as its result box shows it ("1512 → 1524, +12"):
    [{"seat", "before", "after", "provisional"}] with whole ratings; provisional as the leaderboard says."""
    changes = []
    for result in results:
        if not result.rated or result.rating_before is None or result.rating_after is None:
            continue
        changes.append({"seat": result.seat, "before": round(result.rating_before), "after": round(result.rating_after),
                        "provisional": is_provisional(stats[result.user_id])})
    return changes


def record_finished(match: Match) -> list[dict[str, Any]]:
    """Add a match that has just finished (under its row lock) to the results and statistics; what it did to
    the players' ratings (rating_changes). Its history listing was written with its end.

    Called once from games.play.store, in the change that clears Match.stats_due; a second call for the same
    match changes nothing. The players'
    statistics rows are locked in user order, so two matches finishing at once serialise cleanly.
    """
    if match.status != Match.Status.FINISHED or match.finished_at is None:
        return []
    if PlayerResult.objects.filter(match_id=match.pk).exists():
        return []
    seats = list(Seat.objects.filter(match_id=match.pk, user__isnull=False).select_related("user").order_by("index"))
    if not seats:
        return []
    facts = match_facts(match, seats, _move_loader(match.pk))
    fresh = {seat.user_id: new_stats(seat.user_id, match.game, seat.is_bot, seat.bot_level) for seat in facts.seats}
    PlayerStats.objects.bulk_create(fresh.values(), ignore_conflicts=True)
    rows = PlayerStats.objects.select_for_update().filter(game=match.game, user_id__in=list(fresh)).order_by("user_id")
    stats = {row.user_id: row for row in rows}
    results = apply_match(facts, stats)
    # A plain UPDATE per player: bulk_update's CASE per field cost more to build than the writes (two rows).
    for row in stats.values():
        if row.pk:
            row.save(update_fields=STATS_FIELDS)
    # A row is missing only if a rebuild deleted it between the insert and the lock: write it anew.
    PlayerStats.objects.bulk_create([row for row in stats.values() if not row.pk])
    PlayerResult.objects.bulk_create(results)
    return rating_changes(results, stats)


def on_recorded(match_id: int) -> dict[str, Any]:
    """The match's end is shown: count it in the results, statistics and ratings (once: games.play.events); what
    it did to each rating joins its result, for the result box."""
    changes = record_finished(Match.objects.get(pk=match_id))
    return {"ratings": changes} if changes else {}
