"""Small reactions to account events: tidy avatar files away, confirm signing out."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.signals import user_logged_out
from django.db import transaction
from django.db.models.signals import post_delete
from django.dispatch import receiver
from django.http import HttpRequest

from .models import User


@receiver(post_delete, sender=User)
def delete_avatar_file(sender: type[User], instance: User, **kwargs: Any) -> None:
    """A deleted account's uploaded picture goes too (after the deletion is committed)."""
    if instance.avatar and instance.avatar.name:
        storage, name = instance.avatar.storage, instance.avatar.name
        transaction.on_commit(lambda: storage.delete(name))


@receiver(user_logged_out)
def say_signed_out(sender: Any, request: HttpRequest | None, user: User | None, **kwargs: Any) -> None:
    """LogoutView redirects to the home page; tell the person it worked."""
    if request is not None and hasattr(request, "_messages"):
        messages.info(request, "You have signed out. See you at the table!")
