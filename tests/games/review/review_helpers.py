"""What the analysis-job tests share: finished matches made through the services, and a tiny budget.

Named review_helpers (not helpers): pytest puts each test folder on sys.path, and the helper modules share one
namespace."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from history_helpers import play_random, start_match

from games.analysis import Budget
from games.models import Match

# Seconds per match, not minutes: the marks are noisy at this budget, the machinery is what is tested.
TINY = Budget(candidates=2, screen=1, samples=2)
TINY_ARG = "2,1,2"


def finished_match(users: Sequence[Any], *, game: str = "gomori", seed: int = 11, rated: bool = True,
                   is_public: bool = True) -> Match:
    """A match played to its end with random legal moves through the services (as people would)."""
    options = {"rounds": 1} if game == "columbo" else None
    match = start_match(game, users, seed=seed, rated=rated, is_public=is_public, options=options)
    return play_random(match, users, random.Random(seed))
