"""Ruhd engine tests: the rules file's examples and rules one by one, random play, leaks, bad input, bots."""

from __future__ import annotations

import json
import random
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from engine_helpers import all_refused, random_game, refused
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.bots.ruhd import BOTS
from games.engines.base import IllegalAction
from games.engines.ruhd import ENGINE, TILE_IDS, TILES, RuhdState, facing_sides

E = ENGINE

# The tile table exactly as the rules file prints it (Up, Right, Down, Left at rotation 0).
RULES_TABLE = """
T00 G4 B2 Y2 G1   T12 Y4 R2 B2 Y1   T24 B4 G2 R2 B1   T36 R4 Y2 G2 R1
T01 G3 R1 Y4 G3   T13 Y3 G1 B4 Y3   T25 B3 Y1 R4 B3   T37 R3 B1 G4 R3
T02 G2 Y3 R1 G3   T14 Y2 B3 G1 Y3   T26 B2 R3 Y1 B3   T38 R2 G3 B1 R3
T03 G3 Y2 B2 G4   T15 Y3 B2 R2 Y4   T27 B3 R2 G2 B4   T39 R3 G2 Y2 R4
T04 G4 R1 B3 G1   T16 Y4 G1 R3 Y1   T28 B4 Y1 G3 B1   T40 R4 B1 Y3 R1
T05 G1 B4 R4 G2   T17 Y1 R4 G4 Y2   T29 B1 G4 Y4 B2   T41 R1 Y4 B4 R2
T06 G2 B1 G3 Y2   T18 Y2 R1 Y3 B2   T30 B2 G1 B3 R2   T42 R2 Y1 R3 G2
T07 G1 R3 G4 Y4   T19 Y1 G3 Y4 B4   T31 B1 Y3 B4 R4   T43 R1 B3 R4 G4
T08 G3 Y3 G2 R1   T20 Y3 B3 Y2 G1   T32 B3 R3 B2 Y1   T44 R3 G3 R2 B1
T09 G2 Y4 G3 B2   T21 Y2 B4 Y3 R2   T33 B2 R4 B3 G2   T45 R2 G4 R3 Y2
T10 G1 R4 G2 B4   T22 Y1 G4 Y2 R4   T34 B1 Y4 B2 G4   T46 R1 B4 R2 Y4
T11 G4 B1 G3 R1   T23 Y4 R1 Y3 G1   T35 B4 G1 B3 Y1   T47 R4 Y1 R3 B1
"""

TILE_RE = re.compile(r"T\d\d")


# ----------------------------------------------------------------------------- helpers
def place(tile: str, at: tuple[int, int], rotation: int = 0) -> dict[str, Any]:
    """A place action."""
    return {"type": "place", "tile": tile, "at": [at[0], at[1]], "rotation": rotation}


def cover(tile: str, at: tuple[int, int]) -> dict[str, Any]:
    """A cover action."""
    return {"type": "cover", "tile": tile, "at": [at[0], at[1]]}


def start(board: list[str], deck_head: list[str], players: int = 2) -> RuhdState:
    """A game dealt with this 2x2 board and these first deck tiles (the first 4 make the open hand);
    the rest of the deck is filled with unused tiles in id order."""
    used = board + deck_head
    rest = [t for t in TILE_IDS if t not in used]
    tiles = used + rest[: 4 + 5 * players - len(used)]
    return E.new_game(players, seed=0, deal={"tiles": tiles})


def act(state: RuhdState, action: dict[str, Any]) -> RuhdState:
    """The seat to act does the action."""
    return E.apply(state, E.to_act(state)[0], action)


def turn(state: RuhdState, placement: dict[str, Any], covering: dict[str, Any] | None = None) -> RuhdState:
    """One whole turn: place, then cover."""
    state = act(state, placement)
    return act(state, covering) if covering is not None else state


def patterns(state: RuhdState) -> list[tuple[str, str, str, Any, list[list[int]]]]:
    """The patterns the last placement created: (axis, facing, kind, value, cells)."""
    assert state.last_placement is not None
    return [(d["axis"], d["facing"], d["kind"], d["value"], d["cells"])
            for d in state.last_placement["breakdown"] if d["rule"] == "pattern"]


def board_sides(state: RuhdState, at: tuple[int, int]) -> list[str]:
    """The facing sides of the tile on a cell, as the spectator view shows them."""
    entry = next(e for e in E.view(state, None)["board"] if e["at"] == [at[0], at[1]])
    return entry["sides"]


def all_tiles(state: RuhdState) -> list[int]:
    """Every tile of the game, wherever it is."""
    tiles = list(state.hand) + list(state.deck) + list(state.set_aside)
    for t, _rot, cov in state.board.values():
        tiles.append(t)
        if cov >= 0:
            tiles.append(cov)
    return tiles


def known_tiles(state: RuhdState) -> set[str]:
    """The tiles everybody has seen: on the board (face-up or face-down) and in the open hand."""
    known = {TILE_IDS[t] for t in state.hand}
    for t, _rot, cov in state.board.values():
        known.add(TILE_IDS[t])
        if cov >= 0:
            known.add(TILE_IDS[cov])
    return known


# ----------------------------------------------------------------------------- tiles and rotation
def test_tile_table_is_the_rules_table() -> None:
    words = RULES_TABLE.split()
    expected = {words[i]: tuple(words[i + 1:i + 5]) for i in range(0, len(words), 5)}
    assert expected == TILES
    assert list(TILE_IDS) == [f"T{i:02d}" for i in range(48)]


def test_all_48_tiles_are_different_even_turned() -> None:
    seen = {tuple(facing_sides(t, r)) for t in TILE_IDS for r in range(4)}
    assert len(seen) == 48 * 4


def test_rotation_side_facing_d_is_printed_side_d_minus_r() -> None:
    # T11 printed G4 B1 G3 R1 (up, right, down, left).
    assert facing_sides("T11", 0) == (("G", 4), ("B", 1), ("G", 3), ("R", 1))
    assert facing_sides("T11", 1) == (("R", 1), ("G", 4), ("B", 1), ("G", 3))
    assert facing_sides("T11", 2) == (("G", 3), ("R", 1), ("G", 4), ("B", 1))
    assert facing_sides("T11", 3) == (("B", 1), ("G", 3), ("R", 1), ("G", 4))
    for tile in TILE_IDS:
        for r in range(4):
            for d in range(4):
                printed = TILES[tile][(d - r) % 4]
                assert facing_sides(tile, r)[d] == (printed[0], int(printed[1]))
    state = start(["T20", "T21", "T22", "T23"], ["T11"])
    state = act(state, place("T11", (-1, 0), 1))
    assert board_sides(state, (-1, 0)) == ["R1", "G4", "B1", "G3"]
    assert state.last_placement is not None and state.last_placement["sides"] == ["R1", "G4", "B1", "G3"]


# ----------------------------------------------------------------------------- setup
@pytest.mark.parametrize("players", [2, 3, 4])
def test_setup_board_deck_hand_and_set_aside(players: int) -> None:
    tiles = list(TILE_IDS[10:10 + 4 + 5 * players])
    state = E.new_game(players, seed=1, deal={"tiles": tiles})
    view = E.view(state, None)
    assert [(e["at"], e["tile"], e["rotation"], e["face_up"]) for e in view["board"]] == [
        ([0, 0], tiles[0], 0, True), ([0, 1], tiles[1], 0, True),
        ([1, 0], tiles[2], 0, True), ([1, 1], tiles[3], 0, True)]
    assert view["hand"] == tiles[4:8]
    assert view["deck"] == 5 * players - 4
    assert view["set_aside"] == 48 - 4 - 5 * players
    assert [TILE_IDS[t] for t in state.deck] == tiles[8:]
    assert sorted(TILE_IDS[t] for t in state.set_aside) == sorted(set(TILE_IDS) - set(tiles))
    assert E.to_act(state) == [0] and E.must_act(state) == [0]
    assert view["phase"] == "place" and view["scores"] == [0] * players
    assert not E.is_over(state)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_shuffle_uses_the_seed_only(players: int) -> None:
    a = E.new_game(players, seed=42)
    b = E.new_game(players, seed=42)
    c = E.new_game(players, seed=43)
    assert E.dump(a) == E.dump(b)
    assert E.dump(a) != E.dump(c)
    assert sorted(all_tiles(a)) == list(range(48))
    assert len(a.deck) + len(a.hand) == 5 * players and len(a.board) == 4


@pytest.mark.parametrize("deal", [
    None, [], {"tiles": TILE_IDS[:13]}, {"tiles": list(TILE_IDS[:13])}, {"tiles": list(TILE_IDS[:15])},
    {"tiles": ["T00"] * 14}, {"tiles": [*TILE_IDS[:13], "T48"]}, {"tiles": [*TILE_IDS[:13], 5]},
    {"tiles": list(TILE_IDS[:14]), "extra": 1}, {"cards": list(TILE_IDS[:14])}, "T00",
])
def test_bad_deals_are_refused(deal: Any) -> None:
    if deal is None:
        return
    with pytest.raises(IllegalAction):
        E.new_game(2, seed=0, deal=deal)


def test_player_count_and_options_are_checked() -> None:
    for players in (0, 1, 5, True, "2"):
        with pytest.raises(IllegalAction):
            E.new_game(players, seed=0)  # type: ignore[arg-type]
    with pytest.raises(IllegalAction):
        E.new_game(2, seed=0, options={"rounds": 3})
    with pytest.raises(IllegalAction):
        E.new_game(2, seed=0, options=[])  # type: ignore[arg-type]
    with pytest.raises(IllegalAction):
        E.new_game(2, seed=[1])  # type: ignore[arg-type]
    assert E.new_game(2, seed=0, options={}).players == 2
    assert (E.min_players, E.max_players, E.slug, E.name, E.default_options) == (2, 4, "ruhd", "Ruhd", {})


# ----------------------------------------------------------------------------- the turn
def test_place_then_cover_by_the_same_seat() -> None:
    state = start(["T20", "T21", "T22", "T23"], ["T00", "T01", "T02", "T03"])
    state = act(state, place("T00", (-1, 0)))
    assert E.to_act(state) == [0] and state.phase == "cover"
    legal = E.legal_actions(state, 0)
    assert legal and all(a["type"] == "cover" for a in legal)
    assert {a["tile"] for a in legal} == {"T01", "T02", "T03"}
    assert {tuple(a["at"]) for a in legal} == {(-1, 0), (0, 0), (0, 1), (1, 0), (1, 1)}
    assert E.legal_actions(state, 1) == []
    with pytest.raises(IllegalAction, match="cover"):
        E.apply(state, 0, place("T01", (-1, 1)))
    state = act(state, cover("T01", (1, 1)))
    assert E.to_act(state) == [1] and state.phase == "place"
    view = E.view(state, None)
    assert next(e for e in view["board"] if e["at"] == [1, 1]) == {
        "at": [1, 1], "tile": "T23", "rotation": 0, "sides": ["Y4", "R1", "Y3", "G1"], "face_up": False,
        "cover": "T01"}
    assert view["recent_face_down"] == {"tile": "T01", "at": [1, 1]}
    with pytest.raises(IllegalAction, match="Place a tile first"):
        E.apply(state, 1, cover("T02", (0, 0)))


def test_placement_must_touch_a_face_up_tile_on_an_empty_cell() -> None:
    state = start(["T20", "T21", "T22", "T23"], ["T00", "T01", "T02", "T03"])
    with pytest.raises(IllegalAction, match="next to at least one face-up tile"):
        E.apply(state, 0, place("T00", (-1, -1)))
    with pytest.raises(IllegalAction, match="already taken"):
        E.apply(state, 0, place("T00", (0, 0)))
    view = E.view(state, 0)
    frontier = [[-1, 0], [-1, 1], [0, -1], [0, 2], [1, -1], [1, 2], [2, 0], [2, 1]]
    assert view["legal_cells"] == {t: frontier for t in ["T00", "T01", "T02", "T03"]}
    assert view["any_rotation"] is True
    legal = E.legal_actions(state, 0)
    assert len(legal) == 4 * 8 * 4
    for tile in ["T00", "T01", "T02", "T03"]:
        for r, c in frontier:
            for rotation in range(4):
                assert place(tile, (r, c), rotation) in legal


def test_hand_is_refilled_to_4_only_when_empty_and_fewer_at_the_end() -> None:
    # Also: a placement that empties the hand refills it before the cover; the game ends at the end of the
    # turn in which the deck and the hand are both empty, here with nothing left to cover with.
    state = start(["T20", "T21", "T22", "T23"], [f"T{i:02d}" for i in range(10)])
    assert [TILE_IDS[t] for t in state.hand] == ["T00", "T01", "T02", "T03"] and len(state.deck) == 6
    state = turn(state, place("T00", (-1, 0)), cover("T01", (1, 0)))
    assert [TILE_IDS[t] for t in state.hand] == ["T02", "T03"] and len(state.deck) == 6
    state = turn(state, place("T02", (-1, 1)), cover("T03", (1, 1)))
    assert [TILE_IDS[t] for t in state.hand] == ["T04", "T05", "T06", "T07"] and len(state.deck) == 2
    assert state.last is not None and state.last["refilled"] == ["T04", "T05", "T06", "T07"]
    state = turn(state, place("T04", (0, 2)), cover("T05", (0, 0)))
    # Take back T01 from [1,0] (the most recent face-down tile is T05 on [0,0]); [2,0] fits thanks to the uncovering.
    state = turn(state, place("T01", (2, 0)), cover("T06", (0, 1)))
    assert [TILE_IDS[t] for t in state.hand] == ["T07"]
    state = act(state, place("T07", (-2, 0)))
    assert state.phase == "cover" and E.to_act(state) == [0]
    assert [TILE_IDS[t] for t in state.hand] == ["T08", "T09"] and len(state.deck) == 0
    assert state.last_placement is not None and state.last_placement["refilled"] == ["T08", "T09"]
    state = act(state, cover("T08", (0, 2)))
    assert not E.is_over(state)
    state = act(state, place("T09", (-2, 1)))
    assert E.is_over(state) and E.to_act(state) == [] and E.must_act(state) == []
    assert "nothing to cover with" in state.log[-2]["text"]
    assert E.legal_actions(state, 0) == [] and E.legal_actions(state, 1) == []
    with pytest.raises(IllegalAction, match="over"):
        E.apply(state, 0, cover("T08", (0, 0)))


def test_game_ends_after_the_cover_that_empties_hand_and_deck() -> None:
    state = start(["T20", "T21", "T22", "T23"], [])
    turns = 0
    while not E.is_over(state):
        state = act(state, E.legal_actions(state, E.to_act(state)[0])[0])
        if state.phase == "place" or E.is_over(state):
            turns += 1
    assert turns == 5  # 10 tiles, two per turn
    assert state.last is not None and state.last["type"] == "cover"
    assert not state.hand and not state.deck
    assert "The deck and the open hand are empty" in state.log[-1]["text"]


def test_no_pass_is_ever_needed() -> None:
    # A turn starts with a tile in the shared hand, which always fits on the unbounded board: seats simply rotate.
    for seed in range(60):
        players = 2 + seed % 3
        state = E.new_game(players, seed=seed)
        rng = random.Random(seed)
        expected = 0
        while not E.is_over(state):
            assert E.to_act(state) == [expected]
            assert state.hand
            assert E.legal_actions(state, expected)
            state = act(state, rng.choice(E.legal_actions(state, expected)))
            if state.phase == "place":
                expected = (expected + 1) % players


# ----------------------------------------------------------------------------- face-down tiles
def test_face_down_tile_is_a_blocked_empty_cell() -> None:
    state = start(["T20", "T21", "T22", "T23"], ["T00", "T01", "T02", "T03"])
    state = turn(state, place("T00", (-1, 0)), cover("T01", (0, 1)))
    # [0,1] is face-down: nothing goes on it, [0,2] and [-1,1]... only touch it (and T00 for [-1,1]).
    with pytest.raises(IllegalAction, match="face-down"):
        E.apply(state, 1, place("T02", (0, 1)))
    with pytest.raises(IllegalAction, match="face-up"):
        E.apply(state, 1, place("T02", (0, 2)))
    assert [0, 2] not in E.view(state, 1)["legal_cells"]["T02"]
    # [-1,1] touches T00 (left) and the face-down [0,1] (below): one side, and only the left side scores.
    state = act(state, place("T02", (-1, 1)))
    assert state.last_placement is not None
    rules = [(d["rule"], d.get("direction")) for d in state.last_placement["breakdown"]]
    assert ("one_side", None) in rules
    assert [d for d in rules if d[0] == "side"] == [("side", "left")]


def test_most_recent_face_down_tile_cannot_be_taken() -> None:
    state = start(["T20", "T21", "T22", "T23"], ["T00", "T01", "T02", "T03"])
    state = turn(state, place("T00", (-1, 0)), cover("T01", (1, 0)))
    view = E.view(state, 1)
    assert view["recent_face_down"] == {"tile": "T01", "at": [1, 0]}
    assert view["takeable"] == [] and "T01" not in view["legal_cells"]
    with pytest.raises(IllegalAction, match="most recently"):
        E.apply(state, 1, place("T01", (2, 0)))
    state = turn(state, place("T02", (-1, 1)), cover("T03", (1, 1)))
    view = E.view(state, 0)
    assert view["takeable"] == [{"tile": "T01", "at": [1, 0]}]
    assert "T01" in view["legal_cells"] and "T03" not in view["legal_cells"]
    assert any(a["tile"] == "T01" for a in E.legal_actions(state, 0))
    assert not any(a["tile"] == "T03" for a in E.legal_actions(state, 0))


def test_taking_a_face_down_tile_uncovers_the_tile_beneath_and_uncovering_scores_nothing() -> None:
    # T36 and T40 (left sides R1, R1) start side by side; T37 (left R3) makes three reds facing left.
    state = start(["T36", "T40", "T20", "T21"], ["T37", "T30", "T32", "T33"])
    state = act(state, place("T37", (0, 2)))
    assert ("horizontal", "left", "colour", "R", [[0, 0], [0, 1], [0, 2]]) in patterns(state)
    state = act(state, cover("T30", (0, 1)))  # breaks the row
    state = turn(state, place("T32", (2, 1)), cover("T33", (1, 1)))
    before = list(state.scores)
    state = act(state, place("T30", (2, 0), 0))
    record = state.last_placement
    assert record is not None
    assert record["from"] == "board" and record["taken_from"] == [0, 1] and record["uncovered"] == "T40"
    assert state.log[-1]["text"].startswith(
        "{s0} took T30 back from [0,1], uncovering T40, and placed it on [2,0] at rotation 0 for ")
    assert next(e for e in E.view(state, None)["board"] if e["at"] == [0, 1])["face_up"] is True
    # The red row is whole again, but only the placement on [2,0] scores.
    assert all([0, 1] not in cells for *_, cells in patterns(state))
    assert sum(d["points"] for d in record["breakdown"]) == record["points"]
    assert state.scores[0] - before[0] == record["points"]


def test_a_taken_tile_may_go_next_to_the_tile_it_uncovers() -> None:
    # Resolution: the tile beneath is face-up again before the taken tile is placed, so it is a neighbour.
    state = start(["T36", "T40", "T20", "T21"], ["T37", "T30", "T32", "T33"])
    state = turn(state, place("T37", (0, 2)), cover("T30", (0, 1)))
    state = turn(state, place("T32", (2, 1)), cover("T33", (1, 1)))
    view = E.view(state, 0)
    assert [-1, 1] in view["legal_cells"]["T30"]
    assert [-1, 1] not in view["legal_cells"]["T32"] if "T32" in view["legal_cells"] else True
    assert all([-1, 1] not in view["legal_cells"][t] for t in view["hand"])
    cell_index = view["legal_cells"]["T30"].index([-1, 1])
    hint = view["cell_points"]["T30"][cell_index][2]
    state = act(state, place("T30", (-1, 1), 2))
    record = state.last_placement
    assert record is not None and record["points"] == hint
    # T30 at rotation 2 faces down with its printed up side B2, against T40's up R4: 2 points, plus one side.
    assert record["breakdown"][:2] == [
        {"rule": "one_side", "points": 1, "text": "One side: it touches exactly one tile: 1 point"},
        {"rule": "side", "direction": "down", "at": [-1, 1], "neighbour": [0, 1], "side": "B2", "against": "R4",
         "outcome": "different colours", "points": 2,
         "text": "Down side: blue 2 against red 4, different colours: 2 points"},
    ]


# ----------------------------------------------------------------------------- scoring rules
def test_one_side_rule_only_for_exactly_one_face_up_neighbour() -> None:
    state = start(["T20", "T21", "T22", "T23"], ["T00", "T01", "T02", "T03"])
    state = turn(state, place("T00", (-1, 0)), cover("T01", (1, 0)))
    assert state.last_placement is not None
    assert state.last_placement["breakdown"][0]["rule"] == "one_side"
    state = act(state, place("T02", (-1, 1)))  # touches T00 and T21
    assert state.last_placement is not None
    assert all(d["rule"] != "one_side" for d in state.last_placement["breakdown"])


@pytest.mark.parametrize(("tile", "rotation", "outcome", "points"), [
    # Placed on [-1,0], above T20 (up side Y3): its down side meets Y3.
    ("T12", 2, "same colour, different numbers", 0),   # down = Y4
    ("T14", 2, "same colour, different numbers", 0),   # down = Y2
    ("T13", 0, "different colours", 1),                # down = B4: 4 - 3
    ("T02", 1, "same colour and number", 3),           # down = Y3
    ("T00", 0, "same colour, different numbers", 0),   # down = Y2
    ("T04", 0, "different colours", 0),                # down = B3: 3 - 3
    ("T05", 0, "different colours", 1),                # down = R4
])
def test_touching_side_rule(tile: str, rotation: int, outcome: str, points: int) -> None:
    state = start(["T20", "T21", "T22", "T23"], [tile])
    state = act(state, place(tile, (-1, 0), rotation))
    assert state.last_placement is not None
    side = next(d for d in state.last_placement["breakdown"] if d["rule"] == "side")
    assert side["direction"] == "down" and side["against"] == "Y3"
    assert (side["outcome"], side["points"]) == (outcome, points)


def test_worked_example_scores_10() -> None:
    # Column below the placed cell [-1,1]: T01 (up G3) and T00 (up G4), dealt as the starting board.
    # Row to its left: T02 at rotation 1 (left R1, right G2) and T36 (left R1), placed by actions.
    state = start(["T20", "T01", "T21", "T00"], ["T02", "T36", "T30", "T31", "T11"])
    state = turn(state, place("T02", (-1, 0), 1), cover("T30", (1, 0)))
    state = turn(state, place("T36", (-1, -1), 0), cover("T31", (0, 0)))
    assert "T11" in E.view(state, 0)["hand"]
    before = state.scores[0]
    state = act(state, place("T11", (-1, 1), 0))  # G4 up, B1 right, G3 down, R1 left
    record = state.last_placement
    assert record is not None
    assert record["points"] == 10 and state.scores[0] - before == 10
    summary = [(d["rule"], d.get("direction") or d.get("facing"), d.get("kind"), d.get("value"), d["points"])
               for d in record["breakdown"]]
    assert summary == [
        ("side", "down", None, None, 3),       # green 3 against green 3
        ("side", "left", None, None, 1),       # red 1 against green 2
        ("pattern", "left", "colour", "R", 2),  # reds facing left
        ("pattern", "left", "number", 1, 2),    # 1s facing left
        ("pattern", "up", "colour", "G", 2),    # greens facing up
    ]
    sides = {d["direction"]: (d["side"], d["against"], d["neighbour"]) for d in record["breakdown"]
             if d["rule"] == "side"}
    assert sides == {"left": ("R1", "G2", [-1, 0]), "down": ("G3", "G3", [0, 1])}
    assert patterns(state) == [
        ("horizontal", "left", "colour", "R", [[-1, -1], [-1, 0], [-1, 1]]),
        ("horizontal", "left", "number", 1, [[-1, -1], [-1, 0], [-1, 1]]),
        ("vertical", "up", "colour", "G", [[-1, 1], [0, 1], [1, 1]]),
    ]
    view = E.view(state, 1)
    assert view["last_placement"] == record and view["last"] == record
    assert "for 10 points" in view["log"][-1]["text"]


def _line_game(x: tuple[str, int], left1: tuple[str, int], left2: tuple[str, int], right1: tuple[str, int],
               right2: tuple[str, int], deal: list[str]) -> RuhdState:
    """Four players build row -1 (left2, left1, _, right1, right2) through real turns; then x is placed
    between them on [-1,1], whose cell below is covered."""
    state = E.new_game(4, seed=0, deal={"tiles": deal})
    covers = [deal[5], deal[7], deal[9], deal[11], deal[13]]
    state = turn(state, place(deal[4], (0, 2)), cover(covers[0], (1, 0)))
    state = turn(state, place(right1[0], (-1, 2), right1[1]), cover(covers[1], (1, 1)))
    state = turn(state, place(right2[0], (-1, 3), right2[1]), cover(covers[2], (0, 2)))
    state = turn(state, place(left1[0], (-1, 0), left1[1]), cover(covers[3], (0, 0)))
    state = turn(state, place(left2[0], (-1, -1), left2[1]), cover(covers[4], (0, 1)))
    return act(state, place(x[0], (-1, 1), x[1]))


def test_example_three_patterns_score_6() -> None:
    # Left-facing B4 on the placed tile and the two to its left (a 4 pattern and a blue pattern), right-facing
    # yellow on it and the two to its right (a yellow pattern).
    deal = ["T20", "T19", "T04", "T11", "T05", "T40", "T16", "T02", "T09", "T18", "T35", "T23", "T10", "T39",
            "T13", "T38", "T41", "T45", "T30", "T14", "T43", "T42", "T15", "T25"]
    state = _line_game(("T13", 1), ("T35", 3), ("T10", 0), ("T16", 1), ("T09", 0), deal)
    assert [board_sides(state, (-1, c))[3] for c in (-1, 0, 1)] == ["B4", "B4", "B4"]
    assert [board_sides(state, (-1, c))[1][0] for c in (1, 2, 3)] == ["Y", "Y", "Y"]
    assert sorted(patterns(state)) == [
        ("horizontal", "left", "colour", "B", [[-1, -1], [-1, 0], [-1, 1]]),
        ("horizontal", "left", "number", 4, [[-1, -1], [-1, 0], [-1, 1]]),
        ("horizontal", "right", "colour", "Y", [[-1, 1], [-1, 2], [-1, 3]]),
    ]
    record = state.last_placement
    assert record is not None
    assert sum(d["points"] for d in record["breakdown"] if d["rule"] == "pattern") == 6
    assert record["points"] == 6  # both touching sides happen to score 0 here


def test_example_five_in_a_row_is_one_pattern_of_2() -> None:
    deal = ["T28", "T37", "T04", "T39", "T08", "T18", "T13", "T05", "T47", "T26", "T07", "T11", "T19", "T33",
            "T03", "T38", "T25", "T22", "T41", "T30", "T24", "T09", "T45", "T21"]
    state = _line_game(("T03", 0), ("T07", 2), ("T19", 3), ("T13", 1), ("T47", 0), deal)
    assert [board_sides(state, (-1, c))[1][0] for c in range(-1, 4)] == ["Y"] * 5
    assert patterns(state) == [("horizontal", "right", "colour", "Y", [[-1, c] for c in range(-1, 4)])]
    record = state.last_placement
    assert record is not None
    assert [d["points"] for d in record["breakdown"] if d["rule"] == "pattern"] == [2]


def test_extending_an_existing_pattern_scores_nothing() -> None:
    # T26, T25, T24 (left sides B3, B3, B1) make three blues facing left; T27 (left B4) only extends them.
    state = start(["T00", "T01", "T02", "T03"], ["T24", "T25", "T04", "T05", "T26", "T06", "T27"])
    state = turn(state, place("T24", (-1, 0)), cover("T04", (1, 0)))
    state = turn(state, place("T25", (-1, -1)), cover("T05", (1, 1)))
    state = act(state, place("T26", (-1, -2)))
    assert patterns(state) == [("horizontal", "left", "colour", "B", [[-1, -2], [-1, -1], [-1, 0]])]
    state = act(state, cover("T06", (0, 1)))
    state = act(state, place("T27", (-1, 1)))
    assert patterns(state) == []
    record = state.last_placement
    assert record is not None and record["points"] == 3  # one side, and B4 against G2: 2
    assert [board_sides(state, (-1, c))[3][0] for c in range(-2, 2)] == ["B"] * 4


def test_sides_facing_across_the_axis_never_count() -> None:
    # T00, T01, T39 side by side all face down with yellow: the tile placed to the right scores no pattern.
    state = start(["T20", "T21", "T22", "T23"], ["T01", "T04", "T00", "T05", "T39"])
    state = turn(state, place("T01", (-1, 0)), cover("T04", (1, 0)))
    state = turn(state, place("T00", (-1, -1)), cover("T05", (0, 1)))
    state = act(state, place("T39", (-1, 1)))
    assert [board_sides(state, (-1, c))[2][0] for c in (-1, 0, 1)] == ["Y", "Y", "Y"]
    assert patterns(state) == []
    record = state.last_placement
    assert record is not None and record["points"] == 1  # one side; R4 against R1 scores nothing


def test_sides_facing_across_a_column_never_count() -> None:
    # T02, T03, T08 stacked in column -1 all face right with yellow: the tile placed below scores no pattern.
    state = start(["T20", "T21", "T22", "T23"], ["T02", "T04", "T03", "T05", "T08"])
    state = turn(state, place("T02", (0, -1)), cover("T04", (0, 1)))
    state = turn(state, place("T03", (1, -1)), cover("T05", (1, 0)))
    state = act(state, place("T08", (2, -1)))
    assert [board_sides(state, (r, -1))[1][0] for r in (0, 1, 2)] == ["Y", "Y", "Y"]
    assert all(axis == "vertical" for axis, *_ in patterns(state))
    assert all(facing in ("up", "down") for _, facing, *_ in patterns(state))
    assert not any(kind == "colour" and value == "Y" for _, _, kind, value, _ in patterns(state))


def test_covering_a_pattern_breaks_it_so_it_can_score_again() -> None:
    # A T36, B T40, C T37 in row -1 (left sides R1, R1, R3): C creates three reds facing left.
    state = start(["T20", "T21", "T22", "T23"], ["T40", "T00", "T36", "T01", "T37", "T02", "T38"])
    state = turn(state, place("T40", (-1, 0)), cover("T00", (1, 0)))
    state = turn(state, place("T36", (-1, -1)), cover("T01", (1, 1)))
    state = act(state, place("T37", (-1, 1)))
    assert ("horizontal", "left", "colour", "R", [[-1, -1], [-1, 0], [-1, 1]]) in patterns(state)
    broken = act(state, cover("T02", (-1, -1)))
    kept = act(state, cover("T02", (0, 0)))
    # D T38 (left R3) to the right of C: a new pattern B C D where A is covered; only an extension otherwise.
    broken = act(broken, place("T38", (-1, 2)))
    kept = act(kept, place("T38", (-1, 2)))
    assert ("horizontal", "left", "colour", "R", [[-1, 0], [-1, 1], [-1, 2]]) in patterns(broken)
    assert not any(p[1:4] == ("left", "colour", "R") for p in patterns(kept))
    assert broken.last_placement is not None and kept.last_placement is not None
    assert broken.last_placement["points"] == kept.last_placement["points"] + 2


def test_cell_tables_score_like_the_rules() -> None:
    # The fast per-side tables (hints, bots) agree with the rule-by-rule scoring on real boards.
    from games.engines.ruhd import FACING, cell_table, face_up_map, frontier, score_placement, table_points

    checked = 0
    for seed in range(25):
        state = E.new_game(2 + seed % 3, seed=seed)
        rng = random.Random(seed)
        while not E.is_over(state):
            up = face_up_map(state.board)
            for cell in frontier(state.board):
                table = cell_table(up, cell)
                for tile in rng.sample(range(48), 6):
                    for r in range(4):
                        assert table_points(table, FACING[tile][r]) == score_placement(up, cell, FACING[tile][r])
                        checked += 1
            state = act(state, rng.choice(E.legal_actions(state, E.to_act(state)[0])))
    assert checked > 10_000


def test_pattern_needs_both_parts_shorter_than_3() -> None:
    # Unit check of the rule on hand-made boards: run lengths on each side of the placed tile.
    from games.engines.ruhd import score_placement

    red: tuple[tuple[str, int], ...] = (("G", 1), ("Y", 2), ("B", 3), ("R", 4))  # left side R4
    sides = (red[0], red[1], red[2], red[3])
    for back, fwd, created in [(2, 0, True), (1, 1, True), (2, 2, True), (3, 0, False), (0, 3, False),
                               (3, 1, False), (1, 0, False), (0, 0, False), (2, 1, True)]:
        up = {}
        for k in range(1, back + 1):
            up[(0, -k)] = sides
        for k in range(1, fwd + 1):
            up[(0, k)] = sides
        detail: list[dict[str, Any]] = []
        score_placement(up, (0, 0), sides, detail)
        got = any(d["rule"] == "pattern" and d["facing"] == "left" and d["kind"] == "colour" for d in detail)
        assert got is created, (back, fwd)


# ----------------------------------------------------------------------------- end, result, log, view
def test_result_and_shared_win() -> None:
    found_draw = found_win = False
    for seed in range(400):
        state = E.new_game(2, seed=seed)
        rng = random.Random(seed)
        while not E.is_over(state):
            state = act(state, rng.choice(E.legal_actions(state, E.to_act(state)[0])))
        result = E.result(state)
        assert result["scores"] == E.scores(state) == list(state.scores)
        top = max(result["scores"])
        assert result["winners"] == [s for s in range(2) if result["scores"][s] == top]
        assert result["draw"] == (len(result["winners"]) > 1)
        view = E.view(state, 0)
        assert view["over"] and view["result"] == result and view["legal"] == [] and view["to_act"] == []
        if result["draw"]:
            found_draw = True
            assert "share the win" in state.log[-1]["text"]
        else:
            found_win = True
            assert f"{{s{result['winners'][0]}}} wins" in state.log[-1]["text"]
        if found_draw and found_win:
            break
    assert found_draw and found_win


def test_view_shape_and_hints_match_the_engine() -> None:
    for seed in range(40):
        players = 2 + seed % 3
        state = E.new_game(players, seed=seed)
        rng = random.Random(seed)
        while not E.is_over(state):
            seat = E.to_act(state)[0]
            view = E.view(state, seat)
            for key in ("game", "players", "seat", "to_act", "must_act", "scores", "over", "result", "legal", "log",
                        "last", "last_placement", "phase", "turn", "board", "hand", "deck", "set_aside",
                        "recent_face_down", "takeable", "tiles", "any_rotation", "legal_cells", "cell_points",
                        "cover_cells"):
                assert key in view
            assert view["game"] == "ruhd" and view["seat"] == seat and view["turn"] == seat
            legal = E.legal_actions(state, seat)
            assert view["legal"] == legal
            if state.phase == "place":
                by_tile: dict[str, set[tuple[int, int]]] = {}
                for a in legal:
                    by_tile.setdefault(a["tile"], set()).add(tuple(a["at"]))
                assert {t: {tuple(c) for c in cells} for t, cells in view["legal_cells"].items()} == by_tile
                assert len(legal) == 4 * sum(len(cells) for cells in view["legal_cells"].values())
                for _ in range(3):
                    tile = rng.choice(sorted(view["legal_cells"]))
                    i = rng.randrange(len(view["legal_cells"][tile]))
                    rotation = rng.randrange(4)
                    cell = view["legal_cells"][tile][i]
                    after = E.apply(state, seat, place(tile, (cell[0], cell[1]), rotation))
                    assert after.last_placement is not None
                    assert after.last_placement["points"] == view["cell_points"][tile][i][rotation]
                    assert after.scores[seat] - state.scores[seat] == after.last_placement["points"]
                assert view["cover_cells"] == []
            else:
                assert view["legal_cells"] == {} and view["cell_points"] == {}
                assert {tuple(c) for c in view["cover_cells"]} == {tuple(a["at"]) for a in legal}
            spectator = E.view(state, None)
            assert spectator["legal"] == [] and spectator["legal_cells"] == {} and spectator["seat"] is None
            other = E.view(state, (seat + 1) % players)
            assert other["legal"] == [] and other["legal_cells"] == {}
            state = act(state, rng.choice(legal))


def test_log_uses_seat_tokens_and_describes_each_action() -> None:
    state = start(["T20", "T01", "T21", "T00"], ["T02", "T36", "T30", "T31", "T11"])
    state = turn(state, place("T02", (-1, 0), 1), cover("T30", (1, 0)))
    log = E.view(state, None)["log"]
    assert log[0]["seat"] is None and "starting board" in log[0]["text"]
    assert log[1]["seat"] == 0 and log[1]["text"].startswith(
        "{s0} placed T02 from the open hand on [-1,0] at rotation 1 for ")
    assert log[2] == {"seat": 0, "text": "{s0} covered T21 on [1,0] with T30, face-down."}
    for seed in range(20):
        state = E.new_game(3, seed=seed)
        rng = random.Random(seed)
        while not E.is_over(state):
            state = act(state, rng.choice(E.legal_actions(state, E.to_act(state)[0])))
        for event in E.view(state, None)["log"]:
            assert set(event) == {"seat", "text"} and isinstance(event["text"], str) and event["text"]
            for token in re.findall(r"\{(\w+)\}", event["text"]):
                assert token in ("s0", "s1", "s2")


# ----------------------------------------------------------------------------- random play
def _probe_illegal(state: RuhdState, legal: list[dict[str, Any]], rng: random.Random) -> None:
    """Near-miss actions must raise IllegalAction and leave the state as it was."""
    seat = E.to_act(state)[0]
    face_up = [cell for cell, stack in state.board.items() if stack[2] < 0]
    face_down = [cell for cell, stack in state.board.items() if stack[2] >= 0]
    hidden = [TILE_IDS[t] for t in state.deck + state.set_aside]
    probes: list[tuple[int, Any]] = [((seat + 1) % state.players, rng.choice(legal)),
                                     (seat, rng.choice(legal) | {"x": 1})]
    hand = [TILE_IDS[t] for t in state.hand]
    if state.phase == "place":
        tile = rng.choice(hand)
        probes += [
            (seat, cover(tile, rng.choice(face_up))),
            (seat, place(tile, rng.choice(list(state.board)), 0)),
            (seat, place(tile, (100, 100), 1)),
            (seat, place(tile, (-1, 0), 4)),
            (seat, {"type": "place", "tile": tile, "at": [-1, 0], "rotation": True}),
            (seat, place(TILE_IDS[rng.choice([state.board[c][0] for c in face_up])], (50, 50), 0)),
        ]
        if hidden:
            probes.append((seat, place(rng.choice(hidden), rng.choice(legal)["at"], 0)))
        if state.recent is not None:
            probes.append((seat, place(TILE_IDS[state.board[state.recent][2]], rng.choice(legal)["at"], 0)))
    else:
        tile = rng.choice(hand)
        probes += [
            (seat, place(tile, (-5, -5), 0)),
            (seat, cover(tile, (100, 100))),
        ]
        if face_down:
            probes.append((seat, cover(tile, rng.choice(face_down))))
        if hidden:
            probes.append((seat, cover(rng.choice(hidden), rng.choice(face_up))))
    all_refused(E, state, probes)


def _check_view_leaks(state: RuhdState) -> None:
    """No view mentions a tile of the deck or of the set-aside pile."""
    known = known_tiles(state)
    secret = {TILE_IDS[t] for t in state.deck + state.set_aside}
    assert not known & secret
    for seat in [None, *range(state.players)]:
        text = json.dumps(E.view(state, seat))
        mentioned = set(TILE_RE.findall(text))
        assert mentioned <= known, (seat, mentioned - known)


def _check_invariants(state: RuhdState) -> None:
    assert sorted(all_tiles(state)) == list(range(48))
    assert len(state.deck) + len(state.set_aside) + len(state.hand) + sum(
        1 + (s[2] >= 0) for s in state.board.values()) == 48
    assert len(state.set_aside) == 48 - 4 - 5 * state.players
    assert sum(1 for s in state.board.values() if s[2] < 0) >= 4
    assert len(state.hand) <= 4
    if not E.is_over(state):
        assert state.hand


def _play_checked(game: int, full: bool) -> None:
    """One random game with what only Ruhd has checked before every move: its tile counts, its own near misses
    refused, the deck and set-aside pile shown as counts, and (with `full`) no view naming a hidden tile.

    What every engine owes (legal moves apply, refusals change nothing, dump/load, games end, replays, views
    unchanged by the hidden order) is the contract battery's (test_contract.py)."""
    rng = random.Random(game)

    def check(state: RuhdState, step: int) -> None:
        assert len(E.to_act(state)) == 1
        view = E.view(state, None)
        assert view["deck"] == len(state.deck) and view["set_aside"] == len(state.set_aside)
        if full or rng.random() < 0.05:
            _check_invariants(state)
            _probe_illegal(state, E.legal_actions(state, E.to_act(state)[0]), rng)
            if full:
                _check_view_leaks(state)

    # 48 tiles, two moves (place, cover) per tile played.
    state, _ = random_game(E, 2 + game % 3, game, check=check, max_steps=200)
    _check_invariants(state)
    if full:
        _check_view_leaks(state)


def test_random_play() -> None:
    for game in range(200):
        _play_checked(game, full=game < 20)


# ----------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("action", [
    None, 5, "place", [], {}, {"type": "pass"}, {"type": None}, {"type": 3},
    {"type": "place"}, {"type": "place", "tile": "T00", "at": [-1, 0]},
    {"type": "place", "tile": "T00", "at": [-1, 0], "rotation": 0, "extra": 1},
    {"type": "place", "tile": 0, "at": [-1, 0], "rotation": 0},
    {"type": "place", "tile": "T00", "at": [-1], "rotation": 0},
    {"type": "place", "tile": "T00", "at": [-1, 0, 1], "rotation": 0},
    {"type": "place", "tile": "T00", "at": [-1.0, 0], "rotation": 0},
    {"type": "place", "tile": "T00", "at": [True, 0], "rotation": 0},
    {"type": "place", "tile": "T00", "at": "-1,0", "rotation": 0},
    {"type": "place", "tile": "T00", "at": [-1, 0], "rotation": "0"},
    {"type": "place", "tile": "T00", "at": [-1, 0], "rotation": 1.0},
    {"type": "place", "tile": "T00", "at": [-1, 0], "rotation": -1},
    {"type": "place", "tile": "T99", "at": [-1, 0], "rotation": 0},
    {"type": "place", "tile": "t00", "at": [-1, 0], "rotation": 0},
    {"type": "place", "tile": "T20", "at": [-1, 0], "rotation": 0},   # face-up on the board
    {"type": "place", "tile": "T30", "at": [-1, 0], "rotation": 0},   # in the deck
    {"type": "place", "tile": "T47", "at": [-1, 0], "rotation": 0},   # set aside
    {"type": "place", "tile": "T00", "at": [10 ** 30, 0], "rotation": 0},
    {"type": "cover", "tile": "T00", "at": [0, 0]},                   # wrong phase
])
def test_bad_actions_are_illegal(action: Any) -> None:
    state = start(["T20", "T21", "T22", "T23"], ["T00", "T01", "T02", "T03"])
    refused(E, state, 0, action)


@pytest.mark.parametrize("seat", [1, -1, 2, 7, None, True, "0", 0.0])
def test_bad_seats_are_illegal(seat: Any) -> None:
    state = start(["T20", "T21", "T22", "T23"], ["T00", "T01", "T02", "T03"])
    with pytest.raises(IllegalAction):
        E.apply(state, seat, place("T00", (-1, 0)))
    assert E.legal_actions(state, seat) == []


@pytest.mark.parametrize("action", [
    {"type": "cover", "tile": "T00", "at": [0, 0]},       # already placed
    {"type": "cover", "tile": "T30", "at": [0, 0]},       # in the deck
    {"type": "cover", "tile": "T01", "at": [5, 5]},       # empty cell
    {"type": "cover", "tile": "T01", "at": [0, 0], "rotation": 0},
    {"type": "cover", "tile": "T01"},
    {"type": "cover", "tile": "T01", "at": None},
])
def test_bad_covers_are_illegal(action: Any) -> None:
    state = start(["T20", "T21", "T22", "T23"], ["T00", "T01", "T02", "T03"])
    state = act(state, place("T00", (-1, 0)))
    refused(E, state, 0, action)


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.floats(allow_nan=False) | st.sampled_from(
        ["place", "cover", "type", "tile", "at", "rotation", "T00", "T01", "T20", "T47"]),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(
        st.sampled_from(["type", "tile", "at", "rotation", "x"]), children, max_size=5),
    max_leaves=12,
)
ACTIONS = st.fixed_dictionaries(
    {"type": st.sampled_from(["place", "cover", "pass"])},
    optional={"tile": st.sampled_from(["T00", "T01", "T02", "T20", "T30", "T47", "x"]) | JSON,
              "at": st.lists(st.integers(-3, 3), min_size=0, max_size=3) | JSON,
              "rotation": st.integers(-1, 4) | JSON, "extra": JSON},
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(action=JSON | ACTIONS, phase=st.booleans(), seat=st.integers(-1, 2) | JSON)
def test_fuzz_any_json_is_applied_or_illegal(action: Any, phase: bool, seat: Any) -> None:
    state = start(["T20", "T21", "T22", "T23"], ["T00", "T01", "T02", "T03"])
    if phase:
        state = act(state, place("T00", (-1, 0)))
    before = E.dump(state)
    try:
        after = E.apply(state, seat, action)
    except IllegalAction:
        assert E.dump(state) == before
        return
    assert action in E.legal_actions(state, seat)
    assert E.dump(state) == before and after != state


# ----------------------------------------------------------------------------- bots
def _play(bots: list[str], seed: int) -> tuple[RuhdState, list[str]]:
    """A game between bots (by level, one per seat)."""
    players = len(bots)
    state = E.new_game(players, seed=seed)
    rng = random.Random(seed)
    while not E.is_over(state):
        seat = E.to_act(state)[0]
        legal = E.legal_actions(state, seat)
        action, reason = BOTS[bots[seat]](E.view(state, seat), legal, rng)
        assert action in legal
        assert isinstance(reason, str) and reason and "\n" not in reason
        state = E.apply(state, seat, action)
    return state, bots


def test_bot_levels() -> None:
    assert list(BOTS) == ["random", "reference", "search"]


def test_reference_bot_beats_random_bot() -> None:
    wins = {"reference": 0, "random": 0}
    for game in range(200):
        bots = ["reference", "random"] if game % 2 == 0 else ["random", "reference"]
        state, _ = _play(bots, 7000 + game)
        result = E.result(state)
        if len(result["winners"]) == 1:
            wins[bots[result["winners"][0]]] += 1
    assert wins["reference"] > 3 * wins["random"]


def test_bots_return_legal_actions_for_2_to_4_players() -> None:
    levels = list(BOTS)
    for game in range(24):
        players = 2 + game % 3
        _play([levels[(game + s) % len(levels)] for s in range(players)], 9000 + game)


def test_bot_reason_names_the_placement() -> None:
    state = start(["T20", "T01", "T21", "T00"], ["T02", "T36", "T30", "T31", "T11"])
    state = turn(state, place("T02", (-1, 0), 1), cover("T30", (1, 0)))
    state = turn(state, place("T36", (-1, -1), 0), cover("T31", (0, 0)))
    view = E.view(state, 0)
    action, reason = BOTS["reference"](view, E.legal_actions(state, 0), random.Random(0))
    assert action is not None
    best = max(p for points in view["cell_points"].values() for cell in points for p in cell)
    after = act(state, action)
    assert after.last_placement is not None and after.last_placement["points"] == best
    assert reason.startswith(f"places {action['tile']}") and f"for {best}" in reason


def test_bots_see_no_state() -> None:
    source = Path(sys.modules[BOTS["reference"].__module__].__file__ or "").read_text()
    assert "RuhdState" not in source and "ENGINE" not in source
