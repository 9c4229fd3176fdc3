"""manage.py rebuild_stats: recompute every result, statistic and rating, and the history's listings, from the
finished matches."""

from __future__ import annotations

import time
from typing import Any

from django.core.management.base import BaseCommand
from django.db import transaction

from games.history.listing import rebuild_listings
from games.ratings.rebuild import rebuild_all


class Command(BaseCommand):
    help = (
        "Rebuild the per-match results, per-player statistics and Glicko-2 ratings from the match records, "
        "replaying the finished matches in the order they finished (the same steps as when they finished)."
    )

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--batch-size", type=int, default=1000, help="Matches read and rows written at a time.")

    def handle(self, *args: Any, **options: Any) -> None:
        started = time.monotonic()
        batch = max(1, options["batch_size"])
        with transaction.atomic():
            rebuild_listings(batch_size=batch)
            matches, rows = rebuild_all(batch_size=batch)
        elapsed = time.monotonic() - started
        self.stdout.write(self.style.SUCCESS(
            f"Rebuilt the statistics of {rows} player-game rows from {matches} finished matches in {elapsed:.1f} s."
        ))
