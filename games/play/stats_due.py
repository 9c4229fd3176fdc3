"""The sweep for finished matches whose statistics are still due.

A match's end is written and shown first; its statistics and ratings follow at once in a change of their own
(games.play.decide.follow_end, on the road that wrote the end). If the process dies between the two, or the
second fails, the match keeps `stats_due`, and every process's runner writes them here, through the same change:
the flag is claimed with the version, so they are counted exactly once whoever gets there first.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from django.utils import timezone

from ..models import Match
from .decide import decide_stats
from .snapshot import ServiceError
from .sync import run_change

log = logging.getLogger(__name__)

# Time the process that ended a match has to write its statistics itself before the sweep does.
GRACE_SECONDS = 5.0
SWEEP_SECONDS = 2.0


def record_due(limit: int = 20) -> int:
    """Write the statistics of matches that ended more than GRACE_SECONDS ago without them; how many."""
    cutoff = timezone.now() - timedelta(seconds=GRACE_SECONDS)
    due = list(Match.objects.filter(stats_due=True, finished_at__lte=cutoff)
               .order_by("finished_at").values_list("id", flat=True)[:limit])
    for match_id in due:
        try:
            run_change(match_id, decide_stats)
        except ServiceError:
            log.warning("statistics of match %s: the match is busy, next sweep", match_id)
    return len(due)
