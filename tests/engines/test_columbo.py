"""Tests of the Columbo engine (shared/rules/columbo.md) and its bots.

Positions are set up with `deal=` and real actions; random play checks the invariants, hidden information
(against a knowledge tracker written from the rules, independent of the engine's own bookkeeping) and input
validation over thousands of games.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import pytest
from engine_helpers import all_refused, random_game, refused
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs

from games.bots.columbo import BOTS, REACTION_DELAY
from games.engines.base import IllegalAction, card_name, rank_of, standard_deck
from games.engines.columbo import ENGINE, SlapTooLate, State, card_points, hand_points, solo_score

E = ENGINE
ROOT = Path(__file__).resolve().parents[2]


# ---------------------------------------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------------------------------------

def deck(*top: str) -> list[str]:
    """A full deck with these cards on top, in this order, then the rest in the standard order."""
    assert len(set(top)) == len(top)
    return [*top, *(c for c in standard_deck() if c not in top)]


def new(players: int, *top: str, options: dict[str, Any] | None = None, seed: int = 7) -> State:
    """A game dealt from deck(*top): seat 0 gets the first four cards, seat 1 the next four, then the stock."""
    return E.new_game(players, seed=seed, options=options, deal={"deck": deck(*top)})


def do(st: State, who: int, /, **fields: Any) -> State:
    """Apply {type: ..., **fields}; `src` stands for the 'from' field of a draw."""
    action = {("from" if k == "src" else k): v for k, v in fields.items()}
    return E.apply(st, who, action)


def peek_all(st: State, slots: tuple[int, int] = (0, 1)) -> State:
    for seat in list(E.to_act(st)):
        st = do(st, seat, type="peek", slots=list(slots))
    return st


def turn(st: State, seat: int, slot: int | None = None, src: str = "stock") -> State:
    """Draw (stock by default), then discard it or swap it into the slot."""
    st = do(st, seat, type="draw", src=src)
    return do(st, seat, type="discard") if slot is None else do(st, seat, type="swap", slot=slot)


def slap(st: State, seat: int, target: int, slot: int, seq: int | None = None) -> State:
    return do(st, seat, type="slap", seat=target, slot=slot, seq=st.seq if seq is None else seq)


def face(st: State, viewer: int | None, seat: int, slot: int) -> str | None:
    return E.view(st, viewer)["hands"][seat]["slots"][slot]["card"]


def hand(st: State, seat: int) -> list[str | None]:
    """A hand as everyone sees it after the round (tests read the true hand this way)."""
    return list(st.hands[seat])


def all_cards(st: State) -> list[str]:
    cards = [c for h in st.hands for c in h if c is not None] + st.stock + st.discard
    if st.drawn is not None:
        cards.append(st.drawn)
    return cards


# ---------------------------------------------------------------------------------------------------------
# Card points, deal, peek
# ---------------------------------------------------------------------------------------------------------

def test_card_points() -> None:
    assert card_points("AC") == 1
    assert [card_points(f"{r}D") for r in ("2", "3", "4", "5", "6", "7", "8", "9", "10")] == list(range(2, 11))
    assert (card_points("JS"), card_points("QS"), card_points("KS")) == (11, 12, 13)
    assert card_points("KH") == -1
    assert hand_points(["KH", None, "AC", "10D"]) == 10


def test_deal_layout_and_stock_order() -> None:
    top = ["2C", "3C", "4C", "5C", "6D", "7D", "8D", "9D", "AS", "2S"]
    st = new(2, *top)
    assert st.hands == [top[0:4], top[4:8]]
    assert E.view(st, 0)["stock"] == 44
    st = peek_all(st)
    st = do(st, 0, type="draw", src="stock")
    assert E.view(st, 0)["drawn"] == {"seat": 0, "from": "stock", "card": "AS"}
    st = do(st, 0, type="discard")
    st = do(st, 1, type="draw", src="stock")
    assert E.view(st, 1)["drawn"]["card"] == "2S"


def test_bad_deals_are_refused() -> None:
    for bad in ({"deck": standard_deck()[:51]}, {"deck": [*standard_deck()[:51], "AC"]},
                {"deck": [*standard_deck()[:51], "XR"]}, {"cards": standard_deck()}, {"deck": "AC"},
                {"deck": standard_deck(), "extra": 1}, "deck"):
        with pytest.raises(IllegalAction):
            E.new_game(2, seed=1, deal=bad)  # type: ignore[arg-type]
    for players in (0, 7, True, "2"):
        with pytest.raises(IllegalAction):
            E.new_game(players, seed=1)  # type: ignore[arg-type]
    for options in ({"rounds": 0}, {"rounds": True}, {"action_trigger": "never"}, {"speed": 1}, []):
        with pytest.raises(IllegalAction):
            E.new_game(2, seed=1, options=options)  # type: ignore[arg-type]


def test_round_one_dealer_is_the_last_seat_and_seat_0_starts() -> None:
    st = peek_all(E.new_game(4, seed=3))
    view = E.view(st, 2)
    assert view["dealer"] == 3 and view["current"] == 0 and view["round"] == 1
    assert E.must_act(st) == [0]


def test_peek_is_simultaneous_and_play_waits_for_everyone() -> None:
    st = E.new_game(3, seed=5)
    assert E.to_act(st) == [0, 1, 2] and E.must_act(st) == [0, 1, 2]
    assert E.view(st, 0)["phase"] == "peek"
    st = do(st, 1, type="peek", slots=[2, 3])
    assert E.to_act(st) == [0, 2]
    refused(E, st, 0, {"type": "draw", "from": "stock"})
    refused(E, st, 1, {"type": "peek", "slots": [0, 1]})
    st = do(st, 2, type="peek", slots=[0, 3])
    st = do(st, 0, type="peek", slots=[1, 0])
    assert E.view(st, 0)["phase"] == "play"
    assert E.to_act(st) == [0] and E.must_act(st) == [0]
    assert E.legal_actions(st, 1) == []


def test_peek_exactly_two_different_own_slots() -> None:
    st = E.new_game(2, seed=5)
    assert len(E.legal_actions(st, 0)) == 6
    for slots in ([0], [0, 1, 2], [1, 1], [0, 4], [-1, 0], [0, True], ["0", 1], "01"):
        refused(E, st, 0, {"type": "peek", "slots": slots})


def test_peek_shows_the_faces_to_their_owner_only() -> None:
    st = new(2, "2C", "3C", "4C", "5C", "6D", "7D", "8D", "9D")
    st = do(st, 0, type="peek", slots=[0, 3])
    mine = E.view(st, 0)
    assert [s["card"] for s in mine["hands"][0]["slots"]] == ["2C", None, None, "5C"]
    assert mine["last"] == {"type": "peek", "seat": 0, "slots": [0, 3], "cards": ["2C", "5C"]}
    assert mine["hands"][0]["peeked"] == [0, 3]
    for viewer in (1, None):
        other = E.view(st, viewer)
        assert [s["card"] for s in other["hands"][0]["slots"]] == [None] * 4
        assert other["last"]["cards"] is None
        assert other["hands"][0]["peeked"] == [0, 3]  # everyone saw which two cards were looked at
        assert "2♣" not in json.dumps(other, ensure_ascii=False)
    assert mine["hands"][0]["slots"][0]["seen_by"] == [0]


# ---------------------------------------------------------------------------------------------------------
# A turn
# ---------------------------------------------------------------------------------------------------------

TWO = ("2C", "3C", "4C", "5C", "2D", "3D", "4D", "5D")  # two hands without 7-Q


def test_draw_from_stock_then_discard_opens_a_slap_window() -> None:
    st = peek_all(new(2, *TWO, "6S", "6H"))
    st = do(st, 0, type="draw", src="stock")
    assert {"type": "discard"} in E.legal_actions(st, 0)
    assert E.view(st, 1)["drawn"] == {"seat": 0, "from": "stock", "card": None}
    st = do(st, 0, type="discard")
    view = E.view(st, 1)
    assert view["discard"]["top"] == "6S" and view["discard"]["seq"] == 1
    assert view["window"] == {"seq": 1, "card": "6S", "open": True, "attempted": [], "won_by": None,
                              "can_slap": True}
    assert view["current"] == 1 and view["step"] == "draw"


def test_card_from_the_discard_pile_must_be_exchanged() -> None:
    st = peek_all(new(2, *TWO, "6S", "6H"))
    st = turn(st, 0)
    refused(E, st, 1, {"type": "swap", "slot": 0})
    st = do(st, 1, type="draw", src="discard")
    assert E.legal_actions(st, 1) == [{"type": "swap", "slot": k} for k in range(4)]
    assert "exchange it" in refused(E, st, 1, {"type": "discard"})
    st = do(st, 1, type="swap", slot=2)
    assert st.hands[1][2] == "6S" and st.discard == ["4D"]
    assert face(st, 0, 1, 2) == "6S" and face(st, None, 1, 2) == "6S"  # taken openly: known to all
    assert E.view(st, 0)["window"]["card"] == "4D"


def test_no_draw_from_an_empty_discard_pile() -> None:
    st = peek_all(new(2, *TWO))
    assert {"type": "draw", "from": "discard"} not in E.legal_actions(st, 0)
    refused(E, st, 0, {"type": "draw", "from": "discard"})


def test_out_of_turn_and_out_of_step_actions_are_refused() -> None:
    st = peek_all(new(2, *TWO, "6S"))
    refused(E, st, 1, {"type": "draw", "from": "stock"})
    refused(E, st, 0, {"type": "discard"})
    refused(E, st, 0, {"type": "swap", "slot": 0})
    st = do(st, 0, type="draw", src="stock")
    refused(E, st, 0, {"type": "draw", "from": "stock"})
    refused(E, st, 0, {"type": "tap"})
    refused(E, st, 0, {"type": "swap", "slot": 4})


def test_a_card_swapped_in_from_the_stock_is_known_only_to_its_drawer() -> None:
    st = peek_all(new(3, *TWO, "6C", "7C", "8C", "9C", "AS"), slots=(2, 3))
    st = turn(st, 0, slot=1)
    assert face(st, 0, 0, 1) == "AS"
    assert face(st, 1, 0, 1) is None and face(st, 2, 0, 1) is None and face(st, None, 0, 1) is None
    assert E.view(st, 1)["hands"][0]["slots"][1]["seen_by"] == [0]
    assert E.view(st, 0)["discard"]["top"] == "3C"


# ---------------------------------------------------------------------------------------------------------
# Card actions
# ---------------------------------------------------------------------------------------------------------

def test_seven_and_eight_look_at_another_players_card() -> None:
    for rank in ("7", "8"):
        st = peek_all(new(2, *TWO, rank + "S"))
        st = turn(st, 0)
        view = E.view(st, 0)
        assert view["action"] == {"seat": 0, "card": rank + "S", "kind": "look_other", "stage": "look",
                                  "looked": None}
        looks = [a for a in E.legal_actions(st, 0) if a["type"] == "look"]
        assert looks == [{"type": "look", "seat": 1, "slot": k} for k in range(4)]
        refused(E, st, 0, {"type": "look", "seat": 0, "slot": 2})
        st = do(st, 0, type="look", seat=1, slot=3)
        assert face(st, 0, 1, 3) == "5D" and face(st, 1, 1, 3) is None
        assert E.view(st, 0)["last"] == {"type": "look", "seat": 0, "target": [1, 3], "card": "5D"}
        assert E.view(st, 1)["last"]["card"] is None
        assert E.view(st, 0)["action"] is None


def test_nine_and_ten_look_at_an_own_card() -> None:
    for rank in ("9", "10"):
        st = peek_all(new(2, *TWO, rank + "S"))
        st = turn(st, 0)
        assert E.view(st, 0)["action"]["kind"] == "look_own"
        refused(E, st, 0, {"type": "look", "seat": 1, "slot": 2})
        st = do(st, 0, type="look", seat=0, slot=2)
        assert face(st, 0, 0, 2) == "4C" and face(st, 1, 0, 2) is None


def test_jack_swaps_any_two_cards_blind() -> None:
    st = peek_all(new(2, *TWO, "JS", "JH"))
    st = turn(st, 0)
    assert E.view(st, 0)["action"]["kind"] == "exchange"
    refused(E, st, 0, {"type": "look", "seat": 1, "slot": 0})
    refused(E, st, 0, {"type": "exchange", "a": [0, 1], "b": [0, 1]})
    st = do(st, 0, type="exchange", a=[0, 2], b=[1, 3])
    assert st.hands[0][2] == "5D" and st.hands[1][3] == "4C"
    assert face(st, 0, 0, 2) is None and face(st, 1, 1, 3) is None  # nobody had seen them: still unknown
    # The same player twice is allowed too.
    st = turn(st, 1)
    st = do(st, 1, type="exchange", a=[1, 0], b=[1, 1])
    assert st.hands[1][:2] == ["3D", "2D"]
    assert face(st, 1, 1, 1) == "2D" and face(st, 1, 1, 0) == "3D"  # peeked cards keep their faces


def test_queen_looks_then_swaps() -> None:
    st = peek_all(new(2, *TWO, "QS"))
    st = turn(st, 0)
    assert E.view(st, 0)["action"]["kind"] == "look_exchange"
    refused(E, st, 0, {"type": "exchange", "a": [0, 1], "b": [1, 1]})
    st = do(st, 0, type="look", seat=1, slot=2)
    assert E.view(st, 0)["action"]["stage"] == "exchange" and E.view(st, 0)["action"]["looked"] == [1, 2]
    refused(E, st, 0, {"type": "look", "seat": 1, "slot": 3})
    st = do(st, 0, type="exchange", a=[0, 3], b=[1, 2])
    assert st.hands[0][3] == "4D" and face(st, 0, 0, 3) == "4D"
    assert E.view(st, 0)["action"] is None
    # A Queen may also look at its player's own card.
    st2 = peek_all(new(2, *TWO, "QH"))
    st2 = turn(st2, 0)
    st2 = do(st2, 0, type="look", seat=0, slot=3)
    assert face(st2, 0, 0, 3) == "5C"


def test_card_action_is_optional() -> None:
    st = peek_all(new(2, *TWO, "QS"))
    st = turn(st, 0)
    st = do(st, 0, type="skip")
    assert E.view(st, 0)["action"] is None
    refused(E, st, 0, {"type": "skip"})
    refused(E, st, 1, {"type": "skip"})


def test_card_action_and_slap_window_coexist_and_lapse_on_the_next_draw() -> None:
    st = peek_all(new(3, *TWO, "6C", "7C", "8C", "9H", "9S", "AS"))
    st = turn(st, 0)  # the 9♠: look at an own card
    # The discarder may act, everyone may slap, the next player may draw: only the draw is awaited.
    assert E.to_act(st) == [0, 1, 2] and E.must_act(st) == [1]
    kinds0 = {a["type"] for a in E.legal_actions(st, 0)}
    assert kinds0 == {"look", "skip", "slap"}
    assert {a["type"] for a in E.legal_actions(st, 1)} == {"draw", "tap", "slap"}
    assert {a["type"] for a in E.legal_actions(st, 2)} == {"slap"}
    st = do(st, 1, type="draw", src="stock")  # at once: the 9's action lapses
    view = E.view(st, 0)
    assert view["action"] is None and view["window"]["open"] is False
    assert view["last"]["lapsed"] == {"seat": 0, "card": "9S"}
    assert "no card action" in refused(E, st, 0, {"type": "look", "seat": 0, "slot": 0})
    assert E.to_act(st) == [1]


def test_exchanged_cards_do_not_trigger_actions_by_default() -> None:
    def play(options: dict[str, Any] | None) -> tuple[State, State]:
        st = peek_all(new(2, "JC", "8C", "4C", "5C", *TWO[4:], "AS", "6S", options=options))
        first = turn(st, 0, slot=0)  # the J♣ goes to the pile by exchange for a stock card
        st = do(first, 0, type="skip") if first.action else first
        st = turn(st, 1)  # the 6♠
        st = do(st, 0, type="draw", src="discard")
        return first, do(st, 0, type="swap", slot=1)  # the 8♣ goes out for the discard pile's 6♠

    first, second = play(None)
    assert E.view(first, 0)["discard"]["top"] == "JC" and E.view(first, 0)["action"] is None
    assert E.view(second, 0)["discard"]["top"] == "8C" and E.view(second, 0)["action"] is None
    # The action_trigger option "any_discard" makes exchanged cards trigger too.
    first, second = play({"action_trigger": "any_discard"})
    assert E.view(first, 0)["action"]["kind"] == "exchange"
    assert E.view(second, 0)["action"] == {"seat": 0, "card": "8C", "kind": "look_other", "stage": "look",
                                           "looked": None}


def test_slapped_cards_never_trigger_actions() -> None:
    st = peek_all(new(2, *TWO[:4], "7D", "3D", "4D", "5D", "7S"))
    st = turn(st, 0)  # the 7♠: seat 0 may look at another player's card
    st = slap(st, 1, 1, 0)  # seat 1 slaps its own 7♦ onto it
    view = E.view(st, 1)
    assert view["discard"]["top"] == "7D" and view["action"]["seat"] == 0
    assert not any(a["type"] in ("look", "skip") for a in E.legal_actions(st, 1))
    st = do(st, 0, type="look", seat=1, slot=1)  # the discarder's own action still stands
    assert face(st, 0, 1, 1) == "3D"


def test_no_action_when_it_has_nothing_to_work_on() -> None:
    st = peek_all(new(1, "2C", "3C", "4C", "5C", "7S"), slots=(0, 1))
    st = turn(st, 0)  # a 7 in solo: there is no other player
    assert E.view(st, 0)["action"] is None


# ---------------------------------------------------------------------------------------------------------
# Tap
# ---------------------------------------------------------------------------------------------------------

THREE = ("2C", "3C", "4C", "5C", "2D", "3D", "4D", "5D", "2H", "3H", "4H", "5H")


def test_tap_gives_everyone_else_exactly_one_more_turn() -> None:
    st = peek_all(new(3, *THREE, "6C", "6D", options={"rounds": 2}))
    st = do(st, 0, type="tap")
    view = E.view(st, 1)
    assert view["tap"] == {"seat": 0, "final_turns": [1, 2]} and view["current"] == 1
    assert view["hands"][0]["tapped"] is True
    assert {"type": "tap"} not in E.legal_actions(st, 1)
    refused(E, st, 1, {"type": "tap"})
    st = turn(st, 1)  # not the last final turn: its discard opens a window
    assert st.seq == 1 and E.view(st, 2)["window"]["open"]
    st = turn(st, 2)  # the last final turn: no window, the round is over
    assert st.round == 2 and st.seq == 1
    result = E.view(st, 0)["last_round"]
    assert result["tapper"] == 0 and result["ended_by"] == "tap"
    assert result["hands"] == [["2C", "3C", "4C", "5C"], ["2D", "3D", "4D", "5D"], ["2H", "3H", "4H", "5H"]]


def test_last_final_discard_opens_no_window_and_no_action() -> None:
    st = peek_all(new(2, *TWO, "QS", options={"rounds": 1}))
    st = do(st, 0, type="tap")
    st = turn(st, 1)  # the Q♠ would give an action
    assert E.is_over(st) and st.seq == 0
    view = E.view(st, 1)
    assert view["action"] is None and view["window"] is None and view["last"]["seq"] is None


def test_tap_penalty_when_the_final_hand_has_4_points_or_more() -> None:
    st = peek_all(new(2, "AC", "AD", "2C", "3C", *TWO[4:], "6S", options={"rounds": 1}))
    st = do(st, 0, type="tap")
    st = turn(st, 1)
    assert E.is_over(st)
    assert st.history[0]["points"] == [7, 14] and st.history[0]["penalties"] == [25, 0]
    assert E.scores(st) == [32, 14]
    assert E.result(st) == {"scores": [32, 14], "winners": [1], "draw": False}


def test_no_tap_penalty_below_4_points() -> None:
    st = peek_all(new(2, "KH", "AC", "AD", "AS", *TWO[4:], "6S", options={"rounds": 1}))
    st = do(st, 0, type="tap")
    st = turn(st, 1)
    assert E.scores(st) == [2, 14] and st.history[0]["penalties"] == [0, 0]
    assert E.result(st)["winners"] == [0]


def test_tap_penalty_is_judged_on_the_final_hand() -> None:
    # 5 points when tapping, 3 after slapping the 2♣ away during the final turns: no penalty.
    st = peek_all(new(3, "AC", "AD", "AS", "2C", *THREE[4:], "2S", "6S", options={"rounds": 1}))
    st = do(st, 0, type="tap")
    st = turn(st, 1)  # the 2♠
    st = slap(st, 0, 0, 3)
    st = turn(st, 2)
    assert E.is_over(st) and st.history[0]["points"][0] == 3 and st.history[0]["penalties"][0] == 0
    # 2 points when tapping, but an opponent slaps the A♠ away: two unseen cards make it 4 or more.
    st = peek_all(new(3, "KH", "AC", "AD", "AS", *THREE[4:], "AH", "10S", "10C", options={"rounds": 1}))
    st = do(st, 0, type="tap")
    st = turn(st, 1)  # the A♥
    st = slap(st, 2, 0, 3)
    assert st.hands[0] == ["KH", "AC", "AD", "10S", "10C"]
    st = turn(st, 2)
    assert E.is_over(st) and st.history[0]["points"][0] == 21 and st.history[0]["penalties"][0] == 25


def test_the_tappers_cards_cannot_be_exchanged() -> None:
    st = peek_all(new(2, *TWO, "JS", "6S"))
    st = turn(st, 0)  # the J♠: seat 0 may exchange
    st = do(st, 1, type="tap")  # seat 1 taps instead of drawing; the Jack has not lapsed
    exchanges = [a for a in E.legal_actions(st, 0) if a["type"] == "exchange"]
    assert exchanges and all(a["a"][0] == 0 and a["b"][0] == 0 for a in exchanges)
    assert "tapped" in refused(E, st, 0, {"type": "exchange", "a": [0, 0], "b": [1, 0]})
    st = do(st, 0, type="exchange", a=[0, 0], b=[0, 1])
    assert st.hands[0][:2] == ["3C", "2C"]


def test_the_tappers_cards_cannot_be_exchanged_by_a_queen_but_can_be_looked_at() -> None:
    st = peek_all(new(2, *TWO, "QS"))
    st = turn(st, 0)
    st = do(st, 1, type="tap")
    st = do(st, 0, type="look", seat=1, slot=0)
    assert face(st, 0, 1, 0) == "2D"
    assert all(1 not in (a["a"][0], a["b"][0]) for a in E.legal_actions(st, 0) if a["type"] == "exchange")


def test_tap_only_instead_of_drawing() -> None:
    st = peek_all(new(2, *TWO, "6S"))
    assert {"type": "tap"} in E.legal_actions(st, 0)
    refused(E, st, 1, {"type": "tap"})
    refused(E, st, 0, {"type": "tap", "seconds": 5})  # only solo taps carry seconds


# ---------------------------------------------------------------------------------------------------------
# Slaps
# ---------------------------------------------------------------------------------------------------------

SLAPS = ("6C", "2C", "3C", "4C", "6D", "2D", "3D", "8D")  # seat 0 holds the 6♣, seat 1 the 6♦


def slap_game(*stock: str) -> State:
    """Seat 0 has discarded the 6♠ (window 1); seat 1 is to draw."""
    st = peek_all(new(2, *SLAPS, "6S", *stock))
    return turn(st, 0)


def test_slap_own_card_match() -> None:
    st = slap_game()
    st = slap(st, 0, 0, 0)
    assert st.hands[0] == [None, "2C", "3C", "4C"] and st.discard[-1] == "6C"
    view = E.view(st, 1)
    assert view["hands"][0]["cards"] == 3 and view["hands"][0]["slots"][0] == {"card": None, "empty": True,
                                                                                 "seen_by": []}
    assert view["window"]["won_by"] == 0 and view["last"]["match"] is True
    assert E.to_act(st) == [1]  # the window is won: no more slaps


def test_slap_opponents_card_match() -> None:
    st = slap_game("9S", "10S")
    st = slap(st, 0, 1, 0)
    assert st.hands[1] == ["9S", "2D", "3D", "8D", "10S"]  # one replaces it, one extra
    for viewer in (0, 1, None):
        assert face(st, viewer, 1, 0) is None and face(st, viewer, 1, 4) is None
    assert E.view(st, 0)["last"]["dealt"] == [[1, 0], [1, 4]]
    assert st.discard[-1] == "6D"


def test_slap_own_card_no_match() -> None:
    st = slap_game("9S")
    st = slap(st, 1, 1, 1)
    assert st.hands[1] == ["6D", "2D", "3D", "8D", "9S"]
    assert face(st, 0, 1, 1) == "2D" and face(st, None, 1, 1) == "2D"  # shown to all, back in place
    assert face(st, 1, 1, 4) is None
    assert E.view(st, 0)["window"]["won_by"] is None and st.discard[-1] == "6S"


def test_slap_opponents_card_no_match() -> None:
    st = slap_game("9S", "10S")
    st = slap(st, 1, 0, 2)
    assert st.hands[0] == ["6C", "2C", "3C", "4C"] and st.hands[1] == ["6D", "2D", "3D", "8D", "9S", "10S"]
    assert face(st, 1, 0, 2) == "3C" and face(st, None, 0, 2) == "3C"
    # The window stays open for the others.
    st = slap(st, 0, 0, 0)
    assert E.view(st, 1)["window"]["won_by"] == 0


def test_king_of_hearts_matches_the_other_kings() -> None:
    st = peek_all(new(2, "KH", "2C", "3C", "4C", *TWO[4:], "KS"))
    st = turn(st, 0)
    st = slap(st, 0, 0, 0)
    assert st.discard[-1] == "KH" and st.hands[0][0] is None


def test_one_successful_slap_per_discard() -> None:
    st = slap_game()
    st = slap(st, 1, 1, 0)
    msg = refused(E, st, 0, {"type": "slap", "seat": 0, "slot": 0, "seq": 1}, kind=SlapTooLate)
    assert msg == "Too late: the 6♠ was already slapped by {s1}."
    with pytest.raises(SlapTooLate) as info:
        E.apply(st, 0, {"type": "slap", "seat": 0, "slot": 0, "seq": 1})
    assert info.value.winner == 1
    assert E.legal_actions(st, 0) == []


def test_one_slap_attempt_per_player_per_discard() -> None:
    st = slap_game("9S")
    st = slap(st, 0, 0, 1)  # a miss
    msg = refused(E, st, 0, {"type": "slap", "seat": 0, "slot": 0, "seq": 1})
    assert "one attempt per discard" in msg
    with pytest.raises(IllegalAction) as info:
        E.apply(st, 0, {"type": "slap", "seat": 0, "slot": 0, "seq": 1})
    assert not isinstance(info.value, SlapTooLate)
    assert not any(a["type"] == "slap" for a in E.legal_actions(st, 0))
    assert E.to_act(st) == [1]


def test_late_slap_naming_an_old_discard_is_refused_without_penalty() -> None:
    st = slap_game()
    st = turn(st, 1)  # seat 1 draws and discards: window 2
    assert st.seq == 2
    with pytest.raises(SlapTooLate) as info:
        E.apply(st, 0, {"type": "slap", "seat": 0, "slot": 0, "seq": 1})
    assert info.value.winner is None
    refused(E, st, 0, {"type": "slap", "seat": 0, "slot": 0, "seq": 1}, kind=SlapTooLate)


def test_slap_after_the_next_draw_is_too_late() -> None:
    st = slap_game()
    st = do(st, 1, type="draw", src="stock")
    assert "Too late" in refused(E, st, 0, {"type": "slap", "seat": 0, "slot": 0, "seq": 1}, kind=SlapTooLate)


def test_slap_on_a_discard_that_does_not_exist_is_not_too_late() -> None:
    st = peek_all(new(2, *SLAPS))
    with pytest.raises(IllegalAction) as info:
        E.apply(st, 0, {"type": "slap", "seat": 0, "slot": 0, "seq": 1})
    assert not isinstance(info.value, SlapTooLate)
    st = slap_game()
    with pytest.raises(IllegalAction) as info:
        E.apply(st, 0, {"type": "slap", "seat": 0, "slot": 0, "seq": 2})
    assert not isinstance(info.value, SlapTooLate)
    for bad in ({"seat": 2, "slot": 0}, {"seat": 0, "slot": 4}, {"seat": -1, "slot": 0}):
        refused(E, st, 0, {"type": "slap", "seq": 1, **bad})


def test_late_slap_on_a_slot_the_winner_emptied_is_still_too_late() -> None:
    st = slap_game()
    st = slap(st, 0, 0, 0)  # seat 0's 6♣ is gone, slot 0 empty
    refused(E, st, 1, {"type": "slap", "seat": 0, "slot": 0, "seq": 1}, kind=SlapTooLate)


def test_new_cards_fill_the_first_empty_slot_else_open_a_new_one() -> None:
    st = slap_game("2S", "9H", "10H")
    st = slap(st, 0, 0, 0)  # seat 0's slot 0 is now empty
    st = turn(st, 1)  # seat 1 discards the 2♠: window 2
    st = slap(st, 0, 0, 3)  # the 4♣: a miss, the penalty card fills the empty slot 0
    assert st.hands[0] == ["9H", "2C", "3C", "4C"]
    st = slap(st, 1, 0, 2)  # seat 1 misses on seat 0's 3♣: two cards, new slots 4 and 5
    assert len(st.hands[1]) == 6 and st.hands[1][4] is not None and st.hands[1][5] is not None
    assert E.view(st, 1)["hands"][1]["cards"] == 6


def test_emptied_slots_stay_empty() -> None:
    st = slap_game("2S", "7H")
    st = slap(st, 0, 0, 0)  # seat 0's slot 0 is emptied
    st = turn(st, 1)
    st = do(st, 0, type="draw", src="stock")
    assert {"type": "swap", "slot": 0} not in E.legal_actions(st, 0)
    refused(E, st, 0, {"type": "swap", "slot": 0})
    st = do(st, 0, type="swap", slot=1)
    assert st.hands[0] == [None, "7H", "3C", "4C"]
    assert E.view(st, 1)["hands"][0]["slots"][0]["empty"] is True


def test_slaps_target_any_card_in_any_hand() -> None:
    st = slap_game()
    slaps = [(a["seat"], a["slot"]) for a in E.legal_actions(st, 0) if a["type"] == "slap"]
    assert slaps == [(0, k) for k in range(4)] + [(1, k) for k in range(4)]
    assert all(a["seq"] == 1 for a in E.legal_actions(st, 0) if a["type"] == "slap")


# ---------------------------------------------------------------------------------------------------------
# Stock, rounds, scores
# ---------------------------------------------------------------------------------------------------------

def test_stock_reshuffle_keeps_the_discard_top() -> None:
    st = peek_all(E.new_game(2, seed=11, deal={"deck": standard_deck()}))
    for _ in range(44):
        st = turn(st, st.current)
    assert len(st.stock) == 43 and len(st.discard) == 1
    assert sorted(all_cards(st)) == sorted(standard_deck())
    assert "shuffled into a new stock of 43 cards" in E.view(st, 0)["log"][-1]["text"]
    assert E.view(st, 0)["last"]["reshuffled"] == 43


def test_round_ends_when_nothing_is_left_to_draw() -> None:
    st = peek_all(E.new_game(2, seed=11, options={"rounds": 1}, deal={"deck": standard_deck()}))
    for _ in range(200):
        if E.is_over(st):
            break
        st = turn(st, st.current)
        for seat in (0, 1):
            if E.is_over(st) or st.window is None or not st.window["open"]:
                break
            rank = rank_of(st.window["card"])
            target = 1 - seat
            miss = next((k for k, c in enumerate(st.hands[target]) if c is not None and rank_of(c) != rank), None)
            if miss is not None and seat in E.to_act(st):
                st = slap(st, seat, target, miss)
    assert E.is_over(st)
    entry = st.history[0]
    assert entry["ended_by"] == "stock" and entry["tapper"] is None and entry["penalties"] == [0, 0]
    assert any("Nothing is left to draw" in e["text"] for e in E.view(st, 0)["log"])


def finish_round(st: State, tapper: int | None = None) -> State:
    """Peek, let the current (or given) player tap, and play everyone's last turn from the stock."""
    st = peek_all(st)
    start = st.current
    while st.current != (start if tapper is None else tapper):
        st = turn(st, st.current)
    st = do(st, st.current, type="tap")
    round_no = st.round
    while st.round == round_no and not E.is_over(st):
        st = turn(st, st.current)
    return st


def test_dealer_rotates_and_the_next_player_starts() -> None:
    st = E.new_game(3, seed=2, options={"rounds": 4})
    seen = []
    for _ in range(4):
        view = E.view(st, 0)
        seen.append((view["round"], view["dealer"], st.current))
        st = finish_round(st)
    assert seen == [(1, 2, 0), (2, 0, 1), (3, 1, 2), (4, 2, 0)]
    assert E.is_over(st)


def test_running_totals_and_open_round_results() -> None:
    st = E.new_game(3, seed=4, options={"rounds": 3})
    totals = [0, 0, 0]
    for r in range(3):
        st = finish_round(st)
        entry = st.history[-1]
        assert entry["points"] == [hand_points(h) for h in entry["hands"]]
        totals = [t + s for t, s in zip(totals, entry["scores"], strict=True)]
        assert E.scores(st) == totals and E.view(st, 1)["totals"] == totals
        last = E.view(st, 2)["last_round"]
        assert last["round"] == r + 1 and all(c is not None for h in last["hands"] for c in h)
        assert [x["round"] for x in E.view(st, 0)["rounds_played"]] == list(range(1, r + 2))
    assert E.result(st)["scores"] == totals


def test_a_new_round_is_dealt_at_once_and_waits_for_everyone_to_peek_again() -> None:
    st = finish_round(E.new_game(2, seed=9), tapper=1)  # seat 0 discards (window 1), seat 1 taps
    assert st.round == 2 and E.to_act(st) == [0, 1] and E.must_act(st) == [0, 1]
    view = E.view(st, 0)
    assert view["phase"] == "peek" and all(s["card"] is None for h in view["hands"] for s in h["slots"])
    assert view["last"]["round_over"] == 1 and view["last_round"]["round"] == 1
    assert view["window"] is None and view["discard"] == {"top": None, "count": 0, "cards": [], "seq": 1}
    refused(E, st, 0, {"type": "slap", "seat": 0, "slot": 0, "seq": 1}, kind=SlapTooLate)


def test_match_length_is_the_rounds_option() -> None:
    st = E.new_game(2, seed=9, options={"rounds": 2})
    st = finish_round(st)
    assert not E.is_over(st)
    st = finish_round(st)
    assert E.is_over(st) and len(st.history) == 2
    assert E.legal_actions(st, 0) == [] and E.to_act(st) == [] and E.must_act(st) == []
    refused(E, st, 0, {"type": "peek", "slots": [0, 1]})
    assert E.view(st, 0)["over"] is True


def test_ties_share_the_win() -> None:
    st = peek_all(new(3, "KC", "KD", "KS", "QC", "2C", "3C", "4C", "5C", "2D", "3D", "4D", "5D",
                      options={"rounds": 1}))
    st = do(st, 0, type="tap")
    st = turn(st, 1)
    st = turn(st, 2)
    assert E.result(st) == {"scores": [76, 14, 14], "winners": [1, 2], "draw": False}
    st = peek_all(new(2, "2C", "3C", "4C", "5C", "10C", "10D", "10H", "9C", options={"rounds": 1}))
    st = do(st, 0, type="tap")
    st = turn(st, 1)
    assert E.result(st) == {"scores": [39, 39], "winners": [0, 1], "draw": True}


def test_result_before_the_end_is_refused() -> None:
    with pytest.raises(IllegalAction):
        E.result(E.new_game(2, seed=1))


# ---------------------------------------------------------------------------------------------------------
# Solo
# ---------------------------------------------------------------------------------------------------------

def test_solo_score_formula() -> None:
    assert solo_score(2, 3, 73) == 2 * 5000 + 97_000 + 27_000
    assert solo_score(-1, 150, 200) == 25_000
    assert solo_score(4, 1, 1) == 0 and solo_score(30, 1, 1) == 0


def test_solo_is_one_round_with_turns_and_seconds() -> None:
    st = new(1, "KH", "AC", "AD", "AS", "6S", "6H", "6D", options={"rounds": 4})
    assert E.view(st, 0)["rounds"] == 1
    st = do(st, 0, type="peek", slots=[0, 1])
    for _ in range(3):
        st = turn(st, 0)
    assert E.view(st, 0)["solo"] == {"turns": 3, "seconds": None, "score": None, "points": None}
    assert {"type": "tap", "seconds": 0} in E.legal_actions(st, 0)
    assert "seconds" in refused(E, st, 0, {"type": "tap"})
    refused(E, st, 0, {"type": "tap", "seconds": -1})
    st = do(st, 0, type="tap", seconds=73)
    assert E.is_over(st)
    assert E.view(st, 0)["solo"] == {"turns": 3, "seconds": 73, "score": 134_000, "points": 2}
    assert E.scores(st) == [134_000] and E.result(st) == {"scores": [134_000], "winners": [0], "draw": False}


def test_solo_with_4_points_or_more_scores_zero() -> None:
    st = peek_all(new(1, "2C", "3C", "4C", "5C"))
    st = do(st, 0, type="tap", seconds=5)
    assert E.scores(st) == [0] and st.history[0]["points"] == [14]


def test_solo_slaps_own_cards() -> None:
    st = peek_all(new(1, "6C", "2C", "3C", "4C", "6S"))
    st = turn(st, 0)
    assert E.to_act(st) == [0]
    st = slap(st, 0, 0, 0)
    assert st.hands[0][0] is None
    st = do(st, 0, type="tap", seconds=10)
    assert E.scores(st) == [solo_score(9, 1, 10)] == [0]


# ---------------------------------------------------------------------------------------------------------
# Knowledge
# ---------------------------------------------------------------------------------------------------------

def test_knowledge_follows_a_card_through_a_jack_exchange() -> None:
    st = new(3, *THREE, "6S", "JS")
    st = do(st, 0, type="peek", slots=[0, 1])
    st = do(st, 1, type="peek", slots=[0, 1])
    st = do(st, 2, type="peek", slots=[2, 3])
    st = turn(st, 0)
    st = turn(st, 1)  # the J♠
    st = do(st, 1, type="exchange", a=[0, 0], b=[2, 2])
    assert st.hands[0][0] == "4H" and st.hands[2][2] == "2C"
    assert face(st, 0, 2, 2) == "2C"  # seat 0 peeked the 2♣ and saw it move
    assert face(st, 0, 0, 0) is None  # ...and never saw the 4♥ now in its slot 0
    assert face(st, 2, 0, 0) == "4H" and face(st, 2, 2, 2) is None
    assert face(st, 1, 0, 0) is None and face(st, 1, 2, 2) is None
    assert E.view(st, None)["hands"][2]["slots"][2] == {"card": None, "empty": False, "seen_by": [0]}


def test_knowledge_follows_a_card_from_the_discard_pile() -> None:
    st = peek_all(new(3, *THREE, "6S"), slots=(2, 3))
    st = turn(st, 0)
    st = do(st, 1, type="draw", src="discard")
    st = do(st, 1, type="swap", slot=0)
    for viewer in (0, 1, 2, None):
        assert face(st, viewer, 1, 0) == "6S"


def test_a_failed_slap_shows_the_card_to_all_for_good() -> None:
    st = slap_game("9S", "10S")
    st = slap(st, 1, 0, 3)
    assert face(st, None, 0, 3) == "4C" and face(st, 1, 0, 3) == "4C"
    assert E.view(st, 1)["hands"][0]["slots"][3]["seen_by"] == [0, 1]


def test_all_hands_are_open_once_the_game_is_over() -> None:
    st = peek_all(new(2, *TWO, "6S", options={"rounds": 1}))
    st = do(st, 0, type="tap")
    st = turn(st, 1)
    for viewer in (0, 1, None):
        assert [s["card"] for s in E.view(st, viewer)["hands"][1]["slots"]] == list(TWO[4:])


def test_view_has_the_site_keys() -> None:
    st = E.new_game(3, seed=1)
    for viewer in (0, None):
        view = E.view(st, viewer)
        for key in ("game", "players", "seat", "to_act", "must_act", "scores", "over", "result", "legal", "log",
                    "last", "hands", "drawn", "discard", "stock", "window", "action", "tap", "round", "rounds",
                    "totals", "last_round", "solo", "phase"):
            assert key in view
        json.dumps(view)
    assert E.view(st, None)["legal"] == [] and E.view(st, 0)["game"] == "columbo"
    with pytest.raises(IllegalAction):
        E.view(st, 3)


def test_log_hides_the_drawn_card_from_the_others() -> None:
    st = peek_all(new(2, *TWO, "6S"))
    st = do(st, 0, type="draw", src="stock")
    assert E.view(st, 0)["log"][-1] == {"seat": 0, "text": "You drew the 6♠ from the stock."}
    assert E.view(st, 1)["log"][-1] == {"seat": 0, "text": "{s0} drew a card from the stock."}


# ---------------------------------------------------------------------------------------------------------
# Random play: invariants, legality, hidden information, determinism
# ---------------------------------------------------------------------------------------------------------

CODE_IN_JSON = re.compile(r'"((?:10|[2-9AJQK])[CDHS])"')
NAME_IN_TEXT = re.compile(r"(?:10|[2-9AJQK])[♣♦♥♠]")
NAME_TO_CODE = {card_name(c): c for c in standard_deck()}


class Tracker:
    """What each seat (index n: a spectator) has seen, from the rules alone: faces it tracks in hands now, and
    every face it was ever shown. Keyed by card: everyone sees every card move, so knowledge moves with it."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.now: list[set[str]] = [set() for _ in range(n + 1)]
        self.ever: list[set[str]] = [set() for _ in range(n + 1)]

    def see(self, who: int, cards: list[str]) -> None:
        self.now[who].update(cards)
        self.ever[who].update(cards)

    def to_pile(self, card: str) -> None:
        """A card face-up on the discard pile: everyone has seen it; it is in no hand."""
        for who in range(self.n + 1):
            self.ever[who].add(card)
            self.now[who].discard(card)

    def update(self, before: State, seat: int, action: dict[str, Any], after: State) -> None:
        kind = action["type"]
        if kind == "peek":
            self.see(seat, [before.hands[seat][k] for k in action["slots"]])  # type: ignore[misc]
        elif kind == "draw":
            if action["from"] == "stock":
                assert after.drawn is not None
                self.see(seat, [after.drawn])
            else:
                for who in range(self.n + 1):
                    self.see(who, [before.discard[-1]])
        elif kind == "swap":
            self.to_pile(before.hands[seat][action["slot"]])  # type: ignore[arg-type]
        elif kind == "discard":
            self.to_pile(before.drawn)  # type: ignore[arg-type]
        elif kind == "look":
            self.see(seat, [before.hands[action["seat"]][action["slot"]]])  # type: ignore[list-item]
        elif kind == "slap":
            card = before.hands[action["seat"]][action["slot"]]
            assert card is not None and before.window is not None
            if rank_of(card) == rank_of(before.window["card"]):
                self.to_pile(card)
            else:
                for who in range(self.n + 1):
                    self.see(who, [card])
        if after.round != before.round or (after.phase == "over" and before.phase != "over"):
            opened = [c for h in after.history[-1]["hands"] for c in h if c is not None]
            for who in range(self.n + 1):
                self.ever[who].update(opened)
                self.now[who].clear()

    def check(self, st: State, viewer: int | None) -> None:
        who = self.n if viewer is None else viewer
        view = E.view(st, viewer)
        over = st.phase == "over"
        for t, cards in enumerate(st.hands):
            slots = view["hands"][t]["slots"]
            assert len(slots) == len(cards)
            for k, c in enumerate(cards):
                expected = c if c is not None and (over or c in self.now[who]) else None
                assert slots[k]["card"] == expected, (viewer, t, k, c)
                assert slots[k]["empty"] is (c is None)
        if st.drawn is not None:
            assert view["drawn"]["card"] == (st.drawn if st.drawn in self.now[who] else None)
        text = json.dumps(view, ensure_ascii=False)
        shown = set(CODE_IN_JSON.findall(text)) | {NAME_TO_CODE[m] for m in NAME_IN_TEXT.findall(text)}
        assert shown <= self.ever[who], (viewer, shown - self.ever[who])


def normal(action: dict[str, Any]) -> str:
    """An action in a canonical form (peeks and exchanges are unordered) for comparing with legal lists."""
    a = dict(action)
    if a.get("type") == "peek" and isinstance(a.get("slots"), list):
        a["slots"] = sorted(a["slots"], key=repr)
    if a.get("type") == "exchange":
        a["a"], a["b"] = sorted([a.get("a"), a.get("b")], key=repr)
    return json.dumps(a, sort_keys=True)


def is_legal(st: State, seat: int, action: dict[str, Any], legal: set[str] | None = None) -> bool:
    """Whether apply must accept the action (`legal`: the normal forms of the seat's legal actions)."""
    if legal is None:
        legal = {normal(a) for a in E.legal_actions(st, seat)}
    if normal(action) in legal:
        return True
    seconds = action.get("seconds")
    return (action.get("type") == "tap" and set(action) == {"type", "seconds"} and isinstance(seconds, int)
            and not isinstance(seconds, bool) and 0 <= seconds <= 10**9 and normal({"type": "tap", "seconds": 0})
            in legal)


def near_misses(st: State, seat: int) -> list[Any]:
    """Actions close to legal ones: wrong slot, wrong seat, stale or future seq, wrong phase, bad shapes."""
    n = st.players
    q = st.seq
    other = (seat + 1) % n
    out: list[Any] = [
        {"type": "draw", "from": "stock"}, {"type": "draw", "from": "discard"}, {"type": "draw", "from": "deck"},
        {"type": "draw"}, {"type": "draw", "from": "stock", "slot": 0}, {"type": "discard"}, {"type": "skip"},
        {"type": "swap", "slot": 0}, {"type": "swap", "slot": 7}, {"type": "swap", "slot": -1},
        {"type": "swap", "slot": True}, {"type": "swap", "slot": "0"}, {"type": "tap"}, {"type": "tap", "seconds": 3},
        {"type": "peek", "slots": [0, 1]}, {"type": "peek", "slots": [2, 2]}, {"type": "peek", "slots": [3, 4]},
        {"type": "look", "seat": seat, "slot": 0}, {"type": "look", "seat": other, "slot": 1},
        {"type": "look", "seat": n, "slot": 0}, {"type": "look", "seat": other, "slot": 9},
        {"type": "exchange", "a": [0, 0], "b": [0, 0]}, {"type": "exchange", "a": [0, 0], "b": [n - 1, 1]},
        {"type": "exchange", "a": [0, 0], "b": [n, 1]}, {"type": "exchange", "a": [0], "b": [0, 1]},
        {"type": "slap", "seat": 0, "slot": 0, "seq": q + 1}, {"type": "slap", "seat": 0, "slot": 0, "seq": q},
        {"type": "slap", "seat": other, "slot": 2, "seq": q}, {"type": "slap", "seat": n, "slot": 0, "seq": q},
        {"type": "slap", "seat": seat, "slot": 12, "seq": q}, {"type": "slap", "seat": 0, "slot": 0, "seq": 0},
        {"type": "slap", "seat": 0, "slot": 0}, {"type": "pass"}, {"type": None}, {}, [], "draw", None,
    ]
    for s in range(n):
        if s != seat:
            out.extend(E.legal_actions(st, s)[:6])
    return out


def probe_illegal(st: State, seat: int) -> None:
    legal = {normal(a) for a in E.legal_actions(st, seat)}
    all_refused(E, st, [(seat, action) for action in near_misses(st, seat)
                        if not (isinstance(action, dict) and is_legal(st, seat, action, legal))])


DECK = frozenset(standard_deck())


def check_invariants(st: State, others: bool = False) -> None:
    """No card created or lost; someone is awaited; every seat that may act has a legal action (and, with
    `others`, no other seat has one)."""
    cards = all_cards(st)
    assert len(cards) == 52 and set(cards) == DECK
    if E.is_over(st):
        assert E.to_act(st) == [] and E.must_act(st) == []
        return
    must = E.must_act(st)
    to_act = E.to_act(st)
    assert must and set(must) <= set(to_act)
    for seat in to_act:
        assert E.legal_actions(st, seat), seat
    if others:
        for seat in range(st.players):
            if seat not in to_act:
                assert E.legal_actions(st, seat) == []


def random_options(rng: random.Random) -> dict[str, Any]:
    return {"rounds": rng.choice([1, 2, 4]), "action_trigger": rng.choice(["drawn_discard", "any_discard"])}


def play_random(seed: int, *, heavy: bool, every: int = 1,
                events: dict[str, int] | None = None) -> tuple[State, list[Any]]:
    """One full random game (1 to 6 players, random options), with what only Columbo has checked after every
    action: no card created or lost, every awaited seat able to act. `heavy` adds, after every `every`-th
    action, Columbo's own near misses and what each seat and a spectator has seen (Tracker). `events` counts
    the kinds of moves and turns of the game, so a run can show it reached them all.

    What every engine owes (legal moves apply, refusals change nothing, dump/load, games end, replays) is the
    contract battery's (test_contract.py)."""
    setup = random.Random(seed)
    n = setup.randint(1, 6)
    options = random_options(setup)
    patient = setup.random() < 0.3  # some games rarely tap, so stocks run out and reshuffle
    tracker = Tracker(n) if heavy else None

    def choose(st: State, rng: random.Random) -> tuple[int, dict[str, Any]]:
        seat = rng.choice(E.must_act(st) if rng.random() < 0.5 else E.to_act(st))
        legal = E.legal_actions(st, seat)
        if patient and len(legal) > 1 and rng.random() < 0.97:
            legal = [a for a in legal if a["type"] != "tap"] or legal
        return seat, rng.choice(legal)

    def check(st: State, step: int) -> None:
        if heavy and step % every == 0:
            for seat in E.to_act(st):
                probe_illegal(st, seat)

    steps = 0

    def after(before: State, seat: int, action: dict[str, Any], st: State) -> None:
        nonlocal steps
        steps += 1
        if events is not None:
            count_events(events, before, seat, action, st)
        checked = heavy and steps % every == 0
        if tracker is not None:
            tracker.update(before, seat, action, st)
        check_invariants(st, others=checked)
        if checked:
            assert tracker is not None
            for viewer in [*range(n), None]:
                tracker.check(st, viewer)

    st, history = random_game(E, n, seed, options=options, choose=choose, check=check, after=after)
    result = E.result(st)
    assert set(result) == {"scores", "winners", "draw"} and result["winners"]
    return st, history


def count_events(events: dict[str, int], before: State, seat: int, action: dict[str, Any], after: State) -> None:
    key = action["type"]
    if key == "slap":
        key += "-" + ("own" if action["seat"] == seat else "opp") + "-" + (
            "hit" if after.last and after.last["public"]["match"] else "miss")
    events[key] = events.get(key, 0) + 1
    public = after.last["public"] if after.last else {}
    for flag in ("reshuffled", "round_over"):
        if public.get(flag):
            events[flag] = events.get(flag, 0) + 1
    if after.history and after.history[-1]["ended_by"] == "stock" and len(after.history) > len(before.history):
        events["stock_end"] = events.get("stock_end", 0) + 1


def test_random_play_many_games() -> None:
    events: dict[str, int] = {}
    for seed in range(400):
        play_random(seed, heavy=seed % 20 == 0, every=10, events=events)
    for key in ("peek", "draw", "swap", "discard", "tap", "look", "exchange", "skip", "slap-own-hit", "slap-own-miss",
                "slap-opp-hit", "slap-opp-miss", "reshuffled", "round_over", "stock_end"):
        assert events.get(key, 0) > 0, key


def test_random_play_with_every_check_on_every_action() -> None:
    for seed in range(5000, 5006):
        play_random(seed, heavy=True)


# ---------------------------------------------------------------------------------------------------------
# Bad input
# ---------------------------------------------------------------------------------------------------------

def sample_states() -> list[State]:
    """A peek phase, a draw step with a window and a Queen pending, a placing step, a finished game."""
    out = [E.new_game(3, seed=1)]
    st = peek_all(new(2, *TWO, "QS", "6S"))
    st = turn(st, 0)
    out.append(st)
    out.append(do(st, 1, type="draw", src="stock"))
    out.append(play_random(42, heavy=False)[0])
    out.append(peek_all(new(1, *TWO[:4])))
    return out


STATES = sample_states()
json_values = hs.recursive(
    hs.none() | hs.booleans() | hs.integers(-5, 60) | hs.text(max_size=6) | hs.sampled_from(standard_deck()),
    lambda inner: hs.lists(inner, max_size=3) | hs.dictionaries(hs.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)
TYPES = ["peek", "draw", "swap", "discard", "tap", "look", "exchange", "skip", "slap", "next_round", ""]
FIELDS = ["from", "slot", "slots", "seat", "seq", "a", "b", "seconds", "card"]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(index=hs.integers(0, len(STATES) - 1), seat=hs.one_of(hs.integers(-1, 6), json_values),
       kind=hs.sampled_from(TYPES), fields=hs.dictionaries(hs.sampled_from(FIELDS), json_values, max_size=4))
def test_fuzzed_actions_are_applied_or_refused_cleanly(index: int, seat: Any, kind: str,
                                                       fields: dict[str, Any]) -> None:
    st = STATES[index]
    action = {"type": kind, **fields}
    before = json.dumps(E.dump(st), sort_keys=True)
    legal = isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < st.players and is_legal(
        st, seat, action)
    try:
        E.apply(st, seat, action)
    except IllegalAction:
        assert not legal
    else:
        assert legal
    assert json.dumps(E.dump(st), sort_keys=True) == before


@settings(max_examples=200, deadline=None)
@given(action=json_values)
def test_fuzzed_json_is_refused_cleanly(action: Any) -> None:
    for st in STATES:
        try:
            E.apply(st, 0, action)
        except IllegalAction:
            pass
        else:
            assert isinstance(action, dict) and is_legal(st, 0, action)


def test_unknown_types_missing_and_extra_fields() -> None:
    st = peek_all(new(2, *TWO, "6S"))
    assert "Unknown action type" in refused(E, st, 0, {"type": "fold"})
    refused(E, st, 0, {"type": "draw"})
    refused(E, st, 0, {"type": "draw", "from": "stock", "extra": 1})
    refused(E, st, 0, {"type": "draw", "from": 1})
    refused(E, st, 0, {"from": "stock"})
    refused(E, st, 0, "draw")
    refused(E, st, 7, {"type": "draw", "from": "stock"})
    refused(E, st, True, {"type": "draw", "from": "stock"})  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------------------------
# Bots
# ---------------------------------------------------------------------------------------------------------

def bot_game(levels: list[str], seed: int, shuffle_races: bool = False) -> State:
    """Every seat played by its bot; checks each answer is legal, and None only when the seat may wait."""
    rng = random.Random(seed)
    st = E.new_game(len(levels), seed=seed)
    steps = 0
    while not E.is_over(st):
        steps += 1
        assert steps < 20_000
        must = E.must_act(st)
        seats = E.to_act(st)
        if shuffle_races:
            rng.shuffle(seats)
        for seat in seats:
            legal = E.legal_actions(st, seat)
            action, reason = BOTS[levels[seat]](E.view(st, seat), legal, rng)
            assert isinstance(reason, str) and reason and "\n" not in reason
            if action is None:
                assert seat not in must, (levels[seat], reason)
                continue
            assert action in legal, (levels[seat], action, reason)
            st = E.apply(st, seat, action)
            break
        else:
            raise AssertionError("no seat acted")
    return st


def test_bot_levels_and_reaction_delays() -> None:
    assert list(BOTS) == ["random", "reference", "strong"]
    assert set(REACTION_DELAY) == set(BOTS)
    assert REACTION_DELAY["random"] > REACTION_DELAY["reference"] > REACTION_DELAY["strong"] > 0


def test_bots_only_return_legal_actions() -> None:
    levels = list(BOTS)
    for seed in range(24):
        rng = random.Random(seed)
        n = 1 + seed % 5
        bot_game([rng.choice(levels) for _ in range(n)], seed, shuffle_races=True)


def test_reference_bot_beats_the_random_bot() -> None:
    wins = 0
    for seed in range(200):
        levels = ["reference", "random"] if seed % 2 == 0 else ["random", "reference"]
        st = bot_game(levels, seed)
        me = levels.index("reference")
        wins += me in E.result(st)["winners"]
    assert wins >= 180


def test_strong_bot_beats_the_reference_bot() -> None:
    wins = 0
    games = 40
    for seed in range(games):
        levels = ["strong", "reference"] if seed % 2 == 0 else ["reference", "strong"]
        st = bot_game(levels, seed, shuffle_races=True)
        wins += levels.index("strong") in E.result(st)["winners"]
    assert wins > games * 0.6


def test_reference_bot_solo_taps_with_a_low_hand() -> None:
    scores = [E.scores(bot_game(["reference"], seed))[0] for seed in range(20)]
    assert sum(s > 0 for s in scores) >= 14
