"""Determinized play-outs of Rummy from one seat's view (information-set Monte Carlo): the opponent's hand
and the stock are sampled from the cards the seat has not seen (rummy_tracking.sample_hands once the opponent
has laid down), and the rest of the game is played out fast, both seats in the manner of the original app
(shared/rules/rummy.md, "Bots"), on plain lists rather than through the engine (2.7 ms a whole game; the same
winner as the engine in 190 of 200 seeded games, the rest reshuffle the stock, which a play-out does not).
The Shark can compare its candidate discards on the same samples (common random numbers) and keep the one
that wins most play-outs; it does not (rummy.PLAYOUTS = 0): 16 samples of 4 candidates measured 46.5%, 64
samples 51.0%, the Shark alone 51.0% (seeds 0-199; bench/README.md).
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

from games.bots.rummy_cards import highest, spare_naturals, view_pack, without_packs
from games.bots.rummy_tracking import Reading, read, sample_hands
from games.engines.base import View
from games.engines.rummy import (
    JOKER_SUITS,
    Pack,
    add_card,
    best_meld,
    frees_joker,
    new_pack,
)

TURN_CAP = 40            # turns (both seats) a play-out runs at most; then it counts as half a win
_MELD_CACHE: dict[tuple[tuple[str, ...], int], tuple[tuple[tuple[str, ...], ...], int]] = {}
_CACHE_CAP = 50_000


def meld(hand: list[str], keep: int) -> tuple[tuple[tuple[str, ...], ...], int]:
    """best_meld, remembered (the same hands come back in every play-out of a decision)."""
    key = (tuple(sorted(hand)), keep)
    hit = _MELD_CACHE.get(key)
    if hit is None:
        if len(_MELD_CACHE) > _CACHE_CAP:
            _MELD_CACHE.clear()
        hit = _MELD_CACHE[key] = best_meld(hand, keep)
    return hit


@dataclass
class Table:
    """One determinized game in progress: seat 0 is the deciding seat, 1 its opponent."""

    hands: list[list[str]]
    stock: list[str]          # the next card is stock[-1]
    top: str | None           # the discard pile's top
    packs: list[Pack]
    laid: list[bool]
    turns: list[int]          # turns begun by each seat
    minimum: int

    def copy(self) -> Table:
        return Table([list(h) for h in self.hands], list(self.stock), self.top, list(self.packs),
                     list(self.laid), list(self.turns), self.minimum)


def draw(t: Table, p: int) -> None:
    """The original app's draw: the discard when it makes the best packs in hand worth more, else the stock."""
    hand = t.hands[p]
    if t.laid[p] and t.top is not None and meld([*hand, t.top], 1)[1] > meld(hand, 0)[1]:
        hand.append(t.top)
        t.top = None
        return
    if t.stock:
        hand.append(t.stock.pop())


def play(t: Table, p: int) -> bool:
    """The rest of a turn after the draw, as the original app plays it: lay down the most valuable packs,
    add every card that fits, discard the highest card outside live duos. True when the seat went out."""
    hand = t.hands[p]
    while True:
        if t.turns[p] >= 2 and len(hand) > 3:
            packs, value = meld(hand, 1)
            if packs and (t.laid[p] or value >= t.minimum):
                for cards in packs:
                    for card in cards:
                        hand.remove(card)
                    t.packs.append(new_pack(list(cards), p))
                t.laid[p] = True
                continue
        if not t.laid[p] or not _add_one(t, hand):
            break
    card = discard_choice(t, p)
    hand.remove(card)
    t.top = card
    return not hand


def _add_one(t: Table, hand: list[str]) -> bool:
    """Adds one card to a pack, as the original app does: the first fitting natural card (packs in the order
    they were laid), a joker only when no natural card fits. False when nothing fits."""
    held = set(hand)
    choice: tuple[int, str, int] | None = None
    for i, pack in enumerate(t.packs):
        for card, places in pack.accepts().items():
            if card not in held:
                continue
            place = places[0][1]
            if len(hand) == 1 and not frees_joker(pack, card, place):
                continue
            if card in JOKER_SUITS:
                if choice is None:
                    choice = (i, card, place)
                continue
            choice = (i, card, place)
            break
        else:
            continue
        break
    if choice is None:
        return False
    i, card, place = choice
    t.packs[i], freed = add_card(t.packs[i], card, place)
    hand.remove(card)
    if freed is not None:
        hand.append(freed)
    return True


def discard_choice(t: Table, p: int) -> str:
    """The original app's discard: keep the packs waiting for the first lay-down and the live duos (a third
    card not yet laid twice); never a joker while another card remains; otherwise the highest card."""
    hand = t.hands[p]
    rest = hand if t.laid[p] else without_packs(hand, meld(hand, 1)[0])
    on_table: Counter[str] = Counter()
    for pack in t.packs:
        on_table.update(pack.cards)
    spare = spare_naturals(rest, on_table) or [c for c in hand if c not in JOKER_SUITS] or hand
    return highest(spare)


def finish(t: Table, first: int) -> float:
    """Plays the game out from seat `first`'s draw; 1 if seat 0 wins, 0 if it loses, 0.5 past TURN_CAP."""
    p = first
    for _ in range(TURN_CAP):
        if not t.stock:
            break
        t.turns[p] += 1
        draw(t, p)
        if play(t, p):
            return 1.0 if p == 0 else 0.0
        p = 1 - p
    return 0.5


def determinize(view: View, reading: Reading, rng: random.Random,
                hands: list[list[str]] | None = None) -> tuple[list[str], list[str]] | None:
    """One opponent hand and stock order agreeing with the view, or None when none could be drawn; `hands`: a
    laid-down opponent's likely hands, drawn once for a decision's many determinizations (laid_hands)."""
    count = reading.count
    pool = list(Counter(reading.unseen).elements())
    if reading.laid:
        if hands is None:
            hands = laid_hands(view, reading, rng)
        hand = list(hands[rng.randrange(len(hands))]) if hands else rng.sample(pool, min(count, len(pool)))
    else:
        hand = []
        for _ in range(20):
            hand = rng.sample(pool, min(count, len(pool)))
            # it has not laid down: its hand held no first lay-down at its last turn
            if reading.last_discard is None or view["turns"][reading.other] < 2 \
                    or meld([*hand, reading.last_discard], 1)[1] < view["options"]["min_first_meld"]:
                break
    rest = Counter(pool)
    rest.subtract(hand)
    stock = list(rest.elements())
    rng.shuffle(stock)
    return hand, stock


def laid_hands(view: View, reading: Reading, rng: random.Random) -> list[list[str]]:
    """Hands for a laid-down opponent from the tracker, drawn by weight."""
    weighted = sample_hands(view, rng, reading)
    out: list[list[str]] = []
    if weighted:
        total = sum(w for _, w in weighted)
        for _ in range(len(weighted)):
            x = rng.random() * total
            for hand, w in weighted:
                x -= w
                if x <= 0:
                    out.append(hand)
                    break
            else:
                out.append(weighted[-1][0])
    return out


def base_table(view: View, hand: list[str], opp: list[str], stock: list[str], top: str | None) -> Table:
    seat = view["seat"]
    other = 1 - seat
    packs = [view_pack(p, 0 if p["owner"] == seat else 1) for p in view["packs"]]
    return Table([list(hand), list(opp)], list(stock), top, packs,
                 [bool(view["laid_down"][seat]), bool(view["laid_down"][other])],
                 [view["turns"][seat], view["turns"][other]], view["options"]["min_first_meld"])


def _tables(view: View, hand: list[str], rng: random.Random, samples: int,
            deadline: float) -> Iterator[Table]:
    """Up to `samples` determinized tables of the position (seat 0 to play after its draw), until the deadline."""
    reading = read(view)
    hands: list[list[str]] | None = None
    for _ in range(samples):
        if time.perf_counter() > deadline:
            return
        if reading.laid and hands is None:  # drawn once for the decision, as its first determinization needs them
            hands = laid_hands(view, reading, rng)
        found = determinize(view, reading, rng, hands)
        if found is None:
            return
        opp, stock = found
        yield base_table(view, hand, opp, stock, view["discard_top"])


def discard_values(view: View, hand: list[str], candidates: list[str], rng: random.Random, samples: int,
                   deadline: float) -> dict[str, float]:
    """Each candidate discard's share of play-outs won, on the same determinized tables."""
    won = dict.fromkeys(candidates, 0.0)
    n = 0
    for table in _tables(view, hand, rng, samples, deadline):
        n += 1
        for card in candidates:
            t = table.copy()
            t.hands[0].remove(card)
            t.top = card
            won[card] += 1.0 if not t.hands[0] else finish(t, 1)
    return {card: value / max(1, n) for card, value in won.items()}


def draw_values(view: View, hand: list[str], rng: random.Random, samples: int,
                deadline: float) -> dict[str, float]:
    """The share of play-outs won after taking the discard and after drawing from the stock."""
    won = {"discard": 0.0, "stock": 0.0}
    n = 0
    below = read(view).pile[-2:-1]
    for table in _tables(view, hand, rng, samples, deadline):
        n += 1
        for source in won:
            t = table.copy()
            if source == "discard":
                assert t.top is not None
                t.hands[0].append(t.top)
                t.top = below[0] if below else None
            else:
                t.hands[0].append(t.stock.pop())
            won[source] += 1.0 if play(t, 0) else finish(t, 1)
    return {source: value / max(1, n) for source, value in won.items()}


__all__ = ["Table", "base_table", "determinize", "discard_choice", "discard_values", "draw", "draw_values",
           "finish", "meld", "play"]
