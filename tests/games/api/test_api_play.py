"""Issue 39, points 2 and 3: a match through the API as the bot's seat sees it, its moves through the same decider
and version fence as a browser's (an illegal move 400 naming why, a stale one 409), resign, abort, chat, and
another's match 404. Real HTTP against daphne."""

from __future__ import annotations

import random
import re
import time
from typing import Any

import pytest
from apiclient import Api, make_bot
from django.test import Client
from factories import make_user

from games.engines import get_engine
from games.models import ChatMessage, Match, Move
from games.play.create import create_table

pytestmark = pytest.mark.django_db(transaction=True)

API_ENV = {"GAMES_API_BURST": "1000", "GAMES_API_RATE": "1000"}  # whole matches here; the bucket is test_api_tokens'


def two_bots(owner: Any, server: Any, game: str = "gomori", **kw: Any) -> tuple[Match, dict[int, Api]]:
    one, key_one = make_bot(owner, f"{game}-one")
    two, key_two = make_bot(owner, f"{game}-two")
    match = create_table(game=game, people=[one, two], **kw)
    seats = {s.user_id: s.index for s in match.seats.all()}
    return match, {seats[one.pk]: Api(server.url, key_one), seats[two.pk]: Api(server.url, key_two)}


def test_the_state_is_the_seats_own_view(server: Any, owner: Any) -> None:
    match, apis = two_bots(owner, server)
    engine = get_engine("gomori")
    for seat, api in apis.items():
        state = api.get(f"/api/v1/matches/{match.pk}").json
        stored = engine.load(Match.objects.get(pk=match.pk).state)
        assert state["seat"] == seat and state["status"] == "active" and state["version"] == match.version
        assert state["view"] == engine.view(stored, seat)
        assert state["legal"] == (engine.legal_actions(stored, seat) if seat in engine.to_act(stored) else [])
        assert all(p["bot"] for p in state["players"])


def test_another_match_is_404_like_one_that_does_not_exist(server: Any, owner: Any) -> None:
    match = create_table(game="gomori", people=[make_user("ann"), make_user("ben")])
    _, key = make_bot(owner, "outsider")
    api = Api(server.url, key)
    for path in (f"/api/v1/matches/{match.pk}", f"/api/v1/matches/{match.pk}/stream", "/api/v1/matches/999999"):
        reply = api.get(path)
        assert reply.status == 404 and reply.json["error"] == "No such match of yours.", (path, reply)
    reply = api.post(f"/api/v1/matches/{match.pk}/move", {"action": {"type": "play"}})
    assert reply.status == 404
    assert not Move.objects.filter(match=match).exists()


def test_moves_illegal_and_stale_are_json_errors_naming_why(server: Any, owner: Any) -> None:
    match, apis = two_bots(owner, server)
    mover = next(seat for seat, api in apis.items() if api.get(f"/api/v1/matches/{match.pk}").json["your_turn"])
    api, other = apis[mover], apis[1 - mover]
    state = api.get(f"/api/v1/matches/{match.pk}").json
    # Not its turn.
    reply = other.post(f"/api/v1/matches/{match.pk}/move", {"action": state["legal"][0], "version": state["version"]})
    assert reply.status == 400 and reply.json["error"]
    # A card it does not hold.
    held = set(state["view"]["hand"])
    foreign = next(c for c in ("2C", "3D", "4H", "5S", "6C", "7D", "8H") if c not in held)
    reply = api.post(f"/api/v1/matches/{match.pk}/move",
                     {"action": {"type": "play", "card": foreign, "at": [0, 0]}, "version": state["version"]})
    assert reply.status == 400 and reply.json["error"], reply
    for junk in ({"action": "e2e4"}, {"action": {"nonsense": True}}, [1, 2], {"action": state["legal"][0],
                                                                                 "version": "7"}):
        reply = api.post(f"/api/v1/matches/{match.pk}/move", junk)
        assert reply.status == 400 and reply.json["error"], (junk, reply)
    # Stale: a version the match has left.
    reply = api.post(f"/api/v1/matches/{match.pk}/move", {"action": state["legal"][0], "version": state["version"] - 1})
    assert reply.status == 409 and "Stale" in reply.json["error"], reply
    assert not Move.objects.filter(match=match).exists()
    # The right one goes through, as a browser's move.
    reply = api.post(f"/api/v1/matches/{match.pk}/move", {"action": state["legal"][0], "version": state["version"]})
    assert reply.status == 200 and reply.json["version"] == state["version"] + 1
    assert Move.objects.filter(match=match).count() == 1


def play_out(match_id: int, apis: dict[int, Api], rng: random.Random, limit: int = 400) -> dict[str, Any]:
    """Both bots play legal moves through the API until the match ends; the last state."""
    for _ in range(limit):
        states = {seat: api.get(f"/api/v1/matches/{match_id}").json for seat, api in apis.items()}
        if any(s["status"] != "active" for s in states.values()):
            return next(iter(states.values()))
        for seat, state in states.items():
            if state["your_turn"]:
                reply = apis[seat].post(f"/api/v1/matches/{match_id}/move",
                                        {"action": rng.choice(state["legal"]), "version": state["version"]})
                assert reply.status in (200, 409), reply
                break
    raise AssertionError("the match did not end")


def test_a_whole_match_played_through_the_api_is_rated(server: Any, owner: Any) -> None:
    match, apis = two_bots(owner, server)
    final = play_out(match.pk, apis, random.Random(3))
    assert final["status"] == "finished"
    from games.models import PlayerStats

    for _ in range(50):
        if PlayerStats.objects.filter(game="gomori").count() == 2:
            break
        time.sleep(0.1)
    assert PlayerStats.objects.filter(game="gomori", user__program=True).count() == 2
    # Each bot's profile shows its record, as a person's does: the one match, won, lost or drawn.
    for stats in PlayerStats.objects.filter(game="gomori").select_related("user"):
        page = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", Client().get(f"/u/{stats.user.username}/").content.decode()))
        record = re.search(r"Won · lost · drawn (\d+) · (\d+) · (\d+)", page)
        assert record is not None and sum(map(int, record.groups())) == 1, page[:400]
        assert (int(record[1]), int(record[2]), int(record[3])) == (stats.won, stats.lost, stats.drawn)


def test_resign_abort_and_chat(server: Any, owner: Any) -> None:
    match, apis = two_bots(owner, server)
    reply = apis[0].post(f"/api/v1/matches/{match.pk}/resign")
    assert reply.status == 400 and "abort" in reply.json["error"]
    reply = apis[1].post(f"/api/v1/matches/{match.pk}/chat", {"text": "good luck"})
    assert reply.status == 200
    assert ChatMessage.objects.get(match=match).text == "good luck"
    assert apis[1].post(f"/api/v1/matches/{match.pk}/chat", {"text": ""}).status == 400
    reply = apis[0].post(f"/api/v1/matches/{match.pk}/abort")
    assert reply.status == 200 and reply.json["status"] == "aborted"


def test_moves_of_many_matches_at_once_all_land(server: Any, owner: Any) -> None:
    """Moves of ten matches at once on one daphne: they share the live core's batches (the hub's writer), which
    must not depend on the request that started a batch being still open (each was a 500 once)."""
    import threading

    games = []
    for i in range(10):
        one, key_one = make_bot(owner, f"many-{i}-a")
        two, key_two = make_bot(owner, f"many-{i}-b")
        match = create_table(game="gomori", people=[one, two])
        seats = {s.user_id: s.index for s in match.seats.all()}
        games.append((match.pk, {seats[one.pk]: Api(server.url, key_one), seats[two.pk]: Api(server.url, key_two)}))
    statuses: list[int] = []

    def play_some(match_id: int, apis: dict[int, Api]) -> None:
        rng = random.Random(match_id)
        for _ in range(12):
            for api in apis.values():
                state = api.get(f"/api/v1/matches/{match_id}").json
                if state["status"] == "active" and state["your_turn"]:
                    reply = api.post(f"/api/v1/matches/{match_id}/move",
                                     {"action": rng.choice(state["legal"]), "version": state["version"]})
                    statuses.append(reply.status)

    threads = [threading.Thread(target=play_some, args=game) for game in games]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert statuses and set(statuses) <= {200}, sorted(set(statuses))
    assert sum(Move.objects.filter(match_id=match_id).count() for match_id, _ in games) == len(statuses)


def test_the_state_carries_the_clocks_as_they_run(server: Any, owner: Any) -> None:
    match, apis = two_bots(owner, server, clock={"kind": "fischer", "base": 300.0, "increment": 3})
    mover = next(seat for seat, api in apis.items() if api.get(f"/api/v1/matches/{match.pk}").json["your_turn"])
    time.sleep(0.3)
    state = apis[mover].get(f"/api/v1/matches/{match.pk}").json
    clock = state["clock"]
    assert clock["kind"] == "fischer" and clock["base"] == 300.0 and clock["increment"] == 3
    assert clock["left"][1 - mover] == 300.0  # the other's time does not run
    assert 250.0 < clock["left"][mover] < 300.0  # the mover's does: the state says it as of now
    reply = apis[mover].post(f"/api/v1/matches/{match.pk}/move",
                             {"action": state["legal"][0], "version": state["version"]})
    assert reply.status == 200, reply
    after = apis[1 - mover].get(f"/api/v1/matches/{match.pk}").json["clock"]["left"]
    assert after[mover] > clock["left"][mover]  # the increment came with the move
    untimed, bots = two_bots(owner, server, game="rummy")
    assert next(iter(bots.values())).get(f"/api/v1/matches/{untimed.pk}").json["clock"] is None
