"""The games' part of a person's profile (accounts/profile.html, through games.templatetags): their standing in
each game (games.ratings.standing) with the rating chart drawn from it (games.history.charts)."""

from __future__ import annotations

from typing import Any

from accounts.models import User

from ..history.charts import rating_chart
from ..ratings.standing import rating_series, stats_lines


def profile_stats(user: User) -> dict[str, Any]:
    """The profile's games section: a line of figures per game played (with its rank and best win), and the rating
    chart (five queries)."""
    return {"stats_lines": stats_lines(user), "rating_chart": rating_chart(rating_series(user)), "stats_user": user}
