"""Shared pieces of every rules engine: the error type, card notation helpers, the engine protocol.

Standard library only: the engines must run (and be tested) without Django.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Protocol, TypeGuard, TypeVar

RANKS: tuple[str, ...] = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS: tuple[str, ...] = ("C", "D", "H", "S")
SUIT_SYMBOLS: dict[str, str] = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
SUIT_NAMES: dict[str, str] = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}
RED_SUITS: frozenset[str] = frozenset({"D", "H"})
JOKERS: tuple[str, ...] = ("XR", "XB")

Action = dict[str, Any]
View = dict[str, Any]
Cell = tuple[int, int]


class IllegalAction(ValueError):
    """An action the rules do not allow here; the message is a sentence a player can read."""


# What an engine's code raises on an action of a shape it never expected (a list where a number goes, a key
# missing) before its own checks could name the fault: the action is refused, as the rules would.
MALFORMED: tuple[type[Exception], ...] = (KeyError, TypeError, ValueError, IndexError, AttributeError)


@contextmanager
def refusing_malformed(message: str) -> Iterator[None]:
    """Within it, an engine's complaint about an action of the wrong shape is one IllegalAction saying `message`
    (the engine's own IllegalAction goes through as it is), so that its callers catch IllegalAction only."""
    try:
        yield
    except IllegalAction:
        raise
    except MALFORMED as error:
        raise IllegalAction(message) from error


def is_int(value: object) -> TypeGuard[int]:
    """A JSON integer (not a bool, which Python counts as one)."""
    return isinstance(value, int) and not isinstance(value, bool)


def json_copy(value: Any) -> Any:
    """A deep copy of a JSON value (dicts, lists, and scalars shared as they are): a view handed out must not share
    a list with the state, and copy.deepcopy costs several times more for these small values."""
    if isinstance(value, dict):
        return {key: json_copy(item) for key, item in value.items()}
    if isinstance(value, list):
        return [json_copy(item) for item in value]
    return value


def rank_of(card: str) -> str:
    """The rank part of a card code: "10H" -> "10"."""
    return card[:-1]


def suit_of(card: str) -> str:
    """The suit letter of a card code: "10H" -> "H" (jokers: "R" or "B")."""
    return card[-1]


def is_card_code(value: object) -> bool:
    """Whether value is a standard (non-joker) card code."""
    return isinstance(value, str) and len(value) in (2, 3) and value[:-1] in RANKS and value[-1] in SUITS


def card_name(card: str) -> str:
    """The card as people write it: "10H" -> "10♥", "XR" -> "red joker"."""
    if card == "XR":
        return "red joker"
    if card == "XB":
        return "black joker"
    return rank_of(card) + SUIT_SYMBOLS[suit_of(card)]


def standard_deck() -> list[str]:
    """The 52 card codes in a fixed order (suit by suit, ace to king)."""
    return [rank + suit for suit in SUITS for rank in RANKS]


def check_fields(action: object, required: dict[str, type | tuple[type, ...]],
                 optional: dict[str, type | tuple[type, ...]] | None = None) -> dict[str, Any]:
    """Validate an action's shape: a dict with exactly these fields of these types.

    `bool` is refused where `int` is asked for, since JSON true is not a number here.
    """
    if not isinstance(action, dict):
        raise IllegalAction("An action must be an object with a type.")
    optional = optional or {}
    for key in action:
        if key != "type" and key not in required and key not in optional:
            raise IllegalAction(f"Unexpected field '{key}' in a {action.get('type')!s} action.")
    for key, kind in {**required, **optional}.items():
        if key not in action:
            if key in required:
                raise IllegalAction(f"A {action.get('type')!s} action needs the field '{key}'.")
            continue
        value = action[key]
        if isinstance(value, bool) and kind is not bool and not (isinstance(kind, tuple) and bool in kind):
            raise IllegalAction(f"The field '{key}' has the wrong type.")
        if not isinstance(value, kind):
            raise IllegalAction(f"The field '{key}' has the wrong type.")
    return action


def parse_cell(value: object, field: str = "at") -> Cell:
    """A board cell from JSON: a list of two integers."""
    if (
        not isinstance(value, (list, tuple))
        or len(value) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    ):
        raise IllegalAction(f"The field '{field}' must be a cell: [row, col].")
    return (value[0], value[1])


State = TypeVar("State")


class Engine(Protocol[State]):
    """The contract every game module's ENGINE keeps (see shared/design/ENGINES.md), generic in its state: an
    engine's own state class (GomoriEngine is an Engine[gomori.State]); code that serves every game holds an
    Engine[Any] (games.engines.get_engine)."""

    slug: str
    name: str
    min_players: int
    max_players: int
    default_options: dict[str, Any]

    def new_game(self, players: int, *, seed: int, options: dict[str, Any] | None = None,
                 deal: dict[str, Any] | None = None) -> State: ...
    def to_act(self, state: State) -> list[int]: ...
    def must_act(self, state: State) -> list[int]: ...
    def legal_actions(self, state: State, seat: int) -> list[Action]: ...
    def apply(self, state: State, seat: int, action: Action) -> State: ...
    def view(self, state: State, seat: int | None) -> View: ...
    def scores(self, state: State) -> list[int]: ...
    def is_over(self, state: State) -> bool: ...
    def result(self, state: State) -> dict[str, Any]: ...
    def dump(self, state: State) -> dict[str, Any]: ...
    def load(self, data: dict[str, Any]) -> State: ...


# A bot sees only a seat's view and legal actions, plus its own random generator.
# It returns the chosen action and a one-line reason a person can read; the action may be
# None only when the seat is not obliged to act (a Columbo seat that may slap but need not).
Bot = Callable[[View, list[Action], random.Random], tuple[Action | None, str]]
