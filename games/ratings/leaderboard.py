"""The leaderboard's lines as shown: each game's top players by rating, established ratings first."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

from accounts.models import Viewer

from ..core.web import Link
from ..models import PlayerStats
from .rules import is_provisional


def whole(value: float) -> str:
    """Django's floatformat:0 (half up, from the number's shortest repr) without the filter's machinery."""
    return str(int(Decimal(repr(float(value))).quantize(Decimal(1), rounding=ROUND_HALF_UP)))


@dataclass
class LeaderRow:
    """One line of the leaderboard as shown."""

    rank: int
    name: str
    profile_url: str
    avatar_url: str
    rating: str
    deviation: str
    provisional: bool
    first_provisional: bool  # the line that opens the provisional group
    classes: str
    rated_matches: int
    won: int
    lost: int
    drawn: int
    win_rate: str
    bot: bool = False  # a program (the Bot API): rated like a person, listed with them, marked BOT


def leaderboard_rows(rows: list[PlayerStats], viewer: Viewer) -> list[LeaderRow]:
    """The leaderboard's lines from leaderboard()'s rows, for this viewer (their own line is marked)."""
    profile = Link("profile")
    lines = []
    previous = False
    for rank, row in enumerate(rows, start=1):
        provisional = is_provisional(row)
        me = viewer.is_authenticated and row.user_id == viewer.pk
        lines.append(LeaderRow(
            rank=rank, name=row.user.name, profile_url=profile(row.user.username), avatar_url=row.user.avatar_url,
            rating=whole(row.rating), deviation=whole(row.deviation), provisional=provisional,
            first_provisional=provisional and not previous,
            classes=("is-me " if me else "") + ("is-provisional" if provisional else ""),
            rated_matches=row.rated_matches, won=row.won, lost=row.lost, drawn=row.drawn,
            # widthratio's rounding: Python's round() of the exact ratio.
            win_rate=f"{round(row.won / row.decided * 100)} %" if row.decided else "—",
            bot=bool(row.user.program),
        ))
        previous = provisional
    return lines

