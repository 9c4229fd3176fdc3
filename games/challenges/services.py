"""Challenges, the service: one person asks another to a match of a game with a clock (from the
other's profile or a history's names); the other sees it live on every page (a notice with Accept and Decline,
sent over their notification sockets) and after a reload; accepting makes the match and sends both to it; it
ends when declined, withdrawn, or after CHALLENGE_MINUTES. A person may refuse all challenges (their profile).

Accepting is one claim: the challenge row locked (SELECT ... FOR UPDATE) and still open, then the match made in
the same transaction, so a challenge accepted twice at once (two tabs, two processes) makes one match."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction
from django.utils import timezone

from accounts.models import User
from accounts.sessions import notices_group

from ..catalog import GAMES
from ..models import Challenge, Match, Seek
from ..notify.goto import send_to_match
from ..play.create import create_table
from ..play.snapshot import ServiceError
from ..pool import pairing
from ..pool.pools import clock_of

log = logging.getLogger(__name__)

CHALLENGE_MINUTES = 5
OPEN = Challenge.Status.OPEN


def challenge(challenger: User, challenged: User, *, game: str, clock: str, rated: bool = True,
              now: datetime | None = None) -> Challenge:
    """Ask `challenged` to a two-person match (or the game's smallest table) of `game` with one of the grid's
    clocks; an open challenge between the two is replaced by this one."""
    now = now or timezone.now()
    if game not in GAMES:
        raise ServiceError("Choose one of the four games.")
    try:
        spec = clock_of(clock)
    except KeyError:
        raise ServiceError("Choose no clock, a clock per player, or a limit per turn.") from None
    if challenged.pk == challenger.pk:
        raise ServiceError("You cannot challenge yourself.")
    if challenged.is_bot or challenger.is_bot:
        raise ServiceError("Bots are not challenged: start a match against one in the lobby.")
    if not challenged.is_active:
        raise ServiceError(f"{challenged.name} cannot play at the moment.")
    if challenged.refuse_challenges:
        raise ServiceError(f"{challenged.name} does not take challenges.")
    if GAMES[game].engine.max_players < 2:
        raise ServiceError(f"{GAMES[game].name} is not played by two.")
    with transaction.atomic():
        Challenge.objects.filter(challenger=challenger, challenged=challenged, status=OPEN).update(
            status=Challenge.Status.WITHDRAWN)
        made = Challenge.objects.create(challenger=challenger, challenged=challenged, game=game, clock=spec,
                                        rated=rated, created_at=now,
                                        expires_at=now + timedelta(minutes=CHALLENGE_MINUTES))
    changed([challenger.pk, challenged.pk])
    return made


def _open(challenge_id: int, now: datetime) -> Challenge:
    """The challenge, locked, if it is still open; ServiceError otherwise."""
    row = Challenge.objects.select_for_update().filter(pk=challenge_id).first()
    if row is None:
        raise ServiceError("There is no such challenge.")
    if row.status != OPEN:
        raise ServiceError(f"The challenge was {row.get_status_display().lower()} already.")
    if row.expires_at <= now:
        raise ServiceError("The challenge has expired.")
    return row


def accept(user: User, challenge_id: int, *, now: datetime | None = None) -> Match:
    """The challenged person accepts: the match is made and both go to it (any seek of theirs is withdrawn)."""
    now = now or timezone.now()
    with transaction.atomic():
        row = _open(challenge_id, now)
        if row.challenged_id != user.pk:
            raise ServiceError("This challenge is not yours to accept.")
        challenger = User.objects.get(pk=row.challenger_id)
        if not challenger.is_active:
            raise ServiceError(f"{challenger.name} cannot play at the moment.")
        Seek.objects.filter(user_id__in=[user.pk, challenger.pk], match__isnull=True).delete()
        match = create_table(game=row.game, people=[challenger, user], clock=row.clock, rated=row.rated)
        row.status, row.match = Challenge.Status.ACCEPTED, match
        row.save(update_fields=["status", "match"])
    send_to_match(match, [row.challenger_id, row.challenged_id])
    changed([row.challenger_id, row.challenged_id])
    pairing.announce_pools()
    return match


def decline(user: User, challenge_id: int, *, now: datetime | None = None) -> Challenge:
    return _close(user, challenge_id, by="challenged", status=Challenge.Status.DECLINED, now=now)


def withdraw(user: User, challenge_id: int, *, now: datetime | None = None) -> Challenge:
    return _close(user, challenge_id, by="challenger", status=Challenge.Status.WITHDRAWN, now=now)


def _close(user: User, challenge_id: int, *, by: str, status: str, now: datetime | None) -> Challenge:
    now = now or timezone.now()
    with transaction.atomic():
        row = _open(challenge_id, now)
        if getattr(row, f"{by}_id") != user.pk:
            raise ServiceError("This challenge is not yours to answer.")
        row.status = status
        row.save(update_fields=["status"])
    changed([row.challenger_id, row.challenged_id])
    return row


def changed(user_ids: list[int]) -> None:
    """These people's challenges changed: their pages redraw the notices (and the lobby its list)."""
    layer = get_channel_layer()
    if layer is None:
        return
    for user_id in user_ids:
        try:
            async_to_sync(layer.group_send)(notices_group(user_id), {"type": "challenges.changed"})
        except Exception:
            log.exception("could not tell %s of a challenge", user_id)
