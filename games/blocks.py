"""Blocking's one owner (games.social writes the blocks): what a block stops, asked by every feature it stops, below
them all (as games.boards is for "one person, one board"). A person who blocked another gets no challenge
(games.challenges), no chat line (games.play.chat reads the blocks with the mutes) and no club invitation
(`may_invite`, for the clubs to come) from them, and quick pairing never seats the two together (games.pool). The
blocked person is told only a plain refusal (lichess's rule)."""

from __future__ import annotations

from collections.abc import Iterable

from django.db.models import Q

from .models import Block


def refuses(receiver_id: int, sender_id: int) -> bool:
    """Whether `receiver` blocked `sender`: nothing of the sender's reaches them (a challenge, a chat line)."""
    return Block.objects.filter(blocker_id=receiver_id, blocked_id=sender_id).exists()


def blockers_between(a_id: int, b_id: int) -> set[int]:
    """Which of the two blocked the other (one query): neither challenges the other then."""
    rows = Block.objects.filter(Q(blocker_id=a_id, blocked_id=b_id) | Q(blocker_id=b_id, blocked_id=a_id))
    return set(rows.values_list("blocker_id", flat=True))


def may_invite(inviter_id: int, invitee_id: int) -> bool:
    """The clubs' hook (issue 50, point 3): whether `inviter` may invite `invitee` to a club; a person who blocked
    the inviter gets no invitation from them (the inviter is told a plain refusal)."""
    return not refuses(invitee_id, inviter_id)


def kept_apart(user_ids: Iterable[int]) -> set[frozenset[int]]:
    """The pairs of these people of whom one blocked the other (quick pairing never seats them together), in one
    query."""
    ids = list(set(user_ids))
    if len(ids) < 2:
        return set()
    rows = Block.objects.filter(blocker_id__in=ids, blocked_id__in=ids).values_list("blocker_id", "blocked_id")
    return {frozenset(pair) for pair in rows}

