"""What a seat may not know, per game: scramble(game, dump, viewer, rng) shuffles it within a dumped state.

The result shows `viewer` (a seat, or None for a spectator) exactly what the original shows it, if the
engine's views hide what they must: the engine contract battery (tests/engines/test_contract.py) checks
that they do, and the bot tests (tests/games/bots/test_bots_views.py) that a bot given the same view chooses the
same move. One place for both, so the two agree on what "hidden" means for each game. Importable as
`hidden` from every test folder (pytest puts tests/ on sys.path for tests/conftest.py).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

Scrambler = Callable[[dict[str, Any], int | None, random.Random], None]


def _deal_again(piles: list[list[Any]], rng: random.Random) -> None:
    """Shuffle the cards of several piles together and deal them back, each pile keeping its size."""
    pool = [card for pile in piles for card in pile]
    rng.shuffle(pool)
    for pile in piles:
        pile[:], pool = pool[:len(pile)], pool[len(pile):]


def _gomori(data: dict[str, Any], viewer: int | None, rng: random.Random) -> None:
    # Each seat draws from its own pile of its own colour: nobody sees a pile's order, nor another's hand.
    for seat, (hand, pile) in enumerate(zip(data["hands"], data["piles"], strict=True)):
        _deal_again([pile] if seat == viewer else [hand, pile], rng)


def _rummy(data: dict[str, Any], viewer: int | None, rng: random.Random) -> None:
    # Other hands show as counts. A card another seat took from the discard pile is known to all, but views
    # tell it from the log, which stays as it was, so every card of those hands may change places.
    _deal_again([hand for seat, hand in enumerate(data["hands"]) if seat != viewer] + [data["stock"]], rng)


def _ruhd(data: dict[str, Any], viewer: int | None, rng: random.Random) -> None:
    # The hand and the board are public; the deck and the set-aside tiles are known to nobody.
    _deal_again([data["deck"], data["set_aside"]], rng)


def _columbo(data: dict[str, Any], viewer: int | None, rng: random.Random) -> None:
    # `known` has, for each card in a hand (or just drawn), the seats that have seen its face: a bit each, and
    # PUBLIC for everyone. Only cards without the viewer's bit are hidden from it, its own unseen cards too;
    # each card's mask goes to the card that takes its place, so what every seat knows stays where it was.
    from games.engines.columbo import PUBLIC

    known = data["known"]
    mine = PUBLIC | (0 if viewer is None else 1 << viewer)

    def hidden(card: str) -> bool:
        return not known.get(card, 0) & mine

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
    masks = {card: known.pop(card) for card in old if card in known}
    for (kind, h, k), before, after in zip(places, old, new, strict=True):
        if kind == "hand":
            data["hands"][h][k] = after
        elif kind == "stock":
            data["stock"][k] = after
        else:
            data["drawn"] = after
        if before in masks:
            known[after] = masks[before]


SCRAMBLERS: dict[str, Scrambler] = {"gomori": _gomori, "columbo": _columbo, "ruhd": _ruhd, "rummy": _rummy}


def scramble(game: str, data: dict[str, Any], viewer: int | None, rng: random.Random) -> dict[str, Any]:
    """Shuffle, in the dump `data` of a game not over, what `viewer` may not know; returns `data`."""
    SCRAMBLERS[game](data, viewer, rng)
    return data
