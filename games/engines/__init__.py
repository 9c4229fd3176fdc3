"""The four rules engines, by slug. Modules are imported on first use."""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from typing import Any

from .base import Engine, IllegalAction

__all__ = ["ENGINES", "SLUGS", "IllegalAction", "get_engine"]

SLUGS: tuple[str, ...] = ("gomori", "columbo", "ruhd", "rummy")


def get_engine(slug: str) -> Engine[Any]:
    """The ENGINE object of a game; KeyError for an unknown slug."""
    if slug not in SLUGS:
        raise KeyError(slug)
    engine: Engine[Any] = importlib.import_module(f"{__name__}.{slug}").ENGINE
    return engine


class _Engines(Mapping[str, Engine[Any]]):
    """slug -> engine, importing each engine module only when it is first asked for."""

    def __getitem__(self, slug: str) -> Engine[Any]:
        return get_engine(slug)

    def __iter__(self) -> Iterator[str]:
        return iter(SLUGS)

    def __len__(self) -> int:
        return len(SLUGS)


ENGINES: Mapping[str, Engine[Any]] = _Engines()
