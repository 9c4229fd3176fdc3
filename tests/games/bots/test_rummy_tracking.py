"""Reading a Rummy opponent's hidden hand from public information (games/bots/rummy_tracking.py): the same view
gives the same hands whatever the hidden cards are, the hands sampled agree with what the view shows, and what
the model assumes of a Romme-style player holds for the real hand of one."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from typing import Any

from hidden import scramble

from games.bots.rummy import reference_bot
from games.bots.rummy_tracking import _spare_ok, read, sample_hands, take_risks, would_take
from games.engines import get_engine
from games.engines.rummy import JOKER_SUITS, RummyState, add_placements, best_meld

ENGINE = get_engine("rummy")


def _discard_moments(seeds: int) -> Iterator[tuple[RummyState, dict[str, Any]]]:
    """(state, view of the seat to act) at every discard decision once the other seat has laid down, in seeded
    games of two Regulars (the original app's strategy, the one the model assumes)."""
    for seed in range(seeds):
        state = ENGINE.new_game(2, seed=seed)
        rng = random.Random(seed)
        while not ENGINE.is_over(state):
            seat = state.current
            view = ENGINE.view(state, seat)
            legal = ENGINE.legal_actions(state, seat)
            if state.phase == "play" and view["laid_down"][1 - seat] and view["hand_counts"][1 - seat] >= 3:
                yield state, view
            action, _ = reference_bot(view, legal, rng)
            assert action is not None
            state = ENGINE.apply(state, seat, action)


def test_the_same_view_gives_the_same_hands_and_risks_whatever_is_hidden() -> None:
    checked = 0
    for number, (state, view) in enumerate(_discard_moments(3)):
        if number % 3:
            continue
        seat = view["seat"]
        twin = ENGINE.load(scramble("rummy", ENGINE.dump(state), seat, random.Random(number)))
        twin_view = ENGINE.view(twin, seat)
        assert twin_view == view
        assert twin.hands[1 - seat] != state.hands[1 - seat] or len(state.hands[1 - seat]) < 3
        hands = sample_hands(view, random.Random(number))
        assert hands == sample_hands(twin_view, random.Random(number))
        assert take_risks(view, view["hand"], random.Random(number)) == \
            take_risks(twin_view, view["hand"], random.Random(number))
        checked += 1
    assert checked >= 5


def test_sampled_hands_agree_with_the_view_and_the_real_hand_meets_the_same_rules() -> None:
    checked = 0
    for state, view in _discard_moments(4):
        seat = view["seat"]
        reading = read(view)
        assert (reading.pile[-1] if reading.pile else None) == view["discard_top"]
        assert len(reading.pile) == view["discard_count"]
        table_counts = Counter(c for p in view["packs"] for c in p["cards"] if c not in JOKER_SUITS)
        real = state.hands[1 - seat]
        # what the model takes for certain is true of the real hand
        assert not Counter(real) - reading.unseen, "a card of its hand counted as seen"
        assert not any(add_placements(pack, card) for pack in reading.table for card in real)
        if reading.last_discard is not None:
            assert _spare_ok(real, reading.last_discard, table_counts)
        for hand, weight in sample_hands(view, random.Random(checked)):
            assert len(hand) == view["hand_counts"][1 - seat] and 0 < weight <= 1
            assert not Counter(hand) - reading.unseen
            assert not any(add_placements(pack, card) for pack in reading.table for card in hand)
            whole = [*hand, reading.last_discard] if reading.last_discard else hand
            assert not best_meld(whole, keep=1)[0], (hand, reading.last_discard)
        checked += 1
    assert checked >= 10


def test_an_opponent_not_laid_down_takes_nothing() -> None:
    state = ENGINE.new_game(2, seed=5)
    view = ENGINE.view(state, 0)
    assert sample_hands(view, random.Random(0)) == []
    assert set(take_risks(view, view["hand"], random.Random(0)).values()) == {0.0}


def test_would_take_as_the_romme_player_does() -> None:
    assert would_take(["5H", "6H", "KC", "KD"], "7H")  # a run 5-6-7 of hearts
    assert would_take(["5H", "6H", "KC", "KD"], "KS")  # a set of kings
    assert not would_take(["5H", "6H", "KC", "KD"], "2C")
    assert not would_take(["5H", "6H", "KC", "KD"], "KC")  # a set needs different suits
    assert not would_take(["5H", "6H"], "7H")  # it would have nothing left to throw
    assert would_take(["5H", "XR", "KC"], "6H")  # 5-6 of hearts and a red joker
