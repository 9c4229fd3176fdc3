"""Presenters: turn one seat's engine view (plus the socket's UI selection) into display-ready context.

Each module has `present(view, seat, ui, names, timing, *, own) -> dict` and `clean_ui(view, seat, raw) -> dict`.
Nothing here decides a rule: what may be played comes from view["legal"].

`own` says whether the view is its viewer's own seat: the table's words then call that seat "you". A replay seen
from another's seat (`own=False`) shows that seat's cards, and its words name every player, that seat's too.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar, overload

from ..engines.base import RED_SUITS, SUIT_SYMBOLS, card_name, rank_of, suit_of

T = TypeVar("T")

_RANK_WORDS = {"A": "ace", "J": "jack", "Q": "queen", "K": "king"}
_SUIT_WORDS = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}


def spoken_name(code: str) -> str:
    """The card as a screen reader should say it: "7H" -> "7 of hearts", "QS" -> "queen of spades"."""
    if code in ("XR", "XB"):
        return card_name(code)
    rank = rank_of(code)
    return f"{_RANK_WORDS.get(rank, rank)} of {_SUIT_WORDS[suit_of(code)]}"


@overload
def card(code: str) -> dict[str, Any]: ...
@overload
def card(code: None) -> None: ...
@overload
def card(code: str | None) -> dict[str, Any] | None: ...
def card(code: str | None) -> dict[str, Any] | None:
    """A card ready for the card template: rank, suit symbol, colour class, accessible name."""
    if code is None:
        return None
    if code in ("XR", "XB"):
        return {"code": code, "rank": "★", "suit": "", "red": code == "XR", "name": card_name(code), "joker": True,
                "spoken": card_name(code)}
    suit = suit_of(code)
    return {
        "code": code,
        "rank": rank_of(code),
        "suit": SUIT_SYMBOLS[suit],
        "red": suit in RED_SUITS,
        "name": card_name(code),
        "spoken": spoken_name(code),
        "joker": False,
    }


@dataclass(frozen=True)
class Timing:
    """What the server's clock says of a match at this update (None when it does not run): seconds since the
    deal, and since the turn last changed. A presenter turns them into what a countdown shows."""

    elapsed: int | None = None
    turn_age: float | None = None


NO_TIMING = Timing()  # a table drawn without a running clock (the rules' examples, tests)


class Deferred(Sequence[T]):
    """A list made when it is first read. A presenter gives a part that only one fragment draws this way (Gomori's
    board: the same for every viewer, so drawn once an update), and the sockets that do not draw it never make
    it; a template reads it as any list."""

    def __init__(self, make: Callable[[], list[T]]) -> None:
        self._make: Callable[[], list[T]] | None = make
        self._items: list[T] = []

    def _list(self) -> list[T]:
        if self._make is not None:
            self._items, self._make = self._make(), None
        return self._items

    @overload
    def __getitem__(self, index: int) -> T: ...
    @overload
    def __getitem__(self, index: slice) -> list[T]: ...
    def __getitem__(self, index: int | slice) -> T | list[T]:
        return self._list()[index]

    def __len__(self) -> int:
        return len(self._list())

    def __iter__(self) -> Iterator[T]:
        return iter(self._list())


def send(action: dict[str, Any], version: int | None = None) -> str:
    """The hx-vals of a control that sends this action over the socket."""
    payload: dict[str, Any] = {"action": action}
    if version is not None:
        payload["version"] = version
    return json.dumps(payload, separators=(",", ":"))


def send_ui(ui: dict[str, Any]) -> str:
    """The hx-vals of a control that changes this socket's selection only."""
    return json.dumps({"ui": ui}, separators=(",", ":"))


# A board cell as the engines write it in their sentences ("[1, 0]", "[2,1]").
CELL = re.compile(r"\[(-?\d+), ?(-?\d+)\]")


def cell_words(text: str, origin: tuple[int, int]) -> str:
    """An engine sentence with its cells as the table labels them: "row 2, column 1" of the grid whose top left
    cell is `origin` (the window the board is drawn in now, where the person finds that place)."""
    return CELL.sub(lambda m: f"row {int(m.group(1)) - origin[0] + 1}, column {int(m.group(2)) - origin[1] + 1}",
                    text)
