"""Gomori engine: every rule of shared/rules/gomori.md as a test, random play invariants, leaks, bad input, bots."""

from __future__ import annotations

import contextlib
import json
import random
from collections import Counter
from typing import Any

import pytest
from engine_helpers import all_refused, random_game, refused
from hypothesis import given, settings
from hypothesis import strategies as st

from games.bots import gomori as gomori_bots
from games.bots.gomori import BOTS, random_bot, reference_bot, search_bot
from games.engines.base import IllegalAction, card_name
from games.engines.gomori import DECKS, ENGINE, State

E = ENGINE
ALL_CARDS = frozenset(DECKS[0] + DECKS[1])

Move = tuple[int, str, tuple[int, int]] | tuple[int, str, tuple[int, int], tuple[int, int]]


# ---------------------------------------------------------------------------------------------------------
# helpers: positions are built from a deal and real actions
# ---------------------------------------------------------------------------------------------------------

def make_deal(black: list[str] | tuple[str, ...] = (), red: list[str] | tuple[str, ...] = ()) -> dict[str, list[str]]:
    """A deal where each colour's listed cards come first (hand, then draws), the rest in a fixed order."""
    return {
        "black": [*black, *(c for c in DECKS[0] if c not in black)],
        "red": [*red, *(c for c in DECKS[1] if c not in red)],
    }


def act(seat: int, card: str, at: tuple[int, int], target: tuple[int, int] | None = None) -> dict[str, Any]:
    action: dict[str, Any] = {"type": "play", "card": card, "at": list(at)}
    if target is not None:
        action["king_target"] = list(target)
    return action


def run(moves: list[Move], black_extra: tuple[str, ...] = (), red_extra: tuple[str, ...] = ()) -> State:
    """Deal so that each seat holds its cards in the order it plays them, then play the moves."""
    black = [m[1] for m in moves if m[0] == 0] + list(black_extra)
    red = [m[1] for m in moves if m[0] == 1] + list(red_extra)
    state = E.new_game(2, seed=0, deal=make_deal(black, red))
    for move in moves:
        seat, card, at = move[0], move[1], move[2]
        target = move[3] if len(move) > 3 else None  # type: ignore[misc]
        assert E.to_act(state) == [seat], (move, E.view(state, None)["log"][-3:])
        state = E.apply(state, seat, act(seat, card, at, target))
    return state


def field(state: State) -> dict[tuple[int, int], tuple[list[str], bool]]:
    """The field as the view shows it: cell -> (stack bottom..top, top face-up)."""
    return {(f["at"][0], f["at"][1]): (f["stack"], f["face_up"]) for f in E.view(state, None)["field"]}


def cells_for(state: State, seat: int, card: str) -> set[tuple[int, int]]:
    """The cells where legal_actions lets seat play card."""
    return {(a["at"][0], a["at"][1]) for a in E.legal_actions(state, seat) if a["card"] == card}


def log_texts(state: State, seat: int | None = None) -> list[str]:
    return [event["text"] for event in E.view(state, seat)["log"]]


# A full 4x4 field without any line: a Latin square of suits with distinct suits on both diagonals.
#   row 0: C D S H    row 1: S H C D    row 2: H S D C    row 3: D C H S    (ranks 2-5 only)
FULL_FIELD: list[Move] = [
    (0, "2C", (0, 0)), (1, "2D", (0, 1)), (0, "2S", (0, 2)), (1, "2H", (0, 3)),
    (0, "3S", (1, 0)), (1, "3H", (1, 1)), (0, "3C", (1, 2)), (1, "3D", (1, 3)),
    (0, "4S", (2, 1)), (1, "4H", (2, 0)), (0, "4C", (2, 3)), (1, "4D", (2, 2)),
    (0, "5C", (3, 1)), (1, "5D", (3, 0)), (0, "5S", (3, 3)), (1, "5H", (3, 2)),
]


# ---------------------------------------------------------------------------------------------------------
# setup
# ---------------------------------------------------------------------------------------------------------

def test_engine_identity() -> None:
    assert (E.slug, E.name, E.min_players, E.max_players, E.default_options) == ("gomori", "Gomori", 2, 2, {})


def test_decks_split_by_colour_hands_of_five_and_piles_of_21() -> None:
    state = E.new_game(2, seed=7)
    assert {c[-1] for c in state.hands[0] + state.piles[0]} == {"C", "S"}
    assert {c[-1] for c in state.hands[1] + state.piles[1]} == {"D", "H"}
    assert sorted(state.hands[0] + state.piles[0]) == sorted(DECKS[0])
    assert sorted(state.hands[1] + state.piles[1]) == sorted(DECKS[1])
    assert [len(h) for h in state.hands] == [5, 5]
    view = E.view(state, 0)
    assert view["pile_counts"] == [21, 21] and view["hand_counts"] == [5, 5]
    assert view["colors"] == ["black", "red"]


def test_black_always_begins() -> None:
    for seed in range(20):
        assert E.to_act(E.new_game(2, seed=seed)) == [0]


def test_deal_is_top_first_hand_then_pile() -> None:
    deal = make_deal(["AS", "KC", "2C", "3C", "4C", "5C"], ["10H", "9D", "8D", "7D", "6D", "5D"])
    state = E.new_game(2, seed=1, deal=deal)
    assert state.hands == [("AS", "KC", "2C", "3C", "4C"), ("10H", "9D", "8D", "7D", "6D")]
    assert state.piles[0][0] == "5C" and state.piles[1][0] == "5D"


def test_same_seed_same_game_and_different_seeds_differ() -> None:
    assert E.dump(E.new_game(2, seed=42)) == E.dump(E.new_game(2, seed=42))
    assert E.dump(E.new_game(2, seed=42)) != E.dump(E.new_game(2, seed=43))


@pytest.mark.parametrize("deal", [
    None,
    {"black": list(DECKS[0])},
    {"black": list(DECKS[0]), "red": list(DECKS[1]), "green": []},
    {"black": list(DECKS[0])[:-1], "red": list(DECKS[1])},
    {"black": [*list(DECKS[0])[:-1], "2C"], "red": list(DECKS[1])},
    {"black": list(DECKS[1]), "red": list(DECKS[0])},
    {"black": [*list(DECKS[0])[:-1], "XB"], "red": list(DECKS[1])},
    {"black": "2C", "red": list(DECKS[1])},
    {"black": [*list(DECKS[0])[:-1], 7], "red": list(DECKS[1])},
    [],
])
def test_bad_deals_are_refused(deal: object) -> None:
    if deal is None:
        deal = {"black": list(DECKS[0]), "red": [*list(DECKS[1]), "2D"]}
    with pytest.raises(IllegalAction):
        E.new_game(2, seed=0, deal=deal)  # type: ignore[arg-type]


@pytest.mark.parametrize("players", [1, 3, True])
def test_two_players_only(players: int) -> None:
    with pytest.raises(IllegalAction):
        E.new_game(players, seed=0)


def test_unknown_options_are_refused() -> None:
    with pytest.raises(IllegalAction):
        E.new_game(2, seed=0, options={"rounds": 2})
    assert E.new_game(2, seed=0, options={}) is not None


# ---------------------------------------------------------------------------------------------------------
# the field
# ---------------------------------------------------------------------------------------------------------

def test_first_card_goes_on_origin() -> None:
    state = E.new_game(2, seed=3)
    legal = E.legal_actions(state, 0)
    assert {tuple(a["at"]) for a in legal} == {(0, 0)}
    assert sorted(a["card"] for a in legal) == sorted(state.hands[0])
    refused(E, state, 0, act(0, state.hands[0][0], (1, 0)), "first card of the game goes on \\[0, 0\\]")
    after = E.apply(state, 0, act(0, state.hands[0][0], (0, 0)))
    assert field(after) == {(0, 0): ([state.hands[0][0]], True)}


def test_cards_need_not_touch_and_coordinates_may_go_negative() -> None:
    state = run([(0, "2C", (0, 0))])
    cells = cells_for(state, 1, "3D")
    assert cells == {(r, c) for r in range(-3, 4) for c in range(-3, 4)} - {(0, 0)}
    state = E.apply(state, 1, act(1, "3D", (-3, 3)))
    assert (-3, 3) in field(state)


def test_field_stays_within_a_4x4_bounding_box() -> None:
    state = run([(0, "2C", (0, 0)), (1, "2D", (0, 3))])
    cells = cells_for(state, 0, "3C")
    assert {(r, c) for r in range(-3, 4) for c in range(0, 4)} - {(0, 0), (0, 3)} == cells
    refused(E, state, 0, act(0, "3C", (0, -1)), "5 columns")
    refused(E, state, 0, act(0, "3C", (0, 4)), "5 columns")
    state = E.apply(state, 0, act(0, "3C", (3, 1)))
    refused(E, state, 1, act(1, state.hands[1][0], (-1, 1)), "5 rows")
    assert E.apply(state, 1, act(1, state.hands[1][0], (1, 2))) is not None


def test_gathered_cells_become_empty_and_the_window_drifts() -> None:
    state = run([
        (0, "2C", (0, 0)), (1, "5D", (1, 3)), (0, "3C", (0, 1)), (1, "5H", (2, 3)),
        (0, "4C", (0, 2)), (1, "6D", (3, 3)), (0, "6C", (0, 3)),
    ])
    assert set(field(state)) == {(0, 3), (1, 3), (2, 3), (3, 3)}
    assert E.scores(state) == [3, 0]
    # only column 3 is occupied: the window now reaches columns 0..6
    assert (0, 6) in cells_for(state, 1, state.hands[1][0])
    assert (0, 7) not in cells_for(state, 1, state.hands[1][0])
    assert E.view(state, 1)["playable"] == {"rows": [0, 3], "cols": [0, 6]}


# ---------------------------------------------------------------------------------------------------------
# where a card may be played (the examples of the rules)
# ---------------------------------------------------------------------------------------------------------

def examples_position() -> State:
    """Black to play holding 5♣, J♣ and A♠; on the field: a face-down 4♣, 5♥, K♥ (on 2♥), 6♣, 8♠, J♥."""
    return run(
        [
            (0, "4C", (0, 0)), (1, "5H", (0, 2)), (0, "6C", (1, 0)), (1, "2H", (0, 1)),
            (0, "8S", (2, 0)), (1, "KH", (0, 1), (0, 0)), (1, "JH", (1, 1)),
        ],
        black_extra=("5C", "JC", "AS"),
    )


def test_examples_position_is_as_described() -> None:
    state = examples_position()
    assert field(state) == {
        (0, 0): (["4C"], False), (0, 1): (["2H", "KH"], True), (0, 2): (["5H"], True),
        (1, 0): (["6C"], True), (2, 0): (["8S"], True), (1, 1): (["JH"], True),
    }
    assert E.to_act(state) == [0]
    assert {"5C", "JC", "AS"} <= set(state.hands[0])


def empty_cells(state: State) -> set[tuple[int, int]]:
    view = E.view(state, None)
    rows, cols = view["playable"]["rows"], view["playable"]["cols"]
    occupied = set(field(state))
    return {(r, c) for r in range(rows[0], rows[1] + 1) for c in range(cols[0], cols[1] + 1)} - occupied


def test_number_card_goes_on_empty_face_down_or_same_rank() -> None:
    state = examples_position()
    assert cells_for(state, 0, "5C") == empty_cells(state) | {(0, 0), (0, 2)}
    refused(E, state, 0, act(0, "5C", (1, 0)), "The 5♣ can't go on the 6♣: number cards go on empty cells, "
                                             "face-down cards or the same rank.")
    refused(E, state, 0, act(0, "5C", (1, 1)), "can't go on the J♥")


def test_face_card_goes_on_empty_face_down_same_rank_or_same_suit() -> None:
    state = examples_position()
    assert cells_for(state, 0, "JC") == empty_cells(state) | {(0, 0), (1, 1), (1, 0)}
    refused(E, state, 0, act(0, "JC", (0, 2)), "The J♣ can't go on the 5♥: face cards go on empty cells, "
                                             "face-down cards, the same rank or the same suit.")
    refused(E, state, 0, act(0, "JC", (2, 0)), "can't go on the 8♠")


def test_ace_goes_everywhere() -> None:
    state = examples_position()
    assert cells_for(state, 0, "AS") == empty_cells(state) | set(field(state))


def test_on_a_face_up_ace_only_an_ace_or_a_face_card_of_its_suit() -> None:
    state = run([(0, "2C", (0, 0)), (1, "AH", (0, 1)), (0, "3C", (1, 0))],
                black_extra=("AC", "KC", "5C"), red_extra=("JH", "JD", "5H"))
    assert (0, 1) not in cells_for(state, 1, "JD")
    assert (0, 1) not in cells_for(state, 1, "5H")
    assert (0, 1) in cells_for(state, 1, "JH")
    state = E.apply(state, 1, act(1, "5H", (2, 2)))
    assert (0, 1) in cells_for(state, 0, "AC")
    assert (0, 1) not in cells_for(state, 0, "KC")
    assert (0, 1) not in cells_for(state, 0, "5C")


# ---------------------------------------------------------------------------------------------------------
# face cards
# ---------------------------------------------------------------------------------------------------------

def face_position(*black_extra: str) -> State:
    """Black to play; 5♣ at [0, 0]; red 2♦ [-1, 0] and 3♦ [0, -1] beside it, 4♦ [-1, -1] and 6♥ [1, 1] diagonal."""
    return run(
        [
            (0, "5C", (0, 0)), (1, "2D", (-1, 0)), (0, "2S", (2, 2)), (1, "3D", (0, -1)),
            (0, "3S", (2, -1)), (1, "4D", (-1, -1)), (0, "4S", (-1, 2)), (1, "6H", (1, 1)),
        ],
        black_extra=black_extra,
    )


def test_jack_turns_the_orthogonal_neighbours_face_down() -> None:
    state = E.apply(face_position("JC"), 0, act(0, "JC", (0, 0)))
    f = field(state)
    assert not f[(-1, 0)][1] and not f[(0, -1)][1]
    assert f[(-1, -1)][1] and f[(1, 1)][1] and f[(0, 0)] == (["5C", "JC"], True)
    assert log_texts(state)[-1] == ("{s0} played the J♣ on the 5♣: turned the 2♦ and the 3♦ face-down, "
                                    "and plays again")
    flipped = E.view(state, 1)["last"]["plays"][-1]["flipped"]
    assert flipped == [{"at": [-1, 0], "card": "2D"}, {"at": [0, -1], "card": "3D"}]


def test_queen_turns_the_diagonal_neighbours_face_down() -> None:
    state = E.apply(face_position("QC"), 0, act(0, "QC", (0, 0)))
    f = field(state)
    assert not f[(-1, -1)][1] and not f[(1, 1)][1]
    assert f[(-1, 0)][1] and f[(0, -1)][1]
    assert log_texts(state)[-1].startswith("{s0} played the Q♣ on the 5♣: turned the 4♦ and the 6♥ face-down")


def test_king_turns_the_chosen_top_anywhere_face_down() -> None:
    state = face_position("KC")
    targets = {tuple(a["king_target"]) for a in E.legal_actions(state, 0) if a["card"] == "KC" and a["at"] == [0, 0]}
    assert targets == {(0, 0), (-1, 0), (0, -1), (-1, -1), (1, 1), (2, 2), (2, -1), (-1, 2)}
    after = E.apply(state, 0, act(0, "KC", (0, 0), (2, 2)))
    f = field(after)
    assert not f[(2, 2)][1]
    assert sum(1 for _, up in f.values() if not up) == 1
    assert log_texts(after)[-1] == "{s0} played the K♣ on the 5♣: turned the 2♠ face-down, and plays again"


def test_king_may_turn_itself_face_down() -> None:
    after = E.apply(face_position("KC"), 0, act(0, "KC", (0, 0), (0, 0)))
    assert field(after)[(0, 0)] == (["5C", "KC"], False)


def test_king_target_is_required_exactly_when_the_king_is_stacked() -> None:
    state = face_position("KC")
    refused(E, state, 0, act(0, "KC", (0, 0)), "needs a king_target")
    refused(E, state, 0, act(0, "KC", (0, 1), (-1, 0)), "Only a king played onto another card takes a king_target")
    number = next(c for c in state.hands[0] if c[0] not in "JQKA")
    refused(E, state, 0, act(0, number, (0, 1), (-1, 0)), "Only a king played onto another card takes a king_target")
    plain = [a for a in E.legal_actions(state, 0) if a["card"] == "KC" and a["at"] == [0, 1]]
    assert plain == [{"type": "play", "card": "KC", "at": [0, 1]}]


def test_king_target_must_be_a_face_up_top() -> None:
    state = face_position("JC", "KC")
    state = E.apply(state, 0, act(0, "JC", (0, 0)))  # 2♦ and 3♦ now face-down; black plays again
    refused(E, state, 0, act(0, "KC", (0, 0), (-1, 0)), "already face-down")
    refused(E, state, 0, act(0, "KC", (0, 0), (0, 1)), "There is no card at \\[0, 1\\]")
    refused(E, state, 0, {**act(0, "KC", (0, 0)), "king_target": [0, 1, 2]}, "king_target")
    assert E.apply(state, 0, act(0, "KC", (0, 0), (-1, -1))) is not None


def test_face_card_on_an_empty_cell_does_nothing() -> None:
    state = E.apply(face_position("JC"), 0, act(0, "JC", (0, 1)))
    assert all(up for _, up in field(state).values())
    assert E.to_act(state) == [1]
    assert log_texts(state)[-2] == "{s0} played the J♣ on an empty cell"


def test_face_card_on_a_face_down_card_is_activated_and_face_down_cards_stay_down() -> None:
    state = face_position("JC", "QC")
    state = E.apply(state, 0, act(0, "JC", (0, 0)))
    # the queen goes on the face-down 2♦: its diagonal neighbour 3♦ is already face-down and is not turned again
    state = E.apply(state, 0, act(0, "QC", (-1, 0)))
    f = field(state)
    assert f[(-1, 0)] == (["2D", "QC"], True)
    assert f[(0, -1)][1] is False and f[(0, 0)] == (["5C", "JC"], True)
    play = E.view(state, 0)["last"]["plays"][-1]
    assert play["onto"] == "2D" and play["onto_face_up"] is False
    assert play["flipped"] == []
    assert "on the face-down 2♦" in log_texts(state)[-1]


def test_effect_happens_before_gathering() -> None:
    # three clubs in row 0 and a face-down 7♦ at its end: the J♣ on it turns the 4♣ face-down first, so no line
    moves: list[Move] = [
        (0, "2C", (0, 0)), (1, "7D", (0, 3)), (0, "3C", (0, 1)), (1, "5D", (2, 2)), (0, "4C", (0, 2)),
        (1, "KD", (2, 2), (0, 3)), (1, "6D", (3, 3)),
    ]
    jack = E.apply(run(moves, black_extra=("JC", "QC", "KC")), 0, act(0, "JC", (0, 3)))
    assert E.scores(jack) == [0, 0] and not field(jack)[(0, 2)][1]
    # the queen turns diagonals only: the row is gathered
    queen = E.apply(run(moves, black_extra=("JC", "QC", "KC")), 0, act(0, "QC", (0, 3)))
    assert E.scores(queen) == [3, 0]
    # the king turning a card of the line breaks it; turning another card does not
    king = run(moves, black_extra=("JC", "QC", "KC"))
    assert E.scores(E.apply(king, 0, act(0, "KC", (0, 3), (0, 0)))) == [0, 0]
    assert E.scores(E.apply(king, 0, act(0, "KC", (0, 3), (2, 2)))) == [3, 0]
    # the king turning itself face-down: a face-down top never counts
    assert E.scores(E.apply(king, 0, act(0, "KC", (0, 3), (0, 3)))) == [0, 0]


# ---------------------------------------------------------------------------------------------------------
# gathering
# ---------------------------------------------------------------------------------------------------------

TWO_LINES: list[Move] = [
    (0, "2S", (0, 0)), (1, "7D", (3, 1)), (0, "7C", (3, 1)), (0, "3C", (3, 0)), (1, "9H", (3, 3)),
    (0, "4C", (3, 2)), (1, "2D", (0, 1)), (0, "5C", (0, 3)), (1, "2H", (0, 2)), (0, "6C", (1, 3)),
    (1, "3D", (1, 0)), (0, "8C", (2, 3)), (1, "3H", (1, 1)),
]


def test_gathering_several_lines_takes_whole_stacks_except_the_played_cell() -> None:
    state = run(TWO_LINES, black_extra=("9C", "10S", "JS"))
    assert field(state)[(3, 1)] == (["7D", "7C"], True)
    state = E.apply(state, 0, act(0, "9C", (3, 3)))
    assert E.scores(state) == [7, 0]
    assert sorted(state.gathered[0]) == sorted(["3C", "7D", "7C", "4C", "5C", "6C", "8C"])
    f = field(state)
    assert f[(3, 3)] == (["9H", "9C"], True)
    for cell in [(3, 0), (3, 1), (3, 2), (0, 3), (1, 3), (2, 3)]:
        assert cell not in f
    assert log_texts(state)[-1] == "{s0} played the 9♣ on the 9♥ and gathered 7 cards (2 lines), and plays again"
    play = E.view(state, 1)["last"]["plays"][-1]
    assert play["lines"] == [[[3, 0], [3, 1], [3, 2], [3, 3]], [[0, 3], [1, 3], [2, 3], [3, 3]]]
    assert play["gathered_cells"] == [[0, 3], [1, 3], [2, 3], [3, 0], [3, 1], [3, 2]]
    # gathered before the next card of the chain is played
    assert E.to_act(state) == [0] and E.view(state, 0)["chain"] is True


@pytest.mark.parametrize(("cells", "last_cell"), [
    ([(0, 0), (1, 0), (2, 0)], (3, 0)),      # column
    ([(0, 0), (1, 1), (2, 2)], (3, 3)),      # diagonal
    ([(0, 0), (1, -1), (2, -2)], (3, -3)),   # anti-diagonal
    ([(0, 0), (0, 2), (0, 3)], (0, 1)),      # a row completed in its middle
])
def test_gathering_works_on_columns_and_both_diagonals(cells: list[tuple[int, int]],
                                                       last_cell: tuple[int, int]) -> None:
    line = [*cells, last_cell]
    rows = range(min(r for r, _ in line), min(r for r, _ in line) + 4)
    cols = range(min(c for _, c in line), min(c for _, c in line) + 4)
    red_cells = [(r, c) for r in rows for c in cols if (r, c) not in line]
    moves: list[Move] = []
    for black_card, red_card, cell, red_cell in zip(["2S", "3S", "4S"], ["2D", "3H", "4D"], cells, red_cells,
                                                    strict=False):
        moves.append((0, black_card, cell))
        moves.append((1, red_card, red_cell))
    state = E.apply(run(moves, black_extra=("9S",)), 0, act(0, "9S", last_cell))
    assert E.scores(state) == [3, 0]
    assert set(field(state)) == {last_cell, *red_cells[:3]}


def test_line_needs_the_played_cards_suit() -> None:
    # clubs and spades are both black but never make a line together
    state = run([(0, "2C", (0, 0)), (1, "2D", (3, 3)), (0, "3C", (0, 1)), (1, "3D", (3, 2)),
                 (0, "4C", (0, 2)), (1, "4D", (3, 1))], black_extra=("5S",))
    state = E.apply(state, 0, act(0, "5S", (0, 3)))
    assert E.scores(state) == [0, 0]


def test_face_down_tops_never_count_for_a_line() -> None:
    # the 3♣ of row 0 is turned face-down by the red king; the 5♣ then makes no line
    state = run([(0, "2C", (0, 0)), (1, "3D", (2, 2)), (0, "3C", (0, 1)), (1, "KD", (2, 2), (0, 1)),
                 (1, "4D", (3, 3)), (0, "4C", (0, 2)), (1, "5D", (3, 2))], black_extra=("5C",))
    assert not field(state)[(0, 1)][1]
    assert E.scores(E.apply(state, 0, act(0, "5C", (0, 3)))) == [0, 0]


# ---------------------------------------------------------------------------------------------------------
# turns
# ---------------------------------------------------------------------------------------------------------

def test_stacking_makes_the_player_play_again_and_an_empty_cell_ends_the_turn() -> None:
    state = run([(0, "9C", (0, 0)), (1, "2D", (0, 1))], black_extra=("2C", "3C"))
    state = E.apply(state, 0, act(0, "2C", (0, 1)))
    assert E.to_act(state) == [0] and E.must_act(state) == [0]
    view = E.view(state, 0)
    assert view["chain"] is True and view["turn"] == 0 and view["last"]["turn_over"] is False
    assert len(state.hands[0]) == 4  # no refill in the middle of a turn
    refused(E, state, 1, act(1, state.hands[1][0], (1, 1)), "not your turn")
    state = E.apply(state, 0, act(0, "3C", (1, 1)))
    assert E.to_act(state) == [1]
    assert len(state.hands[0]) == 5
    last = E.view(state, 0)["last"]
    assert [p["card"] for p in last["plays"]] == ["2C", "3C"] and last["turn_over"] is True
    assert last["drew"] == 2 and len(last["drawn"]) == 2
    assert E.view(state, 1)["last"]["drawn"] is None


def test_chain_ends_when_the_hand_is_empty_then_refills_five() -> None:
    state = run([(0, "9C", (0, 0)), (1, "2D", (0, 1)), (0, "2C", (0, 1)), (0, "2S", (0, 1)),
                 (0, "AC", (0, 1)), (0, "AS", (0, 1)), (0, "KS", (0, 1), (0, 0))])
    assert E.to_act(state) == [1]
    assert len(state.hands[0]) == 5 and len(state.piles[0]) == 26 - 6 - 5
    assert field(state)[(0, 1)] == (["2D", "2C", "2S", "AC", "AS", "KS"], True)
    assert "{s0} drew 5 cards" in log_texts(state, 1)


def full_field(black_hand: tuple[str, ...], red_hand: tuple[str, ...]) -> State:
    """The 16-card field without lines (ranks 2-5), then both hands as given."""
    return run(FULL_FIELD, black_extra=black_hand, red_extra=red_hand)


def test_player_without_a_legal_play_passes_automatically() -> None:
    state = full_field(("6C", "7C", "8C", "9C", "10C"), ("AD", "6D", "7D", "8D", "9D", "AH"))
    # black could not play: the engine passed for it inside apply, red plays
    assert E.to_act(state) == [1]
    assert log_texts(state)[-1] == "{s0} could not play and passed"
    assert E.view(state, 1)["last"]["passed"] == [0]
    assert E.view(state, 0)["passes"] == 1
    assert E.legal_actions(state, 0) == []
    # the ace goes anywhere; afterwards no red card fits the full field: the chain ends without an empty cell
    state = E.apply(state, 1, act(1, "AD", (0, 0)))
    last = E.view(state, 1)["last"]
    assert last["turn_over"] is True and last["plays"][-1]["plays_again"] is False
    assert len(state.hands[1]) == 5 and "AH" in state.hands[1]
    # black still cannot play (the A♦ takes only aces and diamond faces): it passes again, red is asked
    assert last["passed"] == [0]
    assert E.to_act(state) == [1] and not E.is_over(state)


def test_game_ends_when_both_players_cannot_play_in_consecutive_turns() -> None:
    state = full_field(("6C", "7C", "8C", "9C", "10C"), ("6D", "7D", "8D", "9D", "10D"))
    assert E.is_over(state)
    assert state.end_reason == "blocked"
    texts = log_texts(state)
    assert texts[-4:] == ["{s0} could not play and passed", "{s1} could not play and passed",
                          "Neither player could play: the game is over", "The game is a draw: 0 cards each"]
    assert E.result(state) == {"scores": [0, 0], "winners": [], "draw": True}
    assert E.to_act(state) == [] and E.legal_actions(state, 0) == [] and E.legal_actions(state, 1) == []
    refused(E, state, 0, act(0, "6C", (0, 0)), "The game is over")


def test_a_played_turn_resets_the_pass_count() -> None:
    state = full_field(("6C", "7C", "8C", "9C", "10C"), ("AD", "6D", "7D", "8D", "9D", "AH"))
    assert E.view(state, 1)["passes"] == 1
    state = E.apply(state, 1, act(1, "AD", (0, 0)))
    # red played, then black passed once more: one pass in a row, not two, so the game goes on
    assert not E.is_over(state)
    assert E.view(state, 1)["passes"] == 1


def test_game_ends_when_the_pile_cannot_refill_and_last_turn_gathers_count() -> None:
    found = None
    for seed in range(FINAL_GATHER_SEED, FINAL_GATHER_SEED + 3000):
        rng = random.Random(seed)
        state = E.new_game(2, seed=seed)
        while not E.is_over(state):
            seat = E.to_act(state)[0]
            before = state
            state = E.apply(state, seat, reference_bot(E.view(state, seat), E.legal_actions(state, seat), rng)[0])
        last = state.last
        assert last is not None
        if state.end_reason == "refill" and last["plays"][-1]["gathered"]:
            found = (before, state, last)
            break
    assert found is not None
    before, state, last = found
    seat = last["seat"]
    assert E.scores(state)[seat] == E.scores(before)[seat] + len(last["plays"][-1]["gathered"])
    # it drew what there was
    assert len(state.piles[seat]) == 0 and len(state.hands[seat]) < 5
    assert len(state.hands[seat]) == len(before.hands[seat]) - 1 + len(before.piles[seat])
    assert "draw pile could not refill the hand to 5: the game is over" in log_texts(state)[-2]
    result = E.result(state)
    assert result["scores"] == E.scores(state)


FINAL_GATHER_SEED = 0


def test_winner_has_more_gathered_cards() -> None:
    state = run([
        (0, "2C", (0, 0)), (1, "5D", (1, 3)), (0, "3C", (0, 1)), (1, "5H", (2, 3)),
        (0, "4C", (0, 2)), (1, "6D", (3, 3)), (0, "6C", (0, 3)),
    ])
    assert E.scores(state) == [3, 0]
    with pytest.raises(IllegalAction):
        E.result(state)
    # play the game out with the reference bot: the result follows the scores
    rng = random.Random(5)
    while not E.is_over(state):
        seat = E.to_act(state)[0]
        state = E.apply(state, seat, reference_bot(E.view(state, seat), E.legal_actions(state, seat), rng)[0])
    result = E.result(state)
    a, b = result["scores"]
    assert result["draw"] == (a == b)
    assert result["winners"] == ([] if a == b else [0 if a > b else 1])
    assert E.view(state, None)["result"] == result and E.view(state, None)["over"] is True


# ---------------------------------------------------------------------------------------------------------
# views and hidden information
# ---------------------------------------------------------------------------------------------------------

def test_view_shape() -> None:
    state = run([(0, "9C", (0, 0)), (1, "2D", (0, 1))], black_extra=("2C", "3C"))
    state = E.apply(state, 0, act(0, "2C", (0, 1)))
    for seat in (0, 1, None):
        view = E.view(state, seat)
        json.dumps(view)
        for key in ("game", "players", "seat", "to_act", "must_act", "scores", "over", "result", "legal", "log",
                    "last", "hand", "hand_counts", "pile_counts", "gathered", "field", "playable", "turn", "chain",
                    "passes", "end_reason", "colors"):
            assert key in view, key
        assert view["game"] == "gomori" and view["players"] == 2 and view["seat"] == seat
    assert E.view(state, 0)["legal"] == E.legal_actions(state, 0)
    assert E.view(state, 1)["legal"] == [] and E.view(state, None)["legal"] == []
    assert E.view(state, None)["hand"] is None and E.view(state, 1)["hand"] == list(state.hands[1])
    with pytest.raises(IllegalAction):
        E.view(state, 2)


def test_views_are_copies() -> None:
    state = run([(0, "9C", (0, 0)), (1, "2D", (0, 1))], black_extra=("2C", "3C"))
    state = E.apply(state, 0, act(0, "2C", (0, 1)))
    before = E.dump(state)
    view = E.view(state, 0)
    view["last"]["plays"][0]["flipped"].append("x")
    view["last"]["plays"].clear()
    view["field"][0]["stack"].append("x")
    view["hand"].clear()
    view["gathered"][0].append("x")
    view["log"][0]["text"] = "x"
    assert E.dump(state) == before


def test_draws_are_private_in_the_log() -> None:
    state = run([(0, "9C", (0, 0))])
    drawn = state.hands[0][-1]
    assert log_texts(state, 0)[-1] == f"You drew the {card_name(drawn)}"
    assert log_texts(state, 1)[-1] == "{s0} drew 1 card"
    assert log_texts(state, None)[-1] == "{s0} drew 1 card"


def known_cards(hands: list[tuple[str, ...]], played: set[str], seat: int | None) -> set[str]:
    """What seat may know, computed without view(): its hand and every card ever played."""
    return set(played) | (set(hands[seat]) if seat is not None else set())


def assert_no_leak(state: State, played: set[str]) -> None:
    for seat in (0, 1, None):
        text = json.dumps(E.view(state, seat), ensure_ascii=False)
        for card in ALL_CARDS - known_cards(state.hands, played, seat):
            assert f'"{card}"' not in text, (seat, card)
            assert card_name(card) not in text, (seat, card)


# ---------------------------------------------------------------------------------------------------------
# random play
# ---------------------------------------------------------------------------------------------------------

def check_invariants(state: State, legal: list[dict[str, Any]] | None = None) -> None:
    cards = [c for h in state.hands for c in h] + [c for p in state.piles for c in p]
    cards += [c for stack in state.stacks.values() for c in stack] + [c for g in state.gathered for c in g]
    assert len(cards) == 52 and set(cards) == ALL_CARDS
    for seat in (0, 1):
        assert {c[-1] for c in state.hands[seat] + state.piles[seat]} <= ({"C", "S"} if seat == 0 else {"D", "H"})
    rows = [r for r, _ in state.stacks]
    cols = [c for _, c in state.stacks]
    if rows:
        assert max(rows) - min(rows) < 4 and max(cols) - min(cols) < 4
    assert state.down <= set(state.stacks)
    if not state.over:
        assert len(state.hands[state.turn]) >= 1
        assert legal if legal is not None else E.legal_actions(state, state.turn)
        if not state.chain:
            assert len(state.hands[state.turn]) == 5


def near_misses(state: State, seat: int, legal: list[dict[str, Any]], rng: random.Random) -> list[tuple[int, Any]]:
    """Actions that must be refused: wrong cell, card not held, other seat, missing/extra fields, bad types."""
    probes: list[tuple[int, Any]] = []
    action = rng.choice(legal)
    legal_keys = {json.dumps(a, sort_keys=True) for a in legal}
    for dr, dc in ((0, 4), (4, 0), (-4, 0), (0, -4), (7, 7)):
        moved = {**action, "at": [action["at"][0] + dr, action["at"][1] + dc]}
        if json.dumps(moved, sort_keys=True) not in legal_keys:
            probes.append((seat, moved))
    # a cell the card may not go to
    card = action["card"]
    for cell in state.stacks:
        if not any(a["card"] == card and tuple(a["at"]) == cell for a in legal):
            probes.append((seat, {"type": "play", "card": card, "at": list(cell)}))
            break
    foreign = state.hands[1 - seat] + state.piles[seat][:2] + tuple(c for s in state.stacks.values() for c in s[:1])
    for other in foreign[:4]:
        probes.append((seat, {**action, "card": other}))
    probes.append((1 - seat, action))
    probes.append((seat, {**action, "extra": 1}))
    probes.append((seat, {k: v for k, v in action.items() if k != "at"}))
    probes.append((seat, {**action, "type": "pass"}))
    probes.append((seat, {**action, "at": [True, 0]}))
    probes.append((seat, {**action, "card": card.lower()}))
    kings = [a for a in legal if "king_target" in a]
    if kings:
        king = rng.choice(kings)
        probes.append((seat, {k: v for k, v in king.items() if k != "king_target"}))
        for cell in state.down:
            if cell != tuple(king["at"]):
                probes.append((seat, {**king, "king_target": list(cell)}))
                break
        probes.append((seat, {**king, "king_target": [king["at"][0] + 9, 0]}))
    return probes


def play_random_game(seed: int, *, full: bool) -> None:
    """One random game with what only Gomori has checked before every move: its invariants, its own near
    misses refused (with `full`, or now and then) and no view showing a card neither played nor held.

    What every engine owes (legal moves apply, refusals change nothing, dump/load, games end, replays) is the
    contract battery's (test_contract.py)."""
    rng = random.Random(seed)
    played: set[str] = set()

    def check(state: State, step: int) -> None:
        to_act = E.to_act(state)
        assert len(to_act) == 1 and E.must_act(state) == to_act
        seat = to_act[0]
        legal = E.legal_actions(state, seat)
        check_invariants(state, legal)
        if full or rng.random() < 0.04:
            all_refused(E, state, near_misses(state, seat, legal, rng))
            assert_no_leak(state, played)

    def after(before: State, seat: int, action: dict[str, Any], new: State) -> None:
        played.add(action["card"])

    # A Gomori game is at most 42 turns of at most 5 plays each.
    state, _ = random_game(E, 2, seed, check=check, after=after, max_steps=200)
    check_invariants(state)
    assert_no_leak(state, played)
    assert E.result(state)["scores"] == E.scores(state) == [len(g) for g in state.gathered]


def test_random_games_keep_every_invariant() -> None:
    for seed in range(200):
        play_random_game(seed, full=seed < 20)


def test_legal_actions_are_exactly_the_accepted_ones() -> None:
    """Brute force: every card in hand x every cell near the field x every king target, against apply."""
    for seed in range(25):
        rng = random.Random(seed)
        state = E.new_game(2, seed=seed)
        while not E.is_over(state):
            seat = E.to_act(state)[0]
            legal = {json.dumps(a, sort_keys=True) for a in E.legal_actions(state, seat)}
            if rng.random() < 0.3:
                rows = [r for r, _ in state.stacks] or [0]
                cols = [c for _, c in state.stacks] or [0]
                cells = [(r, c) for r in range(min(rows) - 4, max(rows) + 5)
                         for c in range(min(cols) - 4, max(cols) + 5)]
                accepted = set()
                for card in state.hands[seat]:
                    for cell in cells:
                        candidates = [act(seat, card, cell)]
                        if card.startswith("K"):
                            candidates += [act(seat, card, cell, t) for t in [*state.stacks, (cell[0] + 1, cell[1])]]
                        for candidate in candidates:
                            try:
                                E.apply(state, seat, candidate)
                            except IllegalAction:
                                continue
                            accepted.add(json.dumps(candidate, sort_keys=True))
                assert accepted == legal
            state = E.apply(state, seat, json.loads(rng.choice(sorted(legal))))


# ---------------------------------------------------------------------------------------------------------
# bad input
# ---------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("action", [
    None, [], "play", 5, {}, {"type": "pass"}, {"type": None}, {"card": "2C", "at": [0, 0]},
    {"type": "play"}, {"type": "play", "card": "2C"}, {"type": "play", "at": [0, 0]},
    {"type": "play", "card": 2, "at": [0, 0]}, {"type": "play", "card": "2C", "at": "0,0"},
    {"type": "play", "card": "2C", "at": [0]}, {"type": "play", "card": "2C", "at": [0, 0, 0]},
    {"type": "play", "card": "2C", "at": [0.0, 0]}, {"type": "play", "card": "2C", "at": [False, 0]},
    {"type": "play", "card": "2C", "at": [0, 0], "x": 1}, {"type": "play", "card": "ZZ", "at": [0, 0]},
    {"type": "play", "card": "2D", "at": [0, 0]}, {"type": "play", "card": "2C", "at": [10**30, 0]},
    {"type": "play", "card": "2C", "at": [0, 0], "king_target": [0, 0]},
    {"type": "play", "card": "2C", "at": [0, 0], "king_target": None},
])
def test_malformed_actions_are_illegal(action: object) -> None:
    state = E.new_game(2, seed=0, deal=make_deal(["2C", "3C", "4C", "5C", "KC"]))
    refused(E, state, 0, action)


@pytest.mark.parametrize("seat", [2, -1, True, None, "0"])
def test_bad_seats_are_illegal(seat: object) -> None:
    state = E.new_game(2, seed=0)
    refused(E, state, seat, E.legal_actions(state, 0)[0])  # type: ignore[arg-type]


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10, 10) | st.sampled_from(["play", "2C", "KS", "AD", "at", "card"]),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(
        st.sampled_from(["type", "card", "at", "king_target", "x"]), children, max_size=5),
    max_leaves=12,
)
_FUZZ_STATES = [E.new_game(2, seed=1)]
_s = _FUZZ_STATES[0]
_rng = random.Random(1)
for _ in range(9):
    _seat = E.to_act(_s)[0]
    _s = E.apply(_s, _seat, _rng.choice(E.legal_actions(_s, _seat)))
    _FUZZ_STATES.append(_s)


@settings(max_examples=300, deadline=None)
@given(action=json_values, index=st.integers(0, len(_FUZZ_STATES) - 1), seat=st.integers(-1, 2))
def test_fuzzed_json_never_raises_anything_but_illegal_action(action: object, index: int, seat: int) -> None:
    state = _FUZZ_STATES[index]
    before = E.dump(state)
    with contextlib.suppress(IllegalAction):
        E.apply(state, seat, action)  # type: ignore[arg-type]
    assert E.dump(state) == before


@settings(max_examples=200, deadline=None)
@given(card=st.sampled_from(sorted(ALL_CARDS)), r=st.integers(-6, 6), c=st.integers(-6, 6),
       target=st.none() | st.tuples(st.integers(-4, 4), st.integers(-4, 4)), index=st.integers(0, 9))
def test_fuzzed_plays_apply_iff_legal(card: str, r: int, c: int, target: tuple[int, int] | None, index: int) -> None:
    state = _FUZZ_STATES[index]
    seat = E.to_act(state)[0]
    action = act(seat, card, (r, c), target)
    legal = action in E.legal_actions(state, seat)
    try:
        E.apply(state, seat, action)
        assert legal
    except IllegalAction:
        assert not legal


# ---------------------------------------------------------------------------------------------------------
# dump / load
# ---------------------------------------------------------------------------------------------------------

def test_dump_is_plain_json_and_load_round_trips() -> None:
    state = run(TWO_LINES, black_extra=("9C", "10S", "JS"))
    state = E.apply(state, 0, act(0, "9C", (3, 3)))
    data = E.dump(state)
    assert json.loads(json.dumps(data)) == data
    assert E.load(json.loads(json.dumps(data))) == state
    data["last"]["plays"].clear()  # a dump is a copy: changing it leaves the state alone
    assert state.last is not None and state.last["plays"]


# ---------------------------------------------------------------------------------------------------------
# bots
# ---------------------------------------------------------------------------------------------------------

def bot_game(bots: list[Any], seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    state = E.new_game(2, seed=seed)
    while not E.is_over(state):
        seat = E.to_act(state)[0]
        view = E.view(state, seat)
        action, reason = bots[seat](view, view["legal"], rng)
        assert action in view["legal"] and isinstance(reason, str) and reason
        state = E.apply(state, seat, action)
    return E.result(state)


def duel(strong: Any, weak: Any, games: int) -> Counter[str]:
    tally: Counter[str] = Counter()
    for seed in range(games):
        bots = [strong, weak] if seed % 2 == 0 else [weak, strong]
        result = bot_game(bots, seed)
        if result["draw"]:
            tally["draw"] += 1
        else:
            tally["strong" if bots[result["winners"][0]] is strong else "weak"] += 1
    return tally


def test_bots_are_ordered_weakest_first() -> None:
    assert list(BOTS) == ["random", "reference", "search"]


def test_reference_bot_beats_random_bot() -> None:
    tally = duel(reference_bot, random_bot, 200)
    assert tally["strong"] > 3 * tally["weak"] and tally["strong"] > 100, tally


def test_search_bot_beats_reference_bot(monkeypatch: pytest.MonkeyPatch) -> None:
    # a tenth of its search budget keeps this test quick; bench/bots.py measures the full budget
    monkeypatch.setattr(gomori_bots, "BUDGET_SCALE", 0.1)
    tally = duel(search_bot, reference_bot, 100)
    assert tally["strong"] > 2 * tally["weak"], tally


def test_bots_return_only_legal_actions_from_every_seat() -> None:
    for name, bot in BOTS.items():
        for seed in range(6):
            bot_game([bot, BOTS["random"]] if seed % 2 else [BOTS["random"], bot], seed + 1000 * len(name))
