"""What a game's kit tells the post-match analysis (games.analysis): the kit-side types each game's
``games/kits/<slug>_analysis.py`` fills in its ``SPEC``, the kit carries as ``Kit.analysis``, and the analysis asks.

A spec gives the game's bots, which recorded actions are decisions worth analysing (``classify``), a cheap ordering
of the options for the first screening stage (``rank``), how far a play-out runs (``stop``), how its end is scored
for the deciding seat (``soft_win``), a state consistent with what one seat knows (``sampler``, with what the seat
remembers: ``tracker``), the work per decision (``budget``) and the marks' thresholds (``thresholds``).

Value of a play-out: a *soft win*, ``1 / (1 + exp(-margin / scale))``, where margin is the seat's final score
against the best other seat (positive = ahead; where the lower score wins, the sign is turned). A plain win counts
1, a loss 0, a draw 0.5, and the scale softens the step so that winning or losing by more counts a little more. The
mean over play-outs is a win chance in [0, 1], the quantity lichess reports (there from an engine evaluation, here
from play-outs); the softening cuts the variance of a 0/1 outcome, and the scale (one "unit" of the game:
bench/ANALYSIS.md) keeps it close to a win chance.

Pure Python like the analysis itself: no Django, nothing of the site.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Callable
from dataclasses import asdict, dataclass
from types import ModuleType
from typing import Any

from ..engines.base import Action, Bot, Engine, View

Option = Action | None  # None: "let this discard go" (no slap), the one option that is no action
Knowledge = dict[str, Any]
# A state consistent with the seat's view and knowledge, every card or tile it cannot see dealt at random.
Sampler = Callable[[View, Knowledge, random.Random], Any]
Classify = Callable[[View, list[Action], Action], tuple[str | None, list[Option]]]
Rank = Callable[[View, list[Option], random.Random], list[Option]]

LICHESS_MISTAKE = 0.20  # lichess marks a mistake from a loss of 20 win-chance points
SIGNIFICANCE = 2.0  # a mark needs a loss of at least this many standard errors


def option_key(option: Option) -> str:
    """A canonical text of an option, to compare and deduplicate actions."""
    return json.dumps(option, sort_keys=True, separators=(",", ":"))


class SampleError(RuntimeError):
    """A view whose counts do not add up (an engine and a sampler that disagree): a bug, never bad luck."""


def check(condition: bool, game: str, what: str) -> None:
    """A sampler's own check of the view's counts."""
    if not condition:
        raise SampleError(f"{game}: {what}")


def fresh_seed(rng: random.Random) -> int:
    """A sampled state's own seed: the engines draw later randomness from the match seed, which no player knows."""
    return rng.randrange(2**31)


class Tracker:
    """What one seat remembers of the public events that its current view no longer shows.

    ``observe`` is called after every recorded action with the acting seat, the action (public in every game
    here: the engines' actions never name a hidden card) and this seat's view after it. The base class
    remembers nothing: a game whose views carry all a seat may know needs no more.
    """

    needs_view = False

    def observe(self, actor: int, action: Action, view: View | None) -> None:
        """Take in one recorded action (the view is None when needs_view is False)."""

    def knowledge(self) -> Knowledge:
        """A copy of what is known now, for the sampler."""
        return {}


def no_memory(seat: int) -> Tracker:
    return Tracker()


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


@dataclass(frozen=True)
class AnalysisSpec:
    """The analysis's view of one game."""

    slug: str
    engine: Engine[Any]
    # The game's bot module: its BOTS (weakest first; the strongest answers "what would the bot play"), and a
    # TIME_BUDGET when its search also stops on a clock (the analysis lifts it: games.analysis.decision).
    bot_module: ModuleType
    lower_wins: bool
    scale: float  # the soft-win scale, in the game's score units
    sampler: Sampler
    classify: Classify
    rank: Rank
    budget: Budget  # the default work per decision: about a minute per typical match (bench/ANALYSIS.md)
    thresholds: Thresholds  # set from measured cost distributions (bench/ANALYSIS.md)
    tracker: Callable[[int], Tracker] = no_memory  # a seat's memory beyond its view, for the sampler
    rollout_level: str = "reference"  # the fast bot that plays every seat of a play-out
    note: str = ""  # said under the analysis on the replay, where its figures need a word of caution

    @property
    def strongest(self) -> Bot:
        bots: dict[str, Bot] = self.bot_module.BOTS
        return list(bots.values())[-1]

    @property
    def rollout(self) -> Bot:
        bots: dict[str, Bot] = self.bot_module.BOTS
        return bots[self.rollout_level]

    def stop(self, view: View) -> Callable[[Any], bool]:
        """When a play-out started at this decision stops before the game's end (never, unless a game says)."""
        return lambda state: False

    def let_go(self, state: Any, seat: int) -> Any:
        """The state in which the seat lets an optional action go (only a game with such options says how)."""
        raise ValueError(f"{self.slug} has no optional actions to let go")

    def let_go_text(self, seat: int) -> str:
        """Letting the optional action go, as the replay says it ({sN} the seat's token)."""
        return ""

    def soft_win(self, scores: list[int], seat: int, view: View) -> float:
        """The play-out's value for the seat: the soft win of its margin over the best other seat."""
        others = [s for i, s in enumerate(scores) if i != seat]
        if not others:
            return 0.5
        margin = (min(others) - scores[seat]) if self.lower_wins else (scores[seat] - max(others))
        return sigmoid(margin / self.scale)


def sigmoid(x: float) -> float:
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    z = math.exp(x)
    return z / (1.0 + z)


def shuffled(options: list[Option], rng: random.Random) -> list[Option]:
    out = list(options)
    rng.shuffle(out)
    return out


__all__ = [
    "LICHESS_MISTAKE", "SIGNIFICANCE", "AnalysisSpec", "Budget", "Classify", "Knowledge", "Option", "Rank",
    "SampleError", "Sampler", "Thresholds", "Tracker", "check", "fresh_seed", "no_memory", "option_key", "shuffled",
    "sigmoid",
]
