"""Who may look at a match: the one watch rule (its page, socket, replay and export) and the invite code's
constant-time check."""

from __future__ import annotations

import hmac
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # for the hints only: the deciders import this module, and they are pure (no Django models)
    from accounts.models import Viewer

    from ..models import Match


def code_matches(given: object, invite_code: str) -> bool:
    """Whether a visitor's code is the match's invite code: compared in constant time, and as UTF-8 bytes, so
    any text a visitor sends is a plain "no" (compare_digest refuses non-ASCII str)."""
    return (isinstance(given, str) and bool(given) and bool(invite_code)
            and hmac.compare_digest(given.encode(), invite_code.encode()))


def may_watch(*, is_public: bool, seated: bool, invite_code: str, given: str) -> bool:
    """The one rule for looking at a match (its page, socket, replay and export): it is public, the person holds
    a seat in it (even one a bot plays since they left), or they have its invite code."""
    return is_public or seated or code_matches(given, invite_code)


def can_watch(match: Match, user: Viewer, code: str) -> bool:
    """The rule for a match read with its seats (the replay and the export)."""
    seated = user.is_authenticated and any(seat.user_id == user.pk for seat in match.seats.all())
    return may_watch(is_public=match.is_public, seated=seated, invite_code=match.invite_code, given=code)
