"""Queueing notices (games.models.Notice): the one decision of whether a person gets an email of a kind
(`may_mail`, asked here when a notice is queued and again by the worker when it is sent, so that unsubscribing,
an address changed or a suspension stops what is already queued), and the functions each feature calls AFTER
its commit. None of them sends anything: the worker (manage.py run_mail) does, outside requests and the live core.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable, Sequence
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.models import User

from ...models import AnalysisJob, Challenge, Entrant, Notice, Seat
from ...play.clock import is_correspondence
from ...play.snapshot import Change, Snapshot, must_act_of
from .kinds import KINDS, TURN, URGENT, VERIFY

log = logging.getLogger(__name__)

# What the decision reads of a person (the worker and the enqueuers load only these).
PERSON_FIELDS = ("id", "is_active", "is_bot", "program", "email", "email_verified", "mail_bounces", "mail_kinds")
# A person asking for their verification link again gets at most one mail per this many seconds.
VERIFY_EVERY = 300


def may_mail(user: User, kind: str) -> bool:
    """Whether this person gets an email of this kind now: a person (no bot, no program), active, whose current
    address is the verified one, which has not bounced too often, and who opted in to the kind."""
    if not user.is_active or user.is_bot or user.program:
        return False
    if not user.email or user.email_verified != user.email:
        return False
    if user.mail_bounces >= settings.NOTIFY_MAIL_BOUNCES:
        return False
    return kind in KINDS and kind in (user.mail_kinds or [])


def may_verify(user: User, address: str) -> bool:
    """Whether a verification link for `address` is still worth sending: it is still this person's address, not
    verified yet, and they can use the site."""
    return (user.is_active and not user.is_bot and not user.program and bool(address)
            and address == user.email and address != user.email_verified)


def notify(user_ids: Iterable[int], kind: str, key: str, **about: Any) -> int:
    """Queue a notice of `kind` (about a match, a challenge or a tournament: `about`) for each of these people who
    may get it; the same key for the same person is one notice. How many were asked for."""
    wanted = set(user_ids)
    if not wanted:
        return 0
    now = timezone.now()
    leaves = now if kind in URGENT else now + timedelta(seconds=settings.NOTIFY_MAIL_GATHER_SECONDS)
    people = User.objects.filter(pk__in=wanted).only(*PERSON_FIELDS)
    rows = [Notice(user_id=person.pk, kind=kind, key=key, created_at=now, next_try_at=leaves, **about)
            for person in people if may_mail(person, kind)]
    if rows:
        Notice.objects.bulk_create(rows, ignore_conflicts=True)
    return len(rows)


def after_commit(fn: Any) -> None:
    """Run `fn` once the current transaction commits (at once outside one); a failure is logged, never raised
    into the change that caused it (that is committed already)."""
    def guarded() -> None:
        try:
            fn()
        except Exception:
            log.exception("could not queue a notification")
    transaction.on_commit(guarded)


# ---------------------------------------------------------------------------------------------------------
# The features' news


def on_committed(changes: Sequence[Change]) -> None:
    """Changes of matches just committed (games.play.events.committed, both roads of the live core): each person
    a correspondence match newly waits on gets a "your turn" notice. A real-time match's change costs one dict
    lookup here; the correspondence ones cost a query or two, after their commit (bench/mail.py)."""
    for change in changes:
        if not is_correspondence(change.after.clock) or not change.written:
            continue
        after = change.after
        newly = must_act_of(after, change.state) - must_act_of(change.before)
        people = [seat.player.user_id for index in newly if (seat := after.seat(index)) is not None
                  and seat.is_person and seat.player is not None and not seat.player.program]
        # One turn, one notice: the version at which the turn came to them names it (a turn of several plays
        # does not make them newly waited on again).
        notify(people, TURN, f"turn:{after.id}:{after.version}", match_id=after.id)


def on_start(snap: Snapshot) -> None:
    """A match was dealt (games.play.events.started, in its transaction): in a correspondence match, whoever it
    waits on first is told after the commit, whichever road dealt it (a challenge accepted, a pairing, a
    Swiss round); the committed changes' hook sees only the starts made through a change. The same key as that
    hook's: one notice either way."""
    if not is_correspondence(snap.clock):
        return
    people = [seat.player.user_id for index in must_act_of(snap) if (seat := snap.seat(index)) is not None
              and seat.is_person and seat.player is not None and not seat.player.program]
    if people:
        after_commit(lambda: notify(people, TURN, f"turn:{snap.id}:{snap.version}", match_id=snap.id))


def challenge_made(challenge: Challenge) -> None:
    """A challenge was made (games.challenges.services, in or after its transaction)."""
    after_commit(lambda: notify([challenge.challenged_id], "challenge", f"challenge:{challenge.pk}",
                                challenge_id=challenge.pk))


def tournament_started(tournament_id: int) -> None:
    """A tournament started (games.tournaments.services.ticks): each entrant still in it."""
    def queue() -> None:
        people = Entrant.objects.filter(tournament_id=tournament_id, withdrawn=False).values_list("user_id", flat=True)
        notify(people, "tournament", f"tournament:{tournament_id}", tournament_id=tournament_id)
    after_commit(queue)


def analysis_ready(match_id: int) -> None:
    """A match's analysis was stored (games.review.worker): its people, and whoever asked for it."""
    people = set(Seat.objects.filter(match_id=match_id, user__isnull=False).values_list("user_id", flat=True))
    people.update(AnalysisJob.objects.filter(match_id=match_id, requested_by__isnull=False)
                  .values_list("requested_by_id", flat=True))
    notify(people, "analysis", f"analysis:{match_id}", match_id=match_id)


def request_verification(user: User) -> str:
    """Queue the link that verifies the person's current address; what to tell them."""
    if not user.email:
        return "Add an email address to your profile first."
    if user.email == user.email_verified:
        return f"{user.email} is verified already."
    if not may_verify(user, user.email):
        return "This account can't receive email."
    now = timezone.now()
    try:
        with transaction.atomic():
            Notice.objects.create(user=user, kind=VERIFY, key=f"verify:{int(time.time() // VERIFY_EVERY)}",
                                  address=user.email, created_at=now, next_try_at=now)
    except IntegrityError:
        return "A verification link was sent a moment ago: look for it in your mailbox (and its spam folder)."
    return f"A verification link is on its way to {user.email}: follow it within three days."
