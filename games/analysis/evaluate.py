"""Post-match analysis: every decision of a recorded match weighed by determinized play-outs.

For each decision (a recorded action chosen among several options, see ``specs``), working from the deciding
seat's view only:

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

Values are soft win chances in [0, 1] for the deciding seat (``specs``). Marks and accuracy follow lichess:
thresholds on the win-chance loss per game (``THRESHOLDS``, set from measured distributions in
bench/ANALYSIS.md; a mark also needs the loss to be at least two standard errors of its paired estimate), and
lichess's per-move accuracy curve on the loss in percentage points (scaled so that each game's mistake
threshold sits where lichess's does).

Which recorded actions are decisions: every action chosen among two or more options (``specs.classify``).
Forced moves are skipped, and so is Columbo's peek (every card is unseen then: all choices are alike).
Columbo's real-time moves: a 7-Q card action (look / exchange / skip) is a decision among those options; a
slap that was made is weighed against letting that discard go (the option ``None``); a slap *not* made leaves
no record (nobody knows when a player could have slapped), so missed slaps are not analysed, and neither is a
card action left to lapse.

Everything is deterministic for a given ``seed``: every random stream is derived from (seed, ply).
"""

from __future__ import annotations

import importlib
import math
import random
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from typing import Any

from games.engines.base import Action, View

from .determinize import Knowledge, new_tracker
from .specs import GameSpec, Option, get_spec, option_key

ANALYSIS_VERSION = 1

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class Budget:
    """The work per decision: at most ``candidates * screen + 3 * samples`` play-outs."""

    candidates: int = 6  # options screened (the played move and the strongest bot's always among them)
    screen: int = 8  # samples per candidate in the screening stage
    samples: int = 24  # fresh samples per finalist (leader, played, bot) in the evaluation stage
    max_steps: int = 5000  # a play-out's safety cap on actions (no game of ours comes near it)

    def playouts(self) -> int:
        """The most play-outs one decision may take."""
        return self.candidates * self.screen + 3 * self.samples

    def to_json(self) -> dict[str, int]:
        return asdict(self)


LICHESS_MISTAKE = 0.20  # lichess marks a mistake from a loss of 20 win-chance points
SIGNIFICANCE = 2.0  # a mark needs a loss of at least this many standard errors


@dataclass(frozen=True)
class Thresholds:
    """Win-chance losses (0-1) from which a decision is marked."""

    inaccuracy: float
    mistake: float
    blunder: float

    @property
    def accuracy_scale(self) -> float:
        """How a loss of this game maps onto lichess's scale for the accuracy curve: the game's mistake threshold
        counts as lichess's (20 percentage points), so a mark means the same accuracy in every game."""
        return LICHESS_MISTAKE / self.mistake

    def mark(self, cost: float, se: float = 0.0) -> str | None:
        """The mark of a loss; none unless the loss is at least SIGNIFICANCE standard errors of its estimate."""
        if cost < SIGNIFICANCE * se:
            return None
        if cost >= self.blunder:
            return "blunder"
        if cost >= self.mistake:
            return "mistake"
        if cost >= self.inaccuracy:
            return "inaccuracy"
        return None

    def to_json(self) -> dict[str, float]:
        return asdict(self)


# Set from the cost distributions of bot-against-bot matches (bench/analysis.py, bench/ANALYSIS.md): lichess's
# 10/20/30 win-chance points where single decisions swing games (Gomori, Ruhd), half that where luck dominates
# and one decision moves little (Rummy, Columbo), so that marks still pick out the few percent of worst moves.
THRESHOLDS: dict[str, Thresholds] = {
    "gomori": Thresholds(0.10, 0.20, 0.30),
    "ruhd": Thresholds(0.10, 0.20, 0.30),
    "rummy": Thresholds(0.05, 0.10, 0.20),
    "columbo": Thresholds(0.05, 0.10, 0.20),
}

# About a minute per typical two-player match on the bench machine at most (bench/ANALYSIS.md).
DEFAULT_BUDGETS: dict[str, Budget] = {
    "gomori": Budget(candidates=8, screen=16, samples=96),
    "ruhd": Budget(candidates=10, screen=16, samples=96),
    "rummy": Budget(candidates=8, screen=16, samples=128),
    "columbo": Budget(candidates=6, screen=12, samples=64),
}


@dataclass
class Candidate:
    """One option as the analysis saw it: its mean value on the screening samples (and how many)."""

    action: Option
    screen_value: float
    screen_samples: int

    def to_json(self) -> dict[str, Any]:
        return {"action": self.action, "screen_value": round(self.screen_value, 4),
                "screen_samples": self.screen_samples}


@dataclass
class DecisionAnalysis:
    """One analysed decision. Actions are in the engine's notation; None is Columbo's "no slap"."""

    ply: int  # index of the action in the match's action list (0-based)
    seat: int
    kind: str  # per game: "play"/"chain" (Gomori), "place"/"cover" (Ruhd), "draw"/"play" (Rummy),
    #            "draw"/"place"/"card_action"/"slap" (Columbo)
    options: int  # how many options the seat had
    played: Option
    bot: Option  # what the strongest bot would have played
    best: Option  # the best move found
    value_played: float  # the seat's win chance after the played move (the chart's point)
    value_best: float  # ... after the best move: the position's value before the move
    value_bot: float
    cost: float  # value_best - value_played, >= 0
    cost_se: float  # the standard error of that difference (paired over the evaluation samples)
    mark: str | None  # None, "inaccuracy", "mistake" or "blunder"
    accuracy: float  # lichess's move accuracy of the cost, 0-100
    samples: int  # evaluation samples behind the three values
    candidates: list[Candidate] = field(default_factory=list)

    @property
    def better(self) -> Option:
        """The move to show instead, when this one is marked."""
        return self.best if self.mark is not None else None

    def to_json(self, candidates: bool = True) -> dict[str, Any]:
        return {
            "ply": self.ply, "seat": self.seat, "kind": self.kind, "options": self.options,
            "played": self.played, "bot": self.bot, "best": self.best,
            "better": self.better,
            "value_played": round(self.value_played, 4), "value_best": round(self.value_best, 4),
            "value_bot": round(self.value_bot, 4), "cost": round(self.cost, 4),
            "cost_se": round(self.cost_se, 4), "mark": self.mark,
            "accuracy": round(self.accuracy, 1), "samples": self.samples,
            "candidates": [c.to_json() for c in self.candidates] if candidates else [],
        }


@dataclass
class SeatSummary:
    """One seat's match in numbers."""

    seat: int
    decisions: int
    accuracy: float | None  # None when the seat had no decision
    mean_cost: float
    inaccuracies: int
    mistakes: int
    blunders: int

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "decisions": self.decisions,
                "accuracy": None if self.accuracy is None else round(self.accuracy, 1),
                "mean_cost": round(self.mean_cost, 4), "inaccuracies": self.inaccuracies,
                "mistakes": self.mistakes, "blunders": self.blunders}


@dataclass
class MatchAnalysis:
    """A whole match's analysis; ``to_json()`` is what the database stores."""

    game: str
    players: int
    seed: int  # the analysis's own seed
    budget: Budget
    thresholds: Thresholds
    decisions: list[DecisionAnalysis]
    seats: list[SeatSummary]
    actions: int  # recorded actions in the match
    skipped: dict[str, int]  # recorded actions not analysed, by reason ("forced", "peek")

    def to_json(self, candidates: bool = True) -> dict[str, Any]:
        """The analysis as plain JSON; candidates=False leaves out each decision's screened candidates (a third
        to a half of the size)."""
        return {
            "version": ANALYSIS_VERSION, "game": self.game, "players": self.players, "seed": self.seed,
            "budget": self.budget.to_json(), "thresholds": self.thresholds.to_json(), "actions": self.actions,
            "skipped": dict(self.skipped), "seats": [s.to_json() for s in self.seats],
            "decisions": [d.to_json(candidates) for d in self.decisions],
        }


class AnalysisError(ValueError):
    """A recorded action list that does not replay."""


# ---------------------------------------------------------------------------------------------------------
# Accuracy (lichess)
# ---------------------------------------------------------------------------------------------------------

def move_accuracy(cost: float, scale: float = 1.0) -> float:
    """lichess's accuracy of a move from its win-chance loss (here 0-1; lichess counts in percentage points):
    103.1668 * exp(-0.04354 * loss%) - 3.1669, clamped to 0-100. ``scale`` (Thresholds.accuracy_scale) first
    maps the game's losses onto lichess's scale."""
    loss = 100.0 * max(0.0, cost) * scale
    return max(0.0, min(100.0, 103.1668100711649 * math.exp(-0.04354415386753951 * loss) - 3.166924740191411))


def match_accuracy(accuracies: Sequence[float]) -> float | None:
    """A seat's accuracy over the match: the mean of the arithmetic and the harmonic mean of its moves'
    accuracies (lichess mixes a volatility-weighted mean with the harmonic mean; the harmonic mean makes a few
    blunders weigh more than many good moves). Each move counts at least 1 in the harmonic mean."""
    if not accuracies:
        return None
    arithmetic = sum(accuracies) / len(accuracies)
    harmonic = len(accuracies) / sum(1.0 / max(1.0, a) for a in accuracies)
    return (arithmetic + harmonic) / 2


# ---------------------------------------------------------------------------------------------------------
# Play-outs
# ---------------------------------------------------------------------------------------------------------

def playout(spec: GameSpec, state: Any, rng: random.Random, stop: Callable[[Any], bool], max_steps: int) -> Any:
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


def _value(spec: GameSpec, state: Any, seat: int, view: View) -> float:
    return spec.soft_win(spec.engine.scores(state), seat, view)


def _apply_option(spec: GameSpec, state: Any, seat: int, option: Option) -> Any:
    if option is None:
        return spec.let_go(state, seat)
    return spec.engine.apply(state, seat, option)


@contextmanager
def _node_bound_bots(spec: GameSpec) -> Iterator[None]:
    """Bots whose search stops on a clock as well as a node count would make the analysis depend on the
    machine's load; while the analysis asks them, their time limit is lifted so that the node budget alone
    decides (same answers, at the same bounded cost). Only the module attribute is changed, and restored."""
    module: Any = importlib.import_module(f"games.bots.{spec.slug}")
    saved = getattr(module, "TIME_BUDGET", None)
    if saved is None:
        yield
        return
    module.TIME_BUDGET = 1e9
    try:
        yield
    finally:
        module.TIME_BUDGET = saved


# ---------------------------------------------------------------------------------------------------------
# One decision
# ---------------------------------------------------------------------------------------------------------

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


def analyse_decision(spec: GameSpec, decision: Decision, *, seed: int, budget: Budget,
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


# ---------------------------------------------------------------------------------------------------------
# A whole match
# ---------------------------------------------------------------------------------------------------------

def decisions_of(game: str, players: int, seed: int, options: dict[str, Any] | None,
                 actions: Sequence[tuple[int, Action]], *,
                 deal: dict[str, Any] | None = None) -> tuple[list[Decision], dict[str, int]]:
    """Replay the match and collect its decisions (each with the deciding seat's view and knowledge), and the
    count of recorded actions left out, by reason. Cheap: no play-outs. ``deal``: the match was set up from
    this explicit deal (tests, puzzles) instead of its seed's shuffle."""
    spec = get_spec(game)
    engine = spec.engine
    state = engine.new_game(players, seed=seed, options=options or None, deal=deal)
    trackers = [new_tracker(game, s) for s in range(players)]
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

    budget: the work per decision (default: the game's DEFAULT_BUDGETS entry); analysis_seed: the seed of the
    analysis's own random streams (the same inputs and seed give the same result); progress(done, total):
    called before the first decision and after each one; seats: analyse only these seats' decisions;
    thresholds: the marks' thresholds (default: the game's THRESHOLDS entry); deal: the match was dealt from
    this explicit deal (engine.new_game's deal=) rather than shuffled from its seed.
    """
    spec = get_spec(game)
    if players < 2:
        raise ValueError("Only matches of two or more players are analysed (a solo game has no opponent).")
    budget = budget or DEFAULT_BUDGETS[game]
    thresholds = thresholds or THRESHOLDS[game]
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


__all__ = [
    "ANALYSIS_VERSION", "DEFAULT_BUDGETS", "THRESHOLDS", "AnalysisError", "Budget", "Candidate", "Decision",
    "DecisionAnalysis", "MatchAnalysis", "SeatSummary", "Thresholds", "analyse", "analyse_decision",
    "decisions_of", "match_accuracy", "move_accuracy", "playout", "summarise",
]
