"""What the analysis tests share: a Gomori position built from a deal, and a small budget.

Named analysis_helpers (not helpers): pytest puts each test folder on sys.path, and the test packages' helper
modules share one namespace.
"""

from __future__ import annotations

from typing import Any

from games.analysis import Budget
from games.engines.gomori import DECKS

SMALL = Budget(candidates=3, screen=2, samples=4)


def gomori_deal(black_top: list[str], red_top: list[str]) -> dict[str, list[str]]:
    """A Gomori deal whose decks start with these cards (hand first), the rest in deck order."""
    black = [*black_top, *(c for c in DECKS[0] if c not in black_top)]
    red = [*red_top, *(c for c in DECKS[1] if c not in red_top)]
    return {"black": black, "red": red}


def play(card: str, row: int, col: int) -> dict[str, Any]:
    return {"type": "play", "card": card, "at": [row, col]}


# Black lays 2♣ 3♣ 4♣ along the top row and 5♣ 6♣ 7♣ down the right column, red answers with face cards on
# empty cells (which do nothing there). Black then holds the 9♣ and the 8♣, either of which gathers both lines
# on [0, 3] (6 cards), and three spades whose ranks (8, 9, 10) are nowhere on the field: they neither gather
# nor stack. Any play but a club on [0, 3] ends the turn and leaves the lines to red's stacking.
LINE_DEAL = gomori_deal(["2C", "3C", "4C", "5C", "6C", "7C", "9C", "8S", "9S", "10S", "8C"],
                        ["KD", "QH", "JD", "KH", "JH", "QD"])
LINE_OPENING: list[tuple[int, dict[str, Any]]] = [
    (0, play("2C", 0, 0)), (1, play("KD", 3, 0)),
    (0, play("3C", 0, 1)), (1, play("QH", 2, 1)),
    (0, play("4C", 0, 2)), (1, play("JD", 1, 0)),
    (0, play("5C", 1, 3)), (1, play("KH", 3, 2)),
    (0, play("6C", 2, 3)), (1, play("JH", 1, 2)),
    (0, play("7C", 3, 3)), (1, play("QD", 2, 2)),
]
GATHERS = [play("9C", 0, 3), play("8C", 0, 3)]
ELSEWHERE = play("10S", 1, 1)
