"""The Romme seed's heuristic (damr-/romme, its README's "Remarks"): lay down the highest-valued combination of
packs once it reaches the minimum (and, once laid down, every pack it holds: it never keeps a finished pack on
hand, nor a single card that fits a pack on the table); keep "duos" (two cards a third would make a pack of)
unless that third card is already laid down twice; no card counting (what went to the discard pile is
forgotten); never throw a joker while other cards remain, otherwise the highest card. It takes the discard,
once laid down, only when it makes its best combination in hand worth more (shared/rules/rummy.md, "Bots")."""

from __future__ import annotations

import random
from collections import Counter

from games.engines.base import Action, View
from games.engines.rummy import JOKER_SUITS, POS_RANK, RANK, SUIT, best_meld, card_key, card_penalty, card_places


def _duo_thirds(a: str, b: str) -> list[str]:
    """The cards that would make a pack of the two natural cards; [] when they are no duo."""
    if a == b:
        return []
    if RANK[a] == RANK[b]:
        return [RANK[a] + s for s in "CDHS" if s not in (SUIT[a], SUIT[b])]
    if SUIT[a] != SUIT[b]:
        return []
    out: list[str] = []
    for pa in card_places(a):
        for pb in card_places(b):
            low, high = min(pa, pb), max(pa, pb)
            if high - low == 1:
                out += [POS_RANK[p] + SUIT[a] for p in (low - 1, high + 1) if 1 <= p <= 14]
            elif high - low == 2:
                out.append(POS_RANK[low + 1] + SUIT[a])
    return out


def _meld(legal: list[Action], packs: tuple[tuple[str, ...], ...]) -> Action | None:
    want = sorted(packs)
    for action in legal:
        if action["type"] == "meld" and sorted(tuple(p) for p in action["packs"]) == want:
            return action
    return None


def romme(view: View, legal: list[Action], rng: random.Random) -> tuple[Action | None, str]:
    if not legal:
        return None, "nothing to do"
    hand: list[str] = view["hand"]
    kinds: dict[str, list[Action]] = {}
    for action in legal:
        kinds.setdefault(action["type"], []).append(action)
    if "draw" in kinds:
        top = view["discard_top"]
        take = [a for a in kinds["draw"] if a["from"] == "discard"]
        if take and top is not None:
            _, before = best_meld(hand, keep=0)
            _, after = best_meld([*hand, top], keep=1)
            if after > before:
                return take[0], "takes the discard: it completes a pack"
        stock = [a for a in kinds["draw"] if a["from"] == "stock"]
        return (stock or take)[0], "draws"
    if "meld" in kinds:
        packs, value = best_meld(hand, keep=1)
        action = _meld(kinds["meld"], packs) if packs else None
        if action is not None:
            return action, f"lays down {value}"
    if "add" in kinds:
        naturals = [a for a in kinds["add"] if a["card"] not in JOKER_SUITS]
        return (naturals or kinds["add"])[0], "adds a card"
    # discard: keep the packs waiting for the first lay-down, live duos and jokers
    rest = list(hand)
    if not view["laid_down"][view["seat"]]:
        packs, _ = best_meld(hand, keep=1)
        for pack in packs:
            for card in pack:
                rest.remove(card)
    on_table = Counter(c for pack in view["packs"] for c in pack["cards"] if c not in JOKER_SUITS)
    naturals = [c for c in rest if c not in JOKER_SUITS]
    duos: set[str] = set()
    for i, a in enumerate(naturals):
        for b in naturals[i + 1:]:
            if any(on_table[m] < 2 for m in _duo_thirds(a, b)):
                duos.update((a, b))
    spare = [c for c in naturals if c not in duos] or naturals
    if not spare:
        spare = [c for c in hand if c not in JOKER_SUITS] or hand
    card = max(spare, key=lambda c: (card_penalty(c), card_key(c)[1], card_key(c)[0]))
    action = next(a for a in kinds["discard"] if a["card"] == card)
    return action, "discards its highest spare card"


OPPONENT = romme
