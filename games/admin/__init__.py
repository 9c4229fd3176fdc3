"""The games admin, one module per area as in games.models: match (matches with their seats and moves, the match
import, chat lines), results (results and player statistics), review (the analysis queue) and tournaments.

Django's admin autodiscovery imports this package; importing the area modules registers their models.
"""

from . import match, results, review, tournaments

__all__ = ["match", "results", "review", "tournaments"]
