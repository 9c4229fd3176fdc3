"""What the analysis needs to know about each game, asked of the game's kit (``Kit.analysis``, an
``AnalysisSpec``: games/kits/analysis_spec.py says what it holds, games/kits/<slug>_analysis.py fills it). Nothing
here names a game.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import TypeVar

from games.catalog import GAMES, kit
from games.kits.analysis_spec import AnalysisSpec, Option, option_key

T = TypeVar("T")


def get_spec(game: str) -> AnalysisSpec:
    """The spec of a game; KeyError for an unknown slug."""
    return kit(game).analysis


class PerGame(Mapping[str, T]):
    """slug -> one fact of each game's analysis (its budget, its thresholds, ...), read from its kit when asked."""

    def __init__(self, fact: Callable[[AnalysisSpec], T]) -> None:
        self._fact = fact

    def __getitem__(self, game: str) -> T:
        return self._fact(get_spec(game))

    def __iter__(self) -> Iterator[str]:
        return iter(GAMES)

    def __len__(self) -> int:
        return len(GAMES)


SPECS: Mapping[str, AnalysisSpec] = PerGame(lambda spec: spec)

__all__ = ["SPECS", "AnalysisSpec", "Option", "PerGame", "get_spec", "option_key"]
