"""The Rummy Shark's table play (games/bots/rummy.py): a card that would open a new place on a run stays in its
hand (the original app's player holds no card fitting the table, so only a new place can take one of its cards)
until the Shark can go out, chains of such cards included."""

from __future__ import annotations

import random
from typing import Any

from games.bots.rummy import strong_bot
from games.engines.rummy import JOKER_SUITS, POS_RANK, Pack, add_placements, new_pack


def _pack_item(pack: Pack, index: int) -> dict[str, Any]:
    """A pack as a seat's view shows it."""
    item: dict[str, Any] = {"id": index, "kind": pack.kind, "cards": list(pack.cards), "jokers": [],
                            "owner": pack.owner, "value": pack.value, "full": pack.full}
    if pack.kind == "set":
        item["rank"] = pack.key
    else:
        item.update(suit=pack.key, low=POS_RANK[pack.low], high=POS_RANK[pack.high], low_place=pack.low,
                    high_place=pack.high)
    return item


def _position(hand: list[str], packs: list[list[str]]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Seat 0 after its draw, both seats laid down, the opponent holding 5 cards; the legal actions as the
    engine lists them (adds with their ends, one discard per distinct card)."""
    table = [new_pack(cards, 0) for cards in packs]
    legal: list[dict[str, Any]] = []
    for index, pack in enumerate(table):
        for card in sorted(set(hand)):
            for end, _place in add_placements(pack, card):
                action: dict[str, Any] = {"type": "add", "card": card, "pack": index}
                if end is not None:
                    action["end"] = end
                legal.append(action)
    legal += [{"type": "discard", "card": card} for card in sorted(set(hand))]
    view = {
        "seat": 0, "hand": list(hand), "laid_down": [True, True], "hand_counts": [len(hand), 5],
        "packs": [_pack_item(p, i) for i, p in enumerate(table)], "log": [], "last": None,
        "options": {"min_first_meld": 40}, "discard_top": None, "turns": [6, 6], "phase": "play",
    }
    return view, legal


RUN = [["5H", "6H", "7H"], ["KC", "KD", "KS"]]


def test_a_card_opening_a_new_place_on_a_run_stays_in_hand() -> None:
    # the 8 of hearts fits 5-6-7 but would open the 9's place; the 4 of hearts fits the other end likewise
    view, legal = _position(["8H", "2C", "JD", "9S"], RUN)
    assert {"type": "add", "card": "8H", "pack": 0} in legal
    action, _ = strong_bot(view, legal, random.Random(1))
    assert action is not None
    assert action["type"] == "discard" and action["card"] != "8H"


def test_a_card_closing_a_set_is_added_at_once() -> None:
    # the fourth king closes the set: it opens nothing
    view, legal = _position(["KH", "2C", "JD", "9S"], RUN)
    action, _ = strong_bot(view, legal, random.Random(1))
    assert action == {"type": "add", "card": "KH", "pack": 1}


def test_when_the_place_it_opens_is_dead_the_card_is_added() -> None:
    # both nines of hearts are in the Shark's hand: the place the 8 opens can take no card of the opponent
    view, legal = _position(["8H", "9H", "9H", "2C", "JD"], RUN)
    action, _ = strong_bot(view, legal, random.Random(1))
    assert action is not None and action["type"] == "add" and action["card"] == "8H"


def test_the_cards_kept_back_go_when_they_let_it_go_out() -> None:
    # 8 then 9 of hearts on 5-6-7 one after the other, then the 2 of clubs is the last discard
    view, legal = _position(["8H", "9H", "2C"], RUN)
    action, _ = strong_bot(view, legal, random.Random(1))
    assert action == {"type": "add", "card": "8H", "pack": 0}


def test_a_card_kept_back_is_never_the_discard() -> None:
    for seed in range(20):
        rng = random.Random(seed)
        loose = rng.sample(["2C", "JD", "9S", "4D", "QS", "7C", "3S"], 3)
        view, legal = _position(["8H", *loose], RUN)
        action, _ = strong_bot(view, legal, rng)
        assert action is not None and action["type"] == "discard", action
        assert action["card"] != "8H" and action["card"] not in JOKER_SUITS
