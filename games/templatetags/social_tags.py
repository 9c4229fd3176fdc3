"""Friends on pages (games.social): the profile's follow and block buttons, and the lobby's Friends panel."""

from __future__ import annotations

import time
from typing import Any

from django import template
from django.utils.safestring import SafeString

from accounts.models import User

from ..social import queries
from ..social.display import panel_html

register = template.Library()


@register.inclusion_tag("games/social/_profile.html", takes_context=True)
def social_buttons(context: dict[str, Any], person: User) -> dict[str, Any]:
    """Follow or Unfollow, Block or Unblock on someone's profile (nothing on one's own or a site's bot), and the
    counts of whom they follow and who follows them, linked to their page."""
    viewer = context.get("user")
    acts = bool(viewer is not None and viewer.is_authenticated and viewer.pk != person.pk and not person.is_bot)
    line = queries.profile_line(person.pk, viewer.pk if acts and viewer is not None else None)
    return {
        "person": person, "acts": acts, "csrf_token": context.get("csrf_token"),
        "following": line.following, "blocking": line.blocking,
        "follows_count": line.follows_count, "followers_count": line.followers_count,
    }


@register.simple_tag(takes_context=True)
def friends_panel(context: dict[str, Any]) -> SafeString:
    """The lobby's Friends panel for a signed-in person (nothing for a visitor)."""
    viewer = context.get("user")
    if viewer is None or not viewer.is_authenticated:
        return SafeString("")
    people = queries.friends(viewer.pk)
    lines = queries.shown_friends(people, queries.statuses(people), time.time()) if people else []
    return panel_html(lines, str(context.get("csrf_token") or ""), follows_anyone=bool(people))
