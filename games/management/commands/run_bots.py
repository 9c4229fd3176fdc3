"""Run the bot runner as a process of its own.

Every daphne process already runs one, started by the first request or socket it serves. After a restart
of the whole site, matches where only bots are left resume as soon as anyone visits; run this worker
beside the servers to have them resume at once. Any number may run: a bot's move is applied once.
"""

from __future__ import annotations

import asyncio
from typing import Any

from django.core.management.base import BaseCommand

from games.play import scheduler


class Command(BaseCommand):
    help = "Let due bots act in every active match, forever (a worker beside the daphne processes)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--once", action="store_true", help="one pass over the due bots, then exit")

    def handle(self, *args: Any, once: bool = False, **options: Any) -> None:
        if once:
            moved = asyncio.run(scheduler.run_due_bots())
            self.stdout.write(f"{moved} bot move(s) made.")
            return
        self.stdout.write("Bot runner started (Ctrl-C stops).")
        try:
            asyncio.run(scheduler._loop())
        except KeyboardInterrupt:
            self.stdout.write("Bot runner stopped.")
