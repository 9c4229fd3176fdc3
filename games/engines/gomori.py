"""Gomori: the rules engine (see shared/rules/gomori.md).

Two players, each with a 26-card deck of one colour, stack cards on a loose 4x4 field and gather lines
of four face-up cards of one suit. Standard library only; the state is never mutated by `apply`.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from .base import (
    RANKS,
    Action,
    Cell,
    Engine,
    IllegalAction,
    View,
    card_name,
    check_fields,
    is_card_code,
    json_copy,
    parse_cell,
)

HAND_SIZE = 5
FIELD_SIZE = 4
COLORS: tuple[str, str] = ("black", "red")
DECK_SUITS: tuple[tuple[str, str], tuple[str, str]] = (("C", "S"), ("D", "H"))
DECKS: tuple[tuple[str, ...], tuple[str, ...]] = tuple(  # type: ignore[assignment]
    tuple(rank + suit for suit in suits for rank in RANKS) for suits in DECK_SUITS
)
FACE_RANKS = frozenset({"J", "Q", "K"})
ORTHOGONAL: tuple[Cell, ...] = ((-1, 0), (1, 0), (0, -1), (0, 1))
DIAGONAL: tuple[Cell, ...] = ((-1, -1), (-1, 1), (1, -1), (1, 1))
LINE_DIRECTIONS: tuple[Cell, ...] = ((0, 1), (1, 0), (1, 1), (1, -1))

# Rank and suit of every code, looked up instead of sliced in the hot paths.
RANK: dict[str, str] = {rank + suit: rank for suit in "CDHS" for rank in RANKS}
SUIT: dict[str, str] = {rank + suit: suit for suit in "CDHS" for rank in RANKS}

# Every line of four cells through (0, 0), as offsets: 4 directions x 4 positions of the cell in the line.
LINE_OFFSETS: tuple[tuple[Cell, ...], ...] = tuple(
    tuple(((i - k) * dr, (i - k) * dc) for i in range(FIELD_SIZE))
    for dr, dc in LINE_DIRECTIONS
    for k in range(FIELD_SIZE)
)

Stacks = dict[Cell, tuple[str, ...]]


@lru_cache(maxsize=4096)
def lines_through(cell: Cell) -> tuple[tuple[Cell, ...], ...]:
    """The 16 lines of 4 cells through cell: 4 directions x the 4 places of the cell in the line."""
    r, c = cell
    return tuple(tuple((r + dr, c + dc) for dr, dc in offsets) for offsets in LINE_OFFSETS)


# ---------------------------------------------------------------------------------------------------------
# The field: pure functions on (stacks, face-down cells), shared with the bots and the protocol adapter.
# ---------------------------------------------------------------------------------------------------------

def bounds(stacks: Mapping[Cell, object]) -> tuple[int, int, int, int]:
    """The bounding box of the occupied cells: (row min, row max, col min, col max). Only the cells are read:
    the bots' compact boards (a top card and a height per cell) take it too."""
    rows = [cell[0] for cell in stacks]
    cols = [cell[1] for cell in stacks]
    return min(rows), max(rows), min(cols), max(cols)


def playable_area(stacks: Mapping[Cell, object]) -> tuple[int, int, int, int]:
    """Rows and columns a card may go to (row min, row max, col min, col max): the box stays within 4x4."""
    if not stacks:
        return 0, 0, 0, 0
    rmin, rmax, cmin, cmax = bounds(stacks)
    return rmax - FIELD_SIZE + 1, rmin + FIELD_SIZE - 1, cmax - FIELD_SIZE + 1, cmin + FIELD_SIZE - 1


def fits_on(card: str, top: str) -> bool:
    """Whether card may be played onto the face-up top card: same rank; face cards also same suit; aces always."""
    rank = RANK[card]
    if rank == RANK[top] or rank == "A":
        return True
    return rank in FACE_RANKS and SUIT[card] == SUIT[top]


def can_stack(card: str, stacks: Stacks, down: frozenset[Cell] | set[Cell], cell: Cell) -> bool:
    """Whether card may be played onto the occupied cell (face-down tops take any card)."""
    return cell in down or fits_on(card, stacks[cell][-1])


def has_play(card: str, stacks: Stacks, down: frozenset[Cell] | set[Cell]) -> bool:
    """Whether card has any legal cell. Below 16 occupied cells some empty cell is always within the 4x4 box."""
    if len(stacks) < FIELD_SIZE * FIELD_SIZE:
        return True
    return any(cell in down or fits_on(card, stack[-1]) for cell, stack in stacks.items())


def cells_for(card: str, stacks: Stacks, down: frozenset[Cell] | set[Cell]) -> list[Cell]:
    """Every cell where card may be played, row by row (only [0, 0] on an empty field)."""
    if not stacks:
        return [(0, 0)]
    r0, r1, c0, c1 = playable_area(stacks)
    out: list[Cell] = []
    for r in range(r0, r1 + 1):
        for c in range(c0, c1 + 1):
            cell = (r, c)
            stack = stacks.get(cell)
            if stack is None or cell in down or fits_on(card, stack[-1]):
                out.append(cell)
    return out


def king_targets(stacks: Stacks, down: frozenset[Cell] | set[Cell], at: Cell) -> list[Cell]:
    """Cells a king stacked at `at` may turn face-down: its own cell and every face-up top, row by row."""
    return sorted(cell for cell in stacks if cell == at or cell not in down)


@dataclass(frozen=True, slots=True)
class PlayOutcome:
    """What one play does to the field: the new field, the cards turned face-down and the lines gathered."""

    stacks: Stacks
    down: frozenset[Cell]
    stacked: bool
    onto: str | None
    onto_face_up: bool
    flipped: tuple[tuple[Cell, str], ...]
    lines: tuple[tuple[Cell, ...], ...]
    gathered_cells: tuple[Cell, ...]
    gathered: tuple[str, ...]


def resolve_play(stacks: Stacks, down: frozenset[Cell], card: str, at: Cell,
                 king_target: Cell | None) -> PlayOutcome:
    """Play card at `at` (already known legal): face-card effect first, then gathering. Inputs are untouched."""
    below = stacks.get(at)
    stacked = below is not None
    new_stacks = dict(stacks)
    new_stacks[at] = (*below, card) if below is not None else (card,)
    new_down = set(down)
    onto_face_up = stacked and at not in down
    new_down.discard(at)
    flipped: list[tuple[Cell, str]] = []
    if stacked:
        rank = RANK[card]
        if rank == "J" or rank == "Q":
            r, c = at
            for dr, dc in ORTHOGONAL if rank == "J" else DIAGONAL:
                cell = (r + dr, c + dc)
                if cell in new_stacks and cell not in new_down:
                    new_down.add(cell)
                    flipped.append((cell, new_stacks[cell][-1]))
        elif rank == "K" and king_target is not None:
            new_down.add(king_target)
            flipped.append((king_target, new_stacks[king_target][-1]))
    lines: list[tuple[Cell, ...]] = []
    suit = SUIT[card]
    # a line needs 3 more face-up tops of the played suit: most plays are decided by this count alone
    if at not in new_down and sum(
        1 for cell, stack in new_stacks.items() if SUIT[stack[-1]] == suit and cell not in new_down
    ) >= FIELD_SIZE:
        for line in lines_through(at):
            for cell in line:
                stack = new_stacks.get(cell)
                if stack is None or cell in new_down or SUIT[stack[-1]] != suit:
                    break
            else:
                lines.append(line)
    gathered_cells: list[Cell] = []
    gathered: list[str] = []
    if lines:
        gathered_cells = sorted({cell for line in lines for cell in line if cell != at})
        for cell in gathered_cells:
            gathered.extend(new_stacks.pop(cell))
            new_down.discard(cell)
    return PlayOutcome(
        stacks=new_stacks,
        down=frozenset(new_down),
        stacked=stacked,
        onto=below[-1] if below is not None else None,
        onto_face_up=onto_face_up,
        flipped=tuple(flipped),
        lines=tuple(lines),
        gathered_cells=tuple(gathered_cells),
        gathered=tuple(gathered),
    )


def check_play(stacks: Stacks, down: frozenset[Cell] | set[Cell], hand: tuple[str, ...] | list[str],
               action: object) -> tuple[str, Cell, Cell | None]:
    """Validate a play action against a field and a hand; returns (card, cell, king target) or raises."""
    if not isinstance(action, dict):
        raise IllegalAction("An action must be an object with a type.")
    if "type" not in action:
        raise IllegalAction("An action needs a type.")
    if action.get("type") != "play":
        raise IllegalAction(f"Unknown action type {action.get('type')!r}: Gomori has only 'play'.")
    check_fields(action, {"card": str, "at": list}, {"king_target": list})
    card = action["card"]
    if not is_card_code(card):
        raise IllegalAction(f"{card!r} is not a card.")
    if card not in hand:
        raise IllegalAction(f"You don't hold the {card_name(card)}.")
    at = parse_cell(action["at"], "at")
    name = card_name(card)
    stack = stacks.get(at)
    if not stacks:
        if at != (0, 0):
            raise IllegalAction("The first card of the game goes on [0, 0].")
    elif stack is None:
        rmin, rmax, cmin, cmax = bounds(stacks)
        rows = max(rmax, at[0]) - min(rmin, at[0]) + 1
        cols = max(cmax, at[1]) - min(cmin, at[1]) + 1
        if rows > FIELD_SIZE or cols > FIELD_SIZE:
            span = f"{rows} rows" if rows > FIELD_SIZE else f"{cols} columns"
            raise IllegalAction(f"The {name} can't go on {list(at)}: the field would span {span}, more than 4.")
    elif at not in down and not fits_on(card, stack[-1]):
        top = card_name(stack[-1])
        if RANK[card] in FACE_RANKS:
            why = "face cards go on empty cells, face-down cards, the same rank or the same suit"
        else:
            why = "number cards go on empty cells, face-down cards or the same rank"
        raise IllegalAction(f"The {name} can't go on the {top}: {why}.")
    target: Cell | None = None
    if stack is not None and RANK[card] == "K":
        if "king_target" not in action:
            raise IllegalAction(f"Playing the {name} onto a card needs a king_target: the stack whose top it turns "
                                "face-down.")
        target = parse_cell(action["king_target"], "king_target")
        if target != at:
            if target not in stacks:
                raise IllegalAction(f"There is no card at {list(target)} for the {name} to turn face-down.")
            if target in down:
                raise IllegalAction(f"The top card at {list(target)} is already face-down.")
    elif "king_target" in action:
        raise IllegalAction("Only a king played onto another card takes a king_target.")
    return card, at, target


# ---------------------------------------------------------------------------------------------------------
# The state
# ---------------------------------------------------------------------------------------------------------

@dataclass(slots=True)
class State:
    """A whole game. Stacks are tuples bottom..top; `down` holds the cells whose top card is face-down.

    `log` and `last` are plain JSON values; log events carry an "own" text only the acting seat may read.
    """

    seed: int
    hands: list[tuple[str, ...]]
    piles: list[tuple[str, ...]]
    stacks: Stacks
    down: frozenset[Cell]
    gathered: list[tuple[str, ...]]
    turn: int
    chain: bool
    passes: int
    over: bool
    end_reason: str | None
    log: list[dict[str, Any]]
    last: dict[str, Any] | None

    def copy(self) -> State:
        """A copy sharing the immutable parts (tuples, frozensets, old log events)."""
        return State(self.seed, list(self.hands), list(self.piles), self.stacks, self.down, list(self.gathered),
                     self.turn, self.chain, self.passes, self.over, self.end_reason, list(self.log), self.last)


def _names(cards: list[str] | tuple[str, ...]) -> str:
    """ "the 5♣", "the 5♣ and the 3♦", "the 5♣, the 2♠ and the 3♦"."""
    parts = [f"the {card_name(card)}" for card in cards]
    if len(parts) <= 1:
        return "".join(parts)
    return ", ".join(parts[:-1]) + " and " + parts[-1]


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _seat_token(seat: int) -> str:
    return "{s" + str(seat) + "}"


class GomoriEngine:
    """The Gomori rules behind the engine contract of shared/design/ENGINES.md."""

    slug = "gomori"
    name = "Gomori"
    min_players = 2
    max_players = 2
    default_options: dict[str, Any] = {}

    # -- setting up -------------------------------------------------------------------------------------

    def new_game(self, players: int, *, seed: int, options: dict[str, Any] | None = None,
                 deal: dict[str, Any] | None = None) -> State:
        """A new game: each deck shuffled with random.Random(seed) (or dealt as given), 5 cards each, black to play."""
        if isinstance(players, bool) or players != 2:
            raise IllegalAction("Gomori is played by exactly 2 players.")
        if options:
            raise IllegalAction(f"Gomori has no options (got {', '.join(map(str, options))}).")
        if deal is None:
            rng = random.Random(seed)
            decks = []
            for deck in DECKS:
                cards = list(deck)
                rng.shuffle(cards)
                decks.append(cards)
        else:
            decks = self._check_deal(deal)
        return State(
            seed=seed,
            hands=[tuple(deck[:HAND_SIZE]) for deck in decks],
            piles=[tuple(deck[HAND_SIZE:]) for deck in decks],
            stacks={},
            down=frozenset(),
            gathered=[(), ()],
            turn=0,
            chain=False,
            passes=0,
            over=False,
            end_reason=None,
            log=[],
            last=None,
        )

    @staticmethod
    def _check_deal(deal: object) -> list[list[str]]:
        """The two decks of a `deal`, each exactly its colour's 26 cards."""
        if not isinstance(deal, dict) or set(deal) != set(COLORS):
            raise IllegalAction('A Gomori deal is {"black": [26 codes], "red": [26 codes]}.')
        decks: list[list[str]] = []
        for color, deck in zip(COLORS, DECKS, strict=True):
            cards = deal[color]
            if not isinstance(cards, list) or not all(isinstance(card, str) for card in cards):
                raise IllegalAction(f"The {color} deal must be a list of card codes.")
            if sorted(cards) != sorted(deck):
                raise IllegalAction(f"The {color} deal must hold each of the 26 {color} cards exactly once.")
            decks.append(list(cards))
        return decks

    # -- whose turn -------------------------------------------------------------------------------------

    def to_act(self, state: State) -> list[int]:
        """The seat to play (the same seat throughout a chained turn); nobody once the game is over."""
        return [] if state.over else [state.turn]

    def must_act(self, state: State) -> list[int]:
        """Gomori never waits on an optional action: the same as to_act."""
        return self.to_act(state)

    def legal_actions(self, state: State, seat: int) -> list[Action]:
        """Every legal play of seat: card by card in hand order, cells row by row, kings once per target."""
        if state.over or seat != state.turn:
            return []
        stacks, down = state.stacks, state.down
        hand = state.hands[seat]
        if not stacks:
            return [{"type": "play", "card": card, "at": [0, 0]} for card in hand]
        # the window once, row by row: (cell, face-up top or None when empty, occupied)
        r0, r1, c0, c1 = playable_area(stacks)
        window: list[tuple[int, int, str | None, bool]] = []
        for r in range(r0, r1 + 1):
            for c in range(c0, c1 + 1):
                stack = stacks.get((r, c))
                if stack is None:
                    window.append((r, c, None, False))
                else:
                    window.append((r, c, None if (r, c) in down else stack[-1], True))
        face_up = sorted(cell for cell in stacks if cell not in down)
        actions: list[Action] = []
        for card in hand:
            rank, suit = RANK[card], SUIT[card]
            face = rank in FACE_RANKS
            for r, c, top, occupied in window:
                if top is not None and not (rank == RANK[top] or rank == "A" or (face and suit == SUIT[top])):
                    continue
                if rank == "K" and occupied:
                    for target in sorted({*face_up, (r, c)}):
                        actions.append({"type": "play", "card": card, "at": [r, c],
                                        "king_target": [target[0], target[1]]})
                else:
                    actions.append({"type": "play", "card": card, "at": [r, c]})
        return actions

    # -- playing ----------------------------------------------------------------------------------------

    def apply(self, state: State, seat: int, action: Action) -> State:
        """Play one card; then chain, or end the turn (refill, game end, the opponent's automatic passes)."""
        if state.over:
            raise IllegalAction("The game is over.")
        if isinstance(seat, bool) or not isinstance(seat, int) or seat not in (0, 1):
            raise IllegalAction("There is no such seat.")
        if seat != state.turn:
            raise IllegalAction("It is not your turn.")
        hand = state.hands[seat]
        card, at, target = check_play(state.stacks, state.down, hand, action)
        out = resolve_play(state.stacks, state.down, card, at, target)

        new = state.copy()
        new.stacks = out.stacks
        new.down = out.down
        new_hand = tuple(c for c in hand if c != card)
        new.hands[seat] = new_hand
        if out.gathered:
            new.gathered[seat] = state.gathered[seat] + out.gathered
        chain = out.stacked and bool(new_hand) and any(has_play(c, out.stacks, out.down) for c in new_hand)

        record: dict[str, Any] = {
            "card": card,
            "at": [at[0], at[1]],
            "stacked": out.stacked,
            "onto": out.onto,
            "onto_face_up": out.onto_face_up if out.stacked else None,
            "king_target": [target[0], target[1]] if target is not None else None,
            "flipped": [{"at": [cell[0], cell[1]], "card": c} for cell, c in out.flipped],
            "lines": [[[r, c] for r, c in line] for line in out.lines],
            "gathered_cells": [[r, c] for r, c in out.gathered_cells],
            "gathered": list(out.gathered),
            "plays_again": chain,
        }
        new.log.append({"seat": seat, "text": self._play_text(seat, card, out, chain)})
        plays = [*state.last["plays"], record] if state.chain and state.last is not None else [record]
        new.last = {"seat": seat, "plays": plays, "turn_over": not chain, "drawn": [], "passed": [], "end": None}
        new.chain = chain
        if not chain:
            self._end_turn(new, seat)
        return new

    @staticmethod
    def _play_text(seat: int, card: str, out: PlayOutcome, chain: bool) -> str:
        """One log sentence for a play."""
        text = f"{_seat_token(seat)} played the {card_name(card)}"
        if out.onto is None:
            text += " on an empty cell"
        elif out.onto_face_up:
            text += f" on the {card_name(out.onto)}"
        else:
            text += f" on the face-down {card_name(out.onto)}"
        if out.flipped:
            text += ": turned " + _names([c for _, c in out.flipped]) + " face-down"
        if out.gathered:
            text += (" and gathered " + _plural(len(out.gathered), "card")
                     + " (" + _plural(len(out.lines), "line") + ")")
        if chain:
            text += ", and plays again"
        return text

    def _end_turn(self, state: State, seat: int) -> None:
        """Refill seat's hand; end the game if the pile falls short; else pass the turn on (with automatic passes)."""
        hand = state.hands[seat]
        pile = state.piles[seat]
        need = HAND_SIZE - len(hand)
        drawn = pile[:need]
        state.hands[seat] = hand + drawn
        state.piles[seat] = pile[need:]
        assert state.last is not None
        last = dict(state.last)
        last["drawn"] = list(drawn)
        token = _seat_token(seat)
        if drawn:
            state.log.append({"seat": seat, "text": f"{token} drew {_plural(len(drawn), 'card')}",
                              "own": f"You drew {_names(drawn)}"})
        state.passes = 0
        if len(drawn) < need:
            state.log.append({"seat": None, "text": f"{token}'s draw pile could not refill the hand to 5: "
                                                     "the game is over"})
            self._finish(state, "refill")
            last["end"] = "refill"
            state.last = last
            return
        nxt = 1 - seat
        while not any(has_play(c, state.stacks, state.down) for c in state.hands[nxt]):
            state.log.append({"seat": nxt, "text": f"{_seat_token(nxt)} could not play and passed"})
            last["passed"] = [*last["passed"], nxt]
            state.passes += 1
            if state.passes >= 2:
                state.log.append({"seat": None, "text": "Neither player could play: the game is over"})
                self._finish(state, "blocked")
                last["end"] = "blocked"
                state.last = last
                return
            nxt = 1 - nxt
        state.turn = nxt
        state.last = last

    def _finish(self, state: State, reason: str) -> None:
        """Mark the game over and log the result."""
        state.over = True
        state.chain = False
        state.end_reason = reason
        a, b = (len(g) for g in state.gathered)
        if a == b:
            text = f"The game is a draw: {_plural(a, 'card')} each"
        else:
            win = 0 if a > b else 1
            text = f"{_seat_token(win)} wins with {_plural(max(a, b), 'card')} to {min(a, b)}"
        state.log.append({"seat": None, "text": text})

    # -- reading ----------------------------------------------------------------------------------------

    def scores(self, state: State) -> list[int]:
        """Gathered cards per seat."""
        return [len(g) for g in state.gathered]

    def is_over(self, state: State) -> bool:
        return state.over

    def result(self, state: State) -> dict[str, Any]:
        """Scores, winners (both seats' counts compared; [] on a draw) and the draw flag."""
        scores = self.scores(state)
        if not state.over:
            raise IllegalAction("The game is not over yet.")
        draw = scores[0] == scores[1]
        winners = [] if draw else [0 if scores[0] > scores[1] else 1]
        return {"scores": scores, "winners": winners, "draw": draw}

    def view(self, state: State, seat: int | None) -> View:
        """What seat may know: its own hand, the whole field (every card was played face-up), counts elsewhere."""
        if seat is not None and (isinstance(seat, bool) or seat not in (0, 1)):
            raise IllegalAction("There is no such seat.")
        over = state.over
        r0, r1, c0, c1 = playable_area(state.stacks)
        field = [
            {"at": [cell[0], cell[1]], "stack": list(state.stacks[cell]), "face_up": cell not in state.down}
            for cell in sorted(state.stacks)
        ]
        log = []
        for event in state.log:
            text = event["own"] if seat is not None and event["seat"] == seat and "own" in event else event["text"]
            log.append({"seat": event["seat"], "text": text})
        last = None
        if state.last is not None:
            last = {key: json_copy(value) for key, value in state.last.items() if key != "drawn"}
            last["drew"] = len(state.last["drawn"])
            last["drawn"] = list(state.last["drawn"]) if seat == state.last["seat"] else None
        return {
            "game": self.slug,
            "players": 2,
            "seat": seat,
            "to_act": self.to_act(state),
            "must_act": self.must_act(state),
            "scores": self.scores(state),
            "over": over,
            "result": self.result(state) if over else None,
            "legal": self.legal_actions(state, seat) if seat is not None else [],
            "log": log,
            "last": last,
            "colors": list(COLORS),
            "hand": list(state.hands[seat]) if seat is not None else None,
            "hand_counts": [len(h) for h in state.hands],
            "pile_counts": [len(p) for p in state.piles],
            "gathered": [list(g) for g in state.gathered],
            "field": field,
            "playable": {"rows": [r0, r1], "cols": [c0, c1]} if state.stacks else None,
            "turn": None if over else state.turn,
            "chain": state.chain,
            "passes": state.passes,
            "end_reason": state.end_reason,
        }

    # -- storing ----------------------------------------------------------------------------------------

    def dump(self, state: State) -> dict[str, Any]:
        """The state as plain JSON."""
        return {
            "seed": state.seed,
            "hands": [list(h) for h in state.hands],
            "piles": [list(p) for p in state.piles],
            "field": [
                {"at": [cell[0], cell[1]], "stack": list(state.stacks[cell]), "face_up": cell not in state.down}
                for cell in sorted(state.stacks)
            ],
            "gathered": [list(g) for g in state.gathered],
            "turn": state.turn,
            "chain": state.chain,
            "passes": state.passes,
            "over": state.over,
            "end_reason": state.end_reason,
            "log": list(state.log),  # its events are never changed once logged (State.copy shares them too)
            "last": json_copy(state.last),
        }

    def load(self, data: dict[str, Any]) -> State:
        """A state from dump()."""
        stacks: Stacks = {}
        down: set[Cell] = set()
        for entry in data["field"]:
            cell = (int(entry["at"][0]), int(entry["at"][1]))
            stacks[cell] = tuple(entry["stack"])
            if not entry["face_up"]:
                down.add(cell)
        return State(
            seed=data["seed"],
            hands=[tuple(h) for h in data["hands"]],
            piles=[tuple(p) for p in data["piles"]],
            stacks=stacks,
            down=frozenset(down),
            gathered=[tuple(g) for g in data["gathered"]],
            turn=data["turn"],
            chain=data["chain"],
            passes=data["passes"],
            over=data["over"],
            end_reason=data["end_reason"],
            log=list(data["log"]),
            last=json_copy(data["last"]),
        )


ENGINE: Engine[State] = GomoriEngine()  # mypy checks the engine keeps the contract

__all__ = [
    "COLORS",
    "DECKS",
    "ENGINE",
    "GomoriEngine",
    "PlayOutcome",
    "State",
    "can_stack",
    "cells_for",
    "check_play",
    "fits_on",
    "has_play",
    "king_targets",
    "playable_area",
    "resolve_play",
]
