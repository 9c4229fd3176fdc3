"""A person who can no longer play (suspended, deactivated, deleted) leaves every feature at once: the one place
that says what that means, so that no feature keeps pairing them.

- tournaments: withdrawn from every one not over (an upcoming one's entry goes); never paired again, and lifting
  a suspension does not enter them again;
- quick pairing: their seek is withdrawn (the lobbies redraw the grid);
- challenges: every open one, sent or received, is cancelled and the other person's pages told;
- matches: those in progress end with their loss (the others win, as when a player resigns; an arena game counts
  for the opponent), and they leave those still waiting (a match they created is cancelled).
The tournaments go first: the end of their match must not pair them again.

Who calls it: the administrator's suspension (games.moderation.suspend_user), and any save that turns a person
inactive (the admin's "active" box) or deletes them (signals below, connected in games.apps).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models.signals import post_save, pre_delete

from accounts.models import User

from .challenges import services as challenges
from .models import Entrant, Match, Tournament
from .play.finish import end_with_loser
from .play.seating import decide_leave
from .play.snapshot import Change, ServiceError, Snapshot, State, Status
from .play.sync import run_change
from .pool import pairing
from .results import Termination
from .tournaments import services as tournaments

log = logging.getLogger(__name__)


@dataclass
class Departure:
    """What leaving did, counted (the administrator's message says it)."""

    tournaments: int = 0
    seeks: int = 0
    challenges: int = 0
    ended: int = 0
    left: int = 0


def leave_everything(user: User) -> Departure:
    done = Departure()
    if user.is_bot:
        return done
    running = (Tournament.Status.UPCOMING, Tournament.Status.RUNNING)
    entered = (Entrant.objects.filter(user=user, withdrawn=False, tournament__status__in=running)
               .values_list("tournament_id", flat=True))
    for tournament_id in list(entered):
        try:
            tournaments.withdraw(tournament_id=tournament_id, user=user)
            done.tournaments += 1
        except ServiceError:  # it ended meanwhile
            continue
    done.seeks = pairing.withdraw(user)
    done.challenges = challenges.withdraw_all(user)
    done.ended, done.left = end_live_matches(user)
    return done


def decide_forfeit(snap: Snapshot, state: State, *, user_id: int) -> Change | None:
    """A departing person's match in progress ends with their loss (the others win, as when a player resigns),
    even before everyone has moved. None if they play no seat of it any more."""
    if snap.status != Status.ACTIVE:
        return None
    seat = snap.seat_of(user_id)
    if seat is None or seat.is_bot:  # a seat a bot plays since its player left is that player's loss already
        return None
    return end_with_loser(snap, seat.index, reason=Termination.SUSPENDED, state=state)


def end_live_matches(user: User) -> tuple[int, int]:
    """A departing person's live matches: those in progress end with their loss, and they leave those still
    waiting (a match they created is then cancelled). (ended, left) counted."""
    ended = left = 0
    seats = Match.objects.filter(seats__user=user, status__in=(Status.WAITING, Status.ACTIVE))
    for match_id, status in seats.values_list("pk", "status").distinct():
        try:
            if status == Status.WAITING:
                run_change(match_id, decide_leave, user_id=user.pk)
                left += 1
            else:
                with transaction.atomic():
                    after = run_change(match_id, decide_forfeit, user_id=user.pk)
                if (after.result or {}).get("reason") == Termination.SUSPENDED:
                    ended += 1
        except ServiceError:  # it moved on meanwhile (started, finished): nothing of theirs is left to end
            continue
    return ended, left


# ---------------------------------------------------------------------------------------------
# Signals: an account turned inactive or deleted, by any road (the admin's form, a shell, a command)

# The suspension calls leave_everything itself (it reports the counts); its save is marked so as not to do it twice.
SUSPENDING = "_departing"


def _inactive_saved(sender: Any, instance: Any, created: bool, raw: bool = False, **kwargs: Any) -> None:
    if created or raw or instance.is_active or instance.is_bot or getattr(instance, SUSPENDING, False):
        return
    user_id = instance.pk

    def leave() -> None:
        user = User.objects.filter(pk=user_id, is_active=False).first()
        if user is not None:
            try:
                leave_everything(user)
            except Exception:
                log.exception("person %s could not leave every feature", user_id)
    transaction.on_commit(leave)


def _deleting(sender: Any, instance: Any, **kwargs: Any) -> None:
    if not instance.is_bot:
        leave_everything(instance)


def connect() -> None:
    """Called once at start-up (games.apps)."""
    post_save.connect(_inactive_saved, sender=settings.AUTH_USER_MODEL, dispatch_uid="departures-inactive")
    pre_delete.connect(_deleting, sender=settings.AUTH_USER_MODEL, dispatch_uid="departures-deleted")
