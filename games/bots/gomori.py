"""Gomori bots: they read only a seat's view and legal actions (never the state).

- random (Rookie): any legal play, except that it always takes a gather when one is on offer (the biggest).
- reference (Regular): the greedy bot of the rules, one play at a time maximising 2 x cards gathered + 1 if
  stacked.
- search (Shark): plans the whole turn (every chain of up to 5 plays, deepening while its node and time budget
  lasts) and keeps the sequence worth most: the cards it gathers, less the cards the opponent could gather
  next turn (the best line left open, weighted by how reachable its last cell is and by the chance that 5 of
  the opponent's unplayed cards hold one that fits there), plus a little for its own open lines (more when a
  card it keeps can complete them) and for each stacked play. Of its best plans (one per first play) it then
  keeps the one that leaves most once the greedy opponent's reply is played out on hands drawn from the cards
  the opponent has not played (its gathers mostly come from chains of stacked plays that no line of three on
  the field shows), counting half of what its own next turn then gathers greedily with the cards it kept and a
  refill drawn from its unplayed cards (lines it sets up that survive the reply), and when its turn ends the
  game (its pile cannot refill the hand) a plan is worth the
  result alone. It replans at every call from the view (memoised) and plays the first step of its best plan.
"""

from __future__ import annotations

import random
import time
from collections import OrderedDict
from dataclasses import dataclass
from math import comb
from typing import Any

from games.engines.base import Action, Bot, Cell, View, card_name
from games.engines.gomori import (
    DECK_SUITS,
    DECKS,
    DIAGONAL,
    FIELD_SIZE,
    HAND_SIZE,
    ORTHOGONAL,
    RANK,
    SUIT,
    bounds,
    fits_on,
    lines_through,
    playable_area,
)

# A compact field for searching: cell -> (top card, stack height, top face-up).
Board = dict[Cell, tuple[str, int, bool]]

NODE_BUDGET = 15000         # work units per decision (a simulated play is 1): p50 ~1 ms, p99 ~130 ms loaded
FINALS_COST = 4             # work units of weighing every empty cell of one position
TIME_BUDGET = 0.12          # seconds: deeper iterations stop here whatever the budget left (slow machines)
BUDGET_SCALE = 1.0          # both budgets are multiplied by this (bench/bots.py --budget-scale)
SPOT_WEIGHT = {"empty": 1.0, "down": 1.0, "up": 0.4}
OWN_WEIGHT = 0.3
NET_WEIGHT = 1.0            # how many cards gathered now one card of the tie-break score is worth
NO_CARD_WEIGHT = 0.3        # a chance of ours that no card kept in hand can complete (a draw must bring one)
STACK_BONUS = 0.3           # per stacked play (it plays again, but empties the pile sooner: 1.0 drew more games)
REPLY_PLANS = 8             # the best plans whose opponent's reply is played out (4: a point less, 600 games)
REPLY_HANDS = 8             # ... on this many hands it may hold
REPLY_WEIGHT = 1.0          # a card the opponent is expected to gather, against one we gather
REPLY_TIME = 0.04           # seconds for the replies beyond the search's TIME_BUDGET (the deadline of a decision)
ENDGAME = True              # the search sees the game's end coming (Ending)
END_VALUE = 100.0           # a won (lost) game at the end of our turn, in gathered cards: above any gather
FOLLOW_WEIGHT = 0.5         # a card we are expected to gather in our next turn (after the reply), against one now
CARD_VALUE = {"A": 4.0, "K": 3.0, "Q": 2.5, "J": 2.5}


def board_from_view(view: View) -> Board:
    """The field of a view as a search board."""
    return {(f["at"][0], f["at"][1]): (f["stack"][-1], len(f["stack"]), f["face_up"]) for f in view["field"]}


def _describe(action: Action) -> str:
    """ "the 5♣ at [0, 1]" (plus the king's target)."""
    text = f"the {card_name(action['card'])} at {action['at']}"
    if "king_target" in action:
        text += f", turning {action['king_target']} face-down"
    return text


# ---------------------------------------------------------------------------------------------------------
# random and reference (greedy)
# ---------------------------------------------------------------------------------------------------------

def random_bot(view: View, legal: list[Action], rng: random.Random) -> tuple[Action | None, str]:
    """The Rookie: any legal play, except that it never lets a gather go (then it takes the biggest one)."""
    if not legal:
        return None, "has nothing to play"
    board = board_from_view(view)
    if board:
        gains: list[tuple[int, float, Action]] = []
        for action in legal:
            target = tuple(action["king_target"]) if "king_target" in action else None
            _, gain, _ = play_on_board(board, action["card"], (action["at"][0], action["at"][1]),
                                       target)
            if gain:
                gains.append((gain, rng.random(), action))
        if gains:
            gain, _, action = max(gains, key=lambda item: (item[0], item[1]))
            return action, f"gathers {gain} cards with {_describe(action)}"
    action = rng.choice(legal)
    return action, f"plays {_describe(action)}: nothing to gather"


def play_on_board(board: Board, card: str, at: Cell, target: Cell | None) -> tuple[Board, int, bool]:
    """Simulate one (legal) play: returns the new board, the cards gathered and whether it was stacked.

    The engine's resolve_play on the search's compact board: the search keeps only tops and heights, and this
    runs in about two thirds of the time (tests/games/bots/test_gomori_board.py holds the two equal)."""
    prev = board.get(at)
    new = dict(board)
    stacked = prev is not None
    if prev is None:
        new[at] = (card, 1, True)
    else:
        new[at] = (card, prev[1] + 1, True)
        rank = RANK[card]
        if rank == "J" or rank == "Q":
            r, c = at
            for dr, dc in ORTHOGONAL if rank == "J" else DIAGONAL:
                cell = (r + dr, c + dc)
                entry = new.get(cell)
                if entry is not None and entry[2]:
                    new[cell] = (entry[0], entry[1], False)
        elif rank == "K" and target is not None:
            entry = new[target]
            new[target] = (entry[0], entry[1], False)
    gain = 0
    if new[at][2]:
        suit = SUIT[card]
        r, c = at
        won: set[Cell] = set()
        for line in lines_through(at):
            for cell in line:
                entry = new.get(cell)
                if entry is None or not entry[2] or SUIT[entry[0]] != suit:
                    break
            else:
                won.update(line)
        won.discard(at)
        for cell in won:
            gain += new.pop(cell)[1]
    return new, gain, stacked


def reference_bot(view: View, legal: list[Action], rng: random.Random) -> tuple[Action | None, str]:
    """The greedy bot of the rules: the play maximising 2 x cards gathered + 1 if stacked (ties at random)."""
    if not legal:
        return None, "has nothing to play"
    board = board_from_view(view)
    best: list[tuple[Action, int, bool]] = []
    best_score = -1
    for action in legal:
        target = tuple(action["king_target"]) if "king_target" in action else None
        _, gain, stacked = play_on_board(board, action["card"], (action["at"][0], action["at"][1]),
                                         target)
        score = 2 * gain + (1 if stacked else 0)
        if score > best_score:
            best, best_score = [(action, gain, stacked)], score
        elif score == best_score:
            best.append((action, gain, stacked))
    action, gain, stacked = rng.choice(best)
    if gain:
        reason = f"gathers {gain} cards with {_describe(action)}"
    elif stacked:
        reason = f"stacks {_describe(action)} to play again"
    else:
        reason = f"plays {_describe(action)}: nothing better to gather or stack"
    return action, reason


# ---------------------------------------------------------------------------------------------------------
# search
# ---------------------------------------------------------------------------------------------------------

def _spots(board: Board, area: tuple[int, int, int, int]) -> list[tuple[Cell, str, int, str]]:
    """Lines of 4 where 3 cells are face-up tops of one suit and the 4th could still take a card of that suit.

    Returns (4th cell, suit, cards the line would gather, kind of the 4th cell: empty/down/up) per line.
    """
    r0, r1, c0, c1 = area
    lines: set[tuple[Cell, ...]] = set()
    for cell, (_, _, face_up) in board.items():
        if face_up:
            lines.update(lines_through(cell))
    found: list[tuple[Cell, str, int, str]] = []
    get = board.get
    entry: tuple[str, int, bool] | None
    for line in lines:
        suit = ""
        count = 0
        value = 0
        other: Cell | None = None
        for x in line:
            entry = get(x)
            if entry is not None and entry[2]:
                s = SUIT[entry[0]]
                if s == suit:
                    count += 1
                    value += entry[1]
                    continue
                if not suit:
                    suit, count, value = s, 1, entry[1]
                    continue
            if other is not None:
                break
            other = x
        else:
            if count != 3 or other is None:
                continue
            entry = get(other)
            if entry is None:
                if not (r0 <= other[0] <= r1 and c0 <= other[1] <= c1):
                    continue
                kind = "empty"
            else:
                if entry[2] and SUIT[entry[0]] == suit:
                    continue
                kind = "up" if entry[2] else "down"
            found.append((other, suit, value, kind))
    return found


def _pressure(spots: list[tuple[Cell, str, int, str]], suits: tuple[str, str]) -> float:
    """How much a side could gather next turn from these spots (the best one, weighted by how reachable)."""
    return max((SPOT_WEIGHT[kind] * value for _, suit, value, kind in spots if suit in suits), default=0.0)


def _net(score: tuple[int, float]) -> float:
    """A plan's worth: the cards it gathers now, then (NET_WEIGHT > 0) traded against the tie-break score, which
    counts the cards the opponent threatens to gather next turn and our own chances."""
    return score[0] + NET_WEIGHT * score[1] if score[0] >= 0 else -1e9


@dataclass(frozen=True)
class Ending:
    """What the search needs to see the game's end coming: our draw pile (the game ends after our turn when it
    cannot refill the hand to HAND_SIZE), the opponent's, the score margin before the turn, and the cards on the
    field and in our hand when the search began."""

    pile: int
    opp_pile: int
    margin: int
    cards: int
    hand: int


class _OutOfBudget(Exception):
    """The search used up its node budget; the last complete iteration stands."""


class _Search:
    """One decision's search: iterative deepening over chained plays, memoised per position."""

    def __init__(self, seat: int, opp_unseen: tuple[str, ...] = (), ending: Ending | None = None) -> None:
        self.ending = ending
        # when the opponent's turn ends the game, we get no next turn: our chances are worth nothing
        self.own_weight = 0.0 if ending is not None and ending.opp_pile == 0 else OWN_WEIGHT
        self.own = DECK_SUITS[seat]
        self.opp = DECK_SUITS[1 - seat]
        self.opp_unseen = opp_unseen
        self.fit_memo: dict[tuple[str, str | None], float] = {}
        self.spots_memo: dict[Any, list[tuple[Cell, str, int, str]]] = {}
        self.nodes = 0
        self.budget = 10**9
        self.deadline = float("inf")
        self.memo: dict[Any, tuple[tuple[int, float], list[Action]]] = {}
        self.finals_memo: dict[Any, tuple[tuple[int, float], list[Action]]] = {}

    def fit_prob(self, suit: str, entry: tuple[str, int, bool] | None) -> float:
        """The chance that the opponent's next hand (5 of the cards it has not played yet) holds a card of this
        suit that may go on that cell; 1 when those cards are unknown."""
        top = None if entry is None or not entry[2] else entry[0]
        key = (suit, top)
        hit = self.fit_memo.get(key)
        if hit is None:
            pool = self.opp_unseen
            if not pool:
                hit = 1.0
            else:
                fitting = sum(1 for c in pool if SUIT[c] == suit and (top is None or fits_on(c, top)))
                draw = min(5, len(pool))
                hit = 1.0 - comb(len(pool) - fitting, draw) / comb(len(pool), draw)
            self.fit_memo[key] = hit
        return hit

    def threat(self, board: Board, spots: list[tuple[Cell, str, int, str]]) -> float:
        """The opponent's best line to complete next turn, weighted by reach and by its chance to hold a card
        for the 4th cell."""
        get = board.get
        return max((SPOT_WEIGHT[kind] * value * self.fit_prob(suit, get(x))
                    for x, suit, value, kind in spots if suit in self.opp), default=0.0)

    def spots(self, board: Board) -> list[tuple[Cell, str, int, str]]:
        """_spots of a board, memoised: many plans end on the same field with different cards kept."""
        key = frozenset(board.items())
        spots = self.spots_memo.get(key)
        if spots is None:
            spots = self.spots_memo[key] = _spots(board, playable_area(board))
        return spots

    def final(self, board: Board, rest: tuple[str, ...]) -> float | None:
        """When our turn ends the game (our pile cannot refill the hand), the result it leaves: +-END_VALUE for
        a win or a loss, 0 for a draw; None when the game goes on. The cards gathered in the whole plan follow
        from the board and the hand (cards are only played or gathered)."""
        ending = self.ending
        if ending is None or HAND_SIZE - len(rest) <= ending.pile:
            return None
        gathered = ending.cards + (ending.hand - len(rest)) - sum(entry[1] for entry in board.values())
        margin = ending.margin + gathered
        return END_VALUE if margin > 0 else -END_VALUE if margin < 0 else 0.0

    def evaluate(self, board: Board, rest: tuple[str, ...] = ()) -> float:
        """Tie-break score of a position at the end of our turn: opponent threats against our chances (a chance
        counts in full when a card kept in hand can complete it next turn); the result itself when the turn
        ends the game."""
        final = self.final(board, rest)
        if final is not None:
            return final
        if not board:
            return 0.0
        spots = self.spots(board)
        return -self.threat(board, spots) + self.own_weight * self.chance(board, spots, rest, None)

    def chance(self, board: Board, spots: list[tuple[Cell, str, int, str]], rest: tuple[str, ...],
               area: tuple[int, int, int, int] | None) -> float:
        """Our best line to complete next turn: its cards, weighted by how reachable its 4th cell is and by
        whether a card kept in hand fits there (else a draw has to bring one)."""
        best = 0.0
        get = board.get
        for x, suit, value, kind in spots:
            if suit not in self.own:
                continue
            if area is not None and kind == "empty" and not (area[0] <= x[0] <= area[1] and area[2] <= x[1] <= area[3]):
                continue
            entry = get(x)
            held = any(SUIT[c] == suit and (entry is None or not entry[2] or fits_on(c, entry[0])) for c in rest)
            best = max(best, SPOT_WEIGHT[kind] * value * (1.0 if held else NO_CARD_WEIGHT))
        return best

    def finals(self, board: Board, hand: tuple[str, ...]) -> tuple[tuple[int, float], list[Action]]:
        """The best play on an empty cell (which ends the turn): (gathered, tie-break) and the play."""
        # the cheapest card of each suit in hand: what to give away when nothing is gathered
        cheapest: dict[str, str] = {}
        for card in hand:
            suit = SUIT[card]
            if suit not in cheapest or CARD_VALUE.get(RANK[card], 1.0) < CARD_VALUE.get(RANK[cheapest[suit]], 1.0):
                cheapest[suit] = card
        key = (frozenset(board.items()), tuple(sorted(hand)))
        hit = self.finals_memo.get(key)
        if hit is None:
            self.nodes += FINALS_COST
            hit = self.finals_memo[key] = self._finals(board, cheapest, hand)
        return hit

    def _finals(self, board: Board, cheapest: dict[str, str],
                hand: tuple[str, ...]) -> tuple[tuple[int, float], list[Action]]:
        """finals() for the cheapest card of each suit in hand."""
        r0, r1, c0, c1 = playable_area(board)
        spots = self.spots(board)
        opp_spots = [spot for spot in spots if spot[1] in self.opp]
        own_spots = [spot for spot in spots if spot[1] in self.own]
        rmin, rmax, cmin, cmax = bounds(board)
        best: tuple[int, float] = (-1, 0.0)
        best_play: list[Action] = []
        get = board.get
        kept: dict[str, tuple[str, ...]] = {}
        for card in cheapest.values():
            rest = list(hand)
            rest.remove(card)
            kept[card] = tuple(rest)
        for r in range(r0, r1 + 1):
            for c in range(c0, c1 + 1):
                cell = (r, c)
                if cell in board:
                    continue
                # the area once a card lies here
                nr0 = max(rmax, r) - FIELD_SIZE + 1
                nr1 = min(rmin, r) + FIELD_SIZE - 1
                nc0 = max(cmax, c) - FIELD_SIZE + 1
                nc1 = min(cmin, c) + FIELD_SIZE - 1
                for suit, card in cheapest.items():
                    completes = any(x == cell and s == suit for x, s, _, _ in own_spots)
                    if completes:
                        new, gain, _ = play_on_board(board, card, cell, None)
                        self.nodes += 1
                        score = (gain, self.evaluate(new, kept[card]) - 0.05 * CARD_VALUE.get(RANK[card], 1.0))
                    elif self.ending is not None and HAND_SIZE - len(kept[card]) > self.ending.pile:
                        final = self.final({**board, cell: (card, 1, True)}, kept[card])
                        score = (0, (final or 0.0) - 0.05 * CARD_VALUE.get(RANK[card], 1.0))
                    else:
                        # the card now lies on `cell`: a line whose 4th cell it is must fit on it
                        placed: tuple[str, int, bool] | None = (card, 1, True)
                        threat = 0.0
                        for x, s, value, kind in opp_spots:
                            if x == cell:
                                weight = SPOT_WEIGHT["up"]
                            elif kind == "empty" and not (nr0 <= x[0] <= nr1 and nc0 <= x[1] <= nc1):
                                continue
                            else:
                                weight = SPOT_WEIGHT[kind]
                            threat = max(threat, weight * value * self.fit_prob(s, placed if x == cell else get(x)))
                        chance = 0.0
                        for x, s, value, kind in own_spots:
                            if x == cell:
                                weight, entry = SPOT_WEIGHT["up"], placed
                            elif kind == "empty" and not (nr0 <= x[0] <= nr1 and nc0 <= x[1] <= nc1):
                                continue
                            else:
                                weight, entry = SPOT_WEIGHT[kind], get(x)
                            held = any(SUIT[k] == s and (entry is None or not entry[2] or fits_on(k, entry[0]))
                                       for k in kept[card])
                            chance = max(chance, weight * value * (1.0 if held else NO_CARD_WEIGHT))
                        score = (0, -threat + self.own_weight * chance - 0.05 * CARD_VALUE.get(RANK[card], 1.0))
                    if _net(score) > _net(best):
                        best = score
                        best_play = [{"type": "play", "card": card, "at": [r, c]}]
        return best, best_play

    def stacked_moves(self, board: Board, hand: tuple[str, ...]) -> list[tuple[str, Cell, Cell | None]]:
        """Every play onto an occupied cell; kings only turn their own cell or an opponent-coloured top."""
        moves: list[tuple[str, Cell, Cell | None]] = []
        for card in hand:
            is_king = RANK[card] == "K"
            for cell, (top, _, up) in board.items():
                if up and not fits_on(card, top):
                    continue
                if is_king:
                    moves.append((card, cell, cell))
                    for target, (t_top, _, t_up) in board.items():
                        if t_up and target != cell and SUIT[t_top] in self.opp:
                            moves.append((card, cell, target))
                else:
                    moves.append((card, cell, None))
        return moves

    def best(self, board: Board, hand: tuple[str, ...], depth: int,
             options: list[tuple[tuple[int, float], list[Action]]] | None = None,
             ) -> tuple[tuple[int, float], list[Action]]:
        """The best plan from a position where we must play: (gathered, tie-break) and its plays. `options`, if
        given, receives the best plan starting with each first play (the best one on an empty cell for all)."""
        key = (frozenset(board.items()), tuple(sorted(hand)), depth)
        hit = self.memo.get(key)
        if hit is not None and options is None:
            return hit
        if len(board) < FIELD_SIZE * FIELD_SIZE:
            best, plan = self.finals(board, hand)
            if options is not None and plan:
                options.append((best, plan))
        else:
            best, plan = (-1, 0.0), []
        for card, cell, target in self.stacked_moves(board, hand):
            self.nodes += 1
            if self.nodes > self.budget or time.perf_counter() > self.deadline:
                raise _OutOfBudget
            new, gain, _ = play_on_board(board, card, cell, target)
            rest = tuple(c for c in hand if c != card)
            action: Action = {"type": "play", "card": card, "at": [cell[0], cell[1]]}
            if target is not None:
                action["king_target"] = [target[0], target[1]]
            if rest and (len(new) < FIELD_SIZE * FIELD_SIZE
                         or any(not up or fits_on(c, top) for c in rest for top, _, up in new.values())):
                if depth > 0:
                    (sub_gain, sub_h), sub_plan = self.best(new, rest, depth - 1)
                else:
                    (sub_gain, sub_h), sub_plan = (
                        self.finals(new, rest) if len(new) < FIELD_SIZE * FIELD_SIZE else ((0, 0.0), []))
                score = (gain + sub_gain, sub_h + STACK_BONUS)
                plan_here = [action, *sub_plan]
            else:
                score = (gain, self.evaluate(new, rest) - 0.05 * CARD_VALUE.get(RANK[card], 1.0) + STACK_BONUS)
                plan_here = [action]
            if options is not None:
                options.append((score, plan_here))
            if _net(score) > _net(best):
                best, plan = score, plan_here
        self.memo[key] = (best, plan)
        return best, plan


_PLAN_CACHE: OrderedDict[Any, tuple[tuple[int, float], list[Action]]] = OrderedDict()
_PLAN_CACHE_SIZE = 512


def _after(board: Board, plan: list[Action]) -> Board:
    """The board once the plan's plays are made."""
    for action in plan:
        target = (action["king_target"][0], action["king_target"][1]) if "king_target" in action else None
        board, _, _ = play_on_board(board, action["card"], (action["at"][0], action["at"][1]), target)
    return board


def greedy_reply(board: Board, hand: list[str], rng: random.Random) -> int:
    """The cards the greedy player (the rules' reference bot: each play the most 2 x cards gathered + 1 if
    stacked, ties at random; a king turns a face-up top picked at random; it plays again after a stacked card)
    gathers in its turn from this board with this hand."""
    return greedy_turn(board, hand, rng)[0]


def greedy_turn(board: Board, hand: list[str], rng: random.Random) -> tuple[int, Board]:
    """greedy_reply's gathered cards and the board it leaves."""
    total = 0
    hand = list(hand)
    while hand and board:
        area = playable_area(board)
        spots = _spots(board, area)
        top = -1
        best: list[tuple[str, Cell]] = []
        for card in dict.fromkeys(hand):
            suit = SUIT[card]
            for x, s, _, _ in spots:
                if s != suit:
                    continue
                entry = board.get(x)
                if entry is not None and entry[2] and not fits_on(card, entry[0]):
                    continue
                score = 2 * _gain_at(board, card, x, rng) + (entry is not None)
                if score > top:
                    top, best = score, [(card, x)]
                elif score == top and (card, x) not in best:
                    best.append((card, x))
        if top < 1:
            stacked = [(card, cell) for card in dict.fromkeys(hand) for cell, (t, _, up) in board.items()
                       if not up or fits_on(card, t)]
            if stacked:
                top, best = 1, stacked
        if top < 1:
            break  # a card on an empty cell ends its turn, gathering nothing (a gather there is a spot above)
        card, cell = rng.choice(best)
        board, gain, _ = play_on_board(board, card, cell, _king_target(board, card, cell, rng))
        total += gain
        hand.remove(card)
    return total, board


def _king_target(board: Board, card: str, cell: Cell, rng: random.Random) -> Cell | None:
    """The greedy player's king target: a face-up top picked at random (its own cell when none)."""
    if RANK[card] != "K" or cell not in board:
        return None
    face_up = [c for c, (_, _, up) in board.items() if up]
    return rng.choice(face_up) if face_up else cell


def _gain_at(board: Board, card: str, cell: Cell, rng: random.Random) -> int:
    return play_on_board(board, card, cell, _king_target(board, card, cell, rng))[1]


def _with_replies(search: _Search, board: Board, hand: tuple[str, ...], depth: int, opp_unseen: tuple[str, ...],
                  opp_hand: int, rng: random.Random, found: tuple[tuple[int, float], list[Action]],
                  deadline: float, own_unseen: tuple[str, ...] = ()) -> tuple[tuple[int, float], list[Action]]:
    """Of the REPLY_PLANS best plans (one per first play), the one that leaves most once the greedy opponent's
    reply is played out on REPLY_HANDS hands drawn from the cards it has not played (its own hand among them).
    Past the deadline no further plan is played out (none at all: the search's own best plan stands)."""
    if time.perf_counter() > deadline:
        return found
    options: list[tuple[tuple[int, float], list[Action]]] = []
    search.budget = 10**9
    search.deadline = float("inf")
    search.best(board, hand, depth, options)  # the last complete depth: every position below is memoised
    options.sort(key=lambda option: -_net(option[0]))
    top = [option for option in options[:REPLY_PLANS] if option[1]]
    if len(top) < 2:
        return found
    hands = [rng.sample(opp_unseen, min(opp_hand, len(opp_unseen))) for _ in range(REPLY_HANDS)]
    best: tuple[float, tuple[tuple[int, float], list[Action]]] | None = None
    for score, plan in top:
        if best is not None and time.perf_counter() > deadline:
            break
        end = _after(board, plan)
        rest = tuple(_without(hand, [a["card"] for a in plan]))
        follow = 0.0
        hands_done = False
        if search.final(end, rest) is not None:
            hands_done = True
            replies = 0.0  # our turn ends the game: no reply
        else:
            replies = 0.0
            for h in hands:
                if best is not None and time.perf_counter() > deadline:
                    break  # a plan weighed on fewer hands than the others is not compared with them
                got, after = greedy_turn(end, list(h), rng)
                replies += got
                if FOLLOW_WEIGHT and after and search.ending is not None and search.ending.opp_pile > 0:
                    # our next turn: the cards kept and a refill drawn from our own unplayed cards
                    refill = rng.sample(own_unseen, min(HAND_SIZE - len(rest), len(own_unseen)))
                    follow += greedy_turn(after, [*rest, *refill], rng)[0]
            else:
                replies /= len(hands)
                follow /= len(hands)
                hands_done = True
            if not hands_done:
                break
        value = _net(score) - REPLY_WEIGHT * replies + FOLLOW_WEIGHT * follow
        if best is None or value > best[0]:
            best = (value, (score, plan))
    assert best is not None
    return best[1]


def _without(hand: tuple[str, ...], played: list[str]) -> list[str]:
    rest = list(hand)
    for card in played:
        rest.remove(card)
    return rest


def search_bot(view: View, legal: list[Action], rng: random.Random) -> tuple[Action | None, str]:
    """Plans the turn's whole chain of plays and plays its first step (see the module docstring)."""
    if not legal:
        return None, "has nothing to play"
    board = board_from_view(view)
    hand = tuple(view["hand"])
    if not board:
        # the opening card: give away the cheapest card
        action = min(legal, key=lambda a: (CARD_VALUE.get(RANK[a["card"]], 1.0), rng.random()))
        return action, f"opens with {_describe(action)}"
    seat = view["seat"]
    ending = None
    if ENDGAME:
        scores = [len(pile) for pile in view["gathered"]]
        ending = Ending(pile=view["pile_counts"][seat], opp_pile=view["pile_counts"][1 - seat],
                        margin=scores[seat] - scores[1 - seat], cards=sum(len(f["stack"]) for f in view["field"]),
                        hand=len(hand))
    key = (frozenset(board.items()), tuple(sorted(hand)), seat, ending)
    cached = _PLAN_CACHE.get(key)
    if cached is None:
        seen = {card for f in view["field"] for card in f["stack"]}
        seen.update(card for pile in view["gathered"] for card in pile)
        opp_unseen = tuple(c for c in DECKS[1 - seat] if c not in seen)
        search = _Search(seat, opp_unseen, ending)
        started = time.perf_counter()
        cached = search.best(board, hand, 0)
        search.budget = search.nodes + round(NODE_BUDGET * BUDGET_SCALE)
        search.deadline = started + TIME_BUDGET * BUDGET_SCALE
        done = 0
        for depth in range(1, len(hand)):
            try:
                cached = search.best(board, hand, depth)
            except _OutOfBudget:
                break
            done = depth
        if REPLY_HANDS and opp_unseen and view["hand_counts"][1 - seat]:
            own_unseen = tuple(c for c in DECKS[seat] if c not in seen and c not in hand)
            cached = _with_replies(search, board, hand, done, opp_unseen, view["hand_counts"][1 - seat], rng,
                                   cached, started + (TIME_BUDGET + REPLY_TIME) * BUDGET_SCALE, own_unseen)
        _PLAN_CACHE[key] = cached
        if len(_PLAN_CACHE) > _PLAN_CACHE_SIZE:
            _PLAN_CACHE.popitem(last=False)
    _, plan = cached
    action = plan[0] if plan else rng.choice(legal)
    if action not in legal:  # never expected: the plan is built from the same rules
        action = rng.choice(legal)
    return action, _search_reason(board, action)


def _search_reason(board: Board, action: Action) -> str:
    """What the play does, as every viewer sees it once it is made.

    A reason is shown to spectators: it may tell what this play gathers, never what the rest of the plan
    would (that depends on the cards still hidden in the bot's hand).
    """
    target = tuple(action["king_target"]) if "king_target" in action else None
    _, now, stacked = play_on_board(board, action["card"], (action["at"][0], action["at"][1]),
                                    target)
    if now:
        return f"gathers {now} cards with {_describe(action)}"
    if stacked:
        return f"stacks {_describe(action)} to play again"
    return f"plays {_describe(action)}: nothing to gather, so it leaves the opponent least"


LEVEL_BLURBS: dict[str, str] = {
    "random": "Plays its cards almost at random, but never misses a chance to gather.",
    "reference": "The classic greedy player: each card goes where it gathers most right now, stacking to play again "
                 "when nothing gathers.",
    "search": "Plans its whole turn of chained plays to gather the most, and leaves you as little as possible to "
              "gather next.",
}

BOTS: dict[str, Bot] = {
    "random": random_bot,
    "reference": reference_bot,
    "search": search_bot,
}

__all__ = ["BOTS", "board_from_view", "play_on_board", "random_bot", "reference_bot", "search_bot"]
