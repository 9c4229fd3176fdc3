"""The games the site offers, by slug: one kit per game (games/kits/, listed in games/kits/registry.py)."""

from __future__ import annotations

from typing import Any

from .engines import SLUGS
from .kits import ActionContext, Kit, OptionSpec
from .kits.registry import KITS

__all__ = ["GAMES", "ActionContext", "Kit", "OptionSpec", "clean_options", "kit"]

GAMES: dict[str, Kit] = {k.slug: k for k in KITS}

assert tuple(GAMES) == SLUGS, "register each engine's kit, in the engines' order"


def kit(slug: str) -> Kit:
    """A game's kit; KeyError for a game the site does not offer."""
    return GAMES[slug]


def clean_options(slug: str, raw: dict[str, Any]) -> dict[str, Any]:
    """The engine's default options overlaid with the offered options the request set; ValueError if bad."""
    game = GAMES[slug]
    known = {spec.name for spec in game.options}
    unknown = sorted(set(raw) - known)
    if unknown:
        raise ValueError(f"{game.name} has no option {unknown[0]!r}.")
    options = dict(game.engine.default_options)
    for spec in game.options:
        if spec.name in raw and raw[spec.name] not in (None, ""):
            options[spec.name] = spec.clean(raw[spec.name])
    return options
