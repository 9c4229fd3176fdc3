"""The hourly arenas: one public arena of each game at the top of every coming hour, ready for a cron job.

Run it every hour (or more often: a series' slot is unique in the database, so a tournament is never made
twice, however many times or machines run it):

    5 * * * *  cd /srv/cards && .venv/bin/python manage.py create_arenas --hours 2
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.core.management.base import BaseCommand, CommandParser
from django.utils import timezone

from games.catalog import GAMES
from games.models import Tournament
from games.play.snapshot import ServiceError
from games.tournaments import services


class Command(BaseCommand):
    help = "Create the hourly arena of each game for the coming hours (never twice for one hour)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--hours", type=int, default=2, help="how many coming hours to fill (default 2)")
        parser.add_argument("--minutes", type=int, default=45, help="each arena's length (default 45)")
        real_time = sorted(set(services.CLOCKS) - set(services.CORRESPONDENCE_KEYS))  # an arena is real time
        parser.add_argument("--clock", default="3+2", choices=real_time, help="the clock")
        parser.add_argument("--games", nargs="*", default=list(GAMES), choices=list(GAMES))

    def handle(self, *args: Any, **options: Any) -> None:
        now = timezone.now()
        first = now.replace(minute=0, second=0, microsecond=0) + timedelta(hours=1)
        made = 0
        for hour in range(max(1, min(options["hours"], 48))):
            starts = first + timedelta(hours=hour)
            for game in options["games"]:
                series = f"hourly-{game}"
                if Tournament.objects.filter(series=series, starts_at=starts).exists():
                    continue
                try:
                    services.create_tournament(
                        creator=None, kind="arena", game=game, clock_key=options["clock"], starts_at=starts,
                        minutes=options["minutes"], table_size=GAMES[game].usual_players, series=series,
                        name=f"Hourly {GAMES[game].name} Arena",
                    )
                    made += 1
                except ServiceError as error:  # made by another run at the same moment
                    self.stderr.write(f"{series} at {starts:%H:%M}: {error}")
        if options["verbosity"]:
            self.stdout.write(f"{made} arenas created")
