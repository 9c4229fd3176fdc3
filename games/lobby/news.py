"""The lobby's lists on its sockets, as matches open, fill and finish: drawn once per burst of changes for
everyone who has nothing of their own in them, and per person only for those who do.

Most lobby watchers have no match waiting or in progress and are in no tournament yet: their lists (the lobby's
three and its tournaments) are the same for all of them but the CSRF secret in the Join forms, which each socket
puts in (a slot that no escaped text can contain). Drawn per socket, every change cost each watcher three list
queries and the lists' rendering on the one database thread, ahead of the moves (bench/README.md, issue 30).
"""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from accounts.models import User, Viewer

from ..core.shared_draw import Gathered, SharedDraw
from ..models import Entrant, Match, Seat, Tournament
from ..tournaments import display as tournament_display
from . import display

# Where each socket's CSRF secret goes: markup, so the text of a name or a match can never be mistaken for it.
CSRF_SLOT = mark_safe("<csrf-slot>")
# A signed-in person with nothing of their own: no row has this id, so every "theirs" filter finds nothing.
NOBODY_SIGNED_IN = User(pk=0, username="")
# Watchers hear a change together (after their sockets' pause): their asks within this time share one drawing.
GATHER_SECONDS = 0.005


def lists_html(viewer: Viewer, csrf_token: str) -> str:
    """The lobby's lists and its tournaments for this person (#lobby-lists, #lobby-tournaments)."""
    return display.lists_html(viewer, csrf_token) + tournament_display.lobby_html(viewer, csrf_token)


def _public(signed_in: bool) -> str:
    return lists_html(NOBODY_SIGNED_IN if signed_in else AnonymousUser(), CSRF_SLOT)


def _public_both(_: None = None) -> dict[bool, str]:
    """_public for the signed in and the signed out, from one read of the lists: they are the same lists (no
    Join is refused to someone with nothing of their own); only the tournaments' buttons differ."""
    lists = display.lists_html(AnonymousUser(), CSRF_SLOT)
    return {signed_in: lists + tournament_display.lobby_html(NOBODY_SIGNED_IN if signed_in else AnonymousUser(),
                                                          CSRF_SLOT)
            for signed_in in (False, True)}


DRAWS: SharedDraw[None, dict[bool, str]] = SharedDraw(_public_both, delay=GATHER_SECONDS)


def owners(user_ids: frozenset[int]) -> set[int]:
    """Those of these people whom the lobby lists anything of their own: a match waiting or in progress, a
    tournament they entered or made that has not ended (three queries for any number of people)."""
    ids = list(user_ids)
    live = (Tournament.Status.UPCOMING, Tournament.Status.RUNNING)
    found = set(Seat.objects.filter(user_id__in=ids, match__status__in=(Match.Status.WAITING, Match.Status.ACTIVE))
                .values_list("user_id", flat=True).distinct())
    rest = [pk for pk in ids if pk not in found]
    if rest:
        found |= set(Tournament.objects.filter(created_by_id__in=rest, status__in=live)
                     .values_list("created_by_id", flat=True).distinct())
        rest = [pk for pk in rest if pk not in found]
    if rest:
        found |= set(Entrant.objects.filter(user_id__in=rest, tournament__status__in=live)
                     .values_list("user_id", flat=True).distinct())
    return found


def has_own(user: Viewer) -> bool:
    """Whether the lobby lists anything of this person's (owners(), for one person)."""
    return user.is_authenticated and user.pk in owners(frozenset({user.pk}))


# Every signed-in watcher asks on the same change: one read answers them all.
OWN: Gathered[int] = Gathered(owners, delay=GATHER_SECONDS)


def with_csrf(shared: str, csrf_token: str) -> SafeString:
    return mark_safe(shared.replace(CSRF_SLOT, escape(csrf_token)))
