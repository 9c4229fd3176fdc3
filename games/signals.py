"""After every migrate: each game and bot level has its bot account. After a player's name or picture
changes: their live tables show it. After a sign-out or a password change: that person's sockets check
that their session still stands (accounts.sessions.SessionBound), and close if it does not."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings
from django.contrib.auth.signals import user_logged_out
from django.db import transaction
from django.db.models.signals import post_migrate, post_save
from django.dispatch import receiver

from accounts.sessions import user_group

from .play import news
from .play.bot_accounts import ensure_bot_accounts


@receiver(post_migrate)
def create_bot_accounts(sender: Any, **kwargs: Any) -> None:
    if getattr(sender, "name", "") != "games":
        return
    ensure_bot_accounts(using=kwargs.get("using", "default"))


# What a table shows of a player (games.play.snapshot.Player): a save that touches none of it changes no table.
SHOWN_FIELDS = frozenset({"username", "display_name", "avatar", "avatar_choice"})


@receiver(post_save, sender=settings.AUTH_USER_MODEL)
def player_changed(sender: Any, instance: Any, created: bool, update_fields: Any, raw: bool = False,
                   **kwargs: Any) -> None:
    if created or raw:
        return
    if update_fields is None or "password" in update_fields:
        transaction.on_commit(lambda: check_sessions(instance.pk))
    if update_fields is not None and not SHOWN_FIELDS & set(update_fields):
        return
    news.player_changed(user_id=instance.pk)


@receiver(user_logged_out)
def signed_out(sender: Any, request: Any, user: Any, **kwargs: Any) -> None:
    # Sent before the session is flushed: the sockets of this very session are told it is ending.
    if user is not None:
        ended = getattr(getattr(request, "session", None), "session_key", None)
        transaction.on_commit(lambda: check_sessions(user.pk, ended=ended))


_sending: set[asyncio.Task[None]] = set()


def check_sessions(user_id: int, ended: str | None = None) -> None:
    """Ask every socket of this person to check its session (it closes if the session ended)."""
    layer = get_channel_layer()
    if layer is None:
        return
    message = {"type": "session.check", "ended": ended}
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        loop = None
    if loop is not None:
        # Called from synchronous code inside a running loop's thread (a browser test's own thread): the loop
        # cannot be blocked on, so the message goes out as its task.
        task = loop.create_task(layer.group_send(user_group(user_id), message))
        _sending.add(task)  # the loop holds only a weak reference to its tasks
        task.add_done_callback(_sending.discard)
        return
    try:
        async_to_sync(layer.group_send)(user_group(user_id), message)
    except Exception:  # no channel layer reachable: the sockets' sessions are checked again on their next beat
        logging.getLogger(__name__).exception("session check for user %s", user_id)
