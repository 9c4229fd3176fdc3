"""After every migrate: make sure each game and bot level has its bot account."""

from __future__ import annotations

from typing import Any

from django.db.models.signals import post_migrate
from django.dispatch import receiver


@receiver(post_migrate)
def create_bot_accounts(sender: Any, **kwargs: Any) -> None:
    if getattr(sender, "name", "") != "games":
        return
    from .bots_accounts import ensure_bot_accounts

    ensure_bot_accounts(using=kwargs.get("using", "default"))
