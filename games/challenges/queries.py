"""Challenges, the reads: a person's open challenges, to them and from them, as the lobby lists them and as every
page's notices show the incoming ones; and the recent "no"s said to them (a challenge of theirs declined,
withdrawn, expired or cancelled in the last RECENT_MINUTES), live and after a reload alike, from one query."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db.models import Q
from django.template.loader import render_to_string
from django.utils import timezone

from accounts.models import Viewer

from ..catalog import GAMES
from ..core.web import Link
from ..models import Challenge
from ..play.clock import clock_label

OPEN = Challenge.Status.OPEN
Status = Challenge.Status
# How long a closed challenge is still said to the person it concerns (on every page, after reloads too).
RECENT_MINUTES = 10


@dataclass(frozen=True)
class Notice:
    id: int
    incoming: bool  # to this person (Accept, Decline) or from them (Withdraw)
    other_name: str
    other_url: str
    game_name: str
    clock_label: str
    rated: bool
    seconds_left: int
    other_bot: bool = False  # a program (the Bot API): marked BOT


@dataclass(frozen=True)
class Outcome:
    """A challenge of this person's that ended without a match, as their pages say it."""

    id: int
    status: str  # Challenge.Status: declined, withdrawn, expired, cancelled
    text: str  # "Bob declined your challenge (Ruhd, 3+2)."
    seconds_left: int  # until it is no longer said


@dataclass(frozen=True)
class Challenges:
    open: list[Notice]
    outcomes: list[Outcome]


def open_challenges(user: Viewer, now: datetime | None = None) -> list[Notice]:
    """This person's open challenges, to them and from them, newest first (one query)."""
    return challenges_of(user, now).open


# What a notice or a "no" says of a challenge and of the other person: read as plain rows (values()), without
# building a Challenge and two Users for each on every signed-in page (issue 47: 1.2 -> 0.5 ms with none to read).
_ROW = ("id", "challenger_id", "challenged_id", "game", "clock", "rated", "status", "expires_at", "closed_at")
_PERSON = ("username", "display_name", "program", "is_active")
_FIELDS = (*_ROW, *(f"{side}__{name}" for side in ("challenger", "challenged") for name in _PERSON))


@dataclass(frozen=True)
class _Person:
    """The other person of a challenge, as its notice and its "no" name them."""

    username: str
    name: str
    program: bool
    is_active: bool


def _person(row: dict[str, Any], side: str) -> _Person:
    username = row[f"{side}__username"]
    return _Person(username, row[f"{side}__display_name"] or username, bool(row[f"{side}__program"]),
                   bool(row[f"{side}__is_active"]))


def challenges_of(user: Viewer, now: datetime | None = None, *,
                  reasons: dict[int, str] | None = None) -> Challenges:
    """This person's open challenges and the recent "no"s said to them, newest first (one query). `reasons`: why
    the server cancelled some of them, as the live event tells it (services.withdraw_all)."""
    if not user.is_authenticated:
        return Challenges([], [])
    now = now or timezone.now()
    since = now - timedelta(minutes=RECENT_MINUTES)
    # An open row past its time is read as expired: the runner's sweep closes it within seconds, and a page
    # drawn in between says the same as one drawn after.
    rows = (Challenge.objects.filter(Q(challenged_id=user.pk) | Q(challenger_id=user.pk))
            .filter(Q(status=OPEN, expires_at__gt=since) | Q(closed_at__gt=since))
            .order_by("-created_at", "-pk").values(*_FIELDS)[:20])
    notices: list[Notice] = []
    outcomes: list[Outcome] = []
    seen: set[str] = set()  # the people whose newest challenge with this person was read already
    profile: Link | None = None
    for row in rows:
        incoming = row["challenged_id"] == user.pk
        other = _person(row, "challenger" if incoming else "challenged")
        older = other.username in seen
        seen.add(other.username)
        if row["status"] == OPEN and row["expires_at"] > now:
            profile = profile or Link("profile")
            notices.append(Notice(row["id"], incoming, other.name, profile(other.username), GAMES[row["game"]].name,
                                  clock_label(row["clock"]), row["rated"],
                                  int((row["expires_at"] - now).total_seconds()), other_bot=other.program))
            continue
        if older:
            continue  # a newer challenge between the two (or its own "no") says where they stand now
        status, closed_at = ((Status.EXPIRED, row["expires_at"]) if row["status"] == OPEN
                             else (row["status"], row["closed_at"]))
        if closed_at is None or closed_at <= since:
            continue
        text = outcome_text(row, status, incoming=incoming, reason=(reasons or {}).get(row["id"]))
        if text:
            outcomes.append(Outcome(row["id"], status, text, int((closed_at - since).total_seconds())))
    return Challenges(notices, outcomes)


def page_challenges(user: Viewer) -> Challenges:
    """challenges_of for a page this request draws, the person as it read them: none without a query once their
    notices_until has passed (services._shown_until moves it on with every challenge it writes), as most people
    have no challenge most of the time. Each page's header asked, 0.8 ms of its CPU (issue 47). A socket, whose
    person was read when it opened, asks challenges_of."""
    if not user.is_authenticated:
        return Challenges([], [])
    until = getattr(user, "notices_until", None)
    if until is None or until <= timezone.now():
        return Challenges([], [])
    return challenges_of(user)


def outcome_text(row: dict[str, Any], status: str, *, incoming: bool, reason: str | None = None) -> str | None:
    """The sentence said to one of the two about a challenge (a row of challenges_of) closed without a match; None
    if it says nothing to them (their own decline or withdrawal, an acceptance)."""
    other = _person(row, "challenger" if incoming else "challenged").name
    detail = f"{GAMES[row['game']].name}, {clock_label(row['clock'])}" + ("" if row["rated"] else ", unrated")
    if status == Status.DECLINED and not incoming:
        return f"{other} declined your challenge ({detail})."
    if status == Status.WITHDRAWN and incoming:
        return f"{other} withdrew the challenge ({detail})."
    if status == Status.EXPIRED:
        return (f"{other}'s challenge to you ({detail}) expired." if incoming
                else f"Your challenge to {other} ({detail}) expired.")
    if status == Status.CANCELLED:
        subject = f"{other}'s challenge ({detail})" if incoming else f"Your challenge to {other} ({detail})"
        reason = reason or _cancelled_because(row)
        return f"{subject} was cancelled" + (f": {reason}" if reason else ".")
    return None


def _cancelled_because(row: dict[str, Any]) -> str | None:
    """After a reload, why the server cancelled it: the one of the two who cannot play now (no column keeps the
    live event's reason; a person reinstated since leaves the plain "was cancelled.")."""
    cause = next((person for person in (_person(row, "challenger"), _person(row, "challenged"))
                  if not person.is_active), None)
    return f"{cause.name} cannot play at the moment." if cause is not None else None


def notices_html(user: Viewer, now: datetime | None = None, *, read: Challenges | None = None,
                 error: str = "") -> str:
    """#challenge-notices: the incoming challenges' notices and the recent "no"s, on every page
    (templates/games/_notify.html); `error`: why an answer from a notice was refused."""
    read = read or challenges_of(user, now)
    return render_to_string("games/challenges/_challenge_notices.html", notices_context(read, error=error))


def notices_context(read: Challenges, *, error: str = "") -> dict[str, Any]:
    return {"notices": [notice for notice in read.open if notice.incoming], "outcomes": read.outcomes,
            "challenge_error": error}
