"""The mail worker (manage.py run_mail): claims one person's queued notices at a time, asks the decision again
(games.notify.mail.queue.may_mail: opted out or unverified since? dropped), words what is still news
(compose.item), sends it as one email, and marks the rows sent.

A claim is the leased queue's (games.core.leases, as the analysis jobs'): the person whose notice is due first
picked, then a conditional UPDATE taking all of that person's queued rows (those not due yet too: that is the
gathering) under a lease naming the worker's token.
A worker killed with kill -9 leaves its rows "claimed" until the lease runs out, then the next worker takes and
sends them; a killed worker can mark nothing afterwards (every write names its token). Between the mail
server's "accepted" and the row's "sent" there is a moment in which a kill means the mail goes twice (at least
once, never lost); the lease (60 s) outlasts an SMTP exchange's timeout (EMAIL_TIMEOUT, 30 s), so a slow server
alone never makes a second worker take the rows.

Failures: a temporary one (a 4xx reply, the server unreachable) puts the rows back with a growing pause
(BACKOFF), given up after NOTIFY_MAIL_ATTEMPTS; a recipient refused for good (a 5xx reply) fails the rows and
counts a bounce on the person: past NOTIFY_MAIL_BOUNCES in a row nothing more is sent to the address (an accepted
mail sets the count back to 0).
"""

from __future__ import annotations

import datetime as dt
import logging
import smtplib
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.mail import EmailMultiAlternatives, get_connection
from django.db.models import F, Q
from django.utils import timezone

from accounts.models import User

from ...core.leases import LeaseWorker, claim_first
from ...models import Notice
from . import compose
from .kinds import VERIFY
from .queue import PERSON_FIELDS, may_mail, may_verify

log = logging.getLogger(__name__)

Status = Notice.Status
DEFAULT_LEASE = dt.timedelta(seconds=60)
# Seconds before the next attempt after the 1st, 2nd, ... failed one (the last repeats).
BACKOFF = (60, 300, 1800, 7200, 21600)
MAX_ERROR = 300


@dataclass(frozen=True)
class Claimed:
    """A person's notices a worker holds, and the token its writes name."""

    user_id: int
    worker: str


def _due(now: dt.datetime) -> tuple[Q, Q]:
    """What may be claimed: a queued notice whose time came, or a claimed one whose worker's lease ran out. Two
    queries, each on the (status, next_try_at) index: one with an OR read the whole table at every claim."""
    return Q(status=Status.QUEUED, next_try_at__lte=now), Q(status=Status.CLAIMED, lease_until__lt=now)


def _takeable(now: dt.datetime) -> Q:
    return Q(status=Status.QUEUED) | Q(status=Status.CLAIMED, lease_until__lt=now)


def claim(worker: str, *, lease: dt.timedelta = DEFAULT_LEASE) -> Claimed | None:
    """Take every queued notice of the person whose notice is due first (or whose worker's lease ran out)."""

    def take(picked: int, now: dt.datetime) -> int:
        return Notice.objects.filter(_takeable(now), user_id=picked).update(
            status=Status.CLAIMED, claimed_by=worker, lease_until=now + lease, attempts=F("attempts") + 1)

    picked = claim_first(lambda now: [Notice.objects.filter(due).order_by("next_try_at", "id") for due in _due(now)],
                         "user_id", take)
    return Claimed(picked, worker) if picked is not None else None


def _mine(claimed: Claimed) -> Any:
    return Notice.objects.filter(user_id=claimed.user_id, claimed_by=claimed.worker, status=Status.CLAIMED)


def backoff(attempts: int) -> dt.timedelta:
    return dt.timedelta(seconds=BACKOFF[min(max(attempts, 1), len(BACKOFF)) - 1])


class Permanent(Exception):
    """The mail server refused the recipient for good (5xx): retrying changes nothing."""


def _refusal(error: Exception) -> tuple[bool, str]:
    """(refused for good, why) of a send's failure."""
    if isinstance(error, smtplib.SMTPRecipientsRefused):
        codes = [code for code, _ in error.recipients.values()]
        return any(500 <= code < 600 for code in codes), f"recipient refused: {codes}"
    if isinstance(error, smtplib.SMTPResponseException):
        return 500 <= error.smtp_code < 600 and not isinstance(error, smtplib.SMTPSenderRefused), \
            f"{type(error).__name__} {error.smtp_code}"
    return False, f"{type(error).__name__}: {error}"


@dataclass
class Worker(LeaseWorker):
    lease: dt.timedelta = DEFAULT_LEASE
    sent: int = 0  # emails the mail server accepted
    _connection: Any = None

    # -- the loop ---------------------------------------------------------------------------------------------

    def run_one(self) -> bool:
        """Claim and send one person's notices; False when nothing was due."""
        claimed = claim(self.token, lease=self.lease)
        if claimed is None:
            return False
        try:
            self.send(claimed)
        except Exception as error:  # a bug costs one person's notices a retry, never the worker
            log.exception("mail to person %s failed", claimed.user_id)
            self._retry(claimed, list(_mine(claimed).values_list("pk", flat=True)), f"{type(error).__name__}")
        return True

    def idle(self) -> None:
        self.close()  # no SMTP connection is held open while the queue is empty

    def connection(self) -> Any:
        if self._connection is None:
            self._connection = get_connection(fail_silently=False)
            self._connection.open()
        return self._connection

    def close(self) -> None:
        if self._connection is not None:
            try:
                self._connection.close()
            except Exception:
                log.debug("closing the mail connection", exc_info=True)
            self._connection = None

    # -- one person -------------------------------------------------------------------------------------------

    def send(self, claimed: Claimed) -> None:
        now = timezone.now()
        rows = list(_mine(claimed).order_by("created_at", "id"))
        user = User.objects.filter(pk=claimed.user_id).only(*PERSON_FIELDS, "username", "display_name").first()
        if user is None:  # deleted: its notices went with it
            return
        expired = [row.pk for row in rows if row.attempts > settings.NOTIFY_MAIL_ATTEMPTS]
        if expired:
            self._finish(claimed, expired, Status.FAILED, f"Gave up after {settings.NOTIFY_MAIL_ATTEMPTS} attempts.")
        rows = [row for row in rows if row.pk not in expired]
        mails: list[tuple[list[int], EmailMultiAlternatives, bool]] = []
        dropped: list[int] = []
        for row in rows:
            if row.kind == VERIFY:
                if may_verify(user, row.address):
                    mails.append(([row.pk], compose.verify_mail(user, row.address), False))
                else:
                    dropped.append(row.pk)
        items: dict[tuple[str, str], compose.Item] = {}
        carried: list[int] = []
        for row in rows:
            if row.kind == VERIFY:
                continue
            shown = compose.item(row, now) if may_mail(user, row.kind) else None
            if shown is None:
                dropped.append(row.pk)
                continue
            items.setdefault((shown.kind, shown.url), shown)  # one line per match however many turns queued
            carried.append(row.pk)
        if dropped:
            self._finish(claimed, dropped, Status.DROPPED, "")
        if items:
            mails.append((carried, compose.notices_mail(user, list(items.values())), True))
        for ids, message, counts in mails:
            if self.stopping:  # told to stop: what is not sent yet goes back to the queue at once
                _mine(claimed).filter(pk__in=ids).update(status=Status.QUEUED, claimed_by="", lease_until=None,
                                                          attempts=F("attempts") - 1)
                continue
            self._deliver(claimed, user, ids, message, counts_bounce=counts)

    def _deliver(self, claimed: Claimed, user: User, ids: list[int], message: EmailMultiAlternatives, *,
                 counts_bounce: bool) -> None:
        try:
            self.connection().send_messages([message])
        except Exception as error:
            self.close()  # whatever state the exchange was left in, the next mail starts a fresh one
            permanent, why = _refusal(error)
            if permanent:
                self._finish(claimed, ids, Status.FAILED, why)
                if counts_bounce:
                    User.objects.filter(pk=user.pk).update(mail_bounces=F("mail_bounces") + 1)
                self.say(f"Mail to person {user.pk} refused for good ({why}).")
            else:
                self._retry(claimed, ids, why)
                self.say(f"Mail to person {user.pk} not sent ({why}): tried again later.")
            return
        if not self._finish(claimed, ids, Status.SENT, ""):
            self.say(f"Mail to person {user.pk} sent, but its notices were taken over meanwhile.")
        self.sent += 1
        if counts_bounce and user.mail_bounces:
            User.objects.filter(pk=user.pk).update(mail_bounces=0)

    def _finish(self, claimed: Claimed, ids: list[int], status: str, error: str) -> int:
        now = timezone.now()
        return int(_mine(claimed).filter(pk__in=ids).update(
            status=status, lease_until=None, error=error[:MAX_ERROR], sent_at=now if status == Status.SENT else None))

    def _retry(self, claimed: Claimed, ids: list[int], error: str) -> None:
        """Back to the queue after a pause that grows with the attempts; given up after the last one."""
        now = timezone.now()
        for row in _mine(claimed).filter(pk__in=ids).only("attempts"):
            if row.attempts >= settings.NOTIFY_MAIL_ATTEMPTS:
                self._finish(claimed, [row.pk], Status.FAILED, f"{error} (gave up after {row.attempts} attempts)")
            else:
                _mine(claimed).filter(pk=row.pk).update(
                    status=Status.QUEUED, claimed_by="", lease_until=None, error=error[:MAX_ERROR],
                    next_try_at=now + backoff(row.attempts))
