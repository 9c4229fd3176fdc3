"""The Gomori Shark's search: it sees the game's end coming, and plays out the greedy opponent's reply."""

from __future__ import annotations

import random

import pytest

from games.bots.gomori import END_VALUE, Ending, _Search, greedy_reply, greedy_turn

# three face-up hearts in a row, the 4th cell of the line empty: a heart there gathers the three
HEARTS = {(0, 0): ("2H", 1, True), (0, 1): ("3H", 2, True), (0, 2): ("4H", 1, True)}


def test_a_plan_that_ends_the_game_is_worth_its_result() -> None:
    # black's pile is empty: the game ends with its turn. 10 cards on the field and 5 in hand when it began.
    search = _Search(0, (), Ending(pile=0, opp_pile=4, margin=0, cards=10, hand=5))
    board_after = {(0, 0): ("5C", 11, True)}  # 11 cards on the field, 1 card played: nothing gathered
    assert search.final(board_after, ("6C", "7C", "8C", "9C")) == 0.0  # level: a draw
    assert search.final({(0, 0): ("5C", 8, True)}, ("6C", "7C", "8C")) == END_VALUE  # 2 played, 4 gathered
    behind = _Search(0, (), Ending(pile=0, opp_pile=4, margin=-3, cards=10, hand=5))
    assert behind.final({(0, 0): ("5C", 8, True)}, ("6C", "7C", "8C")) == END_VALUE  # 4 gathered beats 3
    assert behind.final(board_after, ("6C", "7C", "8C", "9C")) == -END_VALUE
    # a pile of 2 refills a hand that played 2 cards: the game goes on
    going_on = _Search(0, (), Ending(pile=2, opp_pile=4, margin=0, cards=10, hand=5))
    assert going_on.final({(0, 0): ("5C", 8, True)}, ("6C", "7C", "8C")) is None
    assert going_on.final({(0, 0): ("5C", 8, True)}, ("6C", "7C")) == END_VALUE
    assert _Search(0, ()).final(board_after, ()) is None  # no ending known: never final


def test_greedy_reply_gathers_what_the_greedy_player_would() -> None:
    rng = random.Random(1)
    assert greedy_reply(HEARTS, ["9H", "2D", "3D"], rng) == 4  # the 9♥ on (0, 3) gathers 1 + 2 + 1 cards
    assert greedy_reply(HEARTS, ["5H", "2D"], rng) == 4  # the gather (2 x 4) before the stack (1)
    assert greedy_reply(HEARTS, ["9D", "8D"], rng) == 0  # no heart: nothing to gather
    # the 4th cell holds a face-up 9♣: only the 9♥ (same rank) may go there, stacked, and it gathers
    blocked = {**HEARTS, (0, 3): ("9C", 1, True)}
    assert greedy_reply(blocked, ["5H", "6D"], rng) == 0
    assert greedy_reply(blocked, ["9H", "6D"], rng) == 4


def test_at_the_end_the_result_counts_not_the_threat_left() -> None:
    """A position leaving red a line to complete: while the game goes on it counts against black; when black's
    turn ends the game it does not (black wins on the cards gathered)."""
    threat = {**HEARTS, (3, 3): ("5C", 1, True)}
    going_on = _Search(0, ("9H",))
    assert going_on.evaluate(threat, ("6C", "7C", "8C", "9C")) < 0
    before = sum(height for _, height, _ in threat.values()) - 1  # the 5♣ was just played, gathering nothing
    ending = _Search(0, ("9H",), Ending(pile=0, opp_pile=4, margin=1, cards=before, hand=5))
    assert ending.evaluate(threat, ("6C", "7C", "8C", "9C")) == END_VALUE
    level = _Search(0, ("9H",), Ending(pile=0, opp_pile=4, margin=0, cards=before, hand=5))
    assert level.evaluate(threat, ("6C", "7C", "8C", "9C")) == 0.0


def test_the_replies_stop_at_the_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    """The think time is bounded by a deadline: past it, no reply is played out and the search's plan stands;
    before it, the replies are played out."""
    import games.bots.gomori as gomori

    board = {**HEARTS, (3, 3): ("5C", 1, True)}
    hand = ("6C", "7C", "8S", "9S", "KC")
    search = _Search(0, ("9H", "5D", "6D", "7D", "8D", "10H"))
    found = search.best(board, hand, 1)
    played: list[int] = []

    def counting(board: gomori.Board, cards: list[str], rng: random.Random) -> tuple[int, gomori.Board]:
        played.append(1)
        return 0, board

    monkeypatch.setattr(gomori, "greedy_turn", counting)
    late = gomori._with_replies(search, board, hand, 1, search.opp_unseen, 5, random.Random(0), found, deadline=0.0)
    assert late is found and not played
    gomori._with_replies(search, board, hand, 1, search.opp_unseen, 5, random.Random(0), found,
                         deadline=float("inf"))
    assert played


def test_greedy_turn_leaves_the_board_without_the_gathered_cells() -> None:
    gathered, board = greedy_turn(HEARTS, ["9H", "2D", "3D"], random.Random(1))
    assert gathered == 4
    assert set(board) == {(0, 3)} and board[(0, 3)][0] == "9H"  # the three hearts are gone, the 9♥ stays


def test_the_follow_up_counts_the_line_we_can_complete_next_turn(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two plans alike for the search: the one after which black's kept cards complete its clubs line next
    turn (the greedy opponent cannot reach it: its hand holds no card that fits) wins once the follow-up
    counts, and not without it."""
    import games.bots.gomori as gomori

    clubs = {(0, 0): ("2C", 1, True), (0, 1): ("3C", 1, True), (0, 2): ("4C", 1, True)}
    search = _Search(0, ("5D",), Ending(pile=10, opp_pile=10, margin=0, cards=3, hand=2))
    keep_club = ((0, 0.0), [{"type": "play", "card": "6S", "at": [3, 0]}])   # keeps the 9♣
    keep_spade = ((0, 0.0), [{"type": "play", "card": "9C", "at": [3, 0]}])  # keeps the 6♠

    def options(board: gomori.Board, hand: tuple[str, ...], depth: int,
                out: list[tuple[tuple[int, float], list[dict[str, object]]]] | None = None,
                ) -> tuple[tuple[int, float], list[dict[str, object]]]:
        if out is not None:
            out.extend([keep_spade, keep_club])
        return keep_spade

    monkeypatch.setattr(search, "best", options)
    # our refill is drawn from no cards: only what the plan keeps can complete the line
    chosen = gomori._with_replies(search, clubs, ("6S", "9C"), 1, ("5D",), 1, random.Random(0), keep_spade,
                                  deadline=float("inf"), own_unseen=())
    assert chosen == keep_club
    monkeypatch.setattr(gomori, "FOLLOW_WEIGHT", 0.0)
    chosen = gomori._with_replies(search, clubs, ("6S", "9C"), 1, ("5D",), 1, random.Random(0), keep_spade,
                                  deadline=float("inf"), own_unseen=())
    assert chosen == keep_spade
