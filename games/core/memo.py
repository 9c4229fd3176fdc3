"""A bounded memo for rendered HTML kept in a process: cards, board cells, shared boards, spectator pages."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

T = TypeVar("T")


class Memo(Generic[T]):
    """Values by key, made once; emptied whole when it holds `limit` of them. That is cruder than an LRU
    but costs nothing per hit, and what it holds is cheap to make again."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._values: dict[Hashable, T] = {}

    def get(self, key: Hashable, make: Callable[[], T]) -> T:
        value = self._values.get(key)
        if value is None:
            if len(self._values) >= self.limit:
                self._values.clear()
            value = self._values[key] = make()
        return value

    def __len__(self) -> int:
        return len(self._values)
