"""The site's user: Django's AbstractUser plus a display name, an avatar and the bot flag."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any, TypeAlias

from django.contrib.auth.models import AbstractUser, AnonymousUser
from django.db import models, router, transaction
from django.db.models.functions import Lower
from django.urls import reverse

from .avatars import generated_avatar_url
from .names import name_keys


def avatar_path(instance: User, filename: str) -> str:
    """A fresh, unguessable name per upload (only the extension is kept), so no cache shows a stale picture."""
    extension = PurePath(filename).suffix.lower()[:6]
    return f"avatars/{instance.pk or 'new'}/{secrets.token_urlsafe(12)}{extension}"


class User(AbstractUser):
    display_name = models.CharField(max_length=40, blank=True)
    avatar = models.ImageField(upload_to=avatar_path, blank=True)
    # A picture of the gallery (accounts.gallery, by its key) shown when there is no upload; blank: the picture
    # drawn from the name. An upload and a choice replace each other (accounts.avatars).
    avatar_choice = models.CharField(max_length=20, blank=True, default="")
    is_bot = models.BooleanField(default=False, db_index=True)
    # For bot accounts: which game and which level of games.bots.<game>.BOTS they play.
    bot_game = models.CharField(max_length=20, blank=True)
    bot_level = models.CharField(max_length=20, blank=True)
    # The table's sound cues (your turn, a slap, a gather or lay-down, the end): off until the person turns them on.
    sounds = models.BooleanField(default=False)
    # Nobody may challenge this person (profile settings); quick pairing and open seats are unaffected.
    refuse_challenges = models.BooleanField(default=False)
    # Shown offline to everyone, followers included (games.social): their Friends panels never list them.
    hide_online = models.BooleanField(default=False)
    # A program's account (the Bot API, games.api): it plays through API tokens, never through the server's bot
    # runner (that is is_bot, the site's built-in bots). It is rated and challenged like a person, is marked BOT
    # wherever players are named, and is kept out of quick pairing and tournaments (lichess's rule).
    program = models.BooleanField(default=False, db_index=True)
    # The person who made the program's account (and manages its tokens at /bots/).
    owner = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="programs")
    # The time zone the person's dates are shown in (an IANA name, "Europe/Berlin"); blank: the browser's own.
    time_zone = models.CharField(max_length=64, blank=True)
    # The email address (as it was) that a signed link proved this person reads; notifications go only to it, so
    # a changed address is unverified until its own link is followed.
    email_verified = models.EmailField(blank=True)
    # The kinds of notification this person asked for by email (games.notify.mail.KINDS); none until they opt in.
    mail_kinds = models.JSONField(default=list, blank=True)
    # Mail to the verified address that bounced in a row; past NOTIFY_MAIL_BOUNCES nothing more is sent to it.
    mail_bounces = models.PositiveSmallIntegerField(default=0)
    # Until when this person's pages may have a challenge to show (an open one, or a recent "no"): moved on by
    # games.challenges in the transaction of every challenge it writes. Read with the person on every page, so
    # that a page drawn after it asks nothing about challenges (issue 47); None: none ever.
    notices_until = models.DateTimeField(null=True, blank=True, editable=False)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["bot_game", "bot_level"],
                condition=models.Q(is_bot=True),
                name="one_bot_per_game_and_level",
            )
        ]
        # The history's ?player= looks a name up in any case (games.history.queries.players_named compares
        # Lower(username) and Lower(display_name)); without these indexes both databases scan every user.
        indexes = [models.Index(Lower("username"), name="user_username_lower"),
                   models.Index(Lower("display_name"), name="user_display_name_lower")]
        # Suspending a person and lifting it (the admin's actions, or the "Active" box) is its own permission,
        # apart from editing their profile.
        permissions = [("suspend_user", "Can suspend people and lift their suspension")]

    # (username, display_name) as last loaded or saved: the name keys change only when these do.
    _saved_names: tuple[str, str] | None = None

    def __str__(self) -> str:
        return self.name

    @classmethod
    def from_db(cls, db: str | None, field_names: Any, values: Any, **kwargs: Any) -> User:
        user = super().from_db(db, field_names, values, **kwargs)
        if {"username", "display_name"} <= set(field_names):
            user._saved_names = (user.username, user.display_name)
        return user

    def save(self, *args: Any, **kwargs: Any) -> None:
        """Save, and keep this person's name keys (NameKey) in step with the names, in the same transaction: a
        name that looks like someone else's is refused by the database (IntegrityError), even in a race."""
        update_fields = kwargs.get("update_fields")
        names = (self.username, self.display_name)
        touched = update_fields is None or bool({"username", "display_name"} & set(update_fields))
        if not touched or names == self._saved_names:
            super().save(*args, **kwargs)
            return
        using = kwargs.get("using") or router.db_for_write(type(self), instance=self)
        with transaction.atomic(using=using):
            super().save(*args, **kwargs)
            self._store_name_keys(using)
        self._saved_names = names

    def _store_name_keys(self, using: str) -> None:
        wanted = name_keys(self.name, self.username)
        held = NameKey.objects.using(using).filter(user=self)
        held.exclude(key__in=wanted).delete()
        have = set(held.values_list("key", flat=True))
        # Keys of names that did not change are kept if free: an account that shares a name from before names
        # were compared (accounts/migrations/0005) keeps it, without the other's key.
        before = name_keys(self._saved_names[1] or self._saved_names[0], self._saved_names[0]) \
            if self._saved_names else set()
        new = [NameKey(key=key, user=self) for key in wanted - have - before]
        kept = [NameKey(key=key, user=self) for key in (wanted & before) - have]
        NameKey.objects.using(using).bulk_create(new)
        NameKey.objects.using(using).bulk_create(kept, ignore_conflicts=True)

    @property
    def marked_bot(self) -> bool:
        """Whether pages mark this account BOT: the site's own bots and programs alike."""
        return bool(self.is_bot or self.program)

    @property
    def name(self) -> str:
        """What the site calls this person."""
        return self.display_name or self.username

    def get_absolute_url(self) -> str:
        return reverse("profile", args=[self.username])

    @property
    def avatar_url(self) -> str:
        """The uploaded avatar, or the drawn one (the gallery's chosen picture, or the name's): every user always
        has a picture."""
        return picture_url(self.username, self.name, self.is_bot, self.avatar_choice, self.avatar.name or "")


def picture_url(username: str, name: str, is_bot: bool, choice: str, uploaded: str) -> str:
    """A person's picture: the upload (`uploaded`, its file's name) as its storage serves it, else the drawn one."""
    if uploaded:
        return User._meta.get_field("avatar").storage.url(uploaded)
    return generated_avatar_url(username, name, is_bot, choice)


# What a list page reads of each person it shows (PersonRow), as values(): no User built for a line of a list.
PERSON_FIELDS = ("username", "display_name", "avatar", "avatar_choice", "is_bot", "program")


@dataclass(frozen=True)
class PersonRow:
    """A person as a list shows them (a history row's player), read as plain values (PERSON_FIELDS): building a
    User for each of a page's hundred players cost more than reading them (issue 47)."""

    pk: int
    username: str
    display_name: str
    avatar: str  # the uploaded picture's file name, "" for none
    avatar_choice: str
    is_bot: bool
    program: bool

    @classmethod
    def of(cls, pk: int, values: dict[str, Any], prefix: str = "") -> PersonRow:
        """From a values() row whose person's fields are named `prefix` + PERSON_FIELDS ("user__username")."""
        return cls(pk, *(values[prefix + name] for name in PERSON_FIELDS))

    @property
    def name(self) -> str:
        return self.display_name or self.username  # as User.name

    @property
    def marked_bot(self) -> bool:
        return bool(self.is_bot or self.program)

    @property
    def avatar_url(self) -> str:
        return picture_url(self.username, self.name, self.is_bot, self.avatar_choice, self.avatar or "")


class ApiToken(models.Model):
    """A personal access token of a program's account (games.api.tokens): shown once when made, stored as its
    SHA-256 only (a leaked database gives no working token), with a short public prefix to tell tokens apart."""

    SCOPES = ("play", "challenge")

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=60)
    scopes = models.JSONField(default=list)
    prefix = models.CharField(max_length=16, db_index=True)
    key_hash = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    @property
    def active(self) -> bool:
        return self.revoked_at is None


class NameKey(models.Model):
    """A key a person's names are known by (accounts.names): unique, so no two people hold look-alike names.
    Each person holds those of their shown name and of their username (the profile's address shows it)."""

    key = models.CharField(max_length=160, unique=True)
    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="name_keys")

    def __str__(self) -> str:
        return self.key


# Whoever looks at a page: a signed-in person, or an anonymous visitor (request.user either way).
Viewer: TypeAlias = "User | AnonymousUser"
