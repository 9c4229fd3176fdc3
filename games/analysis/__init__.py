"""Post-match analysis (lichess-style): each decision of a recorded match weighed from the deciding seat's view
by determinized play-outs, marked good / inaccuracy / mistake / blunder, with the better move and per-seat
accuracy. Pure Python, no Django: ``analyse(game, players, seed, options, actions, ...)`` (see ``evaluate``).

Nothing here names a game: each game's part (its sampler, bots, budget, thresholds) is its kit's
(``Kit.analysis``, games/kits/<slug>_analysis.py), asked through games.catalog."""

from .evaluate import AnalysisError, analyse, decisions_of
from .marks import THRESHOLDS, Thresholds, match_accuracy, move_accuracy
from .results import ANALYSIS_VERSION, DEFAULT_BUDGETS, Budget, DecisionAnalysis, MatchAnalysis, SeatSummary

__all__ = [
    "ANALYSIS_VERSION",
    "DEFAULT_BUDGETS",
    "THRESHOLDS",
    "AnalysisError",
    "Budget",
    "DecisionAnalysis",
    "MatchAnalysis",
    "SeatSummary",
    "Thresholds",
    "analyse",
    "decisions_of",
    "match_accuracy",
    "move_accuracy",
]
