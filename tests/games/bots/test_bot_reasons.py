"""A bot's reason (Move.note) is shown to the spectators of bot-against-bot matches: it is a view like any other.

Whole seeded games of every bot level of every game, checking each move's reason against what a spectator
(`engine.view(state, None)`) may see once the move is applied: every card or tile the reason names must be
visible to a spectator then (so none of the cards hidden at that moment: a card now face down in a Columbo
hand, a Gomori or Rummy hand or draw pile, the Ruhd deck), every Rummy pack it spells out must lie on the
table, and the numbers it states must be public ones. Pure engine and bot code: no database.

Rummy plays two decks, so a code may be visible in one place (a pack, the discard pile) and hidden in
another (a hand): a reason may name a code as long as a spectator can see that code somewhere.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from typing import Any

import pytest

from games.bots import columbo, gomori, ruhd, rummy
from games.engines import get_engine
from games.engines.base import RANKS, SUIT_SYMBOLS, card_name, is_card_code
from games.engines.rummy import JOKER_SUITS, POS_RANK, RANK, SUIT_NAMES

BOTS = {"columbo": columbo.BOTS, "gomori": gomori.BOTS, "ruhd": ruhd.BOTS, "rummy": rummy.BOTS}

# (game, players, options, seeds per bot level, move cap per game); each bot level plays all seats, then
# the levels play each other ("mixed")
PLAN: list[tuple[str, int, dict[str, Any] | None, int, int]] = [
    ("columbo", 3, {"rounds": 2}, 8, 1500),
    ("columbo", 2, {"rounds": 2, "action_trigger": "any_discard"}, 6, 1500),
    ("columbo", 5, {"rounds": 1}, 3, 1500),
    ("gomori", 2, None, 6, 400),
    ("ruhd", 2, None, 4, 200),
    ("ruhd", 4, None, 3, 200),
    ("rummy", 2, None, 6, 1000),
]
MIXED = "mixed"

SUIT_OF_SYMBOL = {symbol: suit for suit, symbol in SUIT_SYMBOLS.items()}
CARD_NAME = re.compile(r"(?<![\w♣♦♥♠-])(10|[2-9AJQK])([♣♦♥♠])|\b(red|black) joker\b")
TILE_NAME = re.compile(r"\bT\d\d\b")
PACK_RANK = r"(?:joker|10|[2-9AJQK])"
PACK_NAME = re.compile(rf"(?<![\w♣♦♥♠]){PACK_RANK}(?:-{PACK_RANK})+(?: of (?:clubs|diamonds|hearts|spades))?")
TILE_ID = re.compile(r"T\d\d")


def _codes(data: Any) -> Iterator[str]:
    """Every card code and tile id in a JSON-like structure (as a value or a key)."""
    if isinstance(data, str):
        if is_card_code(data) or data in ("XR", "XB") or TILE_ID.fullmatch(data):
            yield data
    elif isinstance(data, dict):
        for key, value in data.items():
            yield from _codes(key)
            yield from _codes(value)
    elif isinstance(data, (list, tuple)):
        for value in data:
            yield from _codes(value)


def named_codes(game: str, reason: str) -> list[str]:
    """The codes of the cards (tiles) a reason names, in the game's own notation."""
    if game == "ruhd":
        return TILE_NAME.findall(reason)
    out = []
    for match in CARD_NAME.finditer(reason):
        rank, symbol, joker = match.groups()
        out.append({"red": "XR", "black": "XB"}[joker] if joker else rank + SUIT_OF_SYMBOL[symbol])
    return out


def rummy_pack_name(pack: dict[str, Any]) -> str:
    """A pack of a Rummy view in the bots' rank notation (games.engines.rummy.pack_short)."""
    if pack["kind"] == "set":
        return "-".join("joker" if c in JOKER_SUITS else RANK[c] for c in pack["cards"])
    ranks = "-".join("joker" if c in JOKER_SUITS else POS_RANK[pack["low_place"] + i]
                     for i, c in enumerate(pack["cards"]))
    return f"{ranks} of {SUIT_NAMES[pack['suit']]}"


def check_reason(game: str, engine: Any, before: Any, after: Any, seat: int, reason: str) -> None:
    """The reason names and states only what a spectator sees once the move is applied."""
    assert isinstance(reason, str) and reason and "\n" not in reason
    spectator = engine.view(after, None)
    visible = set(_codes(spectator))
    hidden = set(_codes(engine.dump(after))) - visible
    named = named_codes(game, reason)
    leaked = sorted(set(named) & hidden)
    assert not leaked, f"{game}: seat {seat}'s reason {reason!r} names hidden {leaked}"
    unseen = sorted(set(named) - visible)
    assert not unseen, f"{game}: seat {seat}'s reason {reason!r} names {unseen}, not visible to a spectator"
    # What is left once the visible names are taken out: no other card may be spelt there.
    rest = CARD_NAME.sub("", reason) if game != "ruhd" else TILE_NAME.sub("", reason)
    for rank in RANKS:
        for symbol in SUIT_SYMBOLS.values():
            assert rank + symbol not in rest, (game, reason)
    if game == "columbo":
        # Hand values are hidden: beyond seats, slots ("extra #1") and named cards, a reason states no number.
        rest = re.sub(r"\bseat \d+|\bextra #\d+", "", rest)
        assert not re.search(r"\d", rest), f"columbo: seat {seat}'s reason {reason!r} states a hidden number"
    elif game == "rummy":
        packs = {rummy_pack_name(p) for p in spectator["packs"]}
        for name in PACK_NAME.findall(reason):
            assert name in packs, f"rummy: seat {seat}'s reason {reason!r} spells out {name!r}, not on the table"
        rest = PACK_NAME.sub("", rest)
        laid = re.search(r"\blays down (\d+)", rest)
        if laid:
            new_packs = spectator["packs"][len(engine.view(before, None)["packs"]):]
            assert int(laid.group(1)) == sum(p["value"] for p in new_packs), reason
            rest = rest.replace(laid.group(0), "")
        rest = re.sub(r"\bpack \d+", "", rest)
        assert not re.search(r"\d", rest), f"rummy: seat {seat}'s reason {reason!r} states a hidden number"
    elif game == "gomori":
        # The cards a play gathers are public (the scores count them); cards a later play might gather are not.
        gathered = engine.scores(after)[seat] - engine.scores(before)[seat]
        for claim in re.findall(r"\bgathers (\d+) cards?", reason):
            assert int(claim) == gathered, f"gomori: seat {seat}'s reason {reason!r}, gathered {gathered}"


def play(game: str, players: int, options: dict[str, Any] | None, level: str, seed: int, cap: int) -> list[str]:
    """A whole seeded game of bots of one level (or of all levels by turns), each reason checked; returns the
    reasons."""
    engine = get_engine(game)
    levels = list(BOTS[game])
    bots = [BOTS[game][levels[(seed + s) % len(levels)] if level == MIXED else level] for s in range(players)]
    order = random.Random(f"order:{seed}")
    state = engine.new_game(players, seed=seed, options=options)
    reasons: list[str] = []
    for number in range(cap):
        if engine.is_over(state):
            break
        must = set(engine.must_act(state))
        seats = engine.to_act(state)
        order.shuffle(seats)  # slaps and card actions race the next turn, as with the live service's delays
        for seat in seats:
            legal = engine.legal_actions(state, seat)
            action, reason = bots[seat](engine.view(state, seat), legal, random.Random(f"{seed}:{number}:{seat}"))
            if action is None:
                assert seat not in must, (game, level, reason)
                continue
            assert action in legal, (game, level, action, reason)
            after = engine.apply(state, seat, action)
            check_reason(game, engine, state, after, seat, reason)
            reasons.append(reason)
            state = after
            break
        else:
            raise AssertionError(f"{game}: no seat acted")
    return reasons


CASES = [
    pytest.param(game, players, options, level, seeds, cap, id=f"{game}-{players}p-{level}")
    for game, players, options, seeds, cap in PLAN
    for level in [*BOTS[game], MIXED]
]


@pytest.mark.parametrize(("game", "players", "options", "level", "seeds", "cap"), CASES)
def test_bot_reasons_name_only_what_a_spectator_sees(game: str, players: int, options: dict[str, Any] | None,
                                                     level: str, seeds: int, cap: int) -> None:
    reasons: set[str] = set()
    for seed in range(seeds):
        reasons.update(play(game, players, options, level, 4100 + seed, cap))
    assert len(reasons) > 1


def test_the_check_catches_a_hidden_card() -> None:
    """A Columbo reason naming a card that went face down into a hand is refused."""
    engine = get_engine("columbo")
    state = engine.new_game(2, seed=1)
    for seat in (0, 1):
        state = engine.apply(state, seat, {"type": "peek", "slots": [0, 1]})
    before = engine.apply(state, 0, {"type": "draw", "from": "stock"})
    drawn = engine.dump(before)["drawn"]
    after = engine.apply(before, 0, {"type": "swap", "slot": 2})
    with pytest.raises(AssertionError, match="hidden"):
        check_reason("columbo", engine, before, after, 0, f"swaps the {card_name(drawn)} into its bottom-left slot")
    check_reason("columbo", engine, before, after, 0, "swaps the drawn card into its bottom-left slot")
