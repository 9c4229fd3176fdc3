"""One decision weighed by determinized play-outs: the play-out itself and the per-decision evaluation.

For each decision (a recorded action chosen among several options, see the kit's ``analysis.classify``), working
from the deciding seat's view only:

1. the strongest bot of the game is asked what it would play (with the same view and options);
2. the candidates are the played move, the bot's move, and the next best options in a cheap per-game order,
   ``budget.candidates`` in all;
3. ``budget.screen + budget.samples`` states consistent with the view are sampled (``determinize``); the same
   samples, and the same play-out random streams, serve every candidate (common random numbers);
4. *screening*: every candidate is applied to each of the first ``budget.screen`` samples and the game is played
   out by the fast reference bots for every seat; the candidate with the best mean is the *leader*;
5. *evaluation*: the leader, the played move and the bot's move are played out on ``budget.samples`` fresh
   samples. The best of them by that estimate is the best move, and the cost of the played move is
   ``max(0, value(best) - value(played))``. The fresh samples keep the screening's luck (a candidate that
   happened to draw well) out of the cost; a move the screening itself found best costs 0 unless the
   evaluation finds a finalist better.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from games.engines.base import Action, View
from games.kits.analysis_spec import AnalysisSpec, Budget, Knowledge, Option, Thresholds, option_key

from .marks import move_accuracy
from .results import Candidate, DecisionAnalysis


def playout(spec: AnalysisSpec, state: Any, rng: random.Random, stop: Callable[[Any], bool], max_steps: int) -> Any:
    """Play the game on with the rollout bot in every seat until it ends or `stop` says so.

    When several seats may act (Columbo's slaps and card actions), every one is asked and the optional moves
    race ahead of the seat the game waits on, in a random order, as in bench/bots.py."""
    engine = spec.engine
    bot = spec.rollout
    for _ in range(max_steps):
        if engine.is_over(state) or stop(state):
            return state
        seats = engine.to_act(state)
        if len(seats) == 1:
            seat = seats[0]
            view = engine.view(state, seat)
            legal = view["legal"]
            action, _ = bot(view, legal, rng)
            if action is None:
                action = legal[0]
        else:
            must = set(engine.must_act(state))
            wanted: list[tuple[int, Action]] = []
            for seat in seats:
                view = engine.view(state, seat)
                choice, _ = bot(view, view["legal"], rng)
                if choice is not None:
                    wanted.append((seat, choice))
                elif seat in must and view["legal"]:
                    wanted.append((seat, view["legal"][0]))
            optional = [w for w in wanted if w[0] not in must]
            rng.shuffle(optional)
            seat, action = (optional or wanted)[0]
        state = engine.apply(state, seat, action)
    return state


def _standard_error(values: Sequence[float]) -> float:
    n = len(values)
    if n < 2:
        return 0.0
    mean = sum(values) / n
    return math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1) / n)


def _value(spec: AnalysisSpec, state: Any, seat: int, view: View) -> float:
    return spec.soft_win(spec.engine.scores(state), seat, view)


def _apply_option(spec: AnalysisSpec, state: Any, seat: int, option: Option) -> Any:
    if option is None:
        return spec.let_go(state, seat)
    return spec.engine.apply(state, seat, option)


@contextmanager
def _node_bound_bots(spec: AnalysisSpec) -> Iterator[None]:
    """Bots whose search stops on a clock as well as a node count would make the analysis depend on the
    machine's load; while the analysis asks them, their time limit is lifted so that the node budget alone
    decides (same answers, at the same bounded cost). Only the module attribute is changed, and restored."""
    module: Any = spec.bot_module
    saved = getattr(module, "TIME_BUDGET", None)
    if saved is None:
        yield
        return
    module.TIME_BUDGET = 1e9
    try:
        yield
    finally:
        module.TIME_BUDGET = saved


@dataclass
class Decision:
    """A decision to analyse: everything the deciding seat knew, and what it played."""

    ply: int
    seat: int
    kind: str
    view: View
    options: list[Option]
    played: Option
    knowledge: Knowledge


def analyse_decision(spec: AnalysisSpec, decision: Decision, *, seed: int, budget: Budget,
                     thresholds: Thresholds) -> DecisionAnalysis:
    """Weigh one decision from the seat's view (see the module docstring)."""
    view, seat, options, played = decision.view, decision.seat, decision.options, decision.played
    tag = f"{seed}:{decision.ply}"
    bot_legal = [o for o in options if o is not None]
    with _node_bound_bots(spec):
        bot, _ = spec.strongest(view, bot_legal, random.Random(f"{tag}:bot"))
    keys = {option_key(o) for o in options}
    if option_key(bot) not in keys:  # a bot answer outside the options (never expected): ignore it
        bot = played

    ranked = spec.rank(view, options, random.Random(f"{tag}:rank"))
    candidates: list[Option] = []
    seen: set[str] = set()
    for option in (played, bot, *ranked):
        key = option_key(option)
        if key not in seen:
            seen.add(key)
            candidates.append(option)
        if len(candidates) >= max(2, budget.candidates):
            break

    total = budget.screen + budget.samples
    samples = [spec.sampler(view, decision.knowledge, random.Random(f"{tag}:sample:{i}")) for i in range(total)]
    stop = spec.stop(view)

    def run(option: Option, i: int) -> float:
        state = _apply_option(spec, samples[i], seat, option)
        end = playout(spec, state, random.Random(f"{tag}:playout:{i}"), stop, budget.max_steps)
        return _value(spec, end, seat, view)

    screened: list[Candidate] = []
    if len(candidates) > 1 and budget.screen > 0:
        for option in candidates:
            values = [run(option, i) for i in range(budget.screen)]
            screened.append(Candidate(option, sum(values) / len(values), len(values)))
        # ties keep the earlier candidate: the played move, then the bot's
        leader = max(screened, key=lambda c: c.screen_value).action
    else:
        leader = played

    finalists: list[Option] = []
    for option in (played, bot, leader):
        if option_key(option) not in {option_key(f) for f in finalists}:
            finalists.append(option)
    means: dict[str, float] = {}
    outcomes: dict[str, list[float]] = {}
    for option in finalists:
        runs = [run(option, i) for i in range(budget.screen, total)]
        outcomes[option_key(option)] = runs
        means[option_key(option)] = sum(runs) / len(runs) if runs else 0.5
    best = max(finalists, key=lambda o: means[option_key(o)])  # ties: played, then bot, then leader
    value_played = means[option_key(played)]
    value_best = means[option_key(best)]
    cost = max(0.0, value_best - value_played)
    diffs = [b - p for b, p in zip(outcomes[option_key(best)], outcomes[option_key(played)], strict=True)]
    cost_se = _standard_error(diffs)
    mark = thresholds.mark(cost, cost_se)

    return DecisionAnalysis(
        ply=decision.ply, seat=seat, kind=decision.kind, options=len(options), played=played, bot=bot, best=best,
        value_played=value_played, value_best=value_best, value_bot=means[option_key(bot)], cost=cost,
        cost_se=cost_se, mark=mark, accuracy=move_accuracy(cost, thresholds.accuracy_scale), samples=budget.samples,
        candidates=screened,
    )


__all__ = ["Decision", "analyse_decision", "playout"]
