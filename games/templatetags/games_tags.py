"""What the games add to other apps' pages: a player's standing on their profile (accounts/profile.html), the
profile's email notifications (accounts/profile_edit.html), and the header's "your turn" (base.html), so that
the accounts app names no view or helper of the games."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django import template

from accounts.models import User

from ..catalog import GAMES
from ..challenges.queries import Challenges, notices_context, page_challenges
from ..notify.mail.views import mail_context
from ..notify.queries import waiting_for
from ..pool.pools import KEYED_CLOCKS
from ..site.profile import profile_stats
from ..tournaments.lists import tournaments_of

register = template.Library()


@register.inclusion_tag("games/_profile_stats.html", takes_context=True)
def player_standing(context: dict[str, Any], user: User) -> dict[str, Any]:
    """A line of figures per game the player played, and their rating chart; `is_own` from the profile page (the
    provisional note says "your level" to its owner)."""
    return {**profile_stats(user), "is_own": bool(context.get("is_own"))}


@register.inclusion_tag("mail/_settings.html")
def mail_settings(user: User) -> dict[str, Any]:
    """The profile's "Email notifications": the address and whether it is verified, and the kinds chosen."""
    return mail_context(user)


@register.inclusion_tag("games/tournaments/_profile.html", takes_context=True)
def player_tournaments(context: dict[str, Any], user: User) -> dict[str, Any]:
    """The tournaments the player played in, with their places (a private one on their own profile only)."""
    return {"entries": tournaments_of(user, context["user"]), "person": user}


@register.inclusion_tag("games/_notify.html", takes_context=True)
def notify_socket(context: dict[str, Any]) -> dict[str, Any]:
    """The signed-in person's notification socket, with the matches waiting on them (it redraws them as they change
    hands); on a match's own page, the others only (the table says its own turn)."""
    request = context.get("request")
    match = getattr(request, "resolver_match", None)
    here = match.kwargs.get("match_id") if match is not None and match.url_name == "match" else None
    # The lobby read them already for its own list of challenges (one query for both).
    read = context.get("challenge_read")
    if not isinstance(read, Challenges):
        read = page_challenges(context["user"])
    return {"waiting": waiting_for(context["user"], besides=here), "here": here, **notices_context(read),
            "query": socket_query(context)}


@register.inclusion_tag("games/challenges/_challenge_form.html", takes_context=True)
def challenge_form(context: dict[str, Any], other: User) -> dict[str, Any]:
    """"Challenge" on a person's profile: a game and a clock (games.challenges); nothing on one's own or a
    bot's, a sentence when they refuse challenges."""
    viewer = context.get("user")
    shown = viewer is not None and viewer.is_authenticated and viewer.pk != other.pk and not other.is_bot
    return {"shown": shown, "other": other, "games": [(slug, info.name) for slug, info in GAMES.items()],
            "clocks": [(key, label) for key, label, _ in KEYED_CLOCKS], "csrf_token": context.get("csrf_token")}



def socket_query(context: dict[str, Any]) -> str:
    """The notification socket's query string: the match whose table this is (?here=), or whose analysis this
    replay shows (?analysis=, with the page's invite code for a private match; a finished match's only)."""
    request = context.get("request")
    match = getattr(request, "resolver_match", None)
    if match is None or match.url_name not in ("match", "replay"):
        return ""
    if match.url_name == "replay" and context.get("analysis") is None:
        return ""  # a match still being played: no analysis to follow
    key = "here" if match.url_name == "match" else "analysis"
    params = {key: str(match.kwargs.get("match_id", ""))}
    code = request.GET.get("code", "")[:64] if key == "analysis" and request is not None else ""
    if code:
        params["code"] = code
    return "?" + urlencode(params)
