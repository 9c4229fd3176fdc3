"""Every game's kit, in the engines' order (games.engines.SLUGS): the one list a new game joins. games/catalog.py
serves them to the site by slug."""

from __future__ import annotations

from . import Kit, columbo, gomori, ruhd, rummy

KITS: tuple[Kit, ...] = (gomori.KIT, columbo.KIT, ruhd.KIT, rummy.KIT)

__all__ = ["KITS"]
