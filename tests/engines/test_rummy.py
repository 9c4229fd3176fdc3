"""Rummy engine: every rule of shared/rules/rummy.md as a test, lay-down enumeration against a brute force,
random play invariants, leaks, bad input, bots."""

from __future__ import annotations

import contextlib
import functools
import itertools
import json
import random
from collections import Counter
from typing import Any

import pytest
from engine_helpers import all_refused, random_game, refused
from hypothesis import given, settings
from hypothesis import strategies as st

from games.bots.rummy import BOTS, random_bot, reference_bot
from games.engines.base import IllegalAction, card_name
from games.engines.rummy import ENGINE, STALEMATE_ROUNDS, RummyState, card_key, enumerate_melds, full_deck

E = ENGINE
ALL_CODES = sorted(set(full_deck()), key=card_key)
NATURALS = [c for c in ALL_CODES if c not in ("XR", "XB")]

# Cards that form no pack among themselves (different ranks, never two of a suit within two places).
JUNK0 = ["2C", "6D", "10H", "AS", "5C", "9D"]
JUNK1 = ["3D", "7H", "JS", "4C", "8S", "QC"]


# ---------------------------------------------------------------------------------------------------------
# helpers: positions are built from a deal and real actions
# ---------------------------------------------------------------------------------------------------------

def make_deck(hand0: list[str], hand1: list[str], stock: list[str] | tuple[str, ...] = ()) -> list[str]:
    """A 108-card deck dealing these hands (13 each) and then drawing `stock` first; the rest follows."""
    assert len(hand0) == 13 and len(hand1) == 13, (len(hand0), len(hand1))
    rest = Counter(full_deck())
    rest.subtract(hand0)
    rest.subtract(hand1)
    rest.subtract(stock)
    assert min(rest.values()) >= 0, {c: n for c, n in rest.items() if n < 0}
    return [c for pair in zip(hand0, hand1, strict=True) for c in pair] + list(stock) + sorted(
        rest.elements(), key=card_key
    )


def game(hand0: list[str], hand1: list[str], stock: list[str] | tuple[str, ...] = (),
         options: dict[str, Any] | None = None) -> RummyState:
    return E.new_game(2, seed=1, options=options, deal={"deck": make_deck(hand0, hand1, stock)})


def apply(state: RummyState, seat: int, **action: Any) -> RummyState:
    """Apply a real action (fields as keyword arguments; from_ stands for "from")."""
    if "from_" in action:
        action["from"] = action.pop("from_")
    return E.apply(state, seat, action)


def draw(state: RummyState, seat: int, source: str = "stock") -> RummyState:
    return E.apply(state, seat, {"type": "draw", "from": source})


def discard(state: RummyState, seat: int, card: str) -> RummyState:
    return E.apply(state, seat, {"type": "discard", "card": card})


def meld(state: RummyState, seat: int, *packs: list[str]) -> RummyState:
    return E.apply(state, seat, {"type": "meld", "packs": [list(p) for p in packs]})


def add(state: RummyState, seat: int, card: str, pack: int, end: str | None = None) -> RummyState:
    action: dict[str, Any] = {"type": "add", "card": card, "pack": pack}
    if end is not None:
        action["end"] = end
    return E.apply(state, seat, action)


def pass_turn(state: RummyState, seat: int) -> RummyState:
    """Draw from the stock and discard the card just drawn."""
    before = Counter(state.hands[seat])
    state = draw(state, seat)
    drawn = next(iter((Counter(state.hands[seat]) - before).elements()))
    return discard(state, seat, drawn)


def hand(state: RummyState, seat: int) -> list[str]:
    return sorted(E.view(state, seat)["hand"])


def packs_view(state: RummyState) -> list[dict[str, Any]]:
    return E.view(state, None)["packs"]


def in_legal(state: RummyState, seat: int, action: dict[str, Any]) -> bool:
    """Whether legal_actions lists the action (a lay-down in any order of packs and of a set's cards)."""
    legal = E.legal_actions(state, seat)
    if action["type"] != "meld":
        return action in legal
    want = canonical_meld(action["packs"])
    return any(a["type"] == "meld" and canonical_meld(a["packs"]) == want for a in legal)


FIRST_DRAWS = ["8H", "4S"]


def at_second_turn(hand0: list[str], hand1: list[str], stock: list[str] | tuple[str, ...] = (),
                   options: dict[str, Any] | None = None) -> RummyState:
    """Both players pass their first turn (drawing the 8♥ and the 4♠ and discarding them); seat 0 has drawn
    again: stock[0], and the stock goes on with stock[1:]."""
    state = game(hand0, hand1, [*FIRST_DRAWS, *stock], options)
    state = pass_turn(state, 0)
    state = pass_turn(state, 1)
    return draw(state, 0)


# Seat 0 holds K-K-K and Q-Q-Q (60), seat 1 holds 10-10-10 and J-J-J (60); both can lay down on turn 2.
H0 = ["KH", "KD", "KS", "QH", "QD", "QS", *JUNK0, "7C"]
H1 = ["10C", "10D", "10S", "JC", "JD", "JH", *JUNK1, "8D"]
STOCK = ["2H", "3S", "4D", "5S", "6S", "7D", "8C", "9S", "2D", "3C"]


def both_laid_down() -> RummyState:
    """Seat 0 and seat 1 have each laid down two sets (packs 0, 1 of seat 0; packs 2, 3 of seat 1);
    seat 0 is to draw on its third turn."""
    state = at_second_turn(H0, H1, STOCK)
    state = meld(state, 0, ["KH", "KD", "KS"], ["QH", "QD", "QS"])
    state = discard(state, 0, "7C")
    state = draw(state, 1)
    state = meld(state, 1, ["10C", "10D", "10S"], ["JC", "JD", "JH"])
    return discard(state, 1, "8D")


# ---------------------------------------------------------------------------------------------------------
# cards, values, deal
# ---------------------------------------------------------------------------------------------------------

def test_engine_identity() -> None:
    assert (E.slug, E.name, E.min_players, E.max_players) == ("rummy", "Rummy", 2, 2)
    assert E.default_options == {"min_first_meld": 40}


def test_108_cards_every_card_twice_and_two_jokers_of_each_colour() -> None:
    deck = full_deck()
    assert len(deck) == 108
    counts = Counter(deck)
    assert counts["XR"] == 2 and counts["XB"] == 2
    assert all(counts[c] == 2 for c in NATURALS) and len(NATURALS) == 52


def test_13_cards_each_dealt_alternately_from_seat_0_and_the_rest_is_the_stock_in_order() -> None:
    deck = make_deck(H0, H1, STOCK)
    state = E.new_game(2, seed=0, deal={"deck": deck})
    assert hand(state, 0) == sorted(deck[0:26:2]) and hand(state, 1) == sorted(deck[1:26:2])
    view = E.view(state, 0)
    assert view["stock_count"] == 108 - 26 and view["discard_count"] == 0 and view["discard_top"] is None
    assert E.to_act(state) == [0] and view["phase"] == "draw" and view["turns"] == [1, 0]
    state = draw(state, 0)
    assert Counter(hand(state, 0)) - Counter(deck[0:26:2]) == Counter([deck[26]])
    state = discard(state, 0, deck[26])
    state = draw(state, 1)
    assert Counter(hand(state, 1)) - Counter(deck[1:26:2]) == Counter([deck[27]])


def test_seeded_shuffle_is_reproducible() -> None:
    assert E.dump(E.new_game(2, seed=5)) == E.dump(E.new_game(2, seed=5))
    assert E.dump(E.new_game(2, seed=5)) != E.dump(E.new_game(2, seed=6))


@pytest.mark.parametrize("deal", [
    {"deck": full_deck()[:-1]},
    {"deck": [*full_deck()[:-1], "2C"]},
    {"deck": [*full_deck()[:-1], "XX"]},
    {"deck": [*full_deck()[:-1], 5]},
    {"deck": "2C"},
    {"deck": full_deck(), "extra": 1},
    {"cards": full_deck()},
    [],
])
def test_bad_deals_are_refused(deal: object) -> None:
    with pytest.raises(IllegalAction):
        E.new_game(2, seed=0, deal=deal)  # type: ignore[arg-type]


@pytest.mark.parametrize("players", [1, 3, True])
def test_two_players_only(players: int) -> None:
    with pytest.raises(IllegalAction):
        E.new_game(players, seed=0)


@pytest.mark.parametrize("options", [{"min_first_meld": -1}, {"min_first_meld": True}, {"min_first_meld": "40"},
                                     {"rounds": 3}, {"min_first_meld": 121}])
def test_bad_options_are_refused(options: dict[str, Any]) -> None:
    with pytest.raises(IllegalAction):
        E.new_game(2, seed=0, options=options)


def test_values_face_cards_and_aces_ten_a_low_ace_one() -> None:
    state = at_second_turn(
        ["AH", "2H", "3H", "QS", "KS", "AS", "AC", "AD", *JUNK0[:5]],
        H1, ["XB", *STOCK],
    )
    state = meld(state, 0, ["AH", "2H", "3H"], ["QS", "KS", "AS"], ["AC", "AD", "XB"])
    values = [p["value"] for p in packs_view(state)]
    assert values == [1 + 2 + 3, 10 + 10 + 10, 10 + 10 + 10]
    assert "laid down for the first time, 66 points" in E.view(state, 0)["log"][-1]["text"]


def test_a_joker_is_worth_the_card_it_stands_for() -> None:
    state = at_second_turn(["9H", "10H", "XR", "KC", "KD", *JUNK0[:6], "3D", "4D"], H1, ["XB", *STOCK])
    state = meld(state, 0, ["9H", "10H", "XR"], ["KC", "KD", "XB"])
    first, second = packs_view(state)
    assert first["value"] == 9 + 10 + 10 and first["jokers"] == [{"at": 2, "rank": "J", "suits": ["H"]}]
    assert (second["value"] == 30 and second["jokers"] == [{"at": 2, "rank": "K", "suits": ["H"]}]) or \
        second["jokers"] == [{"at": 2, "rank": "K", "suits": ["S"]}]


# ---------------------------------------------------------------------------------------------------------
# packs: sets
# ---------------------------------------------------------------------------------------------------------

SET_HAND = ["KH", "KD", "KS", "KC", "XR", "XB", "2C", "2D", "2S", "5H", "6D", "9C", "JS"]


@pytest.mark.parametrize("pack", [
    ["KH", "KD", "KS"],
    ["KS", "KH", "KD", "KC"],
    ["KH", "KD", "XB"],            # the black joker stands for clubs or spades
    ["KC", "KS", "XR"],            # the red joker stands for hearts or diamonds
    ["KH", "KC", "KS", "XR"],      # the red joker is the diamonds
    ["KH", "KC", "XR", "XB"],      # two jokers, each for a different missing suit
    ["KH", "XB", "XR"],
])
def test_valid_sets(pack: list[str]) -> None:
    state = at_second_turn(SET_HAND, H1, STOCK, options={"min_first_meld": 0})
    after = meld(state, 0, pack)
    assert packs_view(after)[0]["kind"] == "set"
    assert packs_view(after)[0]["cards"] == sorted(pack, key=card_key)
    assert in_legal(state, 0, {"type": "meld", "packs": [pack]})


@pytest.mark.parametrize(("pack", "why"), [
    (["KH", "KD"], "at least 3 cards"),
    (["KH", "KD", "KS", "KC", "XR"], "3 or 4 cards"),
    (["2C", "2D", "KS"], "not a pack"),
    (["KH", "KD", "KC", "XR"], "missing suit of its own colour"),  # no red suit missing
    (["KH", "KC", "KS", "XB"], "missing suit of its own colour"),
    (["XR", "XB", "KS", "KC"], "missing suit of its own colour"),  # the black joker has no suit left
])
def test_invalid_sets(pack: list[str], why: str) -> None:
    state = at_second_turn(SET_HAND, H1, STOCK)
    refused(E, state, 0, {"type": "meld", "packs": [pack]}, why)


def test_a_set_needs_different_suits() -> None:
    state = at_second_turn(["KH", "KH", "KD", "2C", "2D", "2S", *JUNK0[1:], "3H", "4H"], H1, STOCK)
    refused(E, state, 0, {"type": "meld", "packs": [["KH", "KH", "KD"], ["2C", "2D", "2S"]]}, "different suits")


def test_a_set_holds_at_most_two_jokers_each_for_a_different_missing_suit() -> None:
    state = at_second_turn(["KH", "XR", "XR", "XB", "QC", "XB", *JUNK0[1:], "3H", "4H"], H1, STOCK)
    refused(E, state, 0, {"type": "meld", "packs": [["KH", "XR", "XB", "XB"]]}, "at most 2 jokers")
    refused(E, state, 0, {"type": "meld", "packs": [["KH", "XR", "XR"]]}, "different missing suit")
    refused(E, state, 0, {"type": "meld", "packs": [["XR", "XB", "XB"]]}, "jokers alone")
    after = meld(state, 0, ["KH", "XB", "XB"], ["QC", "XR", "XR"])
    assert [p["cards"] for p in packs_view(after)] == [["KH", "XB", "XB"], ["QC", "XR", "XR"]]
    assert packs_view(after)[0]["jokers"] == [
        {"at": 1, "rank": "K", "suits": ["C", "S"]}, {"at": 2, "rank": "K", "suits": ["C", "S"]},
    ]


# ---------------------------------------------------------------------------------------------------------
# packs: runs
# ---------------------------------------------------------------------------------------------------------

RUN_HAND = ["AH", "2H", "3H", "4H", "QH", "KH", "XR", "XB", "5C", "6C", "7C", "9D", "JS"]


@pytest.mark.parametrize(("pack", "value"), [
    (["AH", "2H", "3H"], 6),
    (["AH", "2H", "3H", "4H"], 10),
    (["QH", "KH", "AH"], 30),
    (["XR", "2H", "3H"], 6),          # the joker is the low ace
    (["2H", "XR", "4H"], 9),
    (["QH", "KH", "XR"], 30),         # the joker is the high ace
    (["XR", "QH", "KH"], 30),         # the joker is the jack
    (["2H", "3H", "4H", "XR"], 14),   # a joker may stand for a card its player holds
    (["5C", "6C", "7C", "XB"], 26),
])
def test_valid_runs(pack: list[str], value: int) -> None:
    state = at_second_turn(RUN_HAND, H1, STOCK, options={"min_first_meld": 0})
    after = meld(state, 0, pack)
    view = packs_view(after)[0]
    assert view["kind"] == "run" and view["cards"] == pack and view["value"] == value
    assert in_legal(state, 0, {"type": "meld", "packs": [pack]})


@pytest.mark.parametrize(("pack", "why"), [
    (["KH", "AH", "2H"], "K-A-2 is not"),       # no wrap
    (["3H", "2H", "AH"], "ascending"),           # runs are given in ascending order
    (["2H", "4H", "5C"], "not a pack"),
    (["2H", "4H", "QH"], "unbroken"),
    (["2H", "XB", "4H"], "match the run's colour"),
    (["2H", "XR", "XR"], "at most 2 jokers|different missing suit|only one joker"),
    (["XR", "2H", "3H", "4H", "XR"], "only one joker"),
    (["AH", "2H", "XR", "QH", "KH"], "unbroken"),
    (["KH", "XR", "2H"], "unbroken"),
])
def test_invalid_runs(pack: list[str], why: str) -> None:
    hand0 = ["AH", "2H", "3H", "4H", "QH", "KH", "XR", "XR", "XB", "5C", "9D", "JS", "6S"]
    state = at_second_turn(hand0, H1, STOCK, options={"min_first_meld": 0})
    refused(E, state, 0, {"type": "meld", "packs": [pack]}, why)


def test_a_new_run_holds_one_joker_and_more_may_be_added_later() -> None:
    hand0 = ["4H", "5H", "6H", "XR", "XR", "KC", "KD", "KS", *JUNK0[:5]]
    state = at_second_turn(hand0, H1, STOCK)
    refused(E, state, 0, {"type": "meld", "packs": [["XR", "4H", "5H", "6H", "XR"], ["KC", "KD", "KS"]]},
            "only one joker")
    state = meld(state, 0, ["XR", "4H", "5H", "6H"], ["KC", "KD", "KS"])
    state = add(state, 0, "XR", 0, "high")
    run = packs_view(state)[0]
    assert run["cards"] == ["XR", "4H", "5H", "6H", "XR"] and run["low"] == "3" and run["high"] == "7"
    assert run["jokers"] == [{"at": 0, "rank": "3", "suits": ["H"]}, {"at": 4, "rank": "7", "suits": ["H"]}]
    assert run["value"] == 3 + 4 + 5 + 6 + 7


# ---------------------------------------------------------------------------------------------------------
# a turn: drawing
# ---------------------------------------------------------------------------------------------------------

def test_draw_from_the_stock_first_then_play() -> None:
    state = game(H0, H1, STOCK)
    assert E.legal_actions(state, 0) == [{"type": "draw", "from": "stock"}]
    refused(E, state, 0, {"type": "discard", "card": "7C"}, "Draw a card first")
    state = draw(state, 0)
    assert "2H" in hand(state, 0) and E.view(state, 0)["phase"] == "play"
    refused(E, state, 0, {"type": "draw", "from": "stock"}, "already drawn")


def test_only_a_player_who_has_laid_down_may_take_the_discard() -> None:
    state = game(H0, H1, STOCK)
    state = pass_turn(state, 0)           # seat 0 discards the 2H
    assert E.legal_actions(state, 1) == [{"type": "draw", "from": "stock"}]
    refused(E, state, 1, {"type": "draw", "from": "discard"}, "Only a player who has laid down")
    state = both_laid_down()              # seat 1 discarded the 8D
    assert E.legal_actions(state, 0) == [{"type": "draw", "from": "stock"}, {"type": "draw", "from": "discard"}]
    state = draw(state, 0, "discard")
    assert "8D" in hand(state, 0) and E.view(state, 1)["discard_top"] == "7C"
    assert E.view(state, 1)["log"][-1]["text"] == "{s0} took the 8♦ from the discard pile."


# ---------------------------------------------------------------------------------------------------------
# a turn: laying down
# ---------------------------------------------------------------------------------------------------------

def test_no_lay_down_in_a_players_first_turn() -> None:
    state = draw(game(H0, H1, STOCK), 0)
    assert all(a["type"] == "discard" for a in E.legal_actions(state, 0))
    refused(E, state, 0, {"type": "meld", "packs": [["KH", "KD", "KS"], ["QH", "QD", "QS"]]}, "second turn")
    state = discard(state, 0, "2H")
    state = draw(state, 1)
    refused(E, state, 1, {"type": "meld", "packs": [["10C", "10D", "10S"], ["JC", "JD", "JH"]]}, "second turn")


def test_first_lay_down_is_one_action_worth_at_least_40() -> None:
    state = at_second_turn(H0, H1, STOCK)
    refused(E, state, 0, {"type": "meld", "packs": [["KH", "KD", "KS"]]}, "at least 40 .* worth 30")
    assert not in_legal(state, 0, {"type": "meld", "packs": [["KH", "KD", "KS"]]})
    assert in_legal(state, 0, {"type": "meld", "packs": [["KD", "KH", "KS"], ["QD", "QH", "QS"]]})
    state = meld(state, 0, ["QH", "QD", "QS"], ["KH", "KD", "KS"])
    view = E.view(state, 0)
    assert view["laid_down"] == [True, False]
    assert [p["owner"] for p in view["packs"]] == [0, 0] and [p["id"] for p in view["packs"]] == [0, 1]
    assert [p["cards"] for p in view["packs"]] == [["QD", "QH", "QS"], ["KD", "KH", "KS"]]


def test_single_cards_do_not_count_and_cannot_be_added_before_laying_down() -> None:
    state = at_second_turn(["KH", "KD", "KS", "JS", *JUNK0, "7C", "8C", "3H"], H1, STOCK)
    state = discard(state, 0, "3H")
    state = draw(state, 1)
    state = meld(state, 1, ["10C", "10D", "10S"], ["JC", "JD", "JH"])
    state = discard(state, 1, "8D")
    state = draw(state, 0)
    # seat 0 holds K-K-K (30) and the J♠ that fits seat 1's jacks: 30 + 10 is no first lay-down
    refused(E, state, 0, {"type": "add", "card": "JS", "pack": 1}, "once you have laid down")
    refused(E, state, 0, {"type": "meld", "packs": [["KH", "KD", "KS"]]}, "at least 40")
    assert not any(a["type"] in ("add", "meld") for a in E.legal_actions(state, 0))


def test_min_first_meld_option() -> None:
    state = at_second_turn(H0, H1, STOCK, options={"min_first_meld": 61})
    refused(E, state, 0, {"type": "meld", "packs": [["KH", "KD", "KS"], ["QH", "QD", "QS"]]}, "at least 61")
    assert not any(a["type"] == "meld" for a in E.legal_actions(state, 0))
    state = at_second_turn(H0, H1, STOCK, options={"min_first_meld": 30})
    assert meld(state, 0, ["KH", "KD", "KS"]) is not None
    assert E.view(state, 0)["options"] == {"min_first_meld": 30}


def test_once_laid_down_further_packs_of_any_value_even_in_the_same_turn() -> None:
    hand0 = ["KH", "KD", "KS", "QH", "QD", "QS", "2C", "3C", "4C", "9D", "JS", "5H", "7S"]
    state = at_second_turn(hand0, H1, STOCK)
    state = meld(state, 0, ["KH", "KD", "KS"], ["QH", "QD", "QS"])
    assert in_legal(state, 0, {"type": "meld", "packs": [["2C", "3C", "4C"]]})
    state = meld(state, 0, ["2C", "3C", "4C"])
    assert packs_view(state)[2]["value"] == 9 and "laid down, 9 points" in E.view(state, 1)["log"][-1]["text"]


def test_a_lay_down_must_use_cards_held() -> None:
    state = at_second_turn(H0, H1, STOCK)
    refused(E, state, 0, {"type": "meld", "packs": [["KH", "KD", "KC"], ["QH", "QD", "QS"]]}, "don't hold the K♣")
    refused(E, state, 0, {"type": "meld", "packs": [["KH", "KD", "KS"], ["KH", "KD", "KS"]]}, "1 held, 2 needed")


def test_a_player_must_always_keep_a_card_to_discard() -> None:
    hand0 = ["KH", "KD", "KS", "QH", "QD", "QS", "2C", "3C", "4C", "5C", "6C", "7C", "8C"]
    state = at_second_turn(hand0, H1, ["9C", *STOCK])
    # 14 cards: K-K-K, Q-Q-Q and 2..9 of clubs would empty the hand
    refused(E, state, 0, {"type": "meld", "packs": [["KH", "KD", "KS"], ["QH", "QD", "QS"],
                                                 ["2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C"]]}, "keep a card")
    assert all(sum(len(p) for p in a["packs"]) <= 13 for a in E.legal_actions(state, 0) if a["type"] == "meld")
    state = meld(state, 0, ["KH", "KD", "KS"], ["QH", "QD", "QS"], ["2C", "3C", "4C", "5C", "6C", "7C", "8C"])
    assert hand(state, 0) == ["9C"]
    # the last card could go on the run, but must be kept
    refused(E, state, 0, {"type": "add", "card": "9C", "pack": 2}, "keep a card")
    assert E.legal_actions(state, 0) == [{"type": "discard", "card": "9C"}]


# ---------------------------------------------------------------------------------------------------------
# a turn: adding single cards
# ---------------------------------------------------------------------------------------------------------

def test_add_single_cards_to_ones_own_pack() -> None:
    state = pass_turn(both_laid_down(), 0)
    state = draw(state, 1)
    state = add(state, 1, "JS", 3)
    assert packs_view(state)[3]["cards"] == ["JC", "JD", "JH", "JS"] and packs_view(state)[3]["full"]
    assert packs_view(state)[3]["owner"] == 1


def test_add_to_an_opponents_pack() -> None:
    hand0 = ["KH", "KD", "KS", "QH", "QD", "QS", *JUNK0, "10H"]
    state = at_second_turn(hand0, H1, STOCK)
    state = meld(state, 0, ["KH", "KD", "KS"], ["QH", "QD", "QS"])
    state = discard(state, 0, "7C" if "7C" in hand(state, 0) else "5C")
    state = draw(state, 1)
    state = meld(state, 1, ["10C", "10D", "10S"], ["JC", "JD", "JH"])
    state = discard(state, 1, "8D")
    state = draw(state, 0)
    state = add(state, 0, "10H", 2)
    pack = packs_view(state)[2]
    assert pack["cards"] == ["10C", "10D", "10H", "10S"] and pack["owner"] == 1
    assert E.view(state, 1)["log"][-1]["text"] == "{s0} added the 10♥ to pack 3 (10♣ 10♦ 10♥ 10♠)."


def test_cards_that_do_not_fit_are_refused_with_a_reason() -> None:
    state = draw(both_laid_down(), 0)
    refused(E, state, 0, {"type": "add", "card": "5C", "pack": 2}, "a set is one rank")
    refused(E, state, 0, {"type": "add", "card": "5C", "pack": 9}, "no pack number 9")
    refused(E, state, 0, {"type": "add", "card": "JS", "pack": 3}, "don't hold")


def test_a_set_takes_a_missing_suit_but_not_a_fifth_card_or_a_second_of_a_suit() -> None:
    hand0 = ["KH", "KD", "KS", "QH", "QD", "QS", "KC", "KH", *JUNK0[1:], ]
    state = at_second_turn(hand0, H1, STOCK)
    state = meld(state, 0, ["KH", "KD", "KS"], ["QH", "QD", "QS"])
    refused(E, state, 0, {"type": "add", "card": "KH", "pack": 0}, "already holds a heart")
    state = add(state, 0, "KC", 0)
    assert packs_view(state)[0]["cards"] == ["KC", "KD", "KH", "KS"]


def test_a_joker_added_to_a_run_names_its_end() -> None:
    hand0 = ["4H", "5H", "6H", "KC", "KD", "KH", "XR", "XB", *JUNK0[:5]]
    state = at_second_turn(hand0, H1, STOCK)
    state = meld(state, 0, ["4H", "5H", "6H"], ["KC", "KD", "KH"])
    legal = E.legal_actions(state, 0)
    assert {"type": "add", "card": "XR", "pack": 0, "end": "low"} in legal
    assert {"type": "add", "card": "XR", "pack": 0, "end": "high"} in legal
    assert {"type": "add", "card": "XB", "pack": 1} in legal       # a set: no end
    assert not any(a.get("card") == "XB" and a.get("pack") == 0 for a in legal)
    refused(E, state, 0, {"type": "add", "card": "XR", "pack": 0}, "Say at which end")
    refused(E, state, 0, {"type": "add", "card": "XR", "pack": 0, "end": "middle"}, "'low' or 'high'")
    refused(E, state, 0, {"type": "add", "card": "XB", "pack": 1, "end": "low"}, "leave out 'end'")
    refused(E, state, 0, {"type": "add", "card": "XR", "pack": 1}, "no missing suit of its colour")
    refused(E, state, 0, {"type": "add", "card": "XB", "pack": 0, "end": "low"}, "match the run's colour")
    state = add(state, 0, "XR", 0, "low")
    assert packs_view(state)[0]["cards"] == ["XR", "4H", "5H", "6H"]
    assert packs_view(state)[0]["jokers"] == [{"at": 0, "rank": "3", "suits": ["H"]}]


def test_a_natural_cards_place_is_determined_but_an_ace_on_a_two_to_king_run_names_its_end() -> None:
    hand0 = ["2D", "3D", "4D", "5D", "6D", "7D", "8D", "9D", "10D", "JD", "QD", "KD", "AD"]
    state = at_second_turn(hand0, H1, ["AD", *STOCK], options={"min_first_meld": 0})
    state = meld(state, 0, ["2D", "3D", "4D", "5D", "6D", "7D", "8D", "9D", "10D", "JD", "QD", "KD"])
    legal = [a for a in E.legal_actions(state, 0) if a["type"] == "add"]
    assert legal == [{"type": "add", "card": "AD", "pack": 0, "end": "low"},
                     {"type": "add", "card": "AD", "pack": 0, "end": "high"}]
    refused(E, state, 0, {"type": "add", "card": "AD", "pack": 0}, "Say at which end")
    state = add(state, 0, "AD", 0, "high")
    assert packs_view(state)[0]["high"] == "A"
    assert packs_view(state)[0]["value"] == 2 + 3 + 4 + 5 + 6 + 7 + 8 + 9 + 10 + 10 + 10 + 10 + 10
    # with one ace left in hand the run of 2..A can still take a low ace: a natural card names no end
    assert E.legal_actions(state, 0) == [{"type": "discard", "card": "AD"}] or all(
        "end" not in a for a in E.legal_actions(state, 0) if a["type"] == "add")


def test_a_natural_card_on_a_run_names_no_end() -> None:
    hand0 = ["4H", "5H", "6H", "7H", "KC", "KD", "KS", *JUNK0]
    state = at_second_turn(hand0, H1, STOCK)
    state = meld(state, 0, ["4H", "5H", "6H"], ["KC", "KD", "KS"])
    assert in_legal(state, 0, {"type": "add", "card": "7H", "pack": 0})
    refused(E, state, 0, {"type": "add", "card": "7H", "pack": 0, "end": "high"}, "leave out 'end'")
    state = add(state, 0, "7H", 0)
    assert packs_view(state)[0]["cards"] == ["4H", "5H", "6H", "7H"]


def test_runs_grow_to_fourteen_cards_with_both_aces() -> None:
    hand0 = ["AC", "2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C", "10C", "JC", "QC", "KC"]
    state = at_second_turn(hand0, H1, ["AC", *STOCK], options={"min_first_meld": 0})
    state = meld(state, 0, hand0[:12])
    state = add(state, 0, "KC", 0)
    assert packs_view(state)[0]["cards"] == hand0 and hand(state, 0) == ["AC"]
    state = discard(state, 0, "AC")        # seat 0 goes out
    assert E.is_over(state)


def test_a_run_never_wraps() -> None:
    hand0 = ["JC", "QC", "KC", "AC", "2C", "3C", "KD", "KS", "KH", *JUNK0[1:5]]
    state = at_second_turn(hand0, H1, STOCK)
    state = meld(state, 0, ["JC", "QC", "KC", "AC"], ["KD", "KS", "KH"])
    refused(E, state, 0, {"type": "add", "card": "2C", "pack": 0}, "doesn't continue")


# ---------------------------------------------------------------------------------------------------------
# freeing jokers
# ---------------------------------------------------------------------------------------------------------

def test_the_natural_card_frees_a_runs_joker_into_the_adders_hand_to_use_at_once() -> None:
    hand0 = ["5H", "XR", "7H", "KC", "KD", "KS", "QC", "QD", *JUNK0[:5]]
    hand1 = ["6H", "2S", "3S", "4S", "5S", "9C", "9D", "9S", *JUNK1[:5]]
    state = at_second_turn(hand0, hand1, STOCK)
    state = meld(state, 0, ["5H", "XR", "7H"], ["KC", "KD", "KS"])
    state = discard(state, 0, "2C")
    state = draw(state, 1)
    state = meld(state, 1, ["9C", "9D", "9S"], ["2S", "3S", "4S", "5S"])
    state = add(state, 1, "6H", 0)
    assert packs_view(state)[0]["cards"] == ["5H", "6H", "7H"] and packs_view(state)[0]["jokers"] == []
    assert "XR" in hand(state, 1)
    assert E.view(state, 0)["log"][-1]["text"] == \
        "{s1} added the 6♥ to pack 1 (5♥ 6♥ 7♥) and took the red joker it stood for."
    # ... usable at once: the red joker goes on seat 0's kings as the K♥ or K♦ in the same turn
    state = add(state, 1, "XR", 1)
    assert packs_view(state)[1]["cards"] == ["KC", "KD", "KS", "XR"]
    assert packs_view(state)[1]["jokers"] == [{"at": 3, "rank": "K", "suits": ["H"]}]


def test_in_a_set_of_three_naturals_and_a_joker_the_missing_card_frees_it() -> None:
    hand0 = ["KC", "KD", "KS", "XR", "QC", "QD", "QS", *JUNK0]
    state = at_second_turn(hand0, H1, ["KH", *STOCK])
    state = meld(state, 0, ["KC", "KD", "KS", "XR"], ["QC", "QD", "QS"])
    assert packs_view(state)[0]["jokers"] == [{"at": 3, "rank": "K", "suits": ["H"]}]
    state = add(state, 0, "KH", 0)
    assert packs_view(state)[0]["cards"] == ["KC", "KD", "KH", "KS"] and "XR" in hand(state, 0)


def test_in_a_set_of_two_naturals_and_a_joker_any_fitting_card_frees_it() -> None:
    for freeing in ("KC", "KS"):
        hand0 = ["KH", "KD", "XB", "QC", "QD", "QS", "QH", *JUNK0]
        state = at_second_turn(hand0, H1, [freeing, *STOCK])
        state = meld(state, 0, ["KH", "KD", "XB"], ["QC", "QD", "QS", "QH"])
        assert packs_view(state)[0]["jokers"] == [{"at": 2, "rank": "K", "suits": ["C", "S"]}]
        state = add(state, 0, freeing, 0)
        assert sorted(packs_view(state)[0]["cards"]) == sorted(["KH", "KD", freeing]) and "XB" in hand(state, 0)


def test_in_a_set_of_two_naturals_and_two_jokers_the_card_frees_the_joker_of_its_colour() -> None:
    hand0 = ["KH", "KC", "XR", "XB", "QC", "QD", "QS", "QH", *JUNK0[:5]]
    state = at_second_turn(hand0, H1, ["KD", *STOCK])
    state = meld(state, 0, ["KH", "KC", "XR", "XB"], ["QC", "QD", "QS", "QH"])
    state = add(state, 0, "KD", 0)
    assert packs_view(state)[0]["cards"] == ["KC", "KD", "KH", "XB"]
    assert hand(state, 0).count("XR") == 1 and "XB" not in hand(state, 0)


def test_a_freeing_add_may_use_the_last_card_since_the_joker_stays_in_hand() -> None:
    hand0 = ["5H", "XR", "7H", "KC", "KD", "KS", "QC", "QD", "QS", "2C", "3C", "4C", "6H"]
    state = at_second_turn(hand0, H1, ["8D", *STOCK], options={"min_first_meld": 40})
    state = meld(state, 0, ["5H", "XR", "7H"], ["KC", "KD", "KS"], ["QC", "QD", "QS"], ["2C", "3C", "4C"])
    assert sorted(hand(state, 0)) == ["6H", "8D"]
    state = discard(state, 0, "8D")
    state = pass_turn(state, 1)
    state = draw(state, 0)                       # the 3S from the stock
    state = discard(state, 0, "3S")
    state = pass_turn(state, 1)
    state = draw(state, 0)                       # the 5S
    state = discard(state, 0, "5S")
    assert hand(state, 0) == ["6H"]
    state = pass_turn(state, 1)
    state = draw(state, 0)                       # the 7D
    state = add(state, 0, "6H", 0)
    assert hand(state, 0) == ["7D", "XR"]
    state = add(state, 0, "XR", 0, "high")
    assert hand(state, 0) == ["7D"]
    assert E.legal_actions(state, 0) == [{"type": "discard", "card": "7D"}]


# ---------------------------------------------------------------------------------------------------------
# discarding, winning, penalties
# ---------------------------------------------------------------------------------------------------------

def test_discarding_ends_the_turn() -> None:
    state = draw(game(H0, H1, STOCK), 0)
    state = discard(state, 0, "7C")
    view = E.view(state, 1)
    assert view["discard_top"] == "7C" and view["discard_count"] == 1 and E.to_act(state) == [1]
    assert view["turns"] == [1, 1] and view["phase"] == "draw"
    assert view["log"][-1]["text"] == "{s0} discarded the 7♣."
    refused(E, state, 1, {"type": "discard", "card": "7C"}, "Draw a card first")
    refused(E, state, 0, {"type": "draw", "from": "stock"}, "not your turn")


def test_discarding_the_last_card_wins_and_the_loser_scores_its_hand_jokers_20() -> None:
    hand0 = ["KH", "KD", "KS", "QH", "QD", "QS", "2C", "3C", "4C", "5C", "6C", "7C", "9D"]
    hand1 = ["XR", "AS", "KC", "10D", "2H", *JUNK1[:6], "5D", "9H"]
    state = at_second_turn(hand0, hand1, ["8C", *STOCK])
    state = meld(state, 0, ["KH", "KD", "KS"], ["QH", "QD", "QS"], ["2C", "3C", "4C", "5C", "6C", "7C"])
    state = add(state, 0, "8C", 2)
    assert hand(state, 0) == ["9D"]
    state = discard(state, 0, "9D")
    assert E.is_over(state) and E.to_act(state) == [] and E.must_act(state) == []
    penalty = 20 + 10 + 10 + 10 + 2 + (3 + 7 + 10 + 4 + 8 + 10) + 5 + 9
    assert E.result(state) == {"scores": [0, penalty], "winners": [0], "draw": False}
    assert E.scores(state) == [0, penalty]
    view = E.view(state, None)
    assert view["over"] and view["result"] == E.result(state) and view["outcome"] == "out"
    assert view["final_hands"][1] == sorted(hand1, key=card_key)
    assert f"{{s1}} scores {penalty} penalty points" in view["log"][-1]["text"]
    assert view["last"]["actions"][-1]["reason"] == "out"
    assert E.legal_actions(state, 0) == [] and E.legal_actions(state, 1) == []
    refused(E, state, 1, {"type": "draw", "from": "stock"}, "over")


def test_scores_are_zero_during_the_game() -> None:
    state = both_laid_down()
    assert E.scores(state) == [0, 0] and not E.is_over(state)
    with pytest.raises(IllegalAction):
        E.result(state)


# ---------------------------------------------------------------------------------------------------------
# the stock, draws
# ---------------------------------------------------------------------------------------------------------

def test_an_empty_stock_is_refilled_from_the_discard_pile_except_its_top() -> None:
    state = game(H0, H1)
    discards: list[str] = []
    seat = 0
    while E.view(state, None)["stock_count"] > 1:
        before = Counter(state.hands[seat])
        state = draw(state, seat)
        drawn = next(iter((Counter(state.hands[seat]) - before).elements()))
        state = discard(state, seat, drawn)
        discards.append(drawn)
        seat = 1 - seat
    assert E.view(state, None)["discard_count"] == len(discards)
    state = draw(state, seat)                    # the last card of the stock: the pile is reshuffled at once
    view = E.view(state, None)
    assert view["stock_count"] == len(discards) - 1 and view["discard_count"] == 1
    assert view["discard_top"] == discards[-1]
    assert sorted(state.stock) == sorted(discards[:-1])
    moved = len(discards) - 1
    assert f"The stock ran out: {moved} cards of the discard pile were shuffled into a new stock." in [
        e["text"] for e in view["log"]]
    assert view["last"]["actions"][-1] == {"type": "reshuffle", "cards": moved}
    assert view["phase"] == "play"
    # the reshuffle is part of the game's seed: the same moves give the same new stock
    assert E.dump(state) == E.dump(E.load(json.loads(json.dumps(E.dump(state)))))


def full_table_draw_game() -> RummyState:
    """Both players lay down three sets of four and keep one card: the draw rule ends the round."""
    hand0 = ["KC", "KD", "KH", "KS", "QC", "QD", "QH", "QS", "JC", "JD", "JH", "JS", "2C"]
    hand1 = ["10C", "10D", "10H", "10S", "9C", "9D", "9H", "9S", "8C", "8D", "8H", "8S", "3D"]
    state = at_second_turn(hand0, hand1, ["5H", "6H", "7H", "4S", "2D"])
    state = meld(state, 0, hand0[0:4], hand0[4:8], hand0[8:12])
    return discard(state, 0, "2C")


def test_draw_when_neither_holds_three_cards_and_every_pack_is_full_after_a_full_round() -> None:
    state = full_table_draw_game()
    assert not E.is_over(state)                   # checked only after a full round
    state = draw(state, 1)
    state = meld(state, 1, ["10C", "10D", "10H", "10S"], ["9C", "9D", "9H", "9S"], ["8C", "8D", "8H", "8S"])
    state = discard(state, 1, "3D")
    assert E.is_over(state)
    assert E.result(state) == {"scores": [0, 0], "winners": [], "draw": True}
    assert E.view(state, 0)["outcome"] == "draw_rule"
    assert "the game is a draw" in E.view(state, 0)["log"][-1]["text"]


def test_no_draw_while_a_pack_can_still_grow() -> None:
    hand0 = ["KC", "KD", "KH", "KS", "QC", "QD", "QH", "QS", "JC", "JD", "JH", "2C", "3C"]
    hand1 = ["10C", "10D", "10H", "10S", "9C", "9D", "9H", "9S", "8C", "8D", "8H", "8S", "3D"]
    state = at_second_turn(hand0, hand1, ["5H", "6H", "7H", "4S", "2D"])
    state = meld(state, 0, hand0[0:4], hand0[4:8], hand0[8:11])
    state = discard(state, 0, "2C")
    state = draw(state, 1)
    state = meld(state, 1, ["10C", "10D", "10H", "10S"], ["9C", "9D", "9H", "9S"], ["8C", "8D", "8H", "8S"])
    state = discard(state, 1, "3D")
    assert not E.is_over(state)


def test_stalemate_safeguard_ends_a_game_where_no_card_reaches_the_table() -> None:
    state = game(H0, H1)
    rounds = 0
    while not E.is_over(state):
        state = pass_turn(state, 0)
        state = pass_turn(state, 1)
        rounds += 1
    assert rounds == STALEMATE_ROUNDS
    assert E.result(state) == {"scores": [0, 0], "winners": [], "draw": True}
    assert E.view(state, 1)["outcome"] == "stalemate"


# ---------------------------------------------------------------------------------------------------------
# views and hidden information
# ---------------------------------------------------------------------------------------------------------

def test_view_keys_and_hidden_hand() -> None:
    state = draw(both_laid_down(), 0)
    v0, v1, spectator = E.view(state, 0), E.view(state, 1), E.view(state, None)
    for view in (v0, v1, spectator):
        for key in ("game", "players", "seat", "to_act", "must_act", "scores", "over", "result", "legal", "log",
                    "last", "hand", "hand_counts", "stock_count", "discard_top", "discard_count", "laid_down",
                    "packs", "phase", "turns", "current", "options"):
            assert key in view
        json.dumps(view)
    assert v0["hand"] == state.hands[0] and v1["hand"] == state.hands[1] and spectator["hand"] is None
    assert v0["hand_counts"] == [len(state.hands[0]), len(state.hands[1])]
    assert v1["legal"] == [] and spectator["legal"] == [] and v0["legal"] == E.legal_actions(state, 0)
    assert v0["to_act"] == [0] == v0["must_act"]
    drawn = v0["last"]["actions"][0]
    assert drawn == {"type": "draw", "from": "stock", "card": "4D"}
    assert v1["last"]["actions"][0] == {"type": "draw", "from": "stock", "card": None}
    assert v0["log"][-1]["text"] == "You drew the 4♦ from the stock."
    assert v1["log"][-1]["text"] == "{s0} drew a card from the stock."
    assert spectator["log"][-1]["text"] == "{s0} drew a card from the stock."
    pack = v0["packs"][2]
    assert pack == {"id": 2, "kind": "set", "cards": ["10C", "10D", "10S"], "jokers": [], "owner": 1,
                    "value": 30, "full": False, "rank": "10"}


def test_the_last_turn_is_described() -> None:
    state = both_laid_down()
    last = E.view(state, 0)["last"]
    assert last["seat"] == 1 and last["turn"] == 2 and last["ended"]
    assert last["actions"][0] == {"type": "draw", "from": "stock", "card": None}
    assert last["actions"][1] == {"type": "meld", "packs": [2, 3], "value": 60, "first": True}
    assert last["actions"][2] == {"type": "discard", "card": "8D"}
    assert E.view(state, 1)["last"]["actions"][0]["card"] == "3S"


def test_illegal_seat_and_view_seat() -> None:
    state = game(H0, H1, STOCK)
    for seat in (2, -1, True, "0"):
        refused(E, state, seat, {"type": "draw", "from": "stock"})  # type: ignore[arg-type]
        assert E.legal_actions(state, seat) == []  # type: ignore[arg-type]
    with pytest.raises(IllegalAction):
        E.view(state, 2)


# ---------------------------------------------------------------------------------------------------------
# bad input
# ---------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("action", [
    None, [], "draw", 5,
    {}, {"type": "pass"}, {"type": None},
    {"type": "draw"}, {"type": "draw", "from": "table"}, {"type": "draw", "from": 1},
    {"type": "draw", "from": "stock", "card": "2H"},
    {"type": "discard"}, {"type": "discard", "card": 7}, {"type": "discard", "card": "ZZ"},
    {"type": "discard", "card": "2H", "pack": 0},
    {"type": "meld"}, {"type": "meld", "packs": "KH"}, {"type": "meld", "packs": []},
    {"type": "meld", "packs": [[]]}, {"type": "meld", "packs": [["KH", 1, "KS"]]},
    {"type": "meld", "packs": [["KH", "KD", "KS"], "QH"]}, {"type": "meld", "packs": [["K", "KD", "KS"]]},
    {"type": "meld", "packs": [["KH"] * 20]}, {"type": "meld", "packs": [["KH", "KD", "KS"]] * 20},
    {"type": "add", "card": "KC"}, {"type": "add", "card": "KC", "pack": "0"},
    {"type": "add", "card": "KC", "pack": True}, {"type": "add", "card": "KC", "pack": -1},
    {"type": "add", "card": "KC", "pack": 0, "end": None}, {"type": "add", "card": "KC", "pack": 0, "end": 1},
    {"type": "add", "card": "KC", "pack": 0, "extra": 1}, {"type": "add", "card": "QQ", "pack": 0},
    {"type": "add", "card": "KC", "pack": 10**30},
])
def test_bad_actions_are_refused(action: object) -> None:
    state = draw(both_laid_down(), 0)
    refused(E, state, 0, action)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 20) | st.sampled_from(["draw", "meld", "add", "discard", "stock",
                                                                        "discard", "low", "high", *ALL_CODES]),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(
        st.sampled_from(["type", "from", "card", "pack", "packs", "end", "x"]), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(action=json_values, phase=st.integers(0, 2))
def test_fuzz_any_json_is_an_action_or_an_illegal_action(action: object, phase: int) -> None:
    state = [both_laid_down, lambda: draw(both_laid_down(), 0), lambda: game(H0, H1, STOCK)][phase]()
    before = E.dump(state)
    with contextlib.suppress(IllegalAction):
        E.apply(state, 0, action)  # type: ignore[arg-type]
    assert E.dump(state) == before


@functools.cache
def fuzz_meld_position() -> tuple[RummyState, frozenset[tuple[tuple[str, ...], ...]]]:
    hand0 = ["KH", "KD", "KS", "QH", "QD", "QS", "XR", "XB", "2C", "3C", "4C", "5C", "AC"]
    state = at_second_turn(hand0, H1, ["JC", *STOCK])
    legal = E.legal_actions(state, 0)
    return state, frozenset(canonical_meld(a["packs"]) for a in legal if a["type"] == "meld")


@settings(max_examples=200, deadline=None)
@given(packs=st.lists(st.lists(st.sampled_from(ALL_CODES), max_size=6), min_size=1, max_size=4))
def test_fuzz_melds_are_applied_exactly_when_listed(packs: list[list[str]]) -> None:
    state, listed = fuzz_meld_position()
    try:
        E.apply(state, 0, {"type": "meld", "packs": packs})
        accepted = True
    except IllegalAction:
        accepted = False
    normal = canonical_meld(packs) if all(packs) else None
    assert accepted == (normal in listed)


# ---------------------------------------------------------------------------------------------------------
# the lay-down enumeration is complete: compared with a brute force written from the rules
# ---------------------------------------------------------------------------------------------------------

PLACES = {"A": (1, 14), "J": (11,), "Q": (12,), "K": (13,), **{str(n): (n,) for n in range(2, 11)}}
COLOUR = {"XR": "DH", "XB": "CS"}


def rule_set_ok(cards: tuple[str, ...]) -> bool:
    naturals = [c for c in cards if c[0] != "X"]
    jokers = [c for c in cards if c[0] == "X"]
    if not 3 <= len(cards) <= 4 or not naturals or len(jokers) > 2:
        return False
    if len({c[:-1] for c in naturals}) != 1 or len({c[-1] for c in naturals}) != len(naturals):
        return False
    missing = [s for s in "CDHS" if s not in {c[-1] for c in naturals}]
    return any(all(s in COLOUR[j] for j, s in zip(jokers, pick, strict=True))
               for pick in itertools.permutations(missing, len(jokers)))


def rule_new_run_ok(cards: tuple[str, ...]) -> bool:
    naturals = [c for c in cards if c[0] != "X"]
    jokers = [c for c in cards if c[0] == "X"]
    if len(cards) < 3 or len(jokers) > 1 or len({c[-1] for c in naturals}) != 1:
        return False
    suit = naturals[0][-1]
    if any(suit not in COLOUR[j] for j in jokers):
        return False
    for start in range(1, 15 - len(cards) + 1):
        if all(c[0] == "X" or start + i in PLACES[c[:-1]] for i, c in enumerate(cards)):
            return True
    return False


def rule_value(cards: tuple[str, ...]) -> int:
    if rule_set_ok(cards):
        rank = next(c[:-1] for c in cards if c[0] != "X")
        return len(cards) * (10 if rank in "AJQK" else int(rank))
    for start in range(1, 15 - len(cards) + 1):
        if all(c[0] == "X" or start + i in PLACES[c[:-1]] for i, c in enumerate(cards)):
            return sum(1 if p == 1 else min(p, 10) for p in range(start, start + len(cards)))
    raise AssertionError(cards)


def canonical_pack(cards: list[str] | tuple[str, ...]) -> tuple[str, ...]:
    cards = tuple(cards)
    return tuple(sorted(cards)) if rule_set_ok(cards) else cards


def canonical_meld(packs: list[list[str]]) -> tuple[tuple[str, ...], ...]:
    return tuple(sorted(canonical_pack(p) for p in packs))


def brute_force_melds(hand: list[str], min_value: int) -> set[tuple[tuple[str, ...], ...]]:
    """Every lay-down by brute force: all sub-multisets as sets, all joker placements among the naturals in
    order as runs, then all multisets of disjoint packs keeping a card."""
    counts = Counter(hand)
    codes = sorted(counts)
    packs: set[tuple[str, ...]] = set()
    for sizes in itertools.product(*(range(counts[c] + 1) for c in codes)):
        sub = [c for c, n in zip(codes, sizes, strict=True) for _ in range(n)]
        if len(sub) < 3 or len(sub) > len(hand) - 1:
            continue
        if rule_set_ok(tuple(sub)):
            packs.add(tuple(sorted(sub)))
        naturals = [c for c in sub if c[0] != "X"]
        jokers = [c for c in sub if c[0] == "X"]
        for order in set(itertools.permutations(naturals)):
            for spots in itertools.combinations(range(len(sub)), len(jokers)):
                for joker_order in set(itertools.permutations(jokers)):
                    it_n, it_j = iter(order), iter(joker_order)
                    cards = tuple(next(it_j) if i in spots else next(it_n) for i in range(len(sub)))
                    if rule_new_run_ok(cards):
                        packs.add(cards)
    pack_list = sorted(packs)
    out: set[tuple[tuple[str, ...], ...]] = set()

    def search(start: int, left: Counter[str], chosen: list[tuple[str, ...]], size: int) -> None:
        for i in range(start, len(pack_list)):
            pack = pack_list[i]
            need = Counter(pack)
            if any(left[c] < n for c, n in need.items()) or size + len(pack) > len(hand) - 1:
                continue
            chosen.append(pack)
            if sum(rule_value(p) for p in chosen) >= min_value:
                out.add(tuple(sorted(chosen)))
            search(i, left - need, chosen, size + len(pack))
            chosen.pop()

    search(0, counts, [], 0)
    return out


BRUTE_HANDS = [
    ["4H", "5H", "6H", "7H", "XR", "KC", "KD", "KS"],
    ["AH", "2H", "3H", "QH", "KH", "AH", "XR", "XB"],
    ["KC", "KD", "KH", "KS", "XR", "XB", "KD", "QD"],
    ["9S", "10S", "JS", "QS", "XB", "XB", "9C", "9D"],
    ["2C", "3C", "4C", "2C", "3C", "4C", "XB", "5C"],
    ["AS", "AC", "AD", "2S", "3S", "XB", "XR", "QS", "KS"],
]


@pytest.mark.parametrize("hand", BRUTE_HANDS)
def test_enumeration_matches_brute_force(hand: list[str]) -> None:
    for min_value in (0, 40):
        mine = [canonical_meld([list(p) for p in packs]) for packs, _ in enumerate_melds(hand, min_value)]
        assert len(mine) == len(set(mine)), "each lay-down is listed once"
        assert set(mine) == brute_force_melds(hand, min_value)


def test_enumeration_matches_brute_force_on_random_hands() -> None:
    rng = random.Random(11)
    deck = full_deck()
    for _ in range(20):
        pool = [c for c in deck if c[-1] in rng.choice(["HD", "CS", "H", "CDHS"]) or c[0] == "X"]
        hand = rng.sample(pool, 8)
        mine = [canonical_meld([list(p) for p in packs]) for packs, _ in enumerate_melds(hand, 0)]
        assert len(mine) == len(set(mine))
        assert set(mine) == brute_force_melds(hand, 0), hand


def test_enumeration_of_a_rich_hand_is_listed_once_each_and_all_apply() -> None:
    hand0 = ["KC", "KD", "KH", "KS", "QC", "QD", "QH", "QS", "JC", "JD", "JH", "XR", "XB"]
    state = at_second_turn(hand0, H1, ["JS", *STOCK])
    melds = [a for a in E.legal_actions(state, 0) if a["type"] == "meld"]
    keys = [canonical_meld(a["packs"]) for a in melds]
    assert len(keys) == len(set(keys)) > 5000
    for action in random.Random(3).sample(melds, 200):
        after = E.apply(state, 0, action)
        assert sum(p["value"] for p in packs_view(after)) >= 40


# ---------------------------------------------------------------------------------------------------------
# random play
# ---------------------------------------------------------------------------------------------------------

def learn(known: list[set[str]], before: RummyState, actor: int, action: dict[str, Any],
          after: RummyState) -> None:
    """Update what each seat (0, 1, and 2 for a spectator) may know, from the action alone: a seat knows the
    cards it has held, and everyone knows every card that was shown (discarded, taken, laid, added, freed)."""
    shown: set[str] = set()
    kind = action["type"]
    if kind == "draw":
        if action["from"] == "discard":
            shown.add(before.discard[-1])
        else:
            known[actor].update((Counter(after.hands[actor]) - Counter(before.hands[actor])).elements())
    elif kind == "meld":
        shown.update(c for p in action["packs"] for c in p)
    elif kind in ("add", "discard"):
        shown.add(action["card"])
    if after.final_hands is not None:
        shown.update(c for h in after.final_hands for c in h)
    for seen in known:
        seen.update(shown)


def strings_in(value: object, out: set[str]) -> set[str]:
    """Every string (keys included) anywhere in JSON data."""
    if isinstance(value, str):
        out.add(value)
    elif isinstance(value, dict):
        for key, item in value.items():
            out.add(key)
            strings_in(item, out)
    elif isinstance(value, list):
        for item in value:
            strings_in(item, out)
    return out


def assert_no_leak(state: RummyState, seat: int | None, known: set[str]) -> None:
    """The seat's view holds no card code it may not know, nor its name in any text."""
    values = strings_in(E.view(state, seat), set())
    texts = " ".join(values)
    for code in ALL_CODES:
        if code in known:
            continue
        assert code not in values, (seat, code)
        assert card_name(code) not in texts, (seat, code)


def conservation(state: RummyState) -> None:
    cards = [*state.hands[0], *state.hands[1], *state.stock, *state.discard]
    cards += [c for p in state.packs for c in p.cards]
    assert Counter(cards) == Counter(full_deck())


def near_misses(state: RummyState, seat: int, legal: list[dict[str, Any]], rng: random.Random) -> list[Any]:
    other = 1 - seat
    not_held = [c for c in ALL_CODES if c not in state.hands[seat]]
    out: list[Any] = [
        {"type": "discard", "card": rng.choice(not_held)} if not_held else {"type": "pass"},
        {"type": "add", "card": rng.choice(ALL_CODES), "pack": len(state.packs)},
        {"type": "draw", "from": "discard"} if not state.laid[seat] or state.phase != "draw" else {"type": "x"},
        {"type": "meld", "packs": [[rng.choice(ALL_CODES) for _ in range(3)]]},
    ]
    if legal:
        action = dict(rng.choice(legal))
        out.append(("seat", other, action))
        action2 = dict(action)
        action2["extra"] = 1
        out.append(action2)
    if state.phase == "draw":
        out.append({"type": "discard", "card": state.hands[seat][0]})
    else:
        out.append({"type": "draw", "from": "stock"})
    return out


def random_policy(view: dict[str, Any], legal: list[dict[str, Any]], rng: random.Random, uniform: bool,
                  ) -> dict[str, Any]:
    """Uniformly random legal actions, or the Rookie bot's (random discards, packs laid down at once), which
    keeps games short."""
    if uniform:
        return rng.choice(legal)
    action, _ = random_bot(view, legal, rng)
    assert action is not None
    return action


def check_position(state: RummyState, seat: int, legal: list[dict[str, Any]], known: list[set[str]],
                   rng: random.Random) -> None:
    """Rummy's own checks of one position: its near misses are refused and change nothing, no card is created
    or lost, and no view shows a card its seat has not seen."""
    keys = {json.dumps(a, sort_keys=True) for a in legal}
    misses = near_misses(state, seat, legal, rng)
    all_refused(E, state, [(m[1], m[2]) if isinstance(m, tuple) else (seat, m) for m in misses
                           if isinstance(m, tuple) or json.dumps(m, sort_keys=True) not in keys])
    conservation(state)
    for viewer, seen in ((0, known[0]), (1, known[1]), (None, known[2])):
        assert_no_leak(state, viewer, seen)


def play_random_game(seed: int, full_checks: bool, uniform: bool) -> tuple[int, str]:
    """One game of random legal actions; Rummy's own checks at every position of full games, at one position
    of the others; the result as the rules score it.

    What every engine owes (legal moves apply, refusals change nothing, dump/load, games end, replays) is the
    contract battery's (test_contract.py)."""
    setup = random.Random(seed)
    options = {"min_first_meld": setup.choice([0, 20, 40, 40, 40, 60])} if seed % 5 == 0 else None
    spot = setup.randrange(60)
    known: list[set[str]] = []

    def choose(state: RummyState, rng: random.Random) -> tuple[int, dict[str, Any]]:
        (seat,) = E.to_act(state)
        return seat, random_policy(E.view(state, seat), E.legal_actions(state, seat), rng, uniform)

    def check(state: RummyState, step: int) -> None:
        if not known:
            known.extend([set(state.hands[0]), set(state.hands[1]), set()])
        (seat,) = E.to_act(state)
        # legal_actions only where needed: after the draw it lists every lay-down, the costly part of a move.
        if state.phase == "draw":
            draws = E.legal_actions(state, seat)
            assert {"type": "draw", "from": "stock"} in draws, "the stock is never empty when a player must draw"
        if full_checks or step == spot:
            legal = E.legal_actions(state, seat)
            check_position(state, seat, legal, known, random.Random(seed * 7919 + step))

    def after(before: RummyState, seat: int, action: dict[str, Any], new: RummyState) -> None:
        learn(known, before, seat, action, new)

    state, history = random_game(E, 2, seed, options=options, choose=choose, check=check, after=after,
                                 max_steps=5000)
    conservation(state)
    for viewer, seen in ((0, known[0]), (1, known[1]), (None, known[2])):
        assert_no_leak(state, viewer, seen)
    result = E.result(state)
    assert result["draw"] == (result["winners"] == [])
    if not result["draw"]:
        (winner,) = result["winners"]
        assert state.hands[winner] == [] and result["scores"][winner] == 0
        assert result["scores"][1 - winner] == sum(
            20 if c[0] == "X" else (10 if c[:-1] in "AJQK" else int(c[:-1])) for c in state.hands[1 - winner])
    return len(history), state.outcome or ""


def test_random_play_many_games() -> None:
    """300 full games: every position of 15 of them checked in full, one position of each of the others."""
    total = 0
    outcomes: Counter[str] = Counter()
    for seed in range(300):
        steps, outcome = play_random_game(seed, full_checks=seed < 15, uniform=seed % 4 == 0)
        total += steps
        outcomes[outcome] += 1
    assert total > 300 * 50
    assert outcomes["out"] > 270, outcomes       # most random games end with a player going out


# ---------------------------------------------------------------------------------------------------------
# bots
# ---------------------------------------------------------------------------------------------------------

def bot_game(bots: list[Any], seed: int, check_legal: bool = False) -> RummyState:
    rng = random.Random(seed)
    state = E.new_game(2, seed=seed)
    while not E.is_over(state):
        (seat,) = E.to_act(state)
        legal = E.legal_actions(state, seat)
        action, reason = bots[seat](E.view(state, seat), legal, rng)
        assert isinstance(reason, str) and reason
        if check_legal:
            assert action in legal, (action, reason)
        state = E.apply(state, seat, action)
    return state


def test_bots_are_ordered_and_return_legal_actions() -> None:
    assert list(BOTS) == ["random", "reference", "strong"]
    for i, name in enumerate(BOTS):
        for other in BOTS:
            bot_game([BOTS[name], BOTS[other]], seed=100 + i, check_legal=True)


def test_reference_bot_beats_random_bot_clearly() -> None:
    wins = Counter()
    for seed in range(200):
        seats = [reference_bot, random_bot] if seed % 2 == 0 else [random_bot, reference_bot]
        state = bot_game(seats, seed)
        for winner in E.result(state)["winners"]:
            wins["reference" if seats[winner] is reference_bot else "random"] += 1
    assert wins["reference"] > 3 * wins["random"], wins


def test_reference_lays_down_its_most_valuable_combination() -> None:
    hand0 = ["KH", "KD", "KS", "2C", "3C", "4C", "5C", "9H", "10H", "JH", *JUNK0[1:3], "7S"]
    state = at_second_turn(hand0, H1, STOCK)
    action, reason = reference_bot(E.view(state, 0), E.legal_actions(state, 0), random.Random(0))
    assert action is not None and action["type"] == "meld"
    assert canonical_meld(action["packs"]) == canonical_meld(
        [["KH", "KD", "KS"], ["2C", "3C", "4C", "5C"], ["9H", "10H", "JH"]])
    assert reason == "lays down 73: K-K-K, 2-3-4-5 of clubs and 9-10-J of hearts"


def test_reference_lays_down_44_as_in_the_example() -> None:
    hand0 = ["KH", "KD", "KS", "2C", "3C", "4C", "5C", *JUNK0]
    state = at_second_turn(hand0, H1, STOCK)
    action, reason = reference_bot(E.view(state, 0), E.legal_actions(state, 0), random.Random(0))
    assert action is not None and action["type"] == "meld"
    assert reason == "lays down 44: K-K-K and 2-3-4-5 of clubs"


def test_reference_takes_the_discard_only_when_it_improves_its_best_combination() -> None:
    hand0 = ["KH", "KD", "KS", "QH", "QD", "QS", "5H", "6H", "2C", "9D", "JS", "3D", "8S"]
    state = at_second_turn(hand0, ["7H", *H1[1:]], STOCK)
    state = meld(state, 0, ["KH", "KD", "KS"], ["QH", "QD", "QS"])
    state = discard(state, 0, "2H")
    state = draw(state, 1)
    state = discard(state, 1, "7H")
    view = E.view(state, 0)
    action, reason = reference_bot(view, E.legal_actions(state, 0), random.Random(0))
    assert action == {"type": "draw", "from": "discard"}
    assert reason == "takes the 7♥ from the discard pile: it makes its packs worth more"
    state = draw(state, 0, "discard")
    state = discard(state, 0, "JS")
    state = draw(state, 1)
    state = discard(state, 1, "JC")
    action, reason = reference_bot(E.view(state, 0), E.legal_actions(state, 0), random.Random(0))
    assert action == {"type": "draw", "from": "stock"} and reason == "draws from the stock"


def test_reference_discards_its_highest_card_keeps_live_pairs_and_never_a_joker() -> None:
    hand0 = ["KS", "XR", "2C", "3C", "9D", "QH", "QD", "4S", "6H", "5D", "7C", "10S", "8H"]
    state = draw(game(hand0, H1, ["AH", *STOCK]), 0)
    action, reason = reference_bot(E.view(state, 0), E.legal_actions(state, 0), random.Random(0))
    # Q-Q and 2-3 of clubs are live pairs; the K♠ and A♥ are the highest of the rest (10 each): the K♠
    assert action == {"type": "discard", "card": "KS"} and reason == "discards the K♠: highest card"


def test_reference_drops_a_pair_whose_missing_cards_are_both_on_the_table() -> None:
    # seat 1 lays down both 6♥s and both 9♥s (in sets); seat 0 then holds 7♥-8♥, a dead pair (it needs a 6♥
    # or a 9♥), beside live pairs (2♣-3♣, 10♣-10♦, 10♣-J♣) and the 4♥: it throws the 8♥, its highest card
    # outside live pairs, and keeps the higher 10♣, 10♦ and J♣
    hand0 = ["KC", "KD", "KS", "5C", "5D", "5S", "7H", "8H", "2C", "3C", "10D", "10C", "JC"]
    hand1 = ["6H", "6C", "6S", "6H", "6D", "6C", "9H", "9C", "9S", "9H", "9D", "9C", "JS"]
    state = game(hand0, hand1, ["10D", "10S", "AH", "3H", "4H"])
    state = pass_turn(state, 0)
    state = pass_turn(state, 1)
    state = draw(state, 0)                        # the A♥
    state = discard(state, 0, "AH")
    state = draw(state, 1)                        # the 3♥
    state = meld(state, 1, ["6H", "6C", "6S"], ["6H", "6D", "6C"], ["9H", "9C", "9S"], ["9H", "9D", "9C"])
    state = discard(state, 1, "3H")
    state = draw(state, 0)                        # the 4♥
    action, reason = reference_bot(E.view(state, 0), E.legal_actions(state, 0), random.Random(0))
    assert action == {"type": "meld", "packs": [["5C", "5D", "5S"], ["KC", "KD", "KS"]]}
    state = E.apply(state, 0, action)
    action, reason = reference_bot(E.view(state, 0), E.legal_actions(state, 0), random.Random(0))
    assert action == {"type": "discard", "card": "8H"} and reason == "discards the 8♥: highest card"


def test_reference_keeps_a_pair_while_a_missing_card_is_still_out() -> None:
    hand0 = ["KC", "KD", "KS", "QC", "QD", "QS", "7H", "8H", "2C", "3C", "4D", "5D", "6S"]
    state = at_second_turn(hand0, H1, ["4H", *STOCK])
    state = meld(state, 0, ["KC", "KD", "KS"], ["QC", "QD", "QS"])
    action, reason = reference_bot(E.view(state, 0), E.legal_actions(state, 0), random.Random(0))
    # 7♥-8♥, 2♣-3♣, 4♦-5♦ and 4♦-4♥ are live pairs; the 6♠ is the only spare card
    assert action == {"type": "discard", "card": "6S"} and reason == "discards the 6♠: highest card"


def test_reference_adds_cards_when_it_can() -> None:
    state = pass_turn(both_laid_down(), 0)
    state = draw(state, 1)
    action, reason = reference_bot(E.view(state, 1), E.legal_actions(state, 1), random.Random(0))
    assert action == {"type": "add", "card": "QC", "pack": 1}       # seat 1's Q♣ on seat 0's queens
    assert reason == "adds the Q♣ to pack 2"
    state = E.apply(state, 1, action)
    action, reason = reference_bot(E.view(state, 1), E.legal_actions(state, 1), random.Random(0))
    assert action == {"type": "add", "card": "JS", "pack": 3} and reason == "adds the J♠ to pack 4"


def test_bot_decisions_are_fast_on_a_rich_hand() -> None:
    import time
    hand0 = ["KC", "KD", "KH", "KS", "QC", "QD", "QH", "QS", "JC", "JD", "JH", "XR", "XB"]
    state = at_second_turn(hand0, H1, ["JS", *STOCK])
    view, legal = E.view(state, 0), E.legal_actions(state, 0)
    start = time.process_time()
    action, _ = reference_bot(view, legal, random.Random(0))
    assert time.process_time() - start < 0.5
    assert action in legal


# ---------------------------------------------------------------------------------------------------------
# the module
# ---------------------------------------------------------------------------------------------------------


def test_dump_is_plain_json_and_load_round_trips() -> None:
    state = draw(both_laid_down(), 0)
    data = E.dump(state)
    assert json.loads(json.dumps(data)) == data
    assert E.load(data) == state
    assert E.load(json.loads(json.dumps(data))) == state
