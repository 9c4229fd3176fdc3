"""What the Rummy bots (rummy.py), the tracker (rummy_tracking.py) and the play-outs (rummy_playout.py) all know
about cards: duos and the cards that complete them, the original app's order of throwing and its discard, the
packs of a view and the discards named in the public log.

It imports the engine only, never another bot module: the three share it without importing one another in a
circle. The card helpers are cached (a few thousand pairs at most): the play-outs and the tracker's sampling
ask them the same questions many times a decision.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from functools import cache
from typing import Any

from games.engines.base import View, card_name
from games.engines.rummy import (
    JOKER_SUITS,
    POS_RANK,
    RANK,
    SUIT,
    Pack,
    card_key,
    card_penalty,
    card_places,
    full_deck,
)

# The public log names cards in words: its discards and takes are read back into codes.
_NAME_TO_CODE: dict[str, str] = {card_name(code): code for code in set(full_deck())}
_DISCARDED = re.compile(r"discarded (?:their last card, )?the (.+?)(?:\.|,| and)")
TAKEN = re.compile(r"took the (.+?) from the discard pile")
DREW_STOCK = re.compile(r"drew a card from the stock")


def discarded_cards(text: str) -> list[str]:
    """The cards a log entry says were discarded."""
    return [code for name in _DISCARDED.findall(text) if (code := _NAME_TO_CODE.get(name)) is not None]


def taken_cards(text: str) -> list[str]:
    """The cards a log entry says were taken from the discard pile."""
    return [code for name in TAKEN.findall(text) if (code := _NAME_TO_CODE.get(name)) is not None]


def view_pack(item: dict[str, Any], owner: int | None = None) -> Pack:
    """A pack of a view as the engine's Pack (owned by `owner` when given, else by the view's owner)."""
    return Pack(item["kind"], list(item["cards"]), item["owner"] if owner is None else owner,
                item.get("low_place", 0) or 0)


def table_counts(view: View) -> Counter[str]:
    """How many copies of each natural card lie in the packs on the table."""
    return Counter(card for pack in view["packs"] for card in pack["cards"] if card not in JOKER_SUITS)


@cache
def duo_missing(a: str, b: str) -> tuple[str, ...]:
    """The cards that would make a pack of the two natural cards ("duo"): none if they are no duo."""
    if a == b:
        return ()
    if RANK[a] == RANK[b]:
        return tuple(RANK[a] + suit for suit in "CDHS" if suit not in (SUIT[a], SUIT[b]))
    if SUIT[a] != SUIT[b]:
        return ()
    suit = SUIT[a]
    out: list[str] = []
    for pa in card_places(a):
        for pb in card_places(b):
            low, high = min(pa, pb), max(pa, pb)
            if high - low == 1:
                out += [POS_RANK[p] + suit for p in (low - 1, high + 1) if 1 <= p <= 14]
            elif high - low == 2:
                out.append(POS_RANK[low + 1] + suit)
    return tuple(out)


def live_duo_cards(cards: list[str], gone: Counter[str]) -> set[str]:
    """The cards among these that belong to a duo whose missing card is not already gone twice."""
    keep: set[str] = set()
    naturals = [c for c in cards if c not in JOKER_SUITS]
    for i, a in enumerate(naturals):
        for b in naturals[i + 1:]:
            if any(gone[m] < 2 for m in duo_missing(a, b)):
                keep.update((a, b))
    return keep


@cache
def completions(card: str) -> tuple[tuple[str, str], ...]:
    """The pairs of natural cards that this natural card would turn into a pack of three."""
    rank, suit = RANK[card], SUIT[card]
    others = [s for s in "CDHS" if s != suit]
    out = [(rank + a, rank + b) for i, a in enumerate(others) for b in others[i + 1:]]
    for place in card_places(card):
        for a, b in ((place - 2, place - 1), (place - 1, place + 1), (place + 1, place + 2)):
            if a >= 1 and b <= 14 and POS_RANK[a] != rank and POS_RANK[b] != rank:
                out.append((POS_RANK[a] + suit, POS_RANK[b] + suit))
    return tuple(out)


@cache
def throw_order(card: str) -> tuple[int, int, int]:
    """The original app's order of throwing: most points, then the higher rank, then the later suit."""
    key = card_key(card)
    return (card_penalty(card), key[1], key[0])


def highest(cards: Iterable[str]) -> str:
    """The card the original app throws first (see throw_order)."""
    return max(cards, key=throw_order)


def without_packs(hand: list[str], packs: Iterable[Iterable[str]]) -> list[str]:
    """The hand less the cards of these packs (one copy each)."""
    rest = list(hand)
    for pack in packs:
        for card in pack:
            rest.remove(card)
    return rest


def spare_naturals(cards: list[str], gone: Counter[str]) -> list[str]:
    """What the original app throws from among these cards: a natural outside the live duos, or any natural
    when each is in one (empty when all are jokers)."""
    naturals = [c for c in cards if c not in JOKER_SUITS]
    duos = live_duo_cards(naturals, gone)
    return [c for c in naturals if c not in duos] or naturals


__all__ = ["DREW_STOCK", "TAKEN", "completions", "discarded_cards", "duo_missing", "highest", "live_duo_cards",
           "spare_naturals", "table_counts", "taken_cards", "throw_order", "view_pack", "without_packs"]
