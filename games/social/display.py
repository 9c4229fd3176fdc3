"""Friends, what pages show: the lobby's Friends panel (drawn by the page, then by its socket as statuses change)."""

from __future__ import annotations

from django.template.loader import render_to_string
from django.utils.safestring import SafeString

from ..catalog import GAMES
from ..pool.pools import KEYED_CLOCKS
from .queries import Friend


def panel_html(lines: list[Friend], csrf_token: str, *, follows_anyone: bool) -> SafeString:
    """The panel, its root `#friends` (the socket's redraw replaces it by id)."""
    return SafeString(render_to_string("games/social/_friends.html", {
        "friends": lines, "follows_anyone": follows_anyone, "csrf_token": csrf_token,
        "games": [(slug, info.name) for slug, info in GAMES.items()],
        "clocks": [(key, label) for key, label, _ in KEYED_CLOCKS],
    }))
