"""Issue 39, point 5: fair by construction, checked. Whole matches of Rummy, Columbo (two and three seats) and
Ruhd (two and three) played through the API by program bots; every response and every stream line the scanned
seat receives is read by the leak scanner (tests/games/leaks.py) against the engine's state at that moment: no
hidden card (tile) of another seat, the stock or the deck may be named in it unless the seat's own view names it.

A canary proves the scanner reads these answers: the full state dumped into a line is caught."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from apiclient import Api, make_bot
from leaks import Knowledge, exact_codes, named_in_view

from games.engines import get_engine
from games.models import Match
from games.play.create import create_table

pytestmark = pytest.mark.django_db(transaction=True)

API_ENV = {"GAMES_API_BURST": "100000", "GAMES_API_RATE": "100000"}
MOVE_CAP = {"columbo": 60, "ruhd": 80, "rummy": 50}
CASES = [("rummy", 2), ("columbo", 2), ("columbo", 3), ("ruhd", 2), ("ruhd", 3)]


def leaks_in(game: str, text: bytes | str, state: Any, seat: int) -> list[str]:
    """What this answer (JSON) names of the hidden part of `state` that the seat's own view does not."""
    engine = get_engine(game)
    view = engine.view(state, seat)
    know = Knowledge(game, state, view, seat)
    data = json.loads(text)
    named = named_in_view(game, data)
    allowed = know.named_rest | know.named_log | exact_codes(game, view)
    allowed |= named_in_view(game, engine.legal_actions(state, seat)) if not engine.is_over(state) else set()
    return [f"{code} (hidden from seat {seat}) is named: {str(text)[:200]}"
            for code, copies in sorted(know.hidden.items())
            if copies and not know.places[code] and code in named and code not in allowed]


def test_the_scanner_catches_a_leak_in_an_api_answer() -> None:
    engine = get_engine("rummy")
    state = engine.new_game(2, seed=7)
    assert leaks_in("rummy", json.dumps({"view": engine.view(state, 0)}), state, 0) == []
    assert leaks_in("rummy", json.dumps({"view": engine.view(state, 0), "x": engine.dump(state)}), state, 0)


def now_state(match_id: int, game: str) -> Any:
    return get_engine(game).load(Match.objects.get(pk=match_id).state)


@pytest.mark.parametrize(("game", "players"), CASES)
def test_every_api_answer_of_a_match_hides_the_other_seats_cards(server: Any, owner: Any, game: str,
                                                                  players: int) -> None:
    bots = [make_bot(owner, f"leak-{game}-{players}-{i}") for i in range(players)]
    match = create_table(game=game, people=[bot for bot, _ in bots])
    seat_of = {s.user_id: s.index for s in match.seats.all()}
    apis = {seat_of[bot.pk]: Api(server.url, key) for bot, key in bots}
    scanned = 0  # the seat whose every answer is read
    stream = apis[scanned].stream(f"/api/v1/matches/{match.pk}/stream")
    rng, problems, answers = random.Random(f"{game}{players}"), [], 0

    def scan(text: bytes) -> None:
        nonlocal answers
        answers += 1
        problems.extend(leaks_in(game, text, now_state(match.pk, game), scanned))

    try:
        first = stream.next()
        assert first is not None
        scan(stream.lines[-1])
        for _ in range(MOVE_CAP[game]):
            reply = apis[scanned].get(f"/api/v1/matches/{match.pk}")
            scan(reply.body)
            if reply.json["status"] != "active":
                break
            to_act = reply.json["to_act"]
            mover = rng.choice(to_act)
            state = apis[mover].get(f"/api/v1/matches/{match.pk}").json
            moved = apis[mover].post(f"/api/v1/matches/{match.pk}/move",
                                     {"action": rng.choice(state["legal"]), "version": state["version"]})
            assert moved.status == 200, moved
            if mover == scanned:
                scan(moved.body)
            # The scanned seat's stream line of this change, read at this very state.
            version = moved.json["version"]
            while True:
                item = stream.next()
                assert item is not None
                if item.get("type") == "state":
                    scan(stream.lines[-1])
                    if item["version"] >= version:
                        break
        assert problems == [], problems[:5]
        assert answers > 20
    finally:
        stream.close()
