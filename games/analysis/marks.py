"""The marks' thresholds per game and lichess's accuracy arithmetic, on the win-chance loss of a decision.

Values are soft win chances in [0, 1] for the deciding seat (games/kits/analysis_spec.py). Marks and accuracy
follow lichess: thresholds on the win-chance loss per game (each kit's ``analysis.thresholds``, set from measured
distributions in bench/ANALYSIS.md; a mark also needs the loss to be at least two standard errors of its paired
estimate), and lichess's per-move accuracy curve on the loss in percentage points (scaled so that each game's
mistake threshold sits where lichess's does).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from games.kits.analysis_spec import LICHESS_MISTAKE, SIGNIFICANCE, Thresholds

from .specs import PerGame

# Each game's thresholds, by slug (its kit's): lichess's 10/20/30 win-chance points where single decisions swing
# games, half that where luck dominates and one decision moves little, so that marks still pick out the few
# percent of worst moves (bench/analysis.py, bench/ANALYSIS.md).
THRESHOLDS: Mapping[str, Thresholds] = PerGame(lambda spec: spec.thresholds)


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
