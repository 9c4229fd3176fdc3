"""Challenges, the service: one person asks another to a match of a game with a clock (from the
other's profile or a history's names); the other sees it live on every page (a notice with Accept and Decline,
sent over their notification sockets) and after a reload; accepting makes the match and sends both to it; it
ends when declined, withdrawn, replaced by a newer one, expired (the runner's sweep, `expire_due`, after
CHALLENGE_MINUTES; a correspondence challenge after a move's days: `lifetime`) or cancelled (`withdraw_all`: one
of the two can no longer play). Every road out of OPEN sets `closed_at`, so the other person's pages say the "no"
live and after a reload (games.challenges.queries). A person may refuse all challenges (their profile), and a
person's challenges never reach someone who blocked them (games.social: told as a plain refusal). A person at
a clocked board (games.boards) neither makes nor accepts a challenge with a real-time clock, and is told why up
front rather than by the deal's claim; a correspondence challenge (days a move) binds no one.

Accepting is one claim: the challenge row locked (SELECT ... FOR UPDATE) and still open, then the match made in
the same transaction, so a challenge accepted twice at once (two tabs, two processes) makes one match."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from accounts.models import User
from accounts.sessions import notices_group

from .. import boards
from ..blocks import blockers_between
from ..catalog import GAMES
from ..models import Challenge, Match, Seek
from ..notify.goto import send_to_match
from ..notify.mail import queue as mail
from ..play.clock import is_correspondence
from ..play.create import create_table
from ..play.snapshot import ServiceError
from ..pool import pairing
from ..pool.pools import clock_of
from .queries import RECENT_MINUTES

log = logging.getLogger(__name__)

CHALLENGE_MINUTES = 5


def lifetime(clock: dict[str, Any]) -> timedelta:
    """How long a challenge waits for its answer: minutes for a real-time match (the challenger is at the
    screen), a whole move's time for a correspondence one (the other may answer tomorrow, told by email)."""
    if is_correspondence(clock):
        return timedelta(seconds=float(clock["seconds"]))
    return timedelta(minutes=CHALLENGE_MINUTES)
# How often the runner closes the challenges past their time (games.apps registers expire_due): a notice may
# outlive its expiry by this much, never a page's own timer deciding.
EXPIRY_SWEEP_SECONDS = 2.0
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
        raise ServiceError("Choose no clock, 5 min + 3 s, 30 s a turn, or 1, 2, 3 or 7 days a move.") from None
    if challenged.pk == challenger.pk:
        raise ServiceError("You cannot challenge yourself.")
    if challenged.is_bot or challenger.is_bot:
        raise ServiceError("Bots are not challenged: start a match against one in the lobby.")
    if not challenged.is_active:
        raise ServiceError(f"{challenged.name} cannot play at the moment.")
    if challenged.refuse_challenges:
        raise ServiceError(f"{challenged.name} does not take challenges.")
    blockers = blockers_between(challenger.pk, challenged.pk)
    if challenged.pk in blockers:  # told as a refusal of all challenges would be: the block is not said
        raise ServiceError(f"{challenged.name} does not take challenges.")
    if challenger.pk in blockers:
        raise ServiceError(f"You blocked {challenged.name}: unblock them on their profile to challenge them.")
    if GAMES[game].engine.max_players < 2:
        raise ServiceError(f"{GAMES[game].name} is not played by two.")
    # Said now rather than when the other accepts (the deal's claim would refuse it then, to their surprise).
    busy = boards.why_not(challenger, clocked=boards.is_clocked(spec), own=True)
    if busy:
        raise ServiceError(busy)
    with transaction.atomic():
        Challenge.objects.filter(challenger=challenger, challenged=challenged, status=OPEN).update(
            status=Challenge.Status.WITHDRAWN, closed_at=now)
        made = Challenge.objects.create(challenger=challenger, challenged=challenged, game=game, clock=spec,
                                        rated=rated, created_at=now,
                                        expires_at=now + lifetime(spec))
        # Its notice, then its "no" once it expires, are shown up to RECENT_MINUTES past its time (the one it
        # replaced ends sooner).
        _shown_until([challenger, challenged], made.expires_at)
    changed([challenger.pk, challenged.pk])
    mail.challenge_made(made)  # queued after the commit, if they asked for it
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
        # The gate's reason, before anything is written: the challenge stays open for when they are free.
        clocked = boards.is_clocked(row.clock)
        busy = (boards.why_not(user, clocked=clocked, own=True)
                or boards.why_not(challenger, clocked=clocked, own=False))
        if busy:
            raise ServiceError(busy)
        Seek.objects.filter(user_id__in=[user.pk, challenger.pk], match__isnull=True).delete()
        match = create_table(game=row.game, people=[challenger, user], clock=row.clock, rated=row.rated)
        row.status, row.match, row.closed_at = Challenge.Status.ACCEPTED, match, now
        row.save(update_fields=["status", "match", "closed_at"])
        _shown_until([challenger, user], now)
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
        row.status, row.closed_at = status, now
        row.save(update_fields=["status", "closed_at"])
        _shown_until([row.challenger_id, row.challenged_id], now)
    changed([row.challenger_id, row.challenged_id])
    return row


def expire_due(now: datetime | None = None) -> int:
    """The open challenges past their time become EXPIRED and both people are told (the runner calls this every
    EXPIRY_SWEEP_SECONDS in every process; a second process finds nothing left to do). Returns how many."""
    now = now or timezone.now()
    # A plain read first: most sweeps find nothing, and the transaction below takes SQLite's write lock at BEGIN.
    if not Challenge.objects.filter(status=OPEN, expires_at__lte=now).exists():
        return 0
    with transaction.atomic():
        due = list(Challenge.objects.select_for_update().filter(status=OPEN, expires_at__lte=now)
                   .values_list("pk", "challenger_id", "challenged_id"))
        if not due:
            return 0
        # status=OPEN again: one accepted between the read and here (without row locks, SQLite) stays accepted.
        expired = Challenge.objects.filter(pk__in=[pk for pk, _, _ in due], status=OPEN).update(
            status=Challenge.Status.EXPIRED, closed_at=now)
        _shown_until([user_id for _, *people in due for user_id in people], now)
    changed(sorted({user_id for _, *people in due for user_id in people}))
    return expired


def withdraw_all(user: User, *, reason: str = "", now: datetime | None = None) -> int:
    """This person can no longer play (suspended, deactivated): every open challenge to or from them is CANCELLED
    and both sides are told live. `reason` is what their pages say after the colon ("Bob cannot play at the
    moment." by default); after a reload the reason is told again from the accounts' state
    (games.challenges.queries). Returns how many."""
    now = now or timezone.now()
    said = reason or f"{user.name} cannot play at the moment."
    with transaction.atomic():
        rows = list(Challenge.objects.select_for_update()
                    .filter(Q(challenger_id=user.pk) | Q(challenged_id=user.pk), status=OPEN)
                    .values_list("pk", "challenger_id", "challenged_id"))
        if not rows:
            return 0
        cancelled = Challenge.objects.filter(pk__in=[pk for pk, _, _ in rows], status=OPEN).update(
            status=Challenge.Status.CANCELLED, closed_at=now)
        _shown_until([user_id for _, *people in rows for user_id in people], now)
    changed(sorted({user_id for _, *people in rows for user_id in people}),
            reasons={pk: said for pk, _, _ in rows})
    return cancelled


def _shown_until(people: list[User | int], moment: datetime) -> None:
    """These people's pages may show a challenge written now up to RECENT_MINUTES past `moment` (its end, or
    when it closed): their notices_until moves on to then, never back (queries.page_challenges reads it). Inside
    the transaction that writes the challenge; the people given as Users are told in memory too, for a page this
    same request draws."""
    until = moment + timedelta(minutes=RECENT_MINUTES)
    ids = [person if isinstance(person, int) else person.pk for person in people]
    User.objects.filter(pk__in=ids).filter(Q(notices_until__isnull=True) | Q(notices_until__lt=until)).update(
        notices_until=until)
    for person in people:
        if isinstance(person, User) and (person.notices_until is None or person.notices_until < until):
            person.notices_until = until


def changed(user_ids: list[int], *, reasons: dict[int, str] | None = None) -> None:
    """These people's challenges changed: their pages redraw the notices (and the lobby its list). `reasons`: why
    the server cancelled these challenges (by id), said as they are on the open pages."""
    layer = get_channel_layer()
    if layer is None:
        return
    event: dict[str, object] = {"type": "challenges.changed"}
    if reasons:
        event["reasons"] = {str(pk): text for pk, text in reasons.items()}  # the layer's messages: string keys
    for user_id in user_ids:
        try:
            async_to_sync(layer.group_send)(notices_group(user_id), event)
        except Exception:
            log.exception("could not tell %s of a challenge", user_id)
