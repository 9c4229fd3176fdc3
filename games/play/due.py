"""A match's due times as a person reads them: "due Sat 28 Nov, 14:05" in the reader's own time zone, "2 days
3 h left" (the clock's own name, "3 days a move", is games.play.clock.clock_label). Pure (no database); the table
(games.play.display) and My games (games.mine) word them here, in one place.

A correspondence match's clock is {"kind": "days", "days": d, "seconds": d * 86400}: a limit per move counted
in days, kept by the server like the limit per turn. Its due time is a date, not a countdown: pages never tick it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

DAY = 86400
# Our own names, not the process locale's (strftime's %a and %b follow it); static/js/site.js has the same.
DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


@lru_cache(maxsize=64)
def zone_of(name: str) -> ZoneInfo | None:
    """The time zone of this name, None when blank or unknown (a zone removed from the database since it was
    chosen: the page then falls back to the browser's)."""
    if not name:
        return None
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return None


def date_text(when: datetime, zone: ZoneInfo | None) -> str:
    """"Sat 28 Nov, 14:05" in this zone (UTC when None). Day before month and a 24-hour clock: read the same
    everywhere, and what static/js/site.js writes in the browser's zone (localTimes)."""
    local = when.astimezone(zone or UTC)
    return f"{DAYS[local.weekday()]} {local.day} {MONTHS[local.month - 1]}, {local:%H:%M}"


@dataclass(frozen=True)
class DueTime:
    """A due time as a page shows it: a <time datetime="iso"> with the text in the reader's chosen zone, or, with
    none chosen, in UTC for the browser's script to rewrite in the browser's own zone (`local`)."""

    iso: str  # UTC, e.g. "2025-11-28T14:05:00Z"
    text: str
    local: bool  # the browser rewrites it (no zone chosen)


def due_time(when: datetime, zone_name: str = "") -> DueTime:
    zone = zone_of(zone_name)
    iso = when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    text = date_text(when, zone)
    return DueTime(iso=iso, text=text if zone is not None else f"{text} UTC", local=zone is None)


def left_text(seconds: float) -> str:
    """Time left in words, coarse enough to stay true between two visits: "2 days 3 h left", "5 h 10 min left",
    "12 min left", "under a minute left"; "out of time" at zero."""
    if seconds <= 0:
        return "out of time"
    if seconds < 60:
        return "under a minute left"
    minutes = math.floor(seconds / 60)
    days, minutes = divmod(minutes, 24 * 60)
    hours, minutes = divmod(minutes, 60)
    if days:
        return f"{days} day{'' if days == 1 else 's'}{f' {hours} h' if hours else ''} left"
    if hours:
        return f"{hours} h{f' {minutes} min' if minutes else ''} left"
    return f"{minutes} min left"


def seconds_text(seconds: float) -> str:
    """A real-time clock's time left: "4:05 left" (whole seconds, rounded up as the table's clock reads)."""
    whole = math.ceil(max(0.0, seconds))
    return f"{whole // 60}:{whole % 60:02d} left"
