"""Rummy bots: they see only a seat's view and its legal actions (see games/engines/base.py, Bot).

- random: draws at random, sometimes lays down or adds a random pack or card, otherwise discards at random.
- reference: the original self-playing app's strategy (shared/rules/rummy.md, "Bots").
"""

from __future__ import annotations

import random
from collections import Counter

from games.engines.base import Action, Bot, View, card_name
from games.engines.rummy import (
    JOKER_SUITS,
    POS_RANK,
    RANK,
    SUIT,
    best_meld,
    card_key,
    card_penalty,
    card_places,
    new_pack,
    pack_short,
)


def _by_type(legal: list[Action]) -> dict[str, list[Action]]:
    """The legal actions grouped by type, in their listed order."""
    out: dict[str, list[Action]] = {"draw": [], "meld": [], "add": [], "discard": []}
    for action in legal:
        out[action["type"]].append(action)
    return out


# ---------------------------------------------------------------------------------------------------------
# random
# ---------------------------------------------------------------------------------------------------------

def random_bot(view: View, legal: list[Action], rng: random.Random) -> tuple[Action | None, str]:
    """The Rookie: draws from the stock only, lays down the first combination it finds as soon as it may
    (the rest in later lay-downs), adds what fits to its own packs (never to the opponent's), and discards
    at random among the cards outside its packs, never a joker while it has another card."""
    if not legal:
        return None, "nothing to do"
    kinds = _by_type(legal)
    hand: list[str] = view["hand"]
    if kinds["draw"]:
        stock = [a for a in kinds["draw"] if a["from"] == "stock"]
        if stock:
            return stock[0], "draws from the stock"
        top = view["discard_top"]
        return kinds["draw"][0], f"takes the {card_name(top)}: the stock is empty"
    if kinds["meld"]:
        # the first lay-down it finds, not the best one: the rest follows in later lay-downs
        action = kinds["meld"][0]
        value = sum(new_pack(list(cards), 0).value for cards in action["packs"])
        return action, f"lays down {value}: {describe_meld(action['packs'])}"
    # a beginner's blind spot: it adds only to its own packs, never to the opponent's
    own = [a for a in kinds["add"] if view["packs"][a["pack"]]["owner"] == view["seat"]]
    if own:
        action = min(own, key=_add_order)
        return action, f"adds the {card_name(action['card'])} to pack {action['pack'] + 1}"
    rest = list(hand)
    if not view["laid_down"][view["seat"]]:
        packs, _ = best_meld(hand, keep=1)
        for pack in packs:
            for card in pack:
                rest.remove(card)
    spare = [c for c in rest if c not in JOKER_SUITS] or [c for c in hand if c not in JOKER_SUITS] or hand
    card = rng.choice(spare)
    action = next(a for a in kinds["discard"] if a["card"] == card)
    return action, f"discards the {card_name(card)}"


# ---------------------------------------------------------------------------------------------------------
# reference: the original app
# ---------------------------------------------------------------------------------------------------------

def table_counts(view: View) -> Counter[str]:
    """How many copies of each natural card lie in the packs on the table."""
    return Counter(card for pack in view["packs"] for card in pack["cards"] if card not in JOKER_SUITS)


def describe_meld(packs: tuple[tuple[str, ...], ...] | list[list[str]]) -> str:
    """"K-K-K and 2-3-4-5 of clubs"."""
    parts = [pack_short(new_pack(list(cards), 0)) for cards in packs]
    return ", ".join(parts[:-1]) + " and " + parts[-1] if len(parts) > 1 else parts[0]


def duo_missing(a: str, b: str) -> list[str]:
    """The cards that would make a pack of the two natural cards ("duo"): [] if they are no duo."""
    if a == b:
        return []
    if RANK[a] == RANK[b]:
        return [RANK[a] + suit for suit in "CDHS" if suit not in (SUIT[a], SUIT[b])]
    if SUIT[a] != SUIT[b]:
        return []
    suit = SUIT[a]
    out: list[str] = []
    for pa in card_places(a):
        for pb in card_places(b):
            low, high = min(pa, pb), max(pa, pb)
            if high - low == 1:
                out += [POS_RANK[p] + suit for p in (low - 1, high + 1) if 1 <= p <= 14]
            elif high - low == 2:
                out.append(POS_RANK[low + 1] + suit)
    return out


def live_duo_cards(cards: list[str], gone: Counter[str]) -> set[str]:
    """The cards among these that belong to a duo whose missing card is not already gone twice."""
    keep: set[str] = set()
    naturals = [c for c in cards if c not in JOKER_SUITS]
    for i, a in enumerate(naturals):
        for b in naturals[i + 1:]:
            if any(gone[m] < 2 for m in duo_missing(a, b)):
                keep.update((a, b))
    return keep


def _highest(cards: list[str]) -> str:
    """The card with the most penalty points (ties: the higher rank, then the later suit)."""
    return max(cards, key=lambda c: (card_penalty(c), card_key(c)[1], card_key(c)[0]))


def _meld_action(legal_melds: list[Action], packs: tuple[tuple[str, ...], ...]) -> Action | None:
    """The legal lay-down made of exactly these packs (in any order)."""
    want = sorted(packs)
    for action in legal_melds:
        if len(action["packs"]) == len(want) and sorted(tuple(p) for p in action["packs"]) == want:
            return action
    return None


def _draw_choice(view: View, kinds: dict[str, list[Action]], hand: list[str]) -> tuple[Action, str]:
    """Take the discard only when it makes the best combination of packs in hand more valuable."""
    top = view["discard_top"]
    stock = [a for a in kinds["draw"] if a["from"] == "stock"]
    take = [a for a in kinds["draw"] if a["from"] == "discard"]
    if take and top is not None:
        _, before = best_meld(hand, keep=0)
        _, after = best_meld([*hand, top], keep=1)
        if after > before:
            # Not which pack it completes: the rest of that pack is hidden in the hand (a reason is public).
            return take[0], f"takes the {card_name(top)} from the discard pile: it makes its packs worth more"
    if stock:
        return stock[0], "draws from the stock"
    return take[0], f"takes the {card_name(top)}: the stock is empty"


def _add_order(action: Action) -> int:
    """Natural cards first (some free a joker), jokers last."""
    return 1 if action["card"] in JOKER_SUITS else 0


def _discard_choice(view: View, kinds: dict[str, list[Action]], hand: list[str],
                    gone: Counter[str]) -> tuple[Action, str]:
    """Never a joker while other cards remain; keep packs waiting for the first lay-down and live duos;
    otherwise the highest card."""
    seat = view["seat"]
    rest = list(hand)
    if not view["laid_down"][seat]:
        packs, _ = best_meld(hand, keep=1)
        for pack in packs:
            for card in pack:
                rest.remove(card)
    naturals = [c for c in rest if c not in JOKER_SUITS]
    duos = live_duo_cards(naturals, gone)
    spare = [c for c in naturals if c not in duos]
    # The reason is public: it names the discarded card only, not what the rest of the hand holds.
    if spare:
        card = _highest(spare)
    elif naturals:
        card = _highest(naturals)
    else:
        others = [c for c in hand if c not in JOKER_SUITS]
        card = _highest(others) if others else hand[0]
    action = next(a for a in kinds["discard"] if a["card"] == card)
    if card in JOKER_SUITS:
        return action, f"discards the {card_name(card)}"
    return action, f"discards the {card_name(card)}: highest card"


def reference_bot(view: View, legal: list[Action], rng: random.Random) -> tuple[Action | None, str]:
    """The original app: lay down the most valuable combination once it reaches the minimum, take the discard
    only when it improves that combination, add what fits, keep live pairs, never throw a joker, else the
    highest card."""
    if not legal:
        return None, "nothing to do"
    kinds = _by_type(legal)
    hand: list[str] = view["hand"]
    if kinds["draw"]:
        return _draw_choice(view, kinds, hand)
    if kinds["meld"]:
        packs, value = best_meld(hand, keep=1)
        action = _meld_action(kinds["meld"], packs)
        if action is not None:
            return action, f"lays down {value}: {describe_meld(action['packs'])}"
    if kinds["add"]:
        action = min(kinds["add"], key=_add_order)
        return action, f"adds the {card_name(action['card'])} to pack {action['pack'] + 1}"
    return _discard_choice(view, kinds, hand, table_counts(view))


LEVEL_BLURBS: dict[str, str] = {
    "random": "Lays down and adds to its own packs as soon as it can, but keeps no pairs, never takes the discard "
              "and throws cards away at random.",
    "reference": "Plays like the original Romme app: lays down its most valuable packs, keeps pairs that can still "
                 "be completed and throws its highest card.",
}

BOTS: dict[str, Bot] = {"random": random_bot, "reference": reference_bot}

__all__ = ["BOTS", "random_bot", "reference_bot"]
