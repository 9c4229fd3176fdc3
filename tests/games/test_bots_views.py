"""Every bot level of every game plays from its seat's view alone and answers legal moves.

Short seeded games, the levels mixed: at every decision the hidden part of the state (other hands, stocks and
draw piles, the Ruhd deck) is shuffled into a different state that shows the seat exactly the same view, and the
bot, given that view and the same random generator, must choose the same move. Pure engine and bot code, no
database; a few seconds in all.
"""

from __future__ import annotations

import importlib
import random
from pathlib import Path
from typing import Any

import pytest

from games.engines import SLUGS, get_engine
from games.engines.columbo import PUBLIC

# (game, players, options, seeds, move cap per game)
PLAN: list[tuple[str, int, dict[str, Any] | None, int, int]] = [
    ("gomori", 2, None, 3, 400),
    ("ruhd", 2, None, 3, 100),
    ("ruhd", 3, None, 1, 100),
    ("rummy", 2, None, 3, 400),
    ("columbo", 2, {"rounds": 1}, 2, 600),
    ("columbo", 3, {"rounds": 1, "action_trigger": "any_discard"}, 1, 600),
]


def _scramble(game: str, data: dict[str, Any], seat: int, rng: random.Random) -> dict[str, Any]:
    """The dumped state with everything the seat can't see shuffled among the places it can't see."""
    if game == "gomori":
        other = 1 - seat
        pool = data["hands"][other] + data["piles"][other]
        rng.shuffle(pool)
        n = len(data["hands"][other])
        data["hands"][other], data["piles"][other] = pool[:n], pool[n:]
    elif game == "rummy":
        other = 1 - seat
        pool = data["hands"][other] + data["stock"]
        rng.shuffle(pool)
        n = len(data["hands"][other])
        data["hands"][other], data["stock"] = pool[:n], pool[n:]
    elif game == "ruhd":
        rng.shuffle(data["deck"])
    elif game == "columbo":
        known = data["known"]

        def hidden(card: str) -> bool:
            mask = known.get(card, 0)
            return not (mask & PUBLIC or mask & (1 << seat))

        places: list[tuple[str, int, int]] = [("hand", h, k) for h, hand in enumerate(data["hands"])
                                              for k, card in enumerate(hand) if card is not None and hidden(card)]
        places += [("stock", 0, k) for k in range(len(data["stock"]))]
        if data["drawn"] is not None and hidden(data["drawn"]):
            places.append(("drawn", 0, 0))

        def get(place: tuple[str, int, int]) -> str:
            kind, h, k = place
            return data["hands"][h][k] if kind == "hand" else data["stock"][k] if kind == "stock" else data["drawn"]

        old = [get(place) for place in places]
        new = list(old)
        rng.shuffle(new)
        masks = {card: known[card] for card in old if card in known}
        for card in masks:
            del known[card]
        for place, before, after in zip(places, old, new, strict=True):
            kind, h, k = place
            if kind == "hand":
                data["hands"][h][k] = after
            elif kind == "stock":
                data["stock"][k] = after
            else:
                data["drawn"] = after
            if before in masks:
                known[after] = masks[before]
    return data


def _play(game: str, players: int, options: dict[str, Any] | None, seed: int, cap: int) -> int:
    """A seeded game of mixed levels; every decision checked against a scrambled twin. Returns the decisions."""
    engine = get_engine(game)
    bots = importlib.import_module(f"games.bots.{game}").BOTS
    levels = list(bots)
    seats = [levels[(seed + s) % len(levels)] for s in range(players)]
    state = engine.new_game(players, seed=seed, options=options)
    order = random.Random(f"order:{seed}")
    decisions = 0
    for number in range(cap):
        if engine.is_over(state):
            break
        must = set(engine.must_act(state))
        to_act = engine.to_act(state)
        order.shuffle(to_act)
        for seat in to_act:
            view = engine.view(state, seat)
            legal = engine.legal_actions(state, seat)
            twin = engine.load(_scramble(game, engine.dump(state), seat, random.Random(f"{seed}:{number}")))
            twin_view = engine.view(twin, seat)
            assert twin_view == view, f"{game}: the scramble changed seat {seat}'s view"
            assert engine.legal_actions(twin, seat) == legal
            action, reason = bots[seats[seat]](view, legal, random.Random(f"{seed}:{number}:{seat}"))
            again, _ = bots[seats[seat]](twin_view, legal, random.Random(f"{seed}:{number}:{seat}"))
            decisions += 1
            assert again == action, (game, seats[seat], action, again)
            assert isinstance(reason, str) and reason and "\n" not in reason
            if action is None:
                assert seat not in must, (game, seats[seat], reason)
                continue
            assert action in legal, (game, seats[seat], action, reason)
            state = engine.apply(state, seat, action)
            break
        else:
            raise AssertionError(f"{game}: no seat acted")
    return decisions


@pytest.mark.parametrize(("game", "players", "options", "seeds", "cap"), PLAN)
def test_bots_choose_from_their_view_alone_and_legally(game: str, players: int, options: dict[str, Any] | None,
                                                        seeds: int, cap: int) -> None:
    assert sum(_play(game, players, options, seed, cap) for seed in range(seeds)) > 10


@pytest.mark.parametrize("game", SLUGS)
def test_bots_modules_touch_no_state_and_no_django(game: str) -> None:
    module = importlib.import_module(f"games.bots.{game}")
    source = Path(module.__file__ or "").read_text()
    for forbidden in ("django", "ENGINE", "State", ".load(", "dump("):
        assert forbidden not in source, (game, forbidden)
