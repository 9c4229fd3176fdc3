"""After every migrate: make sure each game and bot level has its bot account. After a player's name or
picture changes: their live matches show it."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db.models.signals import post_migrate, post_save
from django.dispatch import receiver


@receiver(post_migrate)
def create_bot_accounts(sender: Any, **kwargs: Any) -> None:
    if getattr(sender, "name", "") != "games":
        return
    from .bots_accounts import ensure_bot_accounts

    ensure_bot_accounts(using=kwargs.get("using", "default"))


# What a table shows of a player (games.rendering.match_meta): a save that touches none of it changes no table.
SHOWN_FIELDS = frozenset({"username", "display_name", "avatar"})


@receiver(post_save, sender=settings.AUTH_USER_MODEL)
def player_changed(sender: Any, instance: Any, created: bool, update_fields: Any, raw: bool = False,
                   **kwargs: Any) -> None:
    if created or raw or (update_fields is not None and not SHOWN_FIELDS & set(update_fields)):
        return
    from .services import player_changed as changed

    changed(user_id=instance.pk)
