from django.apps import AppConfig


class GamesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "games"

    def ready(self) -> None:
        from . import signals  # noqa: F401  (post_migrate: the bot accounts; post_save: names on live tables)
        from .lobby import invites  # noqa: F401  (sign-in: the seat a signed-out person chose)
        from .play import scheduler, stats_due
        from .tournaments import record, services  # noqa: F401  (a tournament match's end counts it)

        # Tournaments start, pair and end on time in every process (and go on after a restart).
        scheduler.every(1.0, services.tick)
        # Statistics a crash left unwritten between a match's end and its statistics (games.play.stats_due).
        scheduler.every(stats_due.SWEEP_SECONDS, stats_due.record_due)
