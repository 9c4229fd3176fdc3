"""The Computer Gomori protocol adapter: messages both ways, whole turns applied play by play, illegal turns."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from games.bots.gomori import reference_bot
from games.engines.base import IllegalAction
from games.engines.gomori import DECKS, ENGINE, State
from games.engines.gomori_protocol import (
    ProtocolError,
    ProtocolSeat,
    check_okay,
    decode,
    encode,
    fields_of,
    from_card,
    new_game_request,
    parse_turn,
    play_answer,
    to_card,
    turn_answer,
)

E = ENGINE


def deal(black: list[str], red: list[str]) -> dict[str, list[str]]:
    return {
        "black": [*black, *(c for c in DECKS[0] if c not in black)],
        "red": [*red, *(c for c in DECKS[1] if c not in red)],
    }


def play(state: State, seat: int, card: str, at: tuple[int, int], target: tuple[int, int] | None = None) -> State:
    action: dict[str, Any] = {"type": "play", "card": card, "at": list(at)}
    if target is not None:
        action["king_target"] = list(target)
    return E.apply(state, seat, action)


def c(code: str) -> dict[str, str]:
    return to_card(code)


def position() -> State:
    """Red to play after: 5♣ [0, 0]; 2♦ [-1, 0]; J♣ on 5♣ (turning 2♦ face-down), then 3♣ [0, 1]."""
    state = E.new_game(2, seed=0, deal=deal(["5C", "JC", "3C"], ["2D", "2H", "KD", "4D", "9H"]))
    state = play(state, 0, "5C", (0, 0))
    state = play(state, 1, "2D", (-1, 0))
    state = play(state, 0, "JC", (0, 0))
    return play(state, 0, "3C", (0, 1))


# ---------------------------------------------------------------------------------------------------------
# cards and requests
# ---------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("code", "card"), [
    ("10H", {"suit": "♥", "rank": "10"}), ("AS", {"suit": "♠", "rank": "A"}),
    ("2D", {"suit": "♦", "rank": "2"}), ("KC", {"suit": "♣", "rank": "K"}),
])
def test_cards_translate_both_ways(code: str, card: dict[str, str]) -> None:
    assert to_card(code) == card
    assert from_card(card) == code
    assert from_card({**card, "extra": 1}) == code  # serde ignores unknown fields, so do we


@pytest.mark.parametrize("card", [None, "5C", {"suit": "C", "rank": "5"}, {"suit": "♣", "rank": "T"},
                                  {"suit": "♣"}, {"rank": "5"}, {"suit": "♣", "rank": 5}, ["♣", "5"]])
def test_bad_cards_are_protocol_errors(card: object) -> None:
    with pytest.raises(ProtocolError):
        from_card(card)


def test_every_card_round_trips() -> None:
    for code in DECKS[0] + DECKS[1]:
        assert from_card(json.loads(encode(to_card(code)))) == code


def test_messages_are_one_compact_line() -> None:
    line = encode({"type": "PlayTurn", "cards": [c("10H")], "fields": []})
    assert line.endswith("\n") and line.count("\n") == 1 and " " not in line and "♥" in line
    assert decode(line) == {"type": "PlayTurn", "cards": [c("10H")], "fields": []}
    with pytest.raises(ProtocolError, match="not JSON"):
        decode("hello\n")


def test_new_game_colours() -> None:
    assert new_game_request(0) == {"type": "NewGame", "color": "black"}
    assert new_game_request(1) == {"type": "NewGame", "color": "red"}
    check_okay({})
    check_okay([])
    with pytest.raises(ProtocolError):
        check_okay("ok")


def test_first_turn_request_and_answer() -> None:
    state = E.new_game(2, seed=0, deal=deal(["9C", "2S", "3S", "4S", "5S"], []))
    seat = ProtocolSeat(0)
    request = seat.request(E.view(state, 0))
    assert request == {"type": "PlayFirstTurn", "cards": [c("9C"), c("2S"), c("3S"), c("4S"), c("5S")]}
    after, actions = play_answer(state, 0, request, c("2S"))
    assert actions == [{"type": "play", "card": "2S", "at": [0, 0]}]
    assert E.view(after, None)["field"] == [{"at": [0, 0], "stack": ["2S"], "face_up": True}]
    with pytest.raises(IllegalAction, match="don't hold"):
        play_answer(state, 0, request, c("KD"))
    with pytest.raises(ProtocolError):
        play_answer(state, 0, request, [c("2S")])


def test_fields_follow_the_reference_judge() -> None:
    """i is the row, j the column; sorted by i then j; a face-down top is null and counted among hidden cards."""
    state = position()
    view = E.view(state, 1)
    assert fields_of(view) == [
        {"i": -1, "j": 0, "top_card": None, "hidden_cards": [c("2D")]},
        {"i": 0, "j": 0, "top_card": c("JC"), "hidden_cards": [c("5C")]},
        {"i": 0, "j": 1, "top_card": c("3C"), "hidden_cards": []},
    ]


def test_hidden_cards_are_in_rust_card_order() -> None:
    # a stack of 2♣, 2♠, 2♥, 2♦ (bottom to top) and then a red king turning it face-down
    state = E.new_game(2, seed=0, deal=deal(["2C", "2S", "9S"], ["2H", "2D", "KD", "9D"]))
    state = play(state, 0, "2C", (0, 0))
    state = play(state, 1, "9D", (1, 1))
    state = play(state, 0, "2S", (0, 0))
    state = play(state, 0, "9S", (2, 2))
    state = play(state, 1, "2H", (0, 0))
    state = play(state, 1, "2D", (0, 0))
    state = play(state, 1, "KD", (0, 0), (0, 0))
    field = fields_of(E.view(state, 0))[0]
    assert field["top_card"] is None
    assert field["hidden_cards"] == [c("2D"), c("KD"), c("2H"), c("2S"), c("2C")]


def test_play_turn_request_and_cards_won_by_opponent_since_last_asked() -> None:
    # black gathers row 0 (2♣ 3♣ 4♣ by the 5♣): red's next request lists those 3 cards, and only once
    state = E.new_game(2, seed=0, deal=deal(["2C", "3C", "4C", "5C"], ["5D", "5H", "6D", "7D", "8D"]))
    seats = [ProtocolSeat(0), ProtocolSeat(1)]
    moves = [(0, "2C", (0, 0)), (1, "5D", (1, 3)), (0, "3C", (0, 1)), (1, "5H", (2, 3)), (0, "4C", (0, 2)),
             (1, "6D", (3, 3)), (0, "5C", (0, 3))]
    for seat, card, at in moves:
        request = seats[seat].request(E.view(state, seat))
        assert request["type"] == ("PlayFirstTurn" if seat == 0 and card == "2C" else "PlayTurn")
        if request["type"] == "PlayTurn":
            assert request["cards_won_by_opponent"] == []
            assert [from_card(x) for x in request["cards"]] == list(state.hands[seat])
        state = play(state, seat, card, at)
    assert E.scores(state) == [3, 0]
    request = seats[1].request(E.view(state, 1))
    assert sorted(from_card(x) for x in request["cards_won_by_opponent"]) == ["2C", "3C", "4C"]
    assert seats[1].request(E.view(state, 1))["cards_won_by_opponent"] == []
    seats[1].new_game()
    assert len(seats[1].request(E.view(state, 1))["cards_won_by_opponent"]) == 3


# ---------------------------------------------------------------------------------------------------------
# answers
# ---------------------------------------------------------------------------------------------------------

def chain_position() -> tuple[State, dict[str, Any]]:
    """Black to play with 2♣ 2♠ K♣ 7♣ 8♣ in hand; the red 2♦ lies at [0, 1]."""
    state = E.new_game(2, seed=0, deal=deal(["9C", "2C", "2S", "KC", "7C", "8C"], ["2D"]))
    state = play(state, 0, "9C", (0, 0))
    state = play(state, 1, "2D", (0, 1))
    request = ProtocolSeat(0).request(E.view(state, 0))
    return state, request


def test_a_whole_turn_is_applied_play_by_play() -> None:
    state, request = chain_position()
    answer = [
        {"card": c("2C"), "i": 0, "j": 1},
        {"card": c("KC"), "i": 0, "j": 1, "target_field_for_king_ability": [0, 0]},
        {"card": c("7C"), "i": 1, "j": 1},
    ]
    after, actions = play_answer(state, 0, request, json.loads(encode(answer)))
    assert actions == [
        {"type": "play", "card": "2C", "at": [0, 1]},
        {"type": "play", "card": "KC", "at": [0, 1], "king_target": [0, 0]},
        {"type": "play", "card": "7C", "at": [1, 1]},
    ]
    assert E.to_act(after) == [1]
    assert turn_answer(actions) == answer
    assert parse_turn(answer) == [("2C", 0, 1, None), ("KC", 0, 1, (0, 0)), ("7C", 1, 1, None)]


def test_king_target_is_ignored_where_not_needed_like_the_reference_judge() -> None:
    state, request = chain_position()
    answer = [{"card": c("KC"), "i": 1, "j": 1, "target_field_for_king_ability": [0, 0]}]
    after, actions = play_answer(state, 0, request, answer)
    assert actions == [{"type": "play", "card": "KC", "at": [1, 1]}] and E.to_act(after) == [1]
    answer = [{"card": c("7C"), "i": 1, "j": 1, "target_field_for_king_ability": None}]
    assert play_answer(state, 0, request, answer)[1] == [{"type": "play", "card": "7C", "at": [1, 1]}]


@pytest.mark.parametrize(("answer", "reason"), [
    ([], "played no card"),
    ([{"card": c("2C"), "i": 0, "j": 1}], "must play again"),
    ([{"card": c("7C"), "i": 1, "j": 1}, {"card": c("8C"), "i": 2, "j": 2}], "comes after the turn ended"),
    ([{"card": c("2C"), "i": 0, "j": 1}, {"card": c("KC"), "i": 0, "j": 1}], "needs target_field_for_king"),
    ([{"card": c("2C"), "i": 0, "j": 1},
      {"card": c("KC"), "i": 0, "j": 1, "target_field_for_king_ability": [5, 5]}], "Play 2: There is no card"),
    ([{"card": c("AD"), "i": 1, "j": 1}], "Play 1: You don't hold the A♦"),
    ([{"card": c("7C"), "i": 0, "j": 1}], "Play 1: The 7♣ can't go on the 2♦"),
    ([{"card": c("7C"), "i": 0, "j": 9}], "more than 4"),
    ([{"card": c("2C"), "i": 0, "j": 1}, {"card": c("2C"), "i": 1, "j": 1}], "Play 2: You don't hold the 2♣"),
])
def test_illegal_turns(answer: list[dict[str, Any]], reason: str) -> None:
    state, request = chain_position()
    before = E.dump(state)
    with pytest.raises(IllegalAction, match=reason):
        play_answer(state, 0, request, answer)
    assert E.dump(state) == before


@pytest.mark.parametrize("answer", [
    None, {}, "x", c("2C"), [None], [{"card": c("2C"), "i": 0}], [{"card": c("2C"), "j": 0}],
    [{"i": 0, "j": 1}], [{"card": c("2C"), "i": "0", "j": 1}], [{"card": c("2C"), "i": True, "j": 1}],
    [{"card": c("2C"), "i": 0, "j": 1.5}], [{"card": c("2C"), "i": 0, "j": 128}],
    [{"card": "2C", "i": 0, "j": 1}],
    [{"card": c("KC"), "i": 0, "j": 1, "target_field_for_king_ability": [0]}],
    [{"card": c("KC"), "i": 0, "j": 1, "target_field_for_king_ability": {"i": 0, "j": 0}}],
])
def test_malformed_answers_are_protocol_errors(answer: object) -> None:
    state, request = chain_position()
    with pytest.raises(ProtocolError):
        play_answer(state, 0, request, answer)


def whole_turn(state: State, seat: int, rng: random.Random) -> tuple[State, list[dict[str, Any]]]:
    """Play one whole turn with the reference bot directly on the engine; the end state and the actions."""
    actions = []
    while True:
        view = E.view(state, seat)
        action, _ = reference_bot(view, view["legal"], rng)
        assert action is not None
        actions.append(action)
        state = E.apply(state, seat, action)
        if E.is_over(state) or not state.chain:
            return state, actions


def test_protocol_games_match_engine_games() -> None:
    """Whole turns sent through the protocol (encode, decode, replay) end exactly where direct play ends."""
    for seed in range(40):
        rng = random.Random(seed)
        state = E.new_game(2, seed=seed)
        seats = [ProtocolSeat(0), ProtocolSeat(1)]
        while not E.is_over(state):
            seat = E.to_act(state)[0]
            request = json.loads(encode(seats[seat].request(E.view(state, seat))))
            direct, actions = whole_turn(state, seat, rng)
            if request["type"] == "PlayFirstTurn":
                answer: Any = to_card(actions[0]["card"])
            else:
                answer = turn_answer(actions)
                hand = [from_card(x) for x in request["cards"]]
                assert hand == list(state.hands[seat]) and len(hand) == 5
            replayed, replayed_actions = play_answer(state, seat, request, json.loads(encode(answer)))
            assert replayed_actions == actions
            assert E.dump(replayed) == E.dump(direct)
            state = replayed
