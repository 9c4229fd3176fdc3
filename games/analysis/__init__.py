"""Post-match analysis (lichess-style): each decision of a recorded match weighed from the deciding seat's view
by determinized play-outs, marked good / inaccuracy / mistake / blunder, with the better move and per-seat
accuracy. Pure Python, no Django: ``analyse(game, players, seed, options, actions, ...)`` (see ``evaluate``)."""

from .evaluate import (
    ANALYSIS_VERSION,
    DEFAULT_BUDGETS,
    THRESHOLDS,
    AnalysisError,
    Budget,
    DecisionAnalysis,
    MatchAnalysis,
    SeatSummary,
    Thresholds,
    analyse,
    decisions_of,
    match_accuracy,
    move_accuracy,
)

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
