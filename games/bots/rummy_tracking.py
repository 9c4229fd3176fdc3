"""What a Rummy seat can infer about its opponent's hidden hand from public information only.

Everything here reads a seat's view (its own hand, the table, the counts, the public log); nothing reads the
state. The opponent modelled is a player in the manner of the original app (shared/rules/rummy.md, "Bots"):
once laid down it lays every pack it holds and adds every card that fits a pack on the table, keeps pairs
that can still be completed and throws its highest other card, and takes the discard when it completes a pack
in hand. So after its turn its hand (once laid down) holds no pack, no card that fits a pack on the table, and
no loose card above the one it has just thrown. Hands of the right size are sampled from the unseen cards under
those constraints (rejection sampling); the share of samples in which a card would be taken estimates the risk
of throwing it.

The Shark does not use it (yet): as its feeding risk it measured no better than the Shark's own estimate
(54.0% against 55.8% on 600 games, and no better mixed with it or near the end; bench/README.md). It is what
determinized play-outs of Rummy need: hands for the opponent that agree with everything the seat has seen.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from dataclasses import dataclass, field

from games.bots.rummy_cards import (
    DREW_STOCK,
    TAKEN,
    completions,
    discarded_cards,
    duo_missing,
    live_duo_cards,
    spare_naturals,
    table_counts,
    taken_cards,
    throw_order,
    view_pack,
)
from games.engines.base import View
from games.engines.rummy import JOKER_SUITS, Pack, add_placements, best_meld, full_deck

_LAID = re.compile(r"laid down")
_RESHUFFLED = re.compile(r"The stock ran out")
_DECK_COUNTS: Counter[str] = Counter(full_deck())

SAMPLES = 48            # hands kept per decision
TRIES = 600             # hands drawn at most per decision (rejection sampling)
RECENCY = 8             # the opponent's recent discards and passes weighed against a sampled hand
MISFIT = 0.1            # a sampled hand's weight for each disagreement with them
PASS_MISFIT = 0.3       # a pair completed by the card it passed over (more for older passes)


@dataclass
class Reading:
    """The public facts about the opponent, read from one seat's view."""

    seat: int
    other: int
    pile: list[str]                  # the discard pile, bottom first (as far as the log tells)
    unseen: Counter[str]             # copies of each card neither in our hand, on the table nor in the pile
    laid: bool                       # the opponent has laid down
    count: int                       # cards in the opponent's hand
    last_discard: str | None         # the opponent's latest discard
    passed: str | None               # the top card it passed over at its latest draw (laid down then)
    table: list[Pack] = field(default_factory=list)  # the packs as they were when its turn ended
    discards: list[str] = field(default_factory=list)  # all its discards, oldest first
    passes: list[str | None] = field(default_factory=list)  # per turn: the top it passed over (laid down)


def read(view: View) -> Reading:
    """The opponent's public record from the view's log: its discards, passes, the discard pile and the cards
    still unseen by this seat."""
    seat: int = view["seat"]
    other = 1 - seat
    pile: list[str] = []
    last_discard: str | None = None
    passed: str | None = None
    opp_laid = False
    discards: list[str] = []
    passes: list[str | None] = []
    for entry in view["log"]:
        text = entry["text"]
        who = entry["seat"]
        if who is None:
            if _RESHUFFLED.search(text):
                pile = pile[-1:]
            continue
        if who == other:
            if DREW_STOCK.search(text):
                passed = pile[-1] if opp_laid and pile else None
                passes.append(passed)
            elif TAKEN.search(text):
                passed = None
                passes.append(None)
            if _LAID.search(text):
                opp_laid = True
        for code in taken_cards(text):
            if pile and code == pile[-1]:
                pile.pop()
        for code in discarded_cards(text):
            pile.append(code)
            if who == other:
                last_discard = code
                discards.append(code)
    # the packs we touched this turn are left out of the "nothing of its hand fits" test: they changed since
    touched: set[int] = set()
    last = view.get("last")
    if last is not None and last.get("seat") == seat:
        for action in last["actions"]:
            if action["type"] == "add":
                touched.add(action["pack"])
            elif action["type"] == "meld":
                touched.update(action["packs"])
    table = [view_pack(p) for i, p in enumerate(view["packs"]) if i not in touched]
    unseen = Counter(_DECK_COUNTS)
    unseen.subtract(view["hand"])
    for p in view["packs"]:
        unseen.subtract(p["cards"])
    unseen.subtract(pile)
    unseen = Counter({c: n for c, n in unseen.items() if n > 0})
    return Reading(seat=seat, other=other, pile=pile, unseen=unseen, laid=bool(view["laid_down"][other]),
                   count=view["hand_counts"][other], last_discard=last_discard, passed=passed, table=table,
                   discards=discards, passes=passes)


def _has_pack(cards: list[str], room: int) -> bool:
    """Whether some pack of at most `room` cards can be made of these cards."""
    if any(c in JOKER_SUITS for c in cards):
        return bool(best_meld(cards, keep=max(0, len(cards) - room))[0])
    naturals = set(cards)
    for c in naturals:
        for a, b in completions(c):
            if a in naturals and b in naturals:
                return True
    return False


def would_take(hand: list[str], card: str) -> bool:
    """Whether a Romme-style player holding this hand (and no pack) takes the card from the discard pile: it
    does when the card makes a pack with cards of its hand and a card is left to throw."""
    if len(hand) < 3:
        return False
    if card in JOKER_SUITS or any(c in JOKER_SUITS for c in hand):
        return best_meld([*hand, card], keep=1)[1] > best_meld(hand, keep=0)[1]
    held = set(hand)
    return any(a in held and b in held for a, b in completions(card))


def _spare_ok(cards: list[str], thrown: str, on_table: Counter[str]) -> bool:
    """Whether a Romme-style player holding cards + thrown (laid down) would have thrown `thrown`: it is the
    highest card outside the live duos (or of all naturals when every natural is in one)."""
    hand = [*cards, thrown]
    if thrown in JOKER_SUITS:
        return all(c in JOKER_SUITS for c in hand)
    spare = spare_naturals(hand, on_table)
    if thrown not in spare:
        return False
    top = throw_order(thrown)
    return all(throw_order(c) <= top for c in spare)


def recency_weight(hand: list[str], r: Reading, on_table: Counter[str]) -> float:
    """How well a hand agrees with the opponent's habit of throwing its highest loose card: a loose card (in no
    live duo) above what it threw i turns ago must have been drawn since, and it draws one card a turn; and a
    pair of its hand that the card it passed over i turns ago completes must hold a card drawn since. Each
    excess multiplies the weight by MISFIT."""
    weight = 1.0
    naturals = [c for c in hand if c not in JOKER_SUITS]
    duos = live_duo_cards(naturals, on_table)
    loose = [throw_order(c) for c in naturals if c not in duos]
    for back, thrown in enumerate(reversed(r.discards[-RECENCY:])):
        if back == 0:
            continue
        # drawn since: the loose cards above it, and the cards that would have made it part of a duo
        top = throw_order(thrown)
        recent = sum(1 for o in loose if o > top)
        if thrown not in JOKER_SUITS:
            recent += sum(1 for c in naturals if any(on_table[m] < 2 for m in duo_missing(c, thrown)))
        if recent > back:
            weight *= MISFIT ** (recent - back)
    held = set(naturals)
    for back, passed in enumerate(reversed(r.passes[-RECENCY:])):
        if passed is None or passed in JOKER_SUITS:
            continue
        pairs = sum(1 for a, b in completions(passed) if a in held and b in held)
        if pairs:
            weight *= PASS_MISFIT if back == 0 else min(1.0, PASS_MISFIT * (1 + back))
    return weight


def sample_hands(view: View, rng: random.Random, reading: Reading | None = None,
                 samples: int = SAMPLES, tries: int = TRIES) -> list[tuple[list[str], float]]:
    """Hands the opponent may hold, with weights, drawn from the cards this seat has not seen and agreeing
    with what the opponent showed (see the module docstring); [] when it has not laid down (it cannot take a
    discard then, and before its lay-down its hand is far less constrained)."""
    r = reading or read(view)
    if not r.laid or r.count < 1:
        return []
    on_table = table_counts(view)
    pool: list[str] = []
    for card, copies in r.unseen.items():
        if any(add_placements(pack, card) for pack in r.table):
            continue  # it would have added it
        pool += [card] * copies
    n = r.count
    if len(pool) < n:
        return []
    out: list[tuple[list[str], float]] = []
    loose: list[tuple[list[str], float]] = []
    for _ in range(tries):
        hand = rng.sample(pool, n)
        whole = hand if r.last_discard is None else [*hand, r.last_discard]
        if _has_pack(whole, len(whole) - 1):
            continue
        weight = recency_weight(hand, r, on_table)
        if r.last_discard is not None and not _spare_ok(hand, r.last_discard, on_table):
            if len(loose) < samples:
                loose.append((hand, weight))
            continue
        out.append((hand, weight))
        if len(out) >= samples:
            break
    if len(out) < samples // 4:
        out += loose[: samples - len(out)]
    return out


def take_risks(view: View, cards: list[str], rng: random.Random,
               hands: list[tuple[list[str], float]] | None = None) -> dict[str, float]:
    """For each card, the estimated chance that the opponent takes it from the discard pile (0 when it may
    not: not laid down, or fewer than 3 cards in hand)."""
    if hands is None:
        hands = sample_hands(view, rng)
    if not hands:
        return dict.fromkeys(cards, 0.0)
    total = sum(w for _, w in hands)
    out: dict[str, float] = {}
    for card in dict.fromkeys(cards):
        out[card] = sum(w for hand, w in hands if would_take(hand, card)) / total
    return out


__all__ = ["Reading", "read", "sample_hands", "take_risks", "would_take"]
