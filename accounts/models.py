"""The site's user: Django's AbstractUser plus a display name, an avatar and the bot flag."""

from __future__ import annotations

import secrets
from pathlib import PurePath
from typing import TypeAlias

from django.contrib.auth.models import AbstractUser, AnonymousUser
from django.db import models
from django.db.models.functions import Lower
from django.urls import reverse

from .avatars import generated_avatar_url


def avatar_path(instance: User, filename: str) -> str:
    """A fresh, unguessable name per upload (only the extension is kept), so no cache shows a stale picture."""
    extension = PurePath(filename).suffix.lower()[:6]
    return f"avatars/{instance.pk or 'new'}/{secrets.token_urlsafe(12)}{extension}"


class User(AbstractUser):
    display_name = models.CharField(max_length=40, blank=True)
    avatar = models.ImageField(upload_to=avatar_path, blank=True)
    is_bot = models.BooleanField(default=False, db_index=True)
    # For bot accounts: which game and which level of games.bots.<game>.BOTS they play.
    bot_game = models.CharField(max_length=20, blank=True)
    bot_level = models.CharField(max_length=20, blank=True)
    # The table's sound cues (your turn, a slap, a gather or lay-down, the end): off until the person turns them on.
    sounds = models.BooleanField(default=False)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["bot_game", "bot_level"],
                condition=models.Q(is_bot=True),
                name="one_bot_per_game_and_level",
            )
        ]
        # The history's ?player= looks a name up in any case (games.history.queries.find_player compares
        # Lower(username)); without this index both databases scan every user.
        indexes = [models.Index(Lower("username"), name="user_username_lower")]
        # Suspending a person and lifting it (the admin's actions, or the "Active" box) is its own permission,
        # apart from editing their profile.
        permissions = [("suspend_user", "Can suspend people and lift their suspension")]

    def __str__(self) -> str:
        return self.name

    @property
    def name(self) -> str:
        """What the site calls this person."""
        return self.display_name or self.username

    def get_absolute_url(self) -> str:
        return reverse("profile", args=[self.username])

    @property
    def avatar_url(self) -> str:
        """The uploaded avatar, or the generated one: every user always has a picture."""
        if self.avatar:
            return self.avatar.url
        return generated_avatar_url(self.username, self.name, self.is_bot)


# Whoever looks at a page: a signed-in person, or an anonymous visitor (request.user either way).
Viewer: TypeAlias = "User | AnonymousUser"
