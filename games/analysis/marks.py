"""The marks' thresholds per game and lichess's accuracy arithmetic, on the win-chance loss of a decision.

Values are soft win chances in [0, 1] for the deciding seat (``specs``). Marks and accuracy follow lichess:
thresholds on the win-chance loss per game (``THRESHOLDS``, set from measured distributions in
bench/ANALYSIS.md; a mark also needs the loss to be at least two standard errors of its paired estimate), and
lichess's per-move accuracy curve on the loss in percentage points (scaled so that each game's mistake
threshold sits where lichess's does).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass

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


__all__ = ["LICHESS_MISTAKE", "SIGNIFICANCE", "THRESHOLDS", "Thresholds", "match_accuracy", "move_accuracy"]
