"""Columbo: the rules engine (see shared/rules/columbo.md).

A fast "attack" Golf for 1 to 6 players: keep the lowest hand of face-down cards you barely know, use the
7-Q card actions, and slap matching cards onto the discard pile before anyone else. Standard library only;
`apply` never mutates its input. Per-seat knowledge is tracked per card (a bit mask of the seats that have
seen its face), so a card's face stays known to a seat wherever everyone saw the card move.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .base import (
    RANKS,
    Action,
    Engine,
    IllegalAction,
    View,
    card_name,
    check_fields,
    is_card_code,
    is_int,
    json_copy,
    standard_deck,
)

MIN_PLAYERS = 1
MAX_PLAYERS = 6
GRID = 4  # cards dealt to each player, slots 0-3
PEEKS = 2  # cards each player looks at before play
TAP_LIMIT = 4  # a tapper's final hand must stay below this to avoid the penalty
TAP_PENALTY = 25
MAX_ROUNDS = 99
MAX_SECONDS = 10**9
PUBLIC = 1 << 8  # knowledge bit: face shown to everyone, spectators included
TRIGGERS: tuple[str, ...] = ("drawn_discard", "any_discard")

RANK_POINTS: dict[str, int] = {rank: (1 if rank == "A" else 11 if rank == "J" else 12 if rank == "Q"
                                      else 13 if rank == "K" else int(rank)) for rank in RANKS}
RANK: dict[str, str] = {rank + suit: rank for suit in "CDHS" for rank in RANKS}
POINTS: dict[str, int] = {code: RANK_POINTS[rank] for code, rank in RANK.items()}
POINTS["KH"] = -1

# The card action of each rank, and what it lets its player do.
ACTION_KINDS: dict[str, str] = {"7": "look_other", "8": "look_other", "9": "look_own", "10": "look_own",
                                "J": "exchange", "Q": "look_exchange"}
ACTION_TEXT: dict[str, str] = {
    "look_other": "look at another player's card",
    "look_own": "look at one of their own cards",
    "exchange": "swap any two cards on the table without looking",
    "look_exchange": "look at any card, then swap any two cards",
}
SLOT_NAMES: tuple[str, ...] = ("top-left", "top-right", "bottom-left", "bottom-right")

Pos = tuple[int, int]


class SlapTooLate(IllegalAction):
    """A slap that lost the race: its discard was already slapped, covered or drawn past. No penalty.

    `winner` is the seat whose slap took that discard, or None when the window closed without one.
    """

    def __init__(self, message: str, winner: int | None = None) -> None:
        super().__init__(message)
        self.winner = winner


def card_points(card: str) -> int:
    """A card's value in a hand: A 1, 2-10 face value, J 11, Q 12, K 13, K♥ -1."""
    return POINTS[card]


def hand_points(hand: Sequence[str | None]) -> int:
    """The points of the cards in a hand (empty slots count nothing)."""
    return sum(POINTS[c] for c in hand if c is not None)


def slot_name(slot: int) -> str:
    """A slot in words: the four grid places, then the extra cards in the order they came."""
    return SLOT_NAMES[slot] if slot < GRID else f"extra #{slot - GRID + 1}"


def solo_score(points: int, turns: int, seconds: int | None) -> int:
    """The solo score: (4 - points) * 5000 plus turn and time bonuses if below 4 points, else 0."""
    if points >= TAP_LIMIT:
        return 0
    time_bonus = max(0, 100_000 - 1000 * seconds) if seconds is not None else 0
    return (TAP_LIMIT - points) * 5000 + max(0, 100_000 - 1000 * turns) + time_bonus


def _tok(seat: int) -> str:
    """The log token for a seat, replaced by the site with the player's name."""
    return "{s" + str(seat) + "}"


def _whose(owner: int, slot: int, actor: int | None, you: bool = False) -> str:
    """'their top-left card' / "{s2}'s top-left card" / 'your top-left card', seen from the actor."""
    if owner == actor:
        return f"{'your' if you else 'their'} {slot_name(slot)} card"
    return f"{_tok(owner)}'s {slot_name(slot)} card"


def _plural(count: int, word: str) -> str:
    """'1 turn', '3 turns'."""
    return f"{count} {word}" if count in (1, -1) else f"{count} {word}s"


def _the(card: str) -> str:
    """'the 9♦'."""
    return "the " + card_name(card)


@dataclass
class State:
    """A whole Columbo match. Lists are copied by `_copy`; the dicts and log entries are replaced, never edited."""

    players: int
    seed: int
    rounds: int  # rounds in the match (1 in solo)
    trigger: str  # the action_trigger option
    rng: int  # counter of random events after the first deal: each uses Random(f"{seed}:{rng}")
    round: int  # 1-based
    dealer: int
    phase: str  # "peek", "play" or "over"
    hands: list[list[str | None]]  # per seat, per slot: a code or None for an empty slot
    stock: list[str]  # the top card is the last
    discard: list[str]  # the top card is the last
    known: dict[str, int]  # card in a hand or drawn -> bit mask of the seats that know its face (PUBLIC: all)
    peeked: list[list[int] | None]  # the slots each seat peeked at this round
    current: int  # the seat whose turn it is (play phase)
    step: str  # "draw" (about to draw or tap) or "place" (holding a drawn card)
    drawn: str | None
    drawn_from: str | None  # "stock" or "discard"
    seq: int  # number of the last discard that opened a slap window (0: none yet), unique in the match
    window: dict[str, Any] | None  # {"seq", "card", "open", "attempted": [seats], "winner", "round"}
    action: dict[str, Any] | None  # pending card action {"seat", "card", "kind", "stage", "looked"}
    tapper: int | None
    final_turns: list[int]  # seats still owed their last turn after a tap, in order
    turns: int  # turns (draws) in this round
    seconds: int | None  # solo: the elapsed seconds given with the tap
    totals: list[int]
    history: list[dict[str, Any]]  # the results of each finished round, every hand open
    slapped: dict[str, list[Any]]  # str(seq) -> [winner seat, card slapped onto]
    log: list[list[Any]]  # [seat | None, public text, {str(seat): private text} | None]
    last: dict[str, Any] | None  # {"public": {...}, "private": {str(seat): {...overrides}}}
    solo: int | None  # solo score once the round is over


def _copy(st: State) -> State:
    """A copy that apply may change freely (nested dicts and log entries are never edited in place)."""
    window = st.window
    return State(
        players=st.players, seed=st.seed, rounds=st.rounds, trigger=st.trigger, rng=st.rng, round=st.round,
        dealer=st.dealer, phase=st.phase, hands=[list(h) for h in st.hands], stock=list(st.stock),
        discard=list(st.discard), known=dict(st.known), peeked=list(st.peeked), current=st.current,
        step=st.step, drawn=st.drawn, drawn_from=st.drawn_from, seq=st.seq,
        window=None if window is None else {**window, "attempted": list(window["attempted"])},
        action=st.action, tapper=st.tapper, final_turns=list(st.final_turns), turns=st.turns,
        seconds=st.seconds, totals=list(st.totals), history=list(st.history), slapped=dict(st.slapped),
        log=list(st.log), last=st.last, solo=st.solo,
    )


def _parse_pos(value: object, field: str) -> Pos:
    """A [seat, slot] pair from JSON."""
    if not isinstance(value, list) or len(value) != 2 or not all(is_int(v) for v in value):
        raise IllegalAction(f"The field '{field}' must be a card on the table: [seat, slot].")
    return value[0], value[1]


class ColumboEngine:
    """The Columbo rules: deal, peek, turns, card actions, slaps, taps, rounds and the solo score."""

    slug = "columbo"
    name = "Columbo"
    min_players = MIN_PLAYERS
    max_players = MAX_PLAYERS
    default_options: dict[str, Any] = {"rounds": 4, "action_trigger": "drawn_discard"}

    # ------------------------------------------------------------------------------------------------
    # Setup
    # ------------------------------------------------------------------------------------------------

    def new_game(self, players: int, *, seed: int, options: dict[str, Any] | None = None,
                 deal: dict[str, Any] | None = None) -> State:
        """A match: round 1 dealt (from `deal` or shuffled with Random(seed)), everyone about to peek."""
        if not is_int(players) or not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise IllegalAction(f"Columbo is for {MIN_PLAYERS} to {MAX_PLAYERS} players.")
        if not is_int(seed):
            raise IllegalAction("The seed must be an integer.")
        opts = self._check_options(options)
        if deal is None:
            deck = standard_deck()
            random.Random(seed).shuffle(deck)
        else:
            deck = self._check_deal(deal)
        st = State(
            players=players, seed=seed, rounds=1 if players == 1 else opts["rounds"],
            trigger=opts["action_trigger"], rng=0, round=0, dealer=players - 1, phase="peek", hands=[],
            stock=[], discard=[], known={}, peeked=[], current=0, step="draw", drawn=None, drawn_from=None,
            seq=0, window=None, action=None, tapper=None, final_turns=[], turns=0, seconds=None,
            totals=[0] * players, history=[], slapped={}, log=[], last=None, solo=None,
        )
        self._deal_round(st, deck)
        return st

    def _check_options(self, options: object) -> dict[str, Any]:
        """The options merged over the defaults; unknown keys and bad values are refused."""
        if options is None:
            return dict(self.default_options)
        if not isinstance(options, dict):
            raise IllegalAction("The options must be an object.")
        for key in options:
            if key not in self.default_options:
                raise IllegalAction(f"Unknown option '{key}'.")
        opts = {**self.default_options, **options}
        if not is_int(opts["rounds"]) or not 1 <= opts["rounds"] <= MAX_ROUNDS:
            raise IllegalAction(f"The number of rounds must be between 1 and {MAX_ROUNDS}.")
        if opts["action_trigger"] not in TRIGGERS:
            raise IllegalAction("The action trigger must be 'drawn_discard' or 'any_discard'.")
        return opts

    @staticmethod
    def _check_deal(deal: object) -> list[str]:
        """The deck of a `deal` ({"deck": [52 codes], top first}), checked to be exactly one full deck."""
        if not isinstance(deal, dict) or set(deal) != {"deck"}:
            raise IllegalAction('A Columbo deal is {"deck": [the 52 card codes, top first]}.')
        deck = deal["deck"]
        if not isinstance(deck, list) or not all(is_card_code(c) for c in deck):
            raise IllegalAction("The deck must be a list of card codes.")
        if len(deck) != 52 or len(set(deck)) != 52:
            raise IllegalAction("The deck must hold each of the 52 cards exactly once.")
        return list(deck)

    def _deal_round(self, st: State, deck: list[str]) -> None:
        """Start the next round: rotate the dealer, deal 4 cards each from the deck (top first), peek phase."""
        n = st.players
        st.round += 1
        st.dealer = (st.dealer + 1) % n if st.round > 1 else n - 1
        st.hands = [list(deck[GRID * s:GRID * (s + 1)]) for s in range(n)]
        st.stock = deck[GRID * n:][::-1]
        st.discard = []
        st.known = {c: 0 for hand in st.hands for c in hand if c is not None}
        st.peeked = [None] * n
        st.phase = "peek"
        st.current = (st.dealer + 1) % n
        st.step = "draw"
        st.drawn = st.drawn_from = None
        if st.window is not None:
            st.window = {**st.window, "open": False}
        st.action = None
        st.tapper = None
        st.final_turns = []
        st.turns = 0
        st.seconds = None
        if n == 1:
            self._log(st, None, "Solo round: peek at two of your cards, then play until you tap.")
        else:
            self._log(st, None, f"Round {st.round} of {st.rounds}: {_tok(st.dealer)} deals and "
                                f"{_tok(st.current)} will start. Everyone peeks at two cards.")

    def _rng(self, st: State) -> random.Random:
        """The generator of the match's next random event (reshuffles, later deals)."""
        st.rng += 1
        return random.Random(f"{st.seed}:{st.rng}")

    # ------------------------------------------------------------------------------------------------
    # Who acts, and what they may do
    # ------------------------------------------------------------------------------------------------

    def to_act(self, state: State) -> list[int]:
        """Seats that may act now: unpeeked seats; else the current player, a pending card action, slappers."""
        if state.phase == "peek":
            return [s for s in range(state.players) if state.peeked[s] is None]
        if state.phase != "play":
            return []
        seats = {state.current}
        if state.action is not None:
            seats.add(state.action["seat"])
        w = state.window
        if w is not None and w["open"] and w["winner"] is None and any(
                c is not None for hand in state.hands for c in hand):
            seats.update(s for s in range(state.players) if s not in w["attempted"])
        return sorted(seats)

    def must_act(self, state: State) -> list[int]:
        """Seats the game waits on: the unpeeked seats, then only the current player."""
        if state.phase == "peek":
            return self.to_act(state)
        if state.phase != "play":
            return []
        return [state.current]

    def legal_actions(self, state: State, seat: int) -> list[Action]:
        """Every legal action of the seat right now (peeks, the turn, its card action, its slaps)."""
        if not is_int(seat) or not 0 <= seat < state.players:
            return []
        if state.phase == "peek":
            if state.peeked[seat] is not None:
                return []
            return [{"type": "peek", "slots": [a, b]} for a in range(GRID) for b in range(a + 1, GRID)]
        if state.phase != "play":
            return []
        out: list[Action] = []
        if seat == state.current:
            hand = state.hands[seat]
            if state.step == "draw":
                if state.stock:
                    out.append({"type": "draw", "from": "stock"})
                if state.discard and any(c is not None for c in hand):
                    out.append({"type": "draw", "from": "discard"})
                if state.tapper is None:
                    out.append({"type": "tap", "seconds": 0} if state.players == 1 else {"type": "tap"})
            else:
                out.extend({"type": "swap", "slot": k} for k, c in enumerate(hand) if c is not None)
                if state.drawn_from == "stock":
                    out.append({"type": "discard"})
        act = state.action
        if act is not None and act["seat"] == seat:
            if act["stage"] == "look":
                out.extend({"type": "look", "seat": t, "slot": k} for t, k in self._look_targets(state))
            else:
                targets = self._exchange_targets(state)
                out.extend({"type": "exchange", "a": [a[0], a[1]], "b": [b[0], b[1]]}
                           for i, a in enumerate(targets) for b in targets[i + 1:])
            out.append({"type": "skip"})
        w = state.window
        if w is not None and w["open"] and w["winner"] is None and seat not in w["attempted"]:
            q = w["seq"]
            out.extend({"type": "slap", "seat": t, "slot": k, "seq": q}
                       for t, hand in enumerate(state.hands) for k, c in enumerate(hand) if c is not None)
        return out

    def _look_targets(self, st: State) -> list[Pos]:
        """The cards the pending action may look at: others' (7, 8), own (9, 10), any (Q)."""
        act = st.action
        assert act is not None
        owner = act["seat"]
        kind = act["kind"]
        return [(t, k) for t, hand in enumerate(st.hands) for k, c in enumerate(hand) if c is not None
                and (kind == "look_exchange" or (t == owner) == (kind == "look_own"))]

    @staticmethod
    def _exchange_targets(st: State) -> list[Pos]:
        """The cards a Jack or Queen may swap: every card in a hand, except the tapper's."""
        return [(t, k) for t, hand in enumerate(st.hands) if t != st.tapper
                for k, c in enumerate(hand) if c is not None]

    # ------------------------------------------------------------------------------------------------
    # Applying actions
    # ------------------------------------------------------------------------------------------------

    def apply(self, state: State, seat: int, action: Action) -> State:
        """The state after the seat's action; IllegalAction (input untouched) if the rules refuse it."""
        if not is_int(seat) or not 0 <= seat < state.players:
            raise IllegalAction(f"There is no seat {seat!r} in this game.")
        if not isinstance(action, dict):
            raise IllegalAction("An action must be an object with a type.")
        kind = action.get("type")
        handler = self._HANDLERS.get(kind) if isinstance(kind, str) else None
        if handler is None:
            raise IllegalAction(f"Unknown action type {kind!r}.")
        if kind != "slap":
            if state.phase == "over":
                raise IllegalAction("The game is over.")
            if state.phase == "peek" and kind != "peek":
                check_fields(action, *self._FIELDS[str(kind)])
                raise IllegalAction("Everyone must peek at two cards before play starts.")
        st = _copy(state)
        st.last = None
        handler(self, st, seat, action)
        return st

    _FIELDS: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
        "peek": ({"slots": list}, {}),
        "draw": ({"from": str}, {}),
        "swap": ({"slot": int}, {}),
        "discard": ({}, {}),
        "tap": ({}, {"seconds": int}),
        "look": ({"seat": int, "slot": int}, {}),
        "exchange": ({"a": list, "b": list}, {}),
        "skip": ({}, {}),
        "slap": ({"seat": int, "slot": int, "seq": int}, {}),
    }

    def _peek(self, st: State, seat: int, action: Action) -> None:
        """A seat looks at two of its four cards; play starts when every seat has peeked."""
        check_fields(action, *self._FIELDS["peek"])
        slots = action["slots"]
        if st.phase != "peek":
            raise IllegalAction("The peek is over: you may only look at your cards through a card action.")
        if st.peeked[seat] is not None:
            raise IllegalAction("You have already peeked at two cards this round.")
        if len(slots) != PEEKS or not all(is_int(k) for k in slots):
            raise IllegalAction("Peek at exactly two of your cards: give two slot numbers.")
        a, b = sorted(slots)
        if a == b:
            raise IllegalAction("Peek at two different cards.")
        if a < 0 or b >= GRID:
            raise IllegalAction("You peek at two of your four cards: slots 0 to 3.")
        hand = st.hands[seat]
        cards = [hand[a], hand[b]]
        for c in cards:
            assert c is not None
            st.known[c] |= 1 << seat
        st.peeked[seat] = [a, b]
        names = f"{slot_name(a)} and {slot_name(b)} cards"
        self._log(st, seat, f"{_tok(seat)} peeked at their {names}.",
                  {seat: f"You peeked at your {names} (the table shows them for a moment: remember them)."})
        self._set_last(st, {"type": "peek", "seat": seat, "slots": [a, b], "cards": None},
                       {seat: {"cards": list(cards)}})
        if all(p is not None for p in st.peeked):
            st.phase = "play"
            if st.players > 1:
                self._log(st, None, f"Everyone has peeked: {_tok(st.current)} starts.")
            self._start_turn(st, st.current)

    def _check_turn(self, st: State, seat: int, step: str) -> None:
        """Refuse the action unless it is the seat's turn, at the given step."""
        if seat != st.current:
            raise IllegalAction(f"It is {_tok(st.current)}'s turn, not yours.")
        if st.step != step:
            if step == "draw":
                raise IllegalAction("You have drawn a card already: swap it into your hand or discard it.")
            raise IllegalAction("Draw a card first (or tap).")

    def _draw(self, st: State, seat: int, action: Action) -> None:
        """Take the stock's or the discard pile's top card; this closes the slap window and lapses any card action."""
        check_fields(action, *self._FIELDS["draw"])
        source = action["from"]
        if source not in ("stock", "discard"):
            raise IllegalAction("Draw from the 'stock' or the 'discard' pile.")
        self._check_turn(st, seat, "draw")
        if source == "discard":
            if not st.discard:
                raise IllegalAction("The discard pile is empty.")
            if all(c is None for c in st.hands[seat]):
                raise IllegalAction("You have no card to exchange the discard pile's top card with.")
        elif not st.stock:
            raise IllegalAction("The stock is empty.")
        lapsed = self._close_window(st)
        st.turns += 1
        if source == "stock":
            card = st.stock.pop()
            st.known[card] = 1 << seat
            self._log(st, seat, f"{_tok(seat)} drew a card from the stock.",
                      {seat: f"You drew {_the(card)} from the stock."})
            self._set_last(st, {"type": "draw", "seat": seat, "from": source, "card": None, "lapsed": lapsed},
                           {seat: {"card": card}})
        else:
            card = st.discard.pop()
            st.known[card] = PUBLIC
            self._log(st, seat, f"{_tok(seat)} took {_the(card)} from the discard pile.")
            self._set_last(st, {"type": "draw", "seat": seat, "from": source, "card": card, "lapsed": lapsed})
        st.drawn = card
        st.drawn_from = source
        st.step = "place"

    def _close_window(self, st: State) -> dict[str, Any] | None:
        """A draw closes the slap window and lapses a pending card action; returns the lapsed action."""
        if st.window is not None and st.window["open"]:
            st.window = {**st.window, "open": False}
        act = st.action
        st.action = None
        if act is None:
            return None
        self._log(st, act["seat"], f"{_tok(act['seat'])}'s {card_name(act['card'])} action lapsed unused: "
                                   "the next card was drawn first.")
        return {"seat": act["seat"], "card": act["card"]}

    def _swap(self, st: State, seat: int, action: Action) -> None:
        """Exchange the drawn card with a card of the hand; the old card goes face-up onto the pile."""
        check_fields(action, *self._FIELDS["swap"])
        self._check_turn(st, seat, "place")
        k = action["slot"]
        hand = st.hands[seat]
        if not 0 <= k < len(hand) or hand[k] is None:
            raise IllegalAction(f"You have no card in slot {k} to exchange.")
        card, old = st.drawn, hand[k]
        assert card is not None and old is not None
        hand[k] = card
        st.known.pop(old)
        st.discard.append(old)
        st.drawn = None
        where = _whose(seat, k, seat)
        if st.drawn_from == "discard":
            self._log(st, seat, f"{_tok(seat)} put {_the(card)} in place of {where} and discarded {_the(old)}.")
            private = None
        else:
            self._log(st, seat, f"{_tok(seat)} put the drawn card in place of {where} and discarded {_the(old)}.",
                      {seat: f"You put {_the(card)} in place of {_whose(seat, k, seat, True)} "
                             f"and discarded {_the(old)}."})
            private = {seat: {"card": card}}
        self._set_last(st, {"type": "swap", "seat": seat, "slot": k, "from": st.drawn_from,
                            "card": card if st.drawn_from == "discard" else None, "discarded": old}, private)
        self._after_discard(st, seat, old, trigger=st.trigger == "any_discard")

    def _discard(self, st: State, seat: int, action: Action) -> None:
        """Put the card drawn from the stock straight onto the pile (7-Q: its action becomes available)."""
        check_fields(action, *self._FIELDS["discard"])
        self._check_turn(st, seat, "place")
        card = st.drawn
        assert card is not None
        if st.drawn_from != "stock":
            raise IllegalAction(f"The {card_name(card)} came from the discard pile: exchange it with one of your "
                                "cards.")
        st.known.pop(card)
        st.discard.append(card)
        st.drawn = None
        self._log(st, seat, f"{_tok(seat)} discarded {_the(card)}.")
        self._set_last(st, {"type": "discard", "seat": seat, "card": card})
        self._after_discard(st, seat, card, trigger=True)

    def _after_discard(self, st: State, seat: int, card: str, *, trigger: bool) -> None:
        """A card landed face-up: end the round after the last final turn, else open its window and action."""
        st.drawn_from = None
        assert st.last is not None
        public = st.last["public"]
        if seat in st.final_turns:
            st.final_turns.remove(seat)
            if not st.final_turns:
                public.update(seq=None, action=None)
                self._end_round(st, "tap")
                return
        st.seq += 1
        st.window = {"seq": st.seq, "card": card, "open": True, "attempted": [], "winner": None, "round": st.round}
        public.update(seq=st.seq, action=None)
        kind = ACTION_KINDS.get(RANK[card]) if trigger else None
        if kind is not None:
            st.action = {"seat": seat, "card": card, "kind": kind,
                         "stage": "exchange" if kind == "exchange" else "look", "looked": None}
            if self._action_possible(st):
                public["action"] = kind
                self._log(st, seat, f"{_tok(seat)} may {ACTION_TEXT[kind]} ({card_name(card)}) "
                                    "until the next card is drawn.")
            else:
                st.action = None
        self._start_turn(st, (seat + 1) % st.players)

    def _action_possible(self, st: State) -> bool:
        """Whether the pending card action has anything to work on."""
        act = st.action
        assert act is not None
        if act["stage"] == "look":
            return bool(self._look_targets(st))
        return len(self._exchange_targets(st)) >= 2

    def _start_turn(self, st: State, seat: int) -> None:
        """The seat is to draw (or tap); with nothing left to draw even after a reshuffle, the round ends."""
        st.current = seat
        st.step = "draw"
        self._check_stock(st)

    def _check_stock(self, st: State) -> None:
        """While a draw is awaited the stock must hold a card: reshuffle, or end the round without penalty."""
        if st.phase == "play" and st.step == "draw" and not st.stock:
            self._reshuffle(st)
            if not st.stock:
                self._log(st, None, "Nothing is left to draw: the round ends.")
                self._end_round(st, "stock")

    def _reshuffle(self, st: State) -> None:
        """The discard pile except its top card becomes the new, shuffled stock."""
        if len(st.discard) < 2:
            return
        cards = st.discard[:-1]
        st.discard = st.discard[-1:]
        self._rng(st).shuffle(cards)
        st.stock = cards
        self._log(st, None, "The discard pile but its top card was shuffled into a new stock of "
                            f"{_plural(len(cards), 'card')}.")
        if st.last is not None:
            st.last["public"]["reshuffled"] = len(cards)

    def _take_stock(self, st: State) -> str | None:
        """The top card of the stock, reshuffling first if it is empty; None if there is none at all."""
        if not st.stock:
            self._reshuffle(st)
            if not st.stock:
                return None
        return st.stock.pop()

    def _tap(self, st: State, seat: int, action: Action) -> None:
        """End the round after everyone else's last turn (solo: at once, with the elapsed seconds)."""
        check_fields(action, *self._FIELDS["tap"])
        solo = st.players == 1
        if solo and "seconds" not in action:
            raise IllegalAction("A solo tap carries the elapsed 'seconds' (the server fills them in).")
        if not solo and "seconds" in action:
            raise IllegalAction("Only a solo tap carries 'seconds'.")
        if solo and not 0 <= action["seconds"] <= MAX_SECONDS:
            raise IllegalAction("The elapsed seconds must be zero or more.")
        self._check_turn(st, seat, "draw")
        if st.tapper is not None:
            raise IllegalAction(f"{_tok(st.tapper)} has already tapped: this is your last turn.")
        st.tapper = seat
        n = st.players
        st.final_turns = [(seat + i) % n for i in range(1, n)]
        if solo:
            st.seconds = action["seconds"]
            self._log(st, seat, f"{_tok(seat)} tapped after {_plural(st.turns, 'turn')} and "
                                f"{_plural(st.seconds, 'second')}.")
            self._set_last(st, {"type": "tap", "seat": seat, "final_turns": [], "seconds": st.seconds})
            self._end_round(st, "tap")
            return
        self._log(st, seat, f"{_tok(seat)} tapped: everyone else has one more turn.")
        self._set_last(st, {"type": "tap", "seat": seat, "final_turns": list(st.final_turns)})
        self._start_turn(st, st.final_turns[0])

    def _check_action(self, st: State, seat: int, stage: str) -> dict[str, Any]:
        """The seat's pending card action, at the given stage."""
        act = st.action
        if act is None or act["seat"] != seat:
            raise IllegalAction("You have no card action to use now (it lapses when the next card is drawn).")
        if act["stage"] != stage:
            if stage == "look":
                raise IllegalAction(f"Your {card_name(act['card'])} lets you swap two cards now, not look.")
            raise IllegalAction(f"Your {card_name(act['card'])} lets you look at a card, not swap.")
        return act

    def _look(self, st: State, seat: int, action: Action) -> None:
        """The card action's look: the face becomes known to the looker only."""
        check_fields(action, *self._FIELDS["look"])
        act = self._check_action(st, seat, "look")
        t, k = action["seat"], action["slot"]
        if not 0 <= t < st.players:
            raise IllegalAction(f"There is no seat {t} in this game.")
        hand = st.hands[t]
        if not 0 <= k < len(hand) or hand[k] is None:
            raise IllegalAction(f"There is no card in slot {k} of that hand.")
        kind = act["kind"]
        if kind == "look_other" and t == seat:
            raise IllegalAction(f"A {RANK[act['card']]} looks at another player's card, not your own.")
        if kind == "look_own" and t != seat:
            raise IllegalAction(f"A {RANK[act['card']]} looks at one of your own cards.")
        card = hand[k]
        assert card is not None
        st.known[card] |= 1 << seat
        where = _whose(t, k, seat)
        self._log(st, seat, f"{_tok(seat)} looked at {where}.",
                  {seat: f"You looked at {_whose(t, k, seat, True)} (the table shows it for a moment)."})
        self._set_last(st, {"type": "look", "seat": seat, "target": [t, k], "card": None}, {seat: {"card": card}})
        if kind == "look_exchange":
            st.action = {**act, "stage": "exchange", "looked": [t, k]}
            if not self._action_possible(st):
                st.action = None
        else:
            st.action = None

    def _exchange(self, st: State, seat: int, action: Action) -> None:
        """The Jack's or Queen's blind swap of two cards on the table (not the tapper's); knowledge moves too."""
        check_fields(action, *self._FIELDS["exchange"])
        a = _parse_pos(action["a"], "a")
        b = _parse_pos(action["b"], "b")
        act = self._check_action(st, seat, "exchange")
        for t, k in (a, b):
            if not 0 <= t < st.players:
                raise IllegalAction(f"There is no seat {t} in this game.")
            if not 0 <= k < len(st.hands[t]) or st.hands[t][k] is None:
                raise IllegalAction(f"There is no card in slot {k} of {_tok(t)}'s hand.")
            if t == st.tapper:
                raise IllegalAction(f"{_tok(t)} has tapped: their cards can't be exchanged.")
        if a == b:
            raise IllegalAction("Swap two different cards.")
        (ta, ka), (tb, kb) = a, b
        st.hands[ta][ka], st.hands[tb][kb] = st.hands[tb][kb], st.hands[ta][ka]
        st.action = None
        self._log(st, seat, f"{_tok(seat)} swapped {_whose(ta, ka, seat)} with {_whose(tb, kb, seat)} "
                            f"({card_name(act['card'])}).")
        self._set_last(st, {"type": "exchange", "seat": seat, "a": [ta, ka], "b": [tb, kb]})

    def _skip(self, st: State, seat: int, action: Action) -> None:
        """Give up the pending card action."""
        check_fields(action, *self._FIELDS["skip"])
        act = st.action
        if act is None or act["seat"] != seat:
            raise IllegalAction("You have no card action to skip.")
        st.action = None
        self._log(st, seat, f"{_tok(seat)} let the {card_name(act['card'])} action go.")
        self._set_last(st, {"type": "skip", "seat": seat, "card": act["card"]})

    def _slap(self, st: State, seat: int, action: Action) -> None:
        """A slap onto the open window's discard: settled in arrival order, late ones refused without penalty."""
        check_fields(action, *self._FIELDS["slap"])
        t, k, q = action["seat"], action["slot"], action["seq"]
        if not 1 <= q <= st.seq:
            if st.seq == 0:
                raise IllegalAction("Nothing has been discarded yet: there is nothing to slap.")
            raise IllegalAction(f"There is no discard number {q}; the latest is {st.seq}.")
        w = st.window
        if w is None or w["seq"] != q or not w["open"] or w["winner"] is not None:
            won = st.slapped.get(str(q))
            if won is not None:
                raise SlapTooLate(f"Too late: {_the(won[1])} was already slapped by {_tok(won[0])}.", won[0])
            if w is not None and w["seq"] == q:
                raise SlapTooLate(f"Too late: {_the(w['card'])} can't be slapped any more.")
            raise SlapTooLate("Too late: that discard can't be slapped any more.")
        top = w["card"]
        if seat in w["attempted"]:
            raise IllegalAction(f"You have already slapped on {_the(top)}: one attempt per discard.")
        if not 0 <= t < st.players:
            raise IllegalAction(f"There is no seat {t} in this game.")
        hand = st.hands[t]
        if not 0 <= k < len(hand) or hand[k] is None:
            owner = "your" if t == seat else f"{_tok(t)}'s"
            raise IllegalAction(f"There is no card in slot {k} of {owner} hand.")
        card = hand[k]
        assert card is not None
        w["attempted"].append(seat)
        own = t == seat
        where = _whose(t, k, seat)
        dealt: list[list[int]] = []
        match = RANK[card] == RANK[top]
        self._set_last(st, {"type": "slap", "seat": seat, "target": [t, k], "seq": q, "card": card, "onto": top,
                            "match": match, "dealt": dealt})
        log_at = len(st.log)  # the slap comes before any reshuffle its penalty cards cause
        if match:
            w["winner"] = seat
            st.slapped[str(q)] = [seat, top]
            hand[k] = None
            st.known.pop(card)
            st.discard.append(card)
            if own:
                text = f"{_tok(seat)} slapped {where}, {_the(card)}, onto {_the(top)}: a match, one card fewer."
            else:
                for i in range(2):
                    slot = self._give(st, t, k if i == 0 else None)
                    if slot is not None:
                        dealt.append([t, slot])
                text = (f"{_tok(seat)} slapped {where}, {_the(card)}, onto {_the(top)}: a match, "
                        f"so {_tok(t)} gets {self._cards(len(dealt))} from the stock.")
        else:
            st.known[card] = PUBLIC
            for _ in range(1 if own else 2):
                slot = self._give(st, seat, None)
                if slot is not None:
                    dealt.append([seat, slot])
            text = (f"{_tok(seat)} slapped {where}, {_the(card)}, onto {_the(top)}: no match. It goes back "
                    f"and {_tok(seat)} takes {self._cards(len(dealt))} from the stock.")
        self._log(st, seat, text)
        st.log.insert(log_at, st.log.pop())
        self._check_stock(st)

    @staticmethod
    def _cards(n: int) -> str:
        """'one card', 'two cards', 'no card'."""
        return ("no card", "one card", "two cards")[n]

    def _give(self, st: State, seat: int, slot: int | None) -> int | None:
        """Deal an unseen card from the stock into the slot (else the first empty slot, else a new one)."""
        card = self._take_stock(st)
        if card is None:
            return None
        hand = st.hands[seat]
        if slot is None:
            slot = hand.index(None) if None in hand else len(hand)
        if slot == len(hand):
            hand.append(card)
        else:
            hand[slot] = card
        st.known[card] = 0
        return slot

    _HANDLERS: dict[str, Any] = {
        "peek": _peek, "draw": _draw, "swap": _swap, "discard": _discard, "tap": _tap,
        "look": _look, "exchange": _exchange, "skip": _skip, "slap": _slap,
    }

    # ------------------------------------------------------------------------------------------------
    # Rounds and scores
    # ------------------------------------------------------------------------------------------------

    def _end_round(self, st: State, reason: str) -> None:
        """Score the round with every hand open, add to the totals, then deal the next round or finish."""
        n = st.players
        points = [hand_points(h) for h in st.hands]
        penalties = [TAP_PENALTY if s == st.tapper and points[s] >= TAP_LIMIT else 0 for s in range(n)]
        round_scores = [points[s] + penalties[s] for s in range(n)]
        st.totals = [st.totals[s] + round_scores[s] for s in range(n)]
        if st.window is not None and st.window["open"]:
            st.window = {**st.window, "open": False}
        st.action = None
        entry: dict[str, Any] = {
            "round": st.round, "dealer": st.dealer, "tapper": st.tapper, "ended_by": reason,
            "hands": [list(h) for h in st.hands], "points": points, "penalties": penalties,
            "scores": round_scores, "totals": list(st.totals),
        }
        if n == 1:
            st.solo = solo_score(points[0], st.turns, st.seconds)
            entry["solo"] = {"turns": st.turns, "seconds": st.seconds, "score": st.solo}
            self._log(st, None, f"The round is over: {_tok(0)} has {_plural(points[0], 'point')} after "
                                f"{_plural(st.turns, 'turn')}: solo score {st.solo}.")
        else:
            parts = []
            for s in range(n):
                extra = f" ({points[s]} + {TAP_PENALTY} tap penalty)" if penalties[s] else ""
                parts.append(f"{_tok(s)} {round_scores[s]}{extra}")
            self._log(st, None, f"Round {st.round} is over: " + ", ".join(parts) + ".")
        st.history.append(entry)
        if st.last is not None:
            st.last["public"]["round_over"] = st.round
        if st.round >= st.rounds:
            st.phase = "over"
            st.drawn = st.drawn_from = None
            if n > 1:
                low = min(st.totals)
                winners = [s for s in range(n) if st.totals[s] == low]
                self._log(st, None, "The match is over: " + " and ".join(_tok(s) for s in winners)
                          + (" share the win" if len(winners) > 1 else " wins") + f" with {low} points.")
            return
        deck = standard_deck()
        self._rng(st).shuffle(deck)
        self._deal_round(st, deck)

    def scores(self, state: State) -> list[int]:
        """The running totals (lowest wins); solo: the solo score once the round is over, else 0."""
        if state.players == 1:
            return [state.solo or 0]
        return list(state.totals)

    def is_over(self, state: State) -> bool:
        """Whether the last round has been scored."""
        return state.phase == "over"

    def result(self, state: State) -> dict[str, Any]:
        """Once over: the totals, the seats with the lowest total (a shared win), draw if all of them tie."""
        if state.phase != "over":
            raise IllegalAction("The game is not over yet.")
        if state.players == 1:
            return {"scores": [state.solo or 0], "winners": [0], "draw": False}
        low = min(state.totals)
        winners = [s for s in range(state.players) if state.totals[s] == low]
        return {"scores": list(state.totals), "winners": winners, "draw": len(winners) == state.players}

    # ------------------------------------------------------------------------------------------------
    # Log, last and views
    # ------------------------------------------------------------------------------------------------

    @staticmethod
    def _log(st: State, seat: int | None, text: str, private: dict[int, str] | None = None) -> None:
        """Add a log line; `private` gives the wording some seats see instead (with what only they know)."""
        st.log.append([seat, text, None if private is None else {str(s): t for s, t in private.items()}])

    @staticmethod
    def _set_last(st: State, public: dict[str, Any], private: dict[int, dict[str, Any]] | None = None) -> None:
        """Record the last action for the views: what everyone sees, plus per-seat overrides."""
        st.last = {"public": public, "private": {} if private is None else {str(s): p for s, p in private.items()}}

    @staticmethod
    def _knows(mask: int, seat: int | None) -> bool:
        """Whether a seat (None: a spectator) may see a card with this knowledge mask."""
        return bool(mask & PUBLIC) or (seat is not None and bool(mask & (1 << seat)))

    def view(self, state: State, seat: int | None) -> View:
        """Everything the seat may know (None: a spectator), JSON-ready."""
        if seat is not None and (not is_int(seat) or not 0 <= seat < state.players):
            raise IllegalAction(f"There is no seat {seat!r} in this game.")
        st = state
        n = st.players
        key = None if seat is None else str(seat)
        over = st.phase == "over"
        everyone = list(range(n))
        hands = []
        for s, hand in enumerate(st.hands):
            slots: list[dict[str, Any]] = []
            for c in hand:
                if c is None:
                    slots.append({"card": None, "empty": True, "seen_by": []})
                    continue
                mask = PUBLIC if over else st.known[c]
                seen = everyone if mask & PUBLIC else [v for v in everyone if mask & (1 << v)]
                slots.append({"card": c if self._knows(mask, seat) else None, "empty": False, "seen_by": seen})
            peeked = st.peeked[s]
            hands.append({"seat": s, "slots": slots, "cards": sum(c is not None for c in hand),
                          "peeked": None if peeked is None else list(peeked), "tapped": st.tapper == s})
        drawn = None
        if st.drawn is not None:
            drawn = {"seat": st.current, "from": st.drawn_from,
                     "card": st.drawn if self._knows(st.known[st.drawn], seat) else None}
        w = st.window
        window = None
        if w is not None and w["round"] == st.round:  # a past round's window is kept only for late slaps
            window = {"seq": w["seq"], "card": w["card"], "open": w["open"] and st.phase == "play",
                      "attempted": list(w["attempted"]), "won_by": w["winner"],
                      "can_slap": bool(seat is not None and w["open"] and w["winner"] is None
                                       and seat not in w["attempted"] and st.phase == "play")}
        act = st.action
        action = None
        if act is not None:
            action = {"seat": act["seat"], "card": act["card"], "kind": act["kind"], "stage": act["stage"],
                      "looked": None if act["looked"] is None else list(act["looked"])}
        last = None
        if st.last is not None:
            # A deep copy: a caller that edits its view (a presenter) must not edit the game behind it.
            last = json_copy(st.last["public"])
            if key is not None and key in st.last["private"]:
                last.update(json_copy(st.last["private"][key]))
        log = [{"seat": e[0], "text": e[2][key] if e[2] is not None and key in e[2] else e[1]} for e in st.log]
        own_points = None
        if seat is not None:
            known_cards: list[str | None] = [c for c in st.hands[seat]
                                             if c is not None and self._knows(st.known[c], seat)]
            own_points = {"known": hand_points(known_cards), "known_cards": len(known_cards),
                          "unknown_cards": sum(c is not None for c in st.hands[seat]) - len(known_cards)}
        solo = None
        if n == 1:
            solo = {"turns": st.turns, "seconds": st.seconds, "score": st.solo,
                    "points": hand_points(st.hands[0]) if over else None}
        return {
            "game": self.slug,
            "players": n,
            "seat": seat,
            "to_act": self.to_act(st),
            "must_act": self.must_act(st),
            "scores": self.scores(st),
            "over": over,
            "result": self.result(st) if over else None,
            "legal": [] if seat is None else self.legal_actions(st, seat),
            "log": log,
            "last": last,
            "options": {"rounds": st.rounds, "action_trigger": st.trigger},
            "round": st.round,
            "rounds": st.rounds,
            "dealer": st.dealer,
            "phase": st.phase,
            "current": st.current if st.phase == "play" else None,
            "turns": st.turns,
            "step": st.step if st.phase == "play" else None,
            "hands": hands,
            "drawn": drawn,
            "discard": {"top": st.discard[-1] if st.discard else None, "count": len(st.discard),
                        "cards": list(st.discard), "seq": st.seq or None},
            "stock": len(st.stock),
            "window": window,
            "action": action,
            "tap": None if st.tapper is None else {"seat": st.tapper, "final_turns": list(st.final_turns)},
            "totals": list(st.totals),
            "rounds_played": [{"round": h["round"], "scores": list(h["scores"]), "points": list(h["points"]),
                               "penalties": list(h["penalties"]), "tapper": h["tapper"],
                               "ended_by": h["ended_by"]} for h in st.history],
            "last_round": json_copy(st.history[-1]) if st.history else None,
            "my_points": own_points,
            "solo": solo,
        }

    # ------------------------------------------------------------------------------------------------
    # Persistence
    # ------------------------------------------------------------------------------------------------

    def dump(self, state: State) -> dict[str, Any]:
        """The state as plain JSON data."""
        st = state
        return {
            "players": st.players, "seed": st.seed, "rounds": st.rounds, "trigger": st.trigger, "rng": st.rng,
            "round": st.round, "dealer": st.dealer, "phase": st.phase,
            "hands": [list(h) for h in st.hands], "stock": list(st.stock), "discard": list(st.discard),
            "known": dict(st.known), "peeked": [None if p is None else list(p) for p in st.peeked],
            "current": st.current, "step": st.step, "drawn": st.drawn, "drawn_from": st.drawn_from,
            "seq": st.seq, "window": json_copy(st.window), "action": json_copy(st.action),
            "tapper": st.tapper, "final_turns": list(st.final_turns), "turns": st.turns, "seconds": st.seconds,
            "totals": list(st.totals), "history": json_copy(st.history), "slapped": json_copy(st.slapped),
            "log": json_copy(st.log), "last": json_copy(st.last), "solo": st.solo,
        }

    def load(self, data: dict[str, Any]) -> State:
        """The state from dump()'s data."""
        return State(**json_copy(data))


ENGINE: Engine[State] = ColumboEngine()  # mypy checks the engine keeps the contract
