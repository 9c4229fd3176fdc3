from django.apps import AppConfig


class GamesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "games"

    def ready(self) -> None:
        from . import signals  # noqa: F401  (post_migrate: the bot accounts; post_save: names on live tables)
        from .lobby import invites  # noqa: F401  (sign-in: the seat a signed-out person chose)
