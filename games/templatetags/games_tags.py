"""What the games add to other apps' pages: a player's standing on their profile (accounts/profile.html), so that
the accounts app names no view or helper of the games."""

from __future__ import annotations

from typing import Any

from django import template

from accounts.models import User

from ..ratings.profile import profile_stats

register = template.Library()


@register.inclusion_tag("games/_profile_stats.html")
def player_standing(user: User) -> dict[str, Any]:
    """A line of figures per game the player played, and their rating chart."""
    return profile_stats(user)
