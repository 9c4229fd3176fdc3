"""Recompute tournaments' standings from their matches (after a crash between the two, an annulment, a bug fix)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.models import Tournament
from games.tournaments import services


class Command(BaseCommand):
    help = "Recompute the standings of the given tournaments (or of all) from their matches and byes."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("ids", nargs="*", type=int, help="tournament ids (none: every tournament)")

    def handle(self, *args: Any, **options: Any) -> None:
        ids = options["ids"] or list(Tournament.objects.values_list("pk", flat=True))
        for tournament_id in ids:
            if not Tournament.objects.filter(pk=tournament_id).exists():
                raise CommandError(f"There is no tournament {tournament_id}.")
            changed = services.rebuild(tournament_id)
            if options["verbosity"]:
                self.stdout.write(f"tournament {tournament_id}: {changed} entrants changed")
