"""Template helpers for the account pages."""

from __future__ import annotations

from datetime import timedelta

from django import template

register = template.Library()


@register.filter
def friendly_duration(value: timedelta | None) -> str:
    """A wait as people say it: "15 minutes", "1 hour", "1 hour and 30 minutes" (at least "1 minute")."""
    if not isinstance(value, timedelta):
        return ""
    minutes = max(1, round(value.total_seconds() / 60))
    hours, minutes = divmod(minutes, 60)
    parts = []
    if hours:
        parts.append(f"{hours} hour{'s' if hours != 1 else ''}")
    if minutes:
        parts.append(f"{minutes} minute{'s' if minutes != 1 else ''}")
    return " and ".join(parts)
