"""What an administrator may do to matches and players: abort a match, annul a result, suspend a person.

Every change of a match goes through games.play.sync.run_change with a decide function here, like a player's
own changes: it is written only if the match is still at the version it was decided on, and the live
pages are told (games.play.news.publish). An abort closes the match as any abort does (games.play.finish.closed)
and is heard as any end; an annulment is an event of its own, whose listeners games/endings.py names beside the
end's: this module decides and announces, and knows none of them. The admin (games/admin/, accounts/admin.py)
calls these and logs who did what; these functions only change the match and the figures.
"""

from __future__ import annotations

from dataclasses import replace
from importlib import import_module

from django.conf import settings
from django.contrib.auth import SESSION_KEY
from django.db import transaction
from django.utils import timezone

from accounts.models import User

from . import departures
from .play.finish import closed
from .play.snapshot import Change, ServiceError, Snapshot, State, Status
from .play.sync import run_change
from .results import Termination
from .signals import check_sessions


def decide_admin_abort(snap: Snapshot, state: State) -> Change:
    """An administrator ends a match still waiting or in progress: aborted, unrated, in nobody's history or
    statistics (only finished matches are), whatever was played so far."""
    if snap.status not in (Status.WAITING, Status.ACTIVE):
        raise ServiceError("Only a match waiting for players or in progress can be aborted; annul a finished one.")
    # "by": None is how the pages name an administrator (games.play.wording.describe_result).
    return Change(snap, closed(snap, reason=Termination.ABORTED, by=None, moderated=True))


def decide_annul(snap: Snapshot, state: State) -> Change:
    """A finished match's result stops counting: the match stays on the record, marked annulled."""
    if snap.status != Status.FINISHED:
        raise ServiceError("Only a finished match's result can be annulled; abort a match still being played.")
    if (snap.result or {}).get("annulled"):
        raise ServiceError("Its result is annulled already.")
    return Change(snap, replace(snap, version=snap.version + 1, result={**(snap.result or {}), "annulled": True}))


def abort_match(match_id: int) -> Snapshot:
    with transaction.atomic():
        return run_change(match_id, decide_admin_abort)


def annul_result(match_id: int) -> Snapshot:
    """Annul a finished match's result. The annulment is an event (games.play.events), heard with its write by
    whoever games/endings.py names: the match leaves the history lists, its game's statistics and ratings are
    recomputed as if it had never counted (and a tournament's standings, if it was played in one)."""
    with transaction.atomic():
        return run_change(match_id, decide_annul)


def sign_out_everywhere(user: User) -> int:
    """Delete every session of this person (the number deleted); their open sockets check their session
    and close (games.signals.check_sessions)."""
    store_class = import_module(settings.SESSION_ENGINE).SessionStore
    deleted = 0
    transaction.on_commit(lambda: check_sessions(user.pk))
    if not hasattr(store_class, "get_model_class"):
        # Cookie or cache sessions can't be listed; an inactive user's session signs no one in anyway
        # (ModelBackend.get_user refuses them), and the sockets check it just the same.
        return 0
    # The database-backed stores keep no index by user: each live session is read once, which is fine for
    # an administrator's action now and then.
    model = store_class.get_model_class()
    for key, data in model.objects.filter(expire_date__gt=timezone.now()).values_list("session_key", "session_data"):
        decoded = store_class().decode(data)
        if str(decoded.get(SESSION_KEY)) == str(user.pk):
            store_class(key).delete()
            deleted += 1
    return deleted


def suspend_user(user: User) -> dict[str, int]:
    """Suspend a person: they cannot sign in (is_active off, which also hides them from the leaderboards),
    every session of theirs ends, and they leave every feature (games.departures: tournaments, seeks,
    challenges; their matches in progress end with their loss, they leave the waiting ones). What was done,
    counted."""
    if user.is_bot:
        raise ServiceError("Bots can't be suspended: they play in other people's matches.")
    with transaction.atomic():
        user.is_active = False
        setattr(user, departures.SUSPENDING, True)  # the departure below is this one's, not the signal's
        try:
            user.save(update_fields=["is_active"])
        finally:
            delattr(user, departures.SUSPENDING)
        sessions = sign_out_everywhere(user)
    done = departures.leave_everything(user)
    return {"sessions": sessions, "ended": done.ended, "left": done.left, "tournaments": done.tournaments,
            "seeks": done.seeks, "challenges": done.challenges}


def unsuspend_user(user: User) -> None:
    """Lift a suspension: they may sign in again and show on the leaderboards (ended matches stay ended, and
    the tournaments they were withdrawn from are not entered again)."""
    user.is_active = True
    user.save(update_fields=["is_active"])
