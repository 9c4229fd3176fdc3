"""Post-match analysis of a whole match: its replay into decisions, each weighed (``decision``), and each seat's
summary (``analyse``).

Which recorded actions are decisions: every action chosen among two or more options (the kit's
``analysis.classify``). Forced moves are skipped, and so is Columbo's peek (every card is unseen then: all choices
are alike).
Columbo's real-time moves: a 7-Q card action (look / exchange / skip) is a decision among those options; a
slap that was made is weighed against letting that discard go (the option ``None``); a slap *not* made leaves
no record (nobody knows when a player could have slapped), so missed slaps are not analysed, and neither is a
card action left to lapse.

Everything is deterministic for a given ``seed``: every random stream is derived from (seed, ply).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from games.engines.base import Action
from games.kits.analysis_spec import Budget, Thresholds

from .decision import Decision, analyse_decision
from .marks import match_accuracy
from .results import DecisionAnalysis, MatchAnalysis, SeatSummary
from .specs import get_spec

Progress = Callable[[int, int], None]


class AnalysisError(ValueError):
    """A recorded action list that does not replay."""


def decisions_of(game: str, players: int, seed: int, options: dict[str, Any] | None,
                 actions: Sequence[tuple[int, Action]], *,
                 deal: dict[str, Any] | None = None) -> tuple[list[Decision], dict[str, int]]:
    """Replay the match and collect its decisions (each with the deciding seat's view and knowledge), and the
    count of recorded actions left out, by reason. Cheap: no play-outs. ``deal``: the match was set up from
    this explicit deal (tests, puzzles) instead of its seed's shuffle."""
    spec = get_spec(game)
    engine = spec.engine
    state = engine.new_game(players, seed=seed, options=options or None, deal=deal)
    trackers = [spec.tracker(s) for s in range(players)]
    decisions: list[Decision] = []
    skipped: dict[str, int] = {}
    for ply, (seat, action) in enumerate(actions):
        try:
            after = engine.apply(state, seat, action)
        except ValueError as error:  # IllegalAction, or a seat that is no seat
            raise AnalysisError(f"Move {ply + 1} (seat {seat + 1}) doesn't replay: {error}") from None
        legal = engine.legal_actions(state, seat)
        view = engine.view(state, seat)
        kind, group = spec.classify(view, legal, action) if legal else (None, [])
        if kind is None:
            reason = "forced" if len(legal) <= 1 else str(action.get("type"))
            skipped[reason] = skipped.get(reason, 0) + 1
        elif len(group) <= 1:
            skipped["forced"] = skipped.get("forced", 0) + 1
        else:
            decisions.append(Decision(ply, seat, kind, view, group, action, trackers[seat].knowledge()))
        state = after
        for s, tracker in enumerate(trackers):
            if tracker.needs_view:
                tracker.observe(seat, action, engine.view(state, s))
    return decisions, skipped


def summarise(players: int, decisions: Sequence[DecisionAnalysis]) -> list[SeatSummary]:
    """Per-seat accuracy and mark counts."""
    out = []
    for seat in range(players):
        mine = [d for d in decisions if d.seat == seat]
        out.append(SeatSummary(
            seat=seat, decisions=len(mine), accuracy=match_accuracy([d.accuracy for d in mine]),
            mean_cost=sum(d.cost for d in mine) / len(mine) if mine else 0.0,
            inaccuracies=sum(1 for d in mine if d.mark == "inaccuracy"),
            mistakes=sum(1 for d in mine if d.mark == "mistake"),
            blunders=sum(1 for d in mine if d.mark == "blunder"),
        ))
    return out


def analyse(game: str, players: int, seed: int, options: dict[str, Any] | None,
            actions: Sequence[tuple[int, Action]], *, budget: Budget | None = None, analysis_seed: int = 0,
            progress: Progress | None = None, seats: Sequence[int] | None = None,
            thresholds: Thresholds | None = None, deal: dict[str, Any] | None = None) -> MatchAnalysis:
    """Analyse every decision of a recorded match (game, players, seed, options and (seat, action) list, as
    games.replay records it).

    budget: the work per decision (default: the game's, its kit's analysis.budget); analysis_seed: the seed of the
    analysis's own random streams (the same inputs and seed give the same result); progress(done, total):
    called before the first decision and after each one; seats: analyse only these seats' decisions;
    thresholds: the marks' thresholds (default: its kit's analysis.thresholds); deal: the match was dealt from
    this explicit deal (engine.new_game's deal=) rather than shuffled from its seed.
    """
    spec = get_spec(game)
    if players < 2:
        raise ValueError("Only matches of two or more players are analysed (a solo game has no opponent).")
    budget = budget or spec.budget
    thresholds = thresholds or spec.thresholds
    decisions, skipped = decisions_of(game, players, seed, options, actions, deal=deal)
    if seats is not None:
        wanted = set(seats)
        decisions = [d for d in decisions if d.seat in wanted]
    total = len(decisions)
    if progress is not None:
        progress(0, total)
    results: list[DecisionAnalysis] = []
    for done, decision in enumerate(decisions, start=1):
        results.append(analyse_decision(spec, decision, seed=analysis_seed, budget=budget, thresholds=thresholds))
        if progress is not None:
            progress(done, total)
    return MatchAnalysis(game=game, players=players, seed=analysis_seed, budget=budget, thresholds=thresholds,
                         decisions=results, seats=summarise(players, results), actions=len(actions),
                         skipped=skipped)


__all__ = ["AnalysisError", "analyse", "decisions_of", "summarise"]
