"""Friends, the writes: follow and unfollow, block and unblock (each refused with a plain sentence when it cannot
be), and a person's notification sockets opening and closing (what their followers' panels read as online).

Programs (Bot API accounts) may be followed and blocked like anyone: they are challenged like people. The site's
own bots are neither: they are always there, in the lobby, and never challenged. A blocked person is told only a
plain refusal wherever the block stops them (lichess's rule); blocking someone also ends each one's following of
the other and closes the open challenges between them."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from accounts.models import User

from ..blocks import refuses
from ..challenges import services as challenges
from ..models import Block, Challenge, Follow, OnlineSocket
from ..play.liveness import process_key, pulse_if_due
from ..play.snapshot import ServiceError
from . import news


def _other_person(user: User, other: User, verb: str) -> None:
    if other.pk == user.pk:
        raise ServiceError(f"You cannot {verb} yourself.")
    if other.is_bot:
        raise ServiceError(f"The site's bots are not {verb}ed: they are always in the lobby.")
    if not other.is_active:
        raise ServiceError(f"{other.name} cannot be {verb}ed at the moment.")


def follow(user: User, other: User) -> None:
    """`user` follows `other` (following twice is one follow)."""
    _other_person(user, other, "follow")
    if refuses(other.pk, user.pk):
        raise ServiceError(f"You cannot follow {other.name}.")  # a plain refusal: the block is not said
    try:
        with transaction.atomic():
            Follow.objects.get_or_create(follower_id=user.pk, followed_id=other.pk)
    except IntegrityError:  # the same follow written at this moment by another tab: followed either way
        pass
    news.follows_changed(user.pk)


def unfollow(user: User, other: User) -> None:
    Follow.objects.filter(follower_id=user.pk, followed_id=other.pk).delete()
    news.follows_changed(user.pk)


def block(user: User, other: User, *, now: datetime | None = None) -> None:
    """`user` blocks `other`: each stops following the other, and the open challenges between them close (the
    blocked person's as declined, as any refusal reads)."""
    _other_person(user, other, "block")
    now = now or timezone.now()
    with transaction.atomic():
        Block.objects.get_or_create(blocker_id=user.pk, blocked_id=other.pk)
        Follow.objects.filter(Q(follower_id=user.pk, followed_id=other.pk)
                              | Q(follower_id=other.pk, followed_id=user.pk)).delete()
        between = (Challenge.objects.select_for_update()
                   .filter(Q(challenger_id=user.pk, challenged_id=other.pk)
                           | Q(challenger_id=other.pk, challenged_id=user.pk), status=Challenge.Status.OPEN))
        closed = between.update(status=Challenge.Status.DECLINED, closed_at=now)
    if closed:
        challenges.changed([user.pk, other.pk])
    news.follows_changed(user.pk)
    news.follows_changed(other.pk)


def unblock(user: User, other: User) -> None:
    Block.objects.filter(blocker_id=user.pk, blocked_id=other.pk).delete()


# ---------------------------------------------------------------------------------------------
# A person's pages opening and closing (the notification socket, games.social.socket)


def socket_opened(*, user_id: int, socket: str, now: datetime | None = None) -> None:
    """A page of this person's opened: they are online (their followers are told if that is news)."""
    sockets_opened([(user_id, socket)], now=now)


def socket_closed(*, user_id: int, socket: str, now: datetime | None = None) -> None:
    """A page of theirs closed: its row is kept as when they left (their earlier closed rows go), and their
    followers are told (away, unless another page of theirs is open)."""
    sockets_closed([(user_id, socket)], now=now)


# The notification socket opens on every signed-in page, so at a club's opening thousands open within seconds: the
# sockets opening (or closing) together are written in one trip (games.social.socket gathers them, as the table's
# opening gathers its writes: games.core.batch), in a statement or two whatever their number.


def sockets_opened(asks: Sequence[tuple[int, str]], *, now: datetime | None = None) -> list[None]:
    """These (person, socket) pages opened: their rows written, their followers told."""
    now = now or timezone.now()
    pulse_if_due()  # the rows count from now on, whether or not this process's pulse task has run yet
    process = process_key()
    OnlineSocket.objects.bulk_create(
        [OnlineSocket(socket=socket, user_id=user_id, process=process, opened_at=now, closed_at=None)
         for user_id, socket in asks],
        update_conflicts=True, unique_fields=["socket"], update_fields=["user", "process", "opened_at", "closed_at"])
    news.announce({user_id for user_id, _ in asks})
    return [None] * len(asks)


def sockets_closed(asks: Sequence[tuple[int, str]], *, now: datetime | None = None) -> list[None]:
    """These (person, socket) pages closed: each row kept as when its person left, their earlier closed rows
    gone, their followers told."""
    now = now or timezone.now()
    sockets = [socket for _, socket in asks]
    people = {user_id for user_id, _ in asks}
    with transaction.atomic():
        OnlineSocket.objects.filter(socket__in=sockets).update(closed_at=now)
        OnlineSocket.objects.filter(user_id__in=people, closed_at__isnull=False).exclude(socket__in=sockets).delete()
    news.announce(people)
    return [None] * len(asks)
