from django.apps import AppConfig


class GamesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "games"

    def ready(self) -> None:
        # Imported here, not at the top: start-up order (they import the models, which need the app registry).
        from . import (
            departures,
            endings,
            signals,  # noqa: F401  (post_migrate: the bot accounts; post_save: names on live tables)
        )
        from .challenges import services as challenges
        from .core import faults
        from .lobby import invites  # noqa: F401  (sign-in: the seat a signed-out person chose)
        from .play import liveness, scheduler, stats_due
        from .tournaments import services

        # The connection pool's every failed attempt to reach the database is said once per outage (games.core.faults).
        faults.quiet_pool_attempts()
        # Who hears a match's end, and when (games/endings.py).
        endings.connect()
        # A person who can no longer play leaves every feature (games/departures.py).
        departures.connect()

        # Tournaments start, pair and end on time in every process (and go on after a restart).
        scheduler.every(1.0, services.tick)
        # Statistics a crash left unwritten between a match's end and its statistics (games.play.stats_due).
        scheduler.every(stats_due.SWEEP_SECONDS, stats_due.record_due)
        # Challenges past their time are closed by the server, and both people told (games.challenges.services);
        # run_periodic logs a failure and goes on.
        scheduler.every(challenges.EXPIRY_SWEEP_SECONDS, challenges.expire_due)
        # The rows of processes long dead (killed: they could not delete their sockets' presence rows).
        scheduler.every(600.0, liveness.forget_dead)
