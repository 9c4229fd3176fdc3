"""The Gomori bots' compact board (games/bots/gomori.py, play_on_board) plays as the engine's rule does.

The bots search on a board of (top card, stack height, face-up) per cell rather than the engine's stacks: it
is their fast path of games.engines.gomori.resolve_play (about 2.4 against 3.6 us a play, measured on 64,000
plays of seeded games), and it must give the same field, the same cards gathered and the same "stacked".
"""

from __future__ import annotations

import random

from games.bots.gomori import Board, board_from_view, play_on_board
from games.engines import get_engine
from games.engines.base import Cell
from games.engines.gomori import DECKS, FIELD_SIZE, RANK, Stacks, cells_for, king_targets, resolve_play

ENGINE = get_engine("gomori")


def _compact(stacks: Stacks, down: frozenset[Cell]) -> Board:
    return {cell: (stack[-1], len(stack), cell not in down) for cell, stack in stacks.items()}


def _same(board: Board, stacks: Stacks, down: frozenset[Cell], card: str, at: Cell, target: Cell | None) -> int:
    """Asserts that both resolve the play alike; the cards gathered."""
    outcome = resolve_play(stacks, down, card, at, target)
    new, gain, stacked = play_on_board(board, card, at, target)
    assert (new, gain, stacked) == (_compact(outcome.stacks, outcome.down), len(outcome.gathered), outcome.stacked)
    return gain


def test_every_legal_play_of_random_games_resolves_as_the_engine_does() -> None:
    gathers = plays = 0
    for seed in range(12):
        state = ENGINE.new_game(2, seed=seed)
        rng = random.Random(seed)
        while not ENGINE.is_over(state):
            seat = ENGINE.to_act(state)[0]
            board = board_from_view(ENGINE.view(state, seat))
            assert board == _compact(state.stacks, state.down)
            legal = ENGINE.legal_actions(state, seat)
            for action in legal:
                target = (action["king_target"][0], action["king_target"][1]) if "king_target" in action else None
                gain = _same(board, state.stacks, state.down, action["card"], (action["at"][0], action["at"][1]),
                             target)
                plays += 1
                gathers += gain > 0
            state = ENGINE.apply(state, seat, rng.choice(legal))
    assert plays > 10_000 and gathers > 20, (plays, gathers)


def test_every_play_on_random_fields_resolves_as_the_engine_does() -> None:
    """Fields drawn at random, their tops of few suits so that lines (and so gathers) are common; every card
    of both decks on every cell it may go to, a king with each of its targets."""
    rng = random.Random(7)
    cards = [*DECKS[0], *DECKS[1]]
    gathers = plays = 0
    for _ in range(150):
        suits = rng.sample("CDHS", 2)
        cells = rng.sample([(r, c) for r in range(FIELD_SIZE) for c in range(FIELD_SIZE)], rng.randint(1, 15))
        stacks: Stacks = {}
        for cell in cells:
            below = tuple(rng.choice(cards) for _ in range(rng.randint(0, 2)))
            stacks[cell] = (*below, rng.choice([c for c in cards if c[-1] in suits]))
        down = frozenset(cell for cell in cells if rng.random() < 0.2)
        board = _compact(stacks, down)
        for card in rng.sample(cards, 12):
            for at in cells_for(card, stacks, down):
                targets = king_targets(stacks, down, at) if RANK[card] == "K" and at in stacks else [None]
                for target in targets:
                    gathers += _same(board, stacks, down, card, at, target) > 0
                    plays += 1
    assert plays > 5_000 and gathers > 300, (plays, gathers)
