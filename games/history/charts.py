"""The profile's rating chart as numbers an SVG template draws: one polyline per game, gridlines, date labels."""

from __future__ import annotations

import datetime as dt
from typing import Any

from ..catalog import GAMES

CHART_WIDTH = 640
CHART_HEIGHT = 220
CHART_PAD_LEFT = 48
CHART_PAD_RIGHT = 12
CHART_PAD_TOP = 12
CHART_PAD_BOTTOM = 28
CHART_MAX_POINTS = 300


def _thin(points: list[tuple[dt.datetime, float]], limit: int) -> list[tuple[dt.datetime, float]]:
    """At most `limit` points, evenly picked, always keeping the first and the latest."""
    if len(points) <= limit:
        return points
    step = (len(points) - 1) / (limit - 1)
    return [points[round(i * step)] for i in range(limit)]


def rating_chart(series: dict[str, list[tuple[dt.datetime, float]]]) -> dict[str, Any] | None:
    """The rating chart as SVG-ready numbers: one polyline per game, the y gridlines and the date labels."""
    series = {game: points for game, points in series.items() if points}
    if not series:
        return None
    times = [t for points in series.values() for t, _ in points]
    values = [v for points in series.values() for _, v in points]
    t0, t1 = min(times), max(times)
    low = (min(values) // 100) * 100
    high = (max(values) // 100 + 1) * 100
    span = max(1.0, (t1 - t0).total_seconds())
    inner_w = CHART_WIDTH - CHART_PAD_LEFT - CHART_PAD_RIGHT
    inner_h = CHART_HEIGHT - CHART_PAD_TOP - CHART_PAD_BOTTOM

    def x(t: dt.datetime) -> float:
        if t1 == t0:
            return CHART_PAD_LEFT + inner_w / 2
        return CHART_PAD_LEFT + inner_w * (t - t0).total_seconds() / span

    def y(v: float) -> float:
        return CHART_PAD_TOP + inner_h * (1 - (v - low) / (high - low))

    lines = []
    for game, points in series.items():
        points = _thin(points, CHART_MAX_POINTS)
        coords = " ".join(f"{x(t):.1f},{y(v):.1f}" for t, v in points)
        last_t, last_v = points[-1]
        lines.append({"game": game, "name": GAMES[game].name, "points": coords, "last_x": f"{x(last_t):.1f}",
                      "last_y": f"{y(last_v):.1f}", "last": round(last_v)})
    step = 100 if high - low <= 600 else 200 if high - low <= 1200 else 500
    ticks = [{"value": v, "y": f"{y(v):.1f}"} for v in range(int(low), int(high) + 1, step)]
    return {
        "width": CHART_WIDTH,
        "height": CHART_HEIGHT,
        "left": CHART_PAD_LEFT,
        "right": CHART_WIDTH - CHART_PAD_RIGHT,
        "bottom": CHART_HEIGHT - CHART_PAD_BOTTOM,
        "label_y": CHART_HEIGHT - 8,
        "label_x": CHART_PAD_LEFT - 6,  # the gridlines' values, right-aligned just left of the axis
        "lines": lines,
        "ticks": ticks,
        "start": t0,
        "end": t1,
    }
