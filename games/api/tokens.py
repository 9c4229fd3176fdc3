"""Program accounts and their personal access tokens: made, checked, revoked.

A token is shown once, when it is made; the database keeps its SHA-256 only (a leaked table gives no working
token; SHA-256 and not a slow hash because the token is 32 random bytes, not a password a person chose) and a short
public prefix that names it on the /bots/ page. Checking is one indexed look-up of the hash."""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Iterable
from datetime import timedelta

from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.models import ApiToken, NameKey, User
from accounts.names import name_keys

from ..models import Seat
from ..play.snapshot import ServiceError

TOKEN_START = "ccb_"  # Card Club Bot: a token found in a log or a paste is recognisable as ours
SCOPES = ApiToken.SCOPES
# last_used_at is written at most this often per token: not a write per request.
USED_EVERY = timedelta(seconds=60)


def hashed(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()


def clean_scopes(scopes: Iterable[str]) -> list[str]:
    wanted = sorted(set(scopes))
    unknown = [scope for scope in wanted if scope not in SCOPES]
    if unknown:
        raise ServiceError(f"Unknown scope {unknown[0]!r}: a token's scopes are play and challenge.")
    if not wanted:
        raise ServiceError("Give the token at least one scope (play, challenge).")
    return wanted


def has_played(user: User) -> bool:
    return Seat.objects.filter(user=user).exists()


def create_bot(owner: User, username: str, display_name: str = "") -> User:
    """A new program account owned by `owner`: no password (it signs in with tokens only)."""
    if owner.program or owner.is_bot:
        raise ServiceError("Bots don't make bots: sign in as the person who owns it.")
    if not owner.is_active:
        raise ServiceError("Your account cannot make bots at the moment.")
    username = username.strip()
    if not username or len(username) > 150 or not all(c.isalnum() or c in "_-." for c in username):
        raise ServiceError("A bot's username is letters, digits, _ - and . (at most 150).")
    display_name = display_name.strip()[:40]
    taken = set(name_keys(display_name or username, username))
    if User.objects.filter(username__iexact=username).exists() or NameKey.objects.filter(key__in=taken).exists():
        raise ServiceError("That name is taken (or looks like one that is).")
    bot = User(username=username, display_name=display_name, program=True, owner=owner)
    bot.set_unusable_password()
    try:
        bot.save()
    except IntegrityError:
        raise ServiceError("That name is taken (or looks like one that is).") from None
    return bot


def turn_into_bot(user: User, owner: User | None = None) -> User:
    """lichess's rule: a fresh account may become a bot, only before it has played (its record stays a person's
    otherwise). It keeps its name; its password stops working (tokens only), and it owns itself unless told."""
    if user.program:
        raise ServiceError("This account is a bot already.")
    if user.is_bot or user.is_staff or user.is_superuser:
        raise ServiceError("This account can't become a bot.")
    if has_played(user):
        raise ServiceError("Only an account that has never played can become a bot.")
    user.program = True
    user.owner = owner or user
    user.set_unusable_password()
    user.save(update_fields=["program", "owner", "password"])
    return user


def make_token(bot: User, *, name: str, scopes: Iterable[str] = SCOPES) -> tuple[ApiToken, str]:
    """A new token for a program account: (its row, the key to show once)."""
    if not bot.program:
        raise ServiceError("Tokens are for bot accounts.")
    name = name.strip()[:60] or "token"
    wanted = clean_scopes(scopes)
    for _ in range(5):
        key = TOKEN_START + secrets.token_urlsafe(32)
        try:
            with transaction.atomic():
                row = ApiToken.objects.create(user=bot, name=name, scopes=wanted, prefix=key[:12],
                                              key_hash=hashed(key))
        except IntegrityError:  # 256 random bits never collide; a retry costs nothing if they do
            continue
        return row, key
    raise ServiceError("Could not make a token: try again.")


def revoke(token_id: int, *, by: User | None = None) -> ApiToken:
    """The token stops working at once (its open streams end at their next check)."""
    row = ApiToken.objects.select_related("user").filter(pk=token_id).first()
    if row is None or (by is not None and row.user.owner_id != by.pk and not by.is_staff):
        raise ServiceError("There is no such token.")
    if row.revoked_at is None:
        row.revoked_at = timezone.now()
        row.save(update_fields=["revoked_at"])
    return row


def authenticate(key: str) -> ApiToken | None:
    """The live token this key is, with its user; None for a key that is wrong, revoked, or a bot no longer a bot."""
    if not key.startswith(TOKEN_START) or len(key) > 100:
        return None
    row = ApiToken.objects.select_related("user").filter(key_hash=hashed(key)).first()
    if row is None or row.revoked_at is not None or not row.user.program:
        return None
    now = timezone.now()
    if row.last_used_at is None or now - row.last_used_at > USED_EVERY:
        ApiToken.objects.filter(pk=row.pk).update(last_used_at=now)
        row.last_used_at = now
    return row


def still_valid(token_id: int) -> bool:
    """For an open stream's periodic check: not revoked, its bot not suspended."""
    return ApiToken.objects.filter(pk=token_id, revoked_at__isnull=True, user__is_active=True,
                                   user__program=True).exists()
