"""What a notice says (an Item: a line and its link), read when it is sent, so that the mail tells the match as
it is then, and a notice that stopped being news (the person moved already, the challenge closed) is dropped;
and the email itself: plain text and HTML, each item with its absolute link, the unsubscribe links of the kinds
in it, and RFC 8058's List-Unsubscribe headers. No hidden game information ever: names, games and clocks only.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from email.utils import make_msgid
from typing import Any

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.template.loader import render_to_string
from django.urls import reverse

from accounts.models import User

from ...catalog import GAMES
from ...models import AnalysisJob, Challenge, Match, Notice, Seat, Tournament
from ...play.clock import clock_label, is_correspondence
from .kinds import ANALYSIS, CHALLENGE, KINDS, TOURNAMENT, TURN
from .tokens import unsubscribe_token, verify_token


@dataclass(frozen=True)
class Item:
    kind: str
    line: str  # "Your turn in Rummy with Ana (3 days a move)"
    url: str  # absolute


def absolute(path: str) -> str:
    return f"{settings.SITE_URL}{path}"


def clock_words(clock: dict[str, Any]) -> str:
    if is_correspondence(clock):
        days = int(clock.get("days") or 0)
        return f"{days} day{'s' if days != 1 else ''} a move"
    return clock_label(clock)


def names(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _others(match_id: int, user_id: int) -> str:
    seats = Seat.objects.filter(match_id=match_id).exclude(user_id=user_id).select_related("user")
    return names([seat.user.name for seat in seats if seat.user is not None] or ["nobody yet"])


def item(notice: Notice, now: datetime) -> Item | None:
    """The notice as a line and a link, or None when it is no longer news."""
    if notice.kind == TURN and notice.match_id is not None:
        match = Match.objects.filter(pk=notice.match_id).only("game", "status", "clock", "waiting_on").first()
        mine = Seat.objects.filter(match_id=notice.match_id, user_id=notice.user_id, substitute__isnull=True) \
            .values_list("index", flat=True).first()
        if match is None or match.status != Match.Status.ACTIVE or mine is None \
                or mine not in (match.waiting_on or []) or not is_correspondence(match.clock):
            return None  # they moved already (or left, or it ended): nothing to tell
        line = (f"Your turn in {GAMES[match.game].name} with {_others(match.pk, notice.user_id)} "
                f"({clock_words(match.clock)})")
        return Item(TURN, line, absolute(reverse("match", args=[match.pk])))
    if notice.kind == CHALLENGE and notice.challenge_id is not None:
        challenge = Challenge.objects.filter(pk=notice.challenge_id).select_related("challenger").first()
        if challenge is None or challenge.status != Challenge.Status.OPEN or challenge.expires_at <= now:
            return None
        line = (f"{challenge.challenger.name} challenges you to {GAMES[challenge.game].name} "
                f"({clock_words(challenge.clock)})")
        return Item(CHALLENGE, line, absolute(reverse("play")))
    if notice.kind == TOURNAMENT and notice.tournament_id is not None:
        tournament = Tournament.objects.filter(pk=notice.tournament_id).first()
        if tournament is None or tournament.status != Tournament.Status.RUNNING:
            return None
        return Item(TOURNAMENT, f"{tournament.name} has started",
                    absolute(reverse("tournament", args=[tournament.pk])))
    if notice.kind == ANALYSIS and notice.match_id is not None:
        match = Match.objects.filter(pk=notice.match_id).only("game").first()
        done = AnalysisJob.objects.filter(match_id=notice.match_id, state=AnalysisJob.State.DONE).exists()
        if match is None or not done:
            return None
        line = f"The analysis of your {GAMES[match.game].name} match with {_others(match.pk, notice.user_id)} is ready"
        return Item(ANALYSIS, line, absolute(reverse("replay", args=[match.pk])))
    return None


def unsubscribe_url(user_id: int, kinds: list[str]) -> str:
    return absolute(reverse("mail_unsubscribe", args=[unsubscribe_token(user_id, kinds)]))


def _message(subject: str, to: str, template: str, context: dict[str, Any],
             headers: dict[str, str] | None = None) -> EmailMultiAlternatives:
    context = {**context, "site_url": settings.SITE_URL}
    text = render_to_string(f"mail/{template}.txt", context)
    html = render_to_string(f"mail/{template}.html", context)
    domain = settings.SITE_URL.split("://", 1)[-1].split("/", 1)[0].split(":", 1)[0] or "cardclub.local"
    message = EmailMultiAlternatives(subject, text, settings.DEFAULT_FROM_EMAIL, [to],
                                     headers={"Message-ID": make_msgid(domain=domain), **(headers or {})})
    message.attach_alternative(html, "text/html")
    return message


def notices_mail(user: User, items: list[Item]) -> EmailMultiAlternatives:
    """One email for all of a person's items: their lines and links, and how to stop each kind in it."""
    kinds = [kind for kind in KINDS if any(i.kind == kind for i in items)]
    stop_all = unsubscribe_url(user.pk, kinds)
    subject = items[0].line if len(items) == 1 else f"{len(items)} things waiting for you at Card Club"
    context = {
        "name": user.name, "items": items, "profile_url": absolute(reverse("profile_edit")),
        "stops": [(KINDS[kind], unsubscribe_url(user.pk, [kind])) for kind in kinds],
    }
    # RFC 8058: a mail client's one-click "unsubscribe" POSTs List-Unsubscribe=One-Click to the link, no sign-in.
    headers = {"List-Unsubscribe": f"<{stop_all}>", "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
               "Auto-Submitted": "auto-generated"}
    return _message(subject, user.email, "notices", context, headers)


def verify_mail(user: User, address: str) -> EmailMultiAlternatives:
    """The link that proves the person reads `address`."""
    link = absolute(reverse("mail_verify", args=[verify_token(user.pk, address)]))
    return _message("Verify your email address for Card Club", address, "verify",
                    {"name": user.name, "link": link, "address": address}, {"Auto-Submitted": "auto-generated"})
