"""A small "Computer Gomori" protocol bot for the judge tests: standard library only, its own rules code.

    python gomori_protocol_bot.py [--mode legal|illegal|early|crash|slow|garbage] [--after N]

legal: a greedy-ish legal turn (gather most, else stack to play again, else any empty cell).
The other modes misbehave from the N-th PlayTurn request of the process on (default 1): illegal plays a card it
does not hold, early stops a chain that must go on, crash exits, slow sleeps past any timeout, garbage writes
a line that is not JSON. Until then it plays legally.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

Cell = tuple[int, int]
Board = dict[Cell, tuple[str | None, int]]  # cell -> (top card code or None when face-down, stack height)

SUITS = {"♣": "C", "♦": "D", "♥": "H", "♠": "S"}
SYMBOLS = {letter: symbol for symbol, letter in SUITS.items()}


def code(card: dict[str, str]) -> str:
    return card["rank"] + SUITS[card["suit"]]


def card_of(code_: str) -> dict[str, str]:
    return {"suit": SYMBOLS[code_[-1]], "rank": code_[:-1]}


def lines_through(cell: Cell) -> list[list[Cell]]:
    r, c = cell
    out = []
    for d in ((0, 1), (1, 0), (1, 1), (1, -1)):
        for s in range(4):
            out.append([(r + (k - s) * d[0], c + (k - s) * d[1]) for k in range(4)])
    return out


def fits(card: str, top: str | None) -> bool:
    if top is None:
        return True
    rank, suit = card[:-1], card[-1]
    return rank == top[:-1] or rank == "A" or (rank in ("J", "Q", "K") and suit == top[-1])


def in_bounds(board: Board, cell: Cell) -> bool:
    rows = [r for r, _ in board] + [cell[0]]
    cols = [c for _, c in board] + [cell[1]]
    return max(rows) - min(rows) < 4 and max(cols) - min(cols) < 4


def places(board: Board, card: str) -> list[Cell]:
    """Every cell where card may go."""
    if not board:
        return [(0, 0)]
    rows = [r for r, _ in board]
    cols = [c for _, c in board]
    out = []
    for r in range(max(rows) - 3, min(rows) + 4):
        for c in range(max(cols) - 3, min(cols) + 4):
            if (r, c) in board:
                if fits(card, board[(r, c)][0]):
                    out.append((r, c))
            elif in_bounds(board, (r, c)):
                out.append((r, c))
    return out


def play(board: Board, card: str, cell: Cell) -> tuple[Board, int, bool]:
    """Play card at cell (a king stacked turns itself face-down): the new board, cards gathered, stacked."""
    new = dict(board)
    stacked = cell in board
    new[cell] = (card, board[cell][1] + 1 if stacked else 1)
    if stacked:
        r, c = cell
        rank = card[:-1]
        near = {"J": ((-1, 0), (1, 0), (0, -1), (0, 1)), "Q": ((-1, -1), (-1, 1), (1, -1), (1, 1))}.get(rank, ())
        for dr, dc in near:
            other = (r + dr, c + dc)
            if other in new:
                new[other] = (None, new[other][1])
        if rank == "K":
            new[cell] = (None, new[cell][1])
    gain = 0
    if new[cell][0] is not None:
        won: set[Cell] = set()
        for line in lines_through(cell):
            if all(x in new and new[x][0] is not None and new[x][0][-1] == card[-1] for x in line):
                won.update(line)
        won.discard(cell)
        for x in won:
            gain += new.pop(x)[1]
    return new, gain, stacked


def plan_turn(hand: list[str], board: Board) -> list[dict[str, Any]]:
    """Greedy: each play gathers most, else stacks (to play again), else goes anywhere; chains as the rules say."""
    plays = []
    hand = list(hand)
    while hand:
        options = [(card, cell) for card in hand for cell in places(board, card)]
        if not options:
            break
        best = max(options, key=lambda o: (play(board, o[0], o[1])[1], o[1] in board))
        card, cell = best
        board, _, stacked = play(board, card, cell)
        hand.remove(card)
        item: dict[str, Any] = {"card": card_of(card), "i": cell[0], "j": cell[1]}
        if stacked and card.startswith("K"):
            item["target_field_for_king_ability"] = [cell[0], cell[1]]
        plays.append(item)
        if not stacked:
            break
    return plays


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", default="legal", choices=["legal", "illegal", "early", "crash", "slow", "garbage"])
    parser.add_argument("--after", type=int, default=1)
    args = parser.parse_args()
    turns = 0
    for line in sys.stdin:
        request = json.loads(line)
        kind = request["type"]
        if kind == "Bye":
            return
        if kind == "NewGame":
            answer: Any = []
        elif kind == "PlayFirstTurn":
            answer = request["cards"][0]
        else:
            turns += 1
            hand = [code(c) for c in request["cards"]]
            board: Board = {
                (f["i"], f["j"]): (code(f["top_card"]) if f["top_card"] else None,
                                   len(f["hidden_cards"]) + (1 if f["top_card"] else 0))
                for f in request["fields"]
            }
            answer = plan_turn(hand, board)
            misbehave = turns >= args.after
            if misbehave and args.mode == "illegal":
                mine = hand[0][-1]
                other = next(r + mine for r in ("2", "3", "4", "5", "6", "7") if r + mine not in hand)
                answer = [{"card": card_of(other), "i": answer[0]["i"], "j": answer[0]["j"]}]
            elif misbehave and args.mode == "early" and len(answer) > 1:
                answer = answer[:1]  # every play but the last of a turn was stacked: the chain must go on
            elif misbehave and args.mode == "crash":
                sys.exit(3)
            elif misbehave and args.mode == "slow":
                time.sleep(30)
            elif misbehave and args.mode == "garbage":
                sys.stdout.write("this is not json\n")
                sys.stdout.flush()
                continue
        sys.stdout.write(json.dumps(answer, separators=(",", ":"), ensure_ascii=False) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
