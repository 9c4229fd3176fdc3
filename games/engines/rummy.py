"""Rummy (Rommé) for two: the rules engine (see shared/rules/rummy.md).

Two 52-card decks and four jokers; players draw, lay down sets and runs (the first lay-down worth at least
40 in one action, from a player's second turn on), add single cards to any pack, and discard; whoever
discards their last card wins. Standard library only; `apply` never mutates its input.

Packs on the table are numbered from 0 in the order they were laid; an add action's "pack" is that number.
A run's places are numbered 1 (the low ace) to 14 (the high ace); 2..13 are the cards 2..K.

Points the rules file leaves open, as settled here:
- A set may hold two jokers even beside a single natural card (K♥ + two black jokers); a set's joker stands
  for any missing suit of its colour, and adding a natural card of such a suit always frees it.
- A run may hold both aces only as the full run A..K..A (14 cards).
- An add's "end" is required exactly when the place is open to choice: a joker on a run, or an ace that
  could go at either end of a run (a run from 2 to K, or one whose other ace place holds a joker);
  anywhere else it is refused.
- A lay-down's packs may come in any order (laid in that order) and a set's cards in any order; runs are
  ascending. legal_actions lists each distinct lay-down once, in a fixed order.
- The stock is refilled right after the draw that empties it; it can never run dry (see _refill).
- Safeguard: after STALEMATE_ROUNDS full rounds in a row without a card reaching the table the game is a
  draw, so every game ends. A drawn game scores 0 for both.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from .base import (
    JOKERS,
    RANKS,
    SUIT_NAMES,
    SUITS,
    Action,
    Engine,
    IllegalAction,
    View,
    card_name,
    check_fields,
    json_copy,
)

PLAYERS = 2
HAND_SIZE = 13
MAX_SET = 4
MAX_RUN = 14
MAX_SET_JOKERS = 2
MAX_NEW_RUN_JOKERS = 1
JOKER_PENALTY = 20
# Safeguard (not in the original rules): a game in which no card reaches the table for this many full
# rounds in a row is a draw, so every game ends (cards on the table never leave it, so this bounds a game).
STALEMATE_ROUNDS = 50
MIN_FIRST_MELD_RANGE = (0, 120)

RANK_POS: dict[str, int] = {rank: i + 1 for i, rank in enumerate(RANKS)}  # A=1, 2=2, ..., K=13
POS_RANK: dict[int, str] = {**{i + 1: rank for i, rank in enumerate(RANKS)}, 14: "A"}
SUIT_JOKER: dict[str, str] = {"C": "XB", "S": "XB", "D": "XR", "H": "XR"}
JOKER_SUITS: dict[str, tuple[str, str]] = {"XR": ("D", "H"), "XB": ("C", "S")}
SUIT_INDEX: dict[str, int] = {suit: i for i, suit in enumerate(SUITS)}
NATURALS: tuple[str, ...] = tuple(rank + suit for suit in SUITS for rank in RANKS)
ALL_CODES: frozenset[str] = frozenset((*NATURALS, *JOKERS))
# Rank and suit of every natural code, looked up instead of sliced in the hot paths.
RANK: dict[str, str] = {rank + suit: rank for suit in SUITS for rank in RANKS}
SUIT: dict[str, str] = {rank + suit: suit for suit in SUITS for rank in RANKS}
DRAW_SOURCES = ("stock", "discard")
ENDS = ("low", "high")


def full_deck() -> list[str]:
    """The 108 codes of the game: every natural card twice and two jokers of each colour."""
    return [*NATURALS, *NATURALS, "XR", "XR", "XB", "XB"]


def card_key(card: str) -> tuple[int, int]:
    """Sort key for hands and sets: by suit, then rank; jokers last (red before black)."""
    if card in JOKER_SUITS:
        return (4, 0 if card == "XR" else 1)
    return (SUIT_INDEX[SUIT[card]], RANK_POS[RANK[card]])


def rank_value(rank: str) -> int:
    """A rank's value in a set or in a hand: 2-10 their number, J Q K and A 10."""
    return 10 if rank in ("A", "J", "Q", "K") else int(rank)


def place_value(place: int) -> int:
    """The value of a run place: the low ace 1, 2-10 their number, J Q K and the high ace 10."""
    return place if place <= 10 else 10


def card_penalty(card: str) -> int:
    """Penalty points of a card left in hand: its value, jokers 20."""
    return JOKER_PENALTY if card in JOKER_SUITS else rank_value(RANK[card])


def card_places(card: str) -> tuple[int, ...]:
    """The run places a natural card can take: an ace 1 or 14, any other card its rank."""
    rank = RANK[card]
    return (1, 14) if rank == "A" else (RANK_POS[rank],)


def is_code(value: object) -> bool:
    """Whether value is one of the game's card codes (jokers included)."""
    return isinstance(value, str) and value in ALL_CODES


def describe_cards(cards: list[str] | tuple[str, ...]) -> str:
    """A pack's cards as people write them: "2♣ 3♣ black joker 5♣"."""
    return " ".join(card_name(card) for card in cards)


def join_words(parts: list[str]) -> str:
    """"a", "a and b", "a, b and c"."""
    if len(parts) <= 1:
        return "".join(parts)
    return ", ".join(parts[:-1]) + " and " + parts[-1]


# ---------------------------------------------------------------------------------------------------------
# Packs
# ---------------------------------------------------------------------------------------------------------

@dataclass
class Pack:
    """A pack on the table. Runs keep their cards in ascending order from place `low`; sets by suit, jokers last.

    A Pack is never changed once built (adding a card makes a new one), so states can share them."""

    kind: str  # "set" | "run"
    cards: list[str]
    owner: int
    low: int = 0  # runs: the place of cards[0] (1..14); sets: 0
    key: str = field(init=False, repr=False, compare=False)  # a set's rank or a run's suit
    _accepts: dict[str, list[tuple[str | None, int]]] | None = field(
        default=None, init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        natural = next(card for card in self.cards if card not in JOKER_SUITS)
        self.key = RANK[natural] if self.kind == "set" else SUIT[natural]

    @property
    def high(self) -> int:
        """A run's highest place."""
        return self.low + len(self.cards) - 1

    @property
    def naturals(self) -> list[str]:
        """The pack's cards that are not jokers."""
        return [card for card in self.cards if card not in JOKER_SUITS]

    @property
    def rank(self) -> str:
        """A set's rank (a set always holds a natural card)."""
        return self.key

    @property
    def suit(self) -> str:
        """A run's suit (a run always holds natural cards)."""
        return self.key

    @property
    def value(self) -> int:
        """What the pack is worth: jokers count as the card they stand for."""
        if self.kind == "set":
            return rank_value(self.key) * len(self.cards)
        return sum(place_value(place) for place in range(self.low, self.high + 1))

    @property
    def full(self) -> bool:
        """A set of 4 or a run of 14 takes no more cards (a joker in it can still be freed)."""
        return len(self.cards) == (MAX_SET if self.kind == "set" else MAX_RUN)

    def label(self, index: int) -> str:
        """"pack 3 (4♥ 5♥ 6♥)": people count packs from 1 (the action's "pack" field counts from 0)."""
        return f"pack {index + 1} ({describe_cards(self.cards)})"

    def accepts(self) -> dict[str, list[tuple[str | None, int]]]:
        """Every card that can join the pack -> its placements (see add_placements); computed once."""
        if self._accepts is None:
            self._accepts = _accepts(self)
        return self._accepts


def _set_jokers_fit(naturals: list[str], jokers: list[str]) -> bool:
    """Whether the jokers can stand for different missing suits of their own colour beside these naturals."""
    suits = {SUIT[card] for card in naturals}
    for joker, colour_suits in JOKER_SUITS.items():
        missing = sum(1 for suit in colour_suits if suit not in suits)
        if jokers.count(joker) > missing:
            return False
    return True


def _new_set(cards: list[str], owner: int) -> Pack:
    """Check cards as a new set (any order) and build it; IllegalAction says what is wrong."""
    shown = describe_cards(cards)
    naturals = [card for card in cards if card not in JOKER_SUITS]
    jokers = [card for card in cards if card in JOKER_SUITS]
    if len(cards) > MAX_SET:
        raise IllegalAction(f"{shown} is not a set: a set has 3 or 4 cards.")
    if len({SUIT[card] for card in naturals}) != len(naturals):
        raise IllegalAction(f"{shown} is not a set: the cards of a set are all of different suits.")
    if len(jokers) > MAX_SET_JOKERS:
        raise IllegalAction(f"{shown} is not a set: a set holds at most 2 jokers.")
    if not _set_jokers_fit(naturals, jokers):
        raise IllegalAction(
            f"{shown} is not a set: each joker stands for a different missing suit of its own colour "
            "(red for ♥ or ♦, black for ♣ or ♠)."
        )
    return Pack("set", sorted(cards, key=card_key), owner)


def _new_run(cards: list[str], owner: int) -> Pack:
    """Check cards as a new run (ascending, jokers in their places) and build it."""
    shown = describe_cards(cards)
    naturals = [card for card in cards if card not in JOKER_SUITS]
    suit = SUIT[naturals[0]]
    jokers = [card for card in cards if card in JOKER_SUITS]
    if len(jokers) > MAX_NEW_RUN_JOKERS:
        raise IllegalAction(f"{shown} is not a run you can lay: a new run may hold only one joker.")
    for joker in jokers:
        if suit not in JOKER_SUITS[joker]:
            raise IllegalAction(
                f"{shown} is not a run: the {card_name(joker)} can't stand in a run of {SUIT_NAMES[suit]}; "
                "a joker must match the run's colour."
            )
    lows: set[int] | None = None
    for index, card in enumerate(cards):
        if card in JOKER_SUITS:
            continue
        starts = {place - index for place in card_places(card)}
        lows = starts if lows is None else lows & starts
    lows = {low for low in lows or set() if low >= 1 and low + len(cards) - 1 <= MAX_RUN}
    if len(lows) != 1:
        raise IllegalAction(
            f"{shown} is not a run: a run is an unbroken sequence of one suit in ascending order, with a joker "
            "in the place it stands for (A-2-3 and Q-K-A are runs, K-A-2 is not)."
        )
    return Pack("run", list(cards), owner, lows.pop())


def new_pack(cards: list[str], owner: int) -> Pack:
    """Check a list of codes as a new pack to lay down (a set or a run) and build it."""
    if len(cards) < 3:
        raise IllegalAction(f"{describe_cards(cards) or 'An empty pack'} is not a pack: a pack has at least 3 cards.")
    naturals = [card for card in cards if card not in JOKER_SUITS]
    if not naturals:
        raise IllegalAction("A pack can't be made of jokers alone.")
    if len({RANK[card] for card in naturals}) == 1:
        return _new_set(cards, owner)
    if len({SUIT[card] for card in naturals}) == 1:
        return _new_run(cards, owner)
    raise IllegalAction(
        f"{describe_cards(cards)} is not a pack: a set is one rank in different suits, a run one suit in sequence."
    )


def _accepts(pack: Pack) -> dict[str, list[tuple[str | None, int]]]:
    """Every card that can join the pack, with its placements (the "end" to name or None, run place or 0)."""
    out: dict[str, list[tuple[str | None, int]]] = {}
    cards = pack.cards
    if pack.kind == "set":
        present = {SUIT[c] for c in cards if c not in JOKER_SUITS}
        jokers = [c for c in cards if c in JOKER_SUITS]
        for suit in SUITS:
            if suit not in present and (SUIT_JOKER[suit] in jokers or len(cards) < MAX_SET):
                out[pack.key + suit] = [(None, 0)]
        if len(cards) < MAX_SET and len(jokers) < MAX_SET_JOKERS:
            naturals = [c for c in cards if c not in JOKER_SUITS]
            for joker in JOKER_SUITS:
                if _set_jokers_fit(naturals, [*jokers, joker]):
                    out[joker] = [(None, 0)]
        return out
    low, high, suit = pack.low, pack.high, pack.key
    places = [place for place in (low - 1, high + 1) if 1 <= place <= MAX_RUN]
    places += [low + i for i, c in enumerate(cards) if c in JOKER_SUITS]
    for place in sorted(places):
        out.setdefault(POS_RANK[place] + suit, []).append((None, place))
    for card, found in out.items():
        if len(found) == 2:  # an ace that could take either end: the action names it
            out[card] = [("low", found[0][1]), ("high", found[1][1])]
    ends: list[tuple[str | None, int]] = [("low", low - 1)] if low > 1 else []
    if high < MAX_RUN:
        ends.append(("high", high + 1))
    if ends:
        out[SUIT_JOKER[suit]] = ends
    return out


def add_placements(pack: Pack, card: str) -> list[tuple[str | None, int]]:
    """Every way the card can join the pack, as (the "end" the action must name or None, run place or 0).

    A run's natural card has one place except an ace on a run of 2..K (or one whose free ace place is
    held by a joker), which names its end; a joker on a run always names its end. Sets need no end.
    """
    return pack.accepts().get(card, [])


def _why_not(pack: Pack, card: str, index: int) -> str:
    """A sentence saying why the card can't join the pack."""
    where = f"The {card_name(card)} can't go on {pack.label(index)}"
    if pack.kind == "set":
        if card in JOKER_SUITS:
            if len(pack.cards) >= MAX_SET:
                return f"{where}: the set is full."
            if sum(1 for c in pack.cards if c in JOKER_SUITS) >= MAX_SET_JOKERS:
                return f"{where}: a set holds at most 2 jokers."
            return f"{where}: no missing suit of its colour is left for it to stand for."
        if RANK[card] != pack.rank:
            return f"{where}: a set is one rank."
        if any(SUIT[c] == SUIT[card] for c in pack.naturals):
            return f"{where}: the set already holds a {SUIT_NAMES[SUIT[card]][:-1]}."
        return f"{where}: the set is full."
    if card in JOKER_SUITS:
        if pack.suit not in JOKER_SUITS[card]:
            return f"{where}: a joker must match the run's colour."
        return f"{where}: the run is full."
    if SUIT[card] != pack.suit:
        return f"{where}: a run is one suit."
    return f"{where}: it doesn't continue either end of the run or take a joker's place."


def add_card(pack: Pack, card: str, place: int) -> tuple[Pack, str | None]:
    """The pack with the card added at the place add_placements gave; and the joker it frees, if any."""
    cards = list(pack.cards)
    if pack.kind == "set":
        freed = None
        if card not in JOKER_SUITS and SUIT_JOKER[SUIT[card]] in cards:
            freed = SUIT_JOKER[SUIT[card]]
            cards.remove(freed)
        cards.append(card)
        return Pack("set", sorted(cards, key=card_key), pack.owner), freed
    low = pack.low
    if place < low:
        return Pack("run", [card, *cards], pack.owner, low - 1), None
    if place > pack.high:
        return Pack("run", [*cards, card], pack.owner, low), None
    freed = cards[place - low]
    cards[place - low] = card
    return Pack("run", cards, pack.owner, low), freed


def frees_joker(pack: Pack, card: str, place: int) -> bool:
    """Whether adding the card at that place (as add_placements gave it) frees a joker, so the hand keeps its
    size: a player's last card may join a pack only then, for a card must be left to discard."""
    if card in JOKER_SUITS:
        return False
    if pack.kind == "set":
        return SUIT_JOKER[SUIT[card]] in pack.cards
    return pack.low <= place <= pack.high


def joker_stands(pack: Pack) -> list[dict[str, Any]]:
    """What each joker of a pack stands for: {"at": index, "rank": ..., "suits": [...]} (a set's joker may
    stand for either missing suit of its colour until one is added)."""
    out: list[dict[str, Any]] = []
    if pack.kind == "set":
        present = {SUIT[c] for c in pack.naturals}
        for at, card in enumerate(pack.cards):
            if card in JOKER_SUITS:
                suits = [s for s in JOKER_SUITS[card] if s not in present]
                out.append({"at": at, "rank": pack.rank, "suits": sorted(suits, key=SUITS.index)})
        return out
    for at, card in enumerate(pack.cards):
        if card in JOKER_SUITS:
            out.append({"at": at, "rank": POS_RANK[pack.low + at], "suits": [pack.suit]})
    return out


def pack_short(pack: Pack) -> str:
    """A pack in rank notation, for bots' reasons: "K-K-K", "2-3-joker-5 of clubs"."""
    if pack.kind == "set":
        return "-".join("joker" if c in JOKER_SUITS else RANK[c] for c in pack.cards)
    ranks = "-".join("joker" if c in JOKER_SUITS else POS_RANK[pack.low + i] for i, c in enumerate(pack.cards))
    return f"{ranks} of {SUIT_NAMES[pack.suit]}"


# ---------------------------------------------------------------------------------------------------------
# Enumerating lay-downs: every distinct pack a hand can form, then every multiset of disjoint packs.
# ---------------------------------------------------------------------------------------------------------

Candidate = tuple[tuple[str, ...], int, int, int]  # cards, value, multiset used (bit-packed), size

# Multisets of cards as integers: 3 bits per code (counts 0..2 in the low two bits, a guard bit on top),
# so "does this pack still fit in what is left" is one subtraction and one mask.
CODE_SHIFT: dict[str, int] = {code: 3 * i for i, code in enumerate((*NATURALS, *JOKERS))}
GUARD: int = sum(4 << shift for shift in CODE_SHIFT.values())
BIT: dict[str, int] = {code: 1 << shift for code, shift in CODE_SHIFT.items()}
# The code at each run place of each suit ("" at place 0).
RUN_CODES: dict[str, list[str]] = {
    suit: ["", *(POS_RANK[place] + suit for place in range(1, MAX_RUN + 1))] for suit in SUITS
}


def multiset(cards: list[str] | tuple[str, ...] | dict[str, int]) -> int:
    """The bit-packed multiset of the cards (or of a code -> count mapping)."""
    if isinstance(cards, dict):
        return sum(count << CODE_SHIFT[code] for code, count in cards.items())
    return sum(BIT[code] for code in cards)


def candidate_packs(counts: dict[str, int], max_size: int = MAX_RUN) -> list[Candidate]:
    """Every distinct new pack the cards in counts can form (sets as subsets of suits plus fitting jokers,
    runs with at most one joker in each possible place), at most max_size cards, in a fixed order."""
    out: list[Candidate] = []
    nxr, nxb = counts.get("XR", 0), counts.get("XB", 0)
    by_rank: dict[str, list[str]] = {}
    by_suit: dict[str, list[int]] = {}
    for code in counts:
        if code in JOKER_SUITS:
            continue
        by_rank.setdefault(RANK[code], []).append(SUIT[code])
        by_suit.setdefault(SUIT[code], []).extend(card_places(code))
    spare = min(MAX_SET_JOKERS, nxr + nxb)
    for rank in RANKS:
        present = by_rank.get(rank)
        if present is None or len(present) + spare < 3:
            continue
        present.sort(key=SUIT_INDEX.__getitem__)
        value = rank_value(rank)
        for mask in range(1, 1 << len(present)):
            suits = [present[i] for i in range(len(present)) if mask >> i & 1]
            red = sum(1 for s in suits if s in ("D", "H"))
            black = len(suits) - red
            for jr in range(min(nxr, 2 - red) + 1):
                for jb in range(min(nxb, 2 - black) + 1):
                    size = len(suits) + jr + jb
                    if jr + jb > MAX_SET_JOKERS or size < 3 or size > MAX_SET or size > max_size:
                        continue
                    cards = (*(rank + s for s in suits), *("XR",) * jr, *("XB",) * jb)
                    out.append((cards, value * size, multiset(cards), size))
    for suit in SUITS:
        places = by_suit.get(suit)
        if places is None or len(places) < 2:
            continue
        joker = SUIT_JOKER[suit]
        has_joker = counts.get(joker, 0) > 0
        joker_bit = BIT[joker]
        codes = RUN_CODES[suit]
        have = [False] * (MAX_RUN + 2)
        for place in places:
            have[place] = True
        first = max(1, min(places) - (1 if has_joker else 0))
        for low in range(first, min(max(places), MAX_RUN - 2) + 1):
            missing = 0
            hole = 0
            total = 0
            bits = 0  # the natural cards of the window
            # A run from the low ace to the high ace holds 14 cards: never a lay-down (one card is kept).
            for high in range(low, min(MAX_RUN if low > 1 else MAX_RUN - 1, low + max_size - 1) + 1):
                if have[high]:
                    bits += BIT[codes[high]]
                else:
                    missing += 1
                    hole = high
                    if missing > 1 or not has_joker:
                        break
                total += place_value(high)
                size = high - low + 1
                if size < 3:
                    continue
                if missing:
                    cards = tuple(joker if place == hole else codes[place] for place in range(low, high + 1))
                    out.append((cards, total, bits + joker_bit, size))
                    continue
                naturals = tuple(codes[low:high + 1])
                out.append((naturals, total, bits, size))
                if has_joker:
                    for at in range(size):
                        cards = (*naturals[:at], joker, *naturals[at + 1:])
                        out.append((cards, total, bits - BIT[naturals[at]] + joker_bit, size))
    return out


def _value_bound(hand: list[str]) -> list[int]:
    """bound[k]: the most k of the hand's cards can be worth in packs (each card at most 10)."""
    top = sorted((10 if c in JOKER_SUITS else rank_value(RANK[c]) for c in hand), reverse=True)
    bound = [0] * (len(hand) + 1)
    for i, v in enumerate(top):
        bound[i + 1] = bound[i] + v
    return bound


def enumerate_melds(hand: list[str], min_value: int) -> list[tuple[tuple[tuple[str, ...], ...], int]]:
    """Every distinct lay-down of the hand: a multiset of disjoint new packs leaving at least one card in
    hand, worth at least min_value together; with its value. Each multiset comes once, packs in a fixed order.

    Depth-first over the candidate packs in order, a pack never followed by an earlier one (so each multiset
    is made once); each level keeps only the candidates that still fit, since what is left only shrinks."""
    limit = len(hand) - 1
    if limit < 3:
        return []
    counts = dict(Counter(hand))
    pool = candidate_packs(counts, limit)
    out: list[tuple[tuple[tuple[str, ...], ...], int]] = []
    chosen: list[tuple[str, ...]] = []
    bound = _value_bound(hand)

    def search(pool: list[Candidate], rest: int, room: int, value: int) -> None:
        for i, (cards, worth, usage, size) in enumerate(pool):
            left = rest - usage
            now = value + worth
            chosen.append(cards)
            if now >= min_value:
                out.append((tuple(chosen), now))
            space = room - size
            if space >= 3 and now + bound[space] >= min_value:
                guarded = left | GUARD
                deeper = [c for c in pool[i:] if c[3] <= space and (guarded - c[2]) & GUARD == GUARD]
                if deeper:
                    search(deeper, left, space, now)
            chosen.pop()

    search(pool, multiset(counts), limit, 0)
    return out


def best_meld(hand: list[str], keep: int = 1) -> tuple[tuple[tuple[str, ...], ...], int]:
    """The most valuable multiset of disjoint packs the hand can form keeping at least `keep` cards (ties: more
    cards, then fewer jokers); ((), 0) if none.

    Memoised search over what is left: the first card left either stays in hand or goes into one of the
    candidate packs that hold it."""
    if len(hand) - keep < 3:
        return (), 0
    counts = dict(Counter(hand))
    order = sorted(counts, key=card_key)
    by_card: dict[str, list[Candidate]] = {code: [] for code in order}
    for cand in candidate_packs(counts, len(hand) - keep):
        first = min(cand[0], key=card_key)
        by_card[first].append(cand)
    memo: dict[tuple[int, int], tuple[tuple[int, int, int], tuple[tuple[str, ...], ...]]] = {}
    shifts = [(code, CODE_SHIFT[code]) for code in order]

    def search(rest: int, kept: int, size: int) -> tuple[tuple[int, int, int], tuple[tuple[str, ...], ...]]:
        key = (rest, kept)
        found = memo.get(key)
        if found is not None:
            return found
        best: tuple[tuple[int, int, int], tuple[tuple[str, ...], ...]] = ((0, 0, 0), ())
        code = next((c for c, shift in shifts if rest >> shift & 3), None)
        if code is not None and size + kept - keep >= 3:
            # the first card left stays in hand ...
            best = search(rest - BIT[code], min(keep, kept + 1), size - 1)
            # ... or goes into a pack with cards that come later in the order
            guarded = rest | GUARD
            for cards, worth, usage, n in by_card[code]:
                if n > size - max(0, keep - kept) or (guarded - usage) & GUARD != GUARD:
                    continue
                (value, used, jokers), packs = search(rest - usage, kept, size - n)
                jokers -= sum(1 for c in cards if c in JOKER_SUITS)
                option = ((value + worth, used + n, jokers), (cards, *packs))
                if option[0] > best[0]:
                    best = option
        memo[key] = best
        return best

    (value, _used, _jokers), packs = search(multiset(counts), 0, len(hand))
    return packs, value


# ---------------------------------------------------------------------------------------------------------
# State
# ---------------------------------------------------------------------------------------------------------

@dataclass
class RummyState:
    """A whole game. The stock's next card is stock[-1]; the discard pile's top is discard[-1]."""

    seed: int
    min_first_meld: int
    hands: list[list[str]]
    stock: list[str]
    discard: list[str]
    packs: list[Pack]
    laid: list[bool]
    current: int
    phase: str  # "draw" | "play" | "over"
    turns: list[int]  # how many turns each seat has begun (the current one included)
    reshuffles: int
    idle_rounds: int  # full rounds in a row in which no card reached the table
    table_mark: int  # cards on the table at the end of the last full round
    outcome: str | None  # "out" | "draw_rule" | "stalemate"
    winner: int | None
    final_scores: list[int]
    final_hands: list[list[str]] | None
    log: list[dict[str, Any]]  # {"seat", "text"} plus "own": the text for that seat if it differs
    last: dict[str, Any] | None  # {"seat", "turn", "actions": [...], "ended"}


def _copy(state: RummyState) -> RummyState:
    """A copy that apply may change freely (packs are replaced, never edited, so they are shared)."""
    return RummyState(
        seed=state.seed,
        min_first_meld=state.min_first_meld,
        hands=[list(hand) for hand in state.hands],
        stock=list(state.stock),
        discard=list(state.discard),
        packs=list(state.packs),
        laid=list(state.laid),
        current=state.current,
        phase=state.phase,
        turns=list(state.turns),
        reshuffles=state.reshuffles,
        idle_rounds=state.idle_rounds,
        table_mark=state.table_mark,
        outcome=state.outcome,
        winner=state.winner,
        final_scores=list(state.final_scores),
        final_hands=None if state.final_hands is None else [list(h) for h in state.final_hands],
        log=list(state.log),
        last=None if state.last is None else {**state.last, "actions": list(state.last["actions"])},
    )


def _sorted_hand(cards: list[str]) -> list[str]:
    return sorted(cards, key=card_key)


def _table_count(state: RummyState) -> int:
    return sum(len(pack.cards) for pack in state.packs)


def _hand_penalty(hand: list[str]) -> int:
    return sum(card_penalty(card) for card in hand)


# ---------------------------------------------------------------------------------------------------------
# The engine
# ---------------------------------------------------------------------------------------------------------

class RummyEngine:
    """The Rummy engine object (ENGINE); see shared/design/ENGINES.md for the contract."""

    slug = "rummy"
    name = "Rummy"
    min_players = PLAYERS
    max_players = PLAYERS
    default_options: dict[str, Any] = {"min_first_meld": 40}

    # -- setup -------------------------------------------------------------------------------------------

    def new_game(self, players: int, *, seed: int, options: dict[str, Any] | None = None,
                 deal: dict[str, Any] | None = None) -> RummyState:
        """Deal 13 cards each, alternately from seat 0; the rest is the stock. Seat 0 starts."""
        if isinstance(players, bool) or players != PLAYERS:
            raise IllegalAction("Rummy is played by exactly 2 players.")
        opts = dict(self.default_options)
        if options is not None:
            if not isinstance(options, dict):
                raise IllegalAction("The options must be an object.")
            for key, value in options.items():
                if key not in opts:
                    raise IllegalAction(f"Unknown option '{key}'.")
                lo, hi = MIN_FIRST_MELD_RANGE
                if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
                    raise IllegalAction(f"The option 'min_first_meld' must be a whole number from {lo} to {hi}.")
                opts[key] = value
        if deal is None:
            deck = full_deck()
            random.Random(seed).shuffle(deck)
        else:
            if not isinstance(deal, dict) or set(deal) != {"deck"} or not isinstance(deal["deck"], list):
                raise IllegalAction('A Rummy deal is {"deck": [108 card codes]}.')
            deck = list(deal["deck"])
            if not all(is_code(card) for card in deck) or Counter(deck) != Counter(full_deck()):
                raise IllegalAction("The deal's deck must hold every card twice and two jokers of each colour.")
        hands: list[list[str]] = [[], []]
        for i in range(HAND_SIZE * PLAYERS):
            hands[i % PLAYERS].append(deck[i])
        state = RummyState(
            seed=seed,
            min_first_meld=opts["min_first_meld"],
            hands=[_sorted_hand(hand) for hand in hands],
            stock=list(reversed(deck[HAND_SIZE * PLAYERS:])),
            discard=[],
            packs=[],
            laid=[False, False],
            current=0,
            phase="draw",
            turns=[1, 0],
            reshuffles=0,
            idle_rounds=0,
            table_mark=0,
            outcome=None,
            winner=None,
            final_scores=[0, 0],
            final_hands=None,
            log=[{"seat": None, "text": "13 cards were dealt to each player; {s0} begins."}],
            last=None,
        )
        return state

    # -- who acts ------------------------------------------------------------------------------------------

    def to_act(self, state: RummyState) -> list[int]:
        """The seat whose turn it is (nobody once the game is over)."""
        return [] if state.phase == "over" else [state.current]

    def must_act(self, state: RummyState) -> list[int]:
        """Same as to_act: the player whose turn it is must move."""
        return self.to_act(state)

    def is_over(self, state: RummyState) -> bool:
        return state.phase == "over"

    def scores(self, state: RummyState) -> list[int]:
        """Penalty points: 0 each during the game; at the end the loser's hand value (jokers 20)."""
        return list(state.final_scores)

    def result(self, state: RummyState) -> dict[str, Any]:
        """{"scores", "winners", "draw"} once over (winners empty and draw true for a drawn game)."""
        if state.phase != "over":
            raise IllegalAction("The game is not over yet.")
        winners = [] if state.winner is None else [state.winner]
        return {"scores": list(state.final_scores), "winners": winners, "draw": state.winner is None}

    # -- legal actions -----------------------------------------------------------------------------------

    def legal_actions(self, state: RummyState, seat: int) -> list[Action]:
        """Every legal action of the seat: draws; or lay-downs, adds and discards (complete, each once)."""
        if state.phase == "over" or seat != state.current or isinstance(seat, bool):
            return []
        if state.phase == "draw":
            out: list[Action] = []
            if state.stock:
                out.append({"type": "draw", "from": "stock"})
            if state.discard and state.laid[seat]:
                out.append({"type": "draw", "from": "discard"})
            return out
        hand = state.hands[seat]
        distinct = sorted(set(hand), key=card_key)
        actions: list[Action] = []
        if state.turns[seat] >= 2:
            min_value = 0 if state.laid[seat] else state.min_first_meld
            for packs, _value in enumerate_melds(hand, min_value):
                actions.append({"type": "meld", "packs": [list(pack) for pack in packs]})
        if state.laid[seat]:
            held = set(hand)
            for index, pack in enumerate(state.packs):
                for card, placements in pack.accepts().items():
                    if card not in held:
                        continue
                    for end, place in placements:
                        if len(hand) == 1 and not frees_joker(pack, card, place):
                            continue
                        action: Action = {"type": "add", "card": card, "pack": index}
                        if end is not None:
                            action["end"] = end
                        actions.append(action)
        actions.extend({"type": "discard", "card": card} for card in distinct)
        return actions

    # -- apply -------------------------------------------------------------------------------------------

    def apply(self, state: RummyState, seat: int, action: Action) -> RummyState:
        """The state after the seat's action; IllegalAction (input untouched) if it is not allowed."""
        if not isinstance(action, dict):
            raise IllegalAction("An action must be an object with a type.")
        kind = action.get("type")
        if kind not in ("draw", "meld", "add", "discard"):
            raise IllegalAction("Unknown action type: Rummy actions are draw, meld, add and discard.")
        if kind == "draw":
            check_fields(action, {"from": str})
        elif kind == "meld":
            check_fields(action, {"packs": list})
        elif kind == "add":
            check_fields(action, {"card": str, "pack": int}, {"end": str})
        else:
            check_fields(action, {"card": str})
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < PLAYERS:
            raise IllegalAction("There is no such seat.")
        if state.phase == "over":
            raise IllegalAction("The game is over.")
        if seat != state.current:
            raise IllegalAction("It is not your turn.")
        if kind == "draw":
            return self._draw(state, seat, action)
        if state.phase == "draw":
            raise IllegalAction("Draw a card first: from the stock, or the discard pile once you have laid down.")
        if kind == "meld":
            return self._meld(state, seat, action)
        if kind == "add":
            return self._add(state, seat, action)
        return self._discard(state, seat, action)

    def _draw(self, state: RummyState, seat: int, action: Action) -> RummyState:
        source = action["from"]
        if source not in DRAW_SOURCES:
            raise IllegalAction("Draw from the 'stock' or the 'discard' pile.")
        if state.phase != "draw":
            raise IllegalAction("You have already drawn this turn.")
        if source == "discard":
            if not state.laid[seat]:
                raise IllegalAction("Only a player who has laid down may take the top of the discard pile.")
            if not state.discard:
                raise IllegalAction("The discard pile is empty.")
        elif not state.stock:
            raise IllegalAction("The stock is empty.")
        new = _copy(state)
        turn: dict[str, Any] = {"seat": seat, "turn": new.turns[seat], "actions": [], "ended": False}
        new.last = turn
        if source == "discard":
            card = new.discard.pop()
            new.log.append({"seat": seat, "text": f"{{s{seat}}} took the {card_name(card)} from the discard pile."})
        else:
            card = new.stock.pop()
            new.log.append({
                "seat": seat,
                "text": f"{{s{seat}}} drew a card from the stock.",
                "own": f"You drew the {card_name(card)} from the stock.",
            })
        turn["actions"].append({"type": "draw", "from": source, "card": card})
        new.hands[seat] = _sorted_hand([*new.hands[seat], card])
        new.phase = "play"
        self._refill(new)
        return new

    def _meld(self, state: RummyState, seat: int, action: Action) -> RummyState:
        raw = action["packs"]
        if state.turns[seat] < 2:
            raise IllegalAction("You may lay down from your second turn on.")
        if not raw:
            raise IllegalAction("A lay-down needs at least one pack.")
        if len(raw) > HAND_SIZE:
            raise IllegalAction("That is more packs than you have cards for.")
        for pack in raw:
            if not isinstance(pack, list) or len(pack) > MAX_RUN or not all(isinstance(c, str) for c in pack):
                raise IllegalAction("Each pack is a list of card codes, such as [\"KH\", \"KD\", \"KS\"].")
            for card in pack:
                if not is_code(card):
                    raise IllegalAction(f"'{card}' is not a card.")
        hand = state.hands[seat]
        have = Counter(hand)
        need = Counter(card for pack in raw for card in pack)
        for card, count in need.items():
            if have[card] < count:
                held = have[card]
                detail = "" if held == 0 else f" ({held} held, {count} needed)"
                raise IllegalAction(f"You don't hold the {card_name(card)}{detail}.")
        if sum(need.values()) >= len(hand):
            raise IllegalAction("You must keep a card to discard.")
        packs = [new_pack(list(pack), seat) for pack in raw]
        value = sum(pack.value for pack in packs)
        first = not state.laid[seat]
        if first and value < state.min_first_meld:
            raise IllegalAction(
                f"Your first lay-down must be worth at least {state.min_first_meld} in one go; "
                f"these packs are worth {value}."
            )
        new = _copy(state)
        remaining = Counter(hand)
        remaining.subtract(need)
        new.hands[seat] = _sorted_hand(list(remaining.elements()))
        start = len(new.packs)
        new.packs.extend(packs)
        new.laid[seat] = True
        shown = join_words([describe_cards(pack.cards) for pack in packs])
        lead = "laid down for the first time" if first else "laid down"
        new.log.append({"seat": seat, "text": f"{{s{seat}}} {lead}, {value} points: {shown}."})
        assert new.last is not None
        new.last["actions"].append({
            "type": "meld", "packs": list(range(start, len(new.packs))), "value": value, "first": first,
        })
        return new

    def _add(self, state: RummyState, seat: int, action: Action) -> RummyState:
        card, index = action["card"], action["pack"]
        end = action.get("end")
        if not is_code(card):
            raise IllegalAction(f"'{card}' is not a card.")
        if not state.laid[seat]:
            raise IllegalAction("You may add cards to packs once you have laid down.")
        if not 0 <= index < len(state.packs):
            raise IllegalAction(f"There is no pack number {index} on the table (packs are numbered from 0).")
        hand = state.hands[seat]
        if card not in hand:
            raise IllegalAction(f"You don't hold the {card_name(card)}.")
        pack = state.packs[index]
        placements = add_placements(pack, card)
        if not placements:
            raise IllegalAction(_why_not(pack, card, index))
        if "end" in action:
            if end not in ENDS:
                raise IllegalAction("The field 'end' is 'low' or 'high'.")
            chosen = [p for p in placements if p[0] == end]
            if not chosen:
                if placements[0][0] is None:
                    raise IllegalAction(
                        f"The {card_name(card)} has only one place on {pack.label(index)}: leave out 'end'."
                    )
                raise IllegalAction(f"The {card_name(card)} can't go at the {end} end of {pack.label(index)}.")
        else:
            if placements[0][0] is not None:
                raise IllegalAction(
                    f"Say at which end the {card_name(card)} goes on {pack.label(index)}: 'end' is 'low' or 'high'."
                )
            chosen = placements
        place = chosen[0][1]
        if len(hand) == 1 and not frees_joker(pack, card, place):
            raise IllegalAction("You must keep a card to discard.")
        new = _copy(state)
        new_pack_, freed = add_card(pack, card, place)
        new.packs[index] = new_pack_
        rest = list(hand)
        rest.remove(card)
        if freed is not None:
            rest.append(freed)
        new.hands[seat] = _sorted_hand(rest)
        text = f"{{s{seat}}} added the {card_name(card)} to {new_pack_.label(index)}"
        if freed is not None:
            text += f" and took the {card_name(freed)} it stood for"
        new.log.append({"seat": seat, "text": text + "."})
        assert new.last is not None
        new.last["actions"].append({"type": "add", "card": card, "pack": index, "end": end, "freed": freed})
        return new

    def _discard(self, state: RummyState, seat: int, action: Action) -> RummyState:
        card = action["card"]
        if not is_code(card):
            raise IllegalAction(f"'{card}' is not a card.")
        if card not in state.hands[seat]:
            raise IllegalAction(f"You don't hold the {card_name(card)}.")
        new = _copy(state)
        rest = list(new.hands[seat])
        rest.remove(card)
        new.hands[seat] = rest
        new.discard.append(card)
        new.log.append({"seat": seat, "text": f"{{s{seat}}} discarded the {card_name(card)}."})
        assert new.last is not None
        new.last["actions"].append({"type": "discard", "card": card})
        new.last["ended"] = True  # new.last is this state's own copy (its entries are never changed)
        if not rest:
            other = 1 - seat
            penalty = _hand_penalty(new.hands[other])
            left = join_words([card_name(c) for c in new.hands[other]])
            self._finish(new, "out", seat, [penalty if s == other else 0 for s in range(PLAYERS)],
                         f"{{s{seat}}} discarded their last card and wins; {{s{other}}} scores {penalty} "
                         f"penalty points ({left}).",
                         {"seat": other, "cards": list(new.hands[other]), "points": penalty})
            return new
        if seat == PLAYERS - 1 and self._round_end(new):
            return new
        new.current = 1 - seat
        new.turns[new.current] += 1
        new.phase = "draw"
        return new

    def _round_end(self, new: RummyState) -> bool:
        """The checks after each full round: the draw rule and the stalemate safeguard. True if the game ended."""
        table = _table_count(new)
        if table > new.table_mark:
            new.idle_rounds = 0
            new.table_mark = table
        else:
            new.idle_rounds += 1
        if all(len(hand) < 3 for hand in new.hands) and all(pack.full for pack in new.packs):
            self._finish(new, "draw_rule", None, [0, 0],
                         "Neither player holds 3 or more cards and every pack on the table is full: "
                         "the game is a draw.")
            return True
        if new.idle_rounds >= STALEMATE_ROUNDS:
            self._finish(new, "stalemate", None, [0, 0],
                         f"No card reached the table for {STALEMATE_ROUNDS} rounds: the game is a draw.")
            return True
        return False

    def _refill(self, new: RummyState) -> None:
        """When the stock is empty, the discard pile except its top card is shuffled into a new stock.

        Done right after the draw that empties the stock. Hands only shrink (a draw and a discard cancel
        out; lay-downs and adds take cards away, a freed joker replaces the card that freed it), so at most
        the 26 dealt cards are ever outside the stock and the pile: the pile then holds at least 80 cards,
        and the stock is never empty when a player must draw."""
        if new.stock or len(new.discard) < 2:
            return
        cards = new.discard[:-1]
        new.discard = new.discard[-1:]
        new.reshuffles += 1
        random.Random(f"{new.seed}:{new.reshuffles}").shuffle(cards)
        new.stock = cards
        new.log.append({
            "seat": None,
            "text": f"The stock ran out: {len(cards)} cards of the discard pile were shuffled into a new stock.",
        })
        if new.last is not None:
            new.last["actions"].append({"type": "reshuffle", "cards": len(cards)})

    def _finish(self, new: RummyState, outcome: str, winner: int | None, scores: list[int], text: str,
                penalty: dict[str, Any] | None = None) -> None:
        """End the game: the outcome, the winner (None for a draw), the penalty points; both hands are shown."""
        new.phase = "over"
        new.outcome = outcome
        new.winner = winner
        new.final_scores = scores
        new.final_hands = [list(hand) for hand in new.hands]
        new.log.append({"seat": winner, "text": text})
        if new.last is not None:
            new.last["actions"].append({
                "type": "end", "reason": outcome, "winner": winner, "scores": list(scores), "penalty": penalty,
            })

    # -- views -------------------------------------------------------------------------------------------

    def view(self, state: RummyState, seat: int | None) -> View:
        """All the seat may know: its own hand, counts of hidden cards, the table, the log, its legal actions.

        Once the game is over both hands are shown ("final_hands")."""
        if seat is not None and (not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < PLAYERS):
            raise IllegalAction("There is no such seat.")
        over = state.phase == "over"
        log = []
        for event in state.log:
            text = event["own"] if seat is not None and event["seat"] == seat and "own" in event else event["text"]
            log.append({"seat": event["seat"], "text": text})
        last = None
        if state.last is not None:
            last = json_copy(state.last)
            for entry in last["actions"]:
                if entry["type"] == "draw" and entry["from"] == "stock" and seat != last["seat"]:
                    entry["card"] = None
        packs = []
        for index, pack in enumerate(state.packs):
            item: dict[str, Any] = {
                "id": index,
                "kind": pack.kind,
                "cards": list(pack.cards),
                "jokers": joker_stands(pack),
                "owner": pack.owner,
                "value": pack.value,
                "full": pack.full,
            }
            if pack.kind == "set":
                item["rank"] = pack.rank
            else:
                item.update(suit=pack.suit, low=POS_RANK[pack.low], high=POS_RANK[pack.high],
                            low_place=pack.low, high_place=pack.high)
            packs.append(item)
        return {
            "game": self.slug,
            "players": PLAYERS,
            "seat": seat,
            "to_act": self.to_act(state),
            "must_act": self.must_act(state),
            "scores": self.scores(state),
            "over": over,
            "result": self.result(state) if over else None,
            "legal": [] if seat is None else self.legal_actions(state, seat),
            "log": log,
            "last": last,
            "options": {"min_first_meld": state.min_first_meld},
            "current": state.current,
            "phase": state.phase,
            "turns": list(state.turns),
            "hand": None if seat is None else list(state.hands[seat]),
            "hand_counts": [len(hand) for hand in state.hands],
            "stock_count": len(state.stock),
            "discard_top": state.discard[-1] if state.discard else None,
            "discard_count": len(state.discard),
            "laid_down": list(state.laid),
            "packs": packs,
            "table_count": _table_count(state),
            "idle_rounds": state.idle_rounds,
            "stalemate_rounds": STALEMATE_ROUNDS,
            "outcome": state.outcome,
            "final_hands": None if state.final_hands is None else [list(h) for h in state.final_hands],
        }

    # -- persistence -------------------------------------------------------------------------------------

    def dump(self, state: RummyState) -> dict[str, Any]:
        """The state as plain JSON data."""
        return {
            "seed": state.seed,
            "min_first_meld": state.min_first_meld,
            "hands": [list(hand) for hand in state.hands],
            "stock": list(state.stock),
            "discard": list(state.discard),
            "packs": [{"kind": p.kind, "cards": list(p.cards), "owner": p.owner, "low": p.low} for p in state.packs],
            "laid": list(state.laid),
            "current": state.current,
            "phase": state.phase,
            "turns": list(state.turns),
            "reshuffles": state.reshuffles,
            "idle_rounds": state.idle_rounds,
            "table_mark": state.table_mark,
            "outcome": state.outcome,
            "winner": state.winner,
            "final_scores": list(state.final_scores),
            "final_hands": None if state.final_hands is None else [list(h) for h in state.final_hands],
            "log": [dict(event) for event in state.log],
            "last": json_copy(state.last),
        }

    def load(self, data: dict[str, Any]) -> RummyState:
        """The state dump() wrote."""
        return RummyState(
            seed=data["seed"],
            min_first_meld=data["min_first_meld"],
            hands=[list(hand) for hand in data["hands"]],
            stock=list(data["stock"]),
            discard=list(data["discard"]),
            packs=[Pack(p["kind"], list(p["cards"]), p["owner"], p["low"]) for p in data["packs"]],
            laid=list(data["laid"]),
            current=data["current"],
            phase=data["phase"],
            turns=list(data["turns"]),
            reshuffles=data["reshuffles"],
            idle_rounds=data["idle_rounds"],
            table_mark=data["table_mark"],
            outcome=data["outcome"],
            winner=data["winner"],
            final_scores=list(data["final_scores"]),
            final_hands=None if data["final_hands"] is None else [list(h) for h in data["final_hands"]],
            log=[dict(event) for event in data["log"]],
            last=json_copy(data["last"]),
        )


ENGINE: Engine[RummyState] = RummyEngine()  # mypy checks the engine keeps the contract
