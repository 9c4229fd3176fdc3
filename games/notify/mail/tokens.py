"""The signed links in mail: an address's verification (carries the person and the address, valid for a few
days) and the one-click unsubscribe (carries the person and the kinds, never expires: a link in an old mail must
still work, and it needs no sign-in). Each with its own salt, so that one can never pass for the other."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from django.core import signing

from .kinds import KINDS

VERIFY_SALT = "cardclub.mail.verify"
UNSUBSCRIBE_SALT = "cardclub.mail.unsubscribe"
VERIFY_MAX_AGE = 3 * 86400


class BadToken(ValueError):
    """A link that is not ours, was altered, or expired; the message says which, in the site's words."""


@dataclass(frozen=True)
class Verification:
    user_id: int
    address: str


def verify_token(user_id: int, address: str) -> str:
    return signing.dumps({"u": user_id, "a": address}, salt=VERIFY_SALT, compress=True)


def read_verify_token(token: str) -> Verification:
    try:
        data = signing.loads(token, salt=VERIFY_SALT, max_age=VERIFY_MAX_AGE)
    except signing.SignatureExpired:
        raise BadToken("This verification link has expired: send yourself a new one from your profile.") from None
    except (signing.BadSignature, ValueError, TypeError):
        raise BadToken("This verification link is not valid: send yourself a new one from your profile.") from None
    if not isinstance(data, dict) or not isinstance(data.get("u"), int) or not isinstance(data.get("a"), str):
        raise BadToken("This verification link is not valid: send yourself a new one from your profile.")
    return Verification(data["u"], data["a"])


def unsubscribe_token(user_id: int, kinds: Iterable[str]) -> str:
    return signing.dumps({"u": user_id, "k": sorted(set(kinds))}, salt=UNSUBSCRIBE_SALT, compress=True)


def read_unsubscribe_token(token: str) -> tuple[int, list[str]]:
    """(the person's id, the kinds to stop); BadToken otherwise."""
    try:
        data = signing.loads(token, salt=UNSUBSCRIBE_SALT)
    except (signing.BadSignature, ValueError, TypeError):
        raise BadToken("This unsubscribe link is not valid. You can choose your emails on your profile.") from None
    kinds = data.get("k") if isinstance(data, dict) else None
    if not isinstance(kinds, list) or not kinds or not isinstance(data.get("u"), int) \
            or not all(kind in KINDS for kind in kinds):
        raise BadToken("This unsubscribe link is not valid. You can choose your emails on your profile.")
    return data["u"], kinds
