"""What an analysis is made with and what it gives: the work budget per decision (each game's default is its
kit's) and the result types, each with the JSON the database stores."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from games.kits.analysis_spec import Budget

from .marks import Thresholds
from .specs import Option, PerGame

ANALYSIS_VERSION = 1


# Each game's default work per decision, by slug (its kit's): about a minute per typical two-player match on the
# bench machine at most (bench/ANALYSIS.md).
DEFAULT_BUDGETS: Mapping[str, Budget] = PerGame(lambda spec: spec.budget)


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


__all__ = [
    "ANALYSIS_VERSION", "DEFAULT_BUDGETS", "Budget", "Candidate", "DecisionAnalysis", "MatchAnalysis", "SeatSummary",
]
