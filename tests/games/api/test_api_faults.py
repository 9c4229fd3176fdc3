"""Programs ride through a server's crash (README, Durability): a match's stream cut by a kill -9 is resumed by
reconnecting, to another process or to the server started again, with the state then current; and the Computer
Gomori bridge does so by itself, finishing its match with every move its program's own."""

from __future__ import annotations

import os
import random
import time
from pathlib import Path
from typing import Any

import pytest
from apiclient import Api, make_bot, start_bridge
from django.db import connection
from factories import make_user
from servers import Daphne, server_env

from games.challenges import services
from games.engines import get_engine
from games.models import Challenge, Match
from games.play.create import create_table
from games.play.decide import decide_move
from games.play.sync import run_change

pytestmark = pytest.mark.django_db(transaction=True)

GOMORI = get_engine("gomori")

redis_only = pytest.mark.skipif(not os.environ.get("REDIS_URL") or connection.vendor != "postgresql",
                                reason="two processes need PostgreSQL + Redis: the scale-out CI pass runs it")


def api_env(**extra: str) -> dict[str, str]:
    return server_env(**{"GAMES_API_KEEPALIVE": "0.5", **extra})


def move_as(api: Api, match_id: int, rng: random.Random) -> dict[str, Any]:
    state = api.get(f"/api/v1/matches/{match_id}").json
    assert state["your_turn"], state
    reply = api.post(f"/api/v1/matches/{match_id}/move", {"action": rng.choice(state["legal"]),
                                                        "version": state["version"]})
    assert reply.status == 200, reply
    return dict(reply.json)


@pytest.mark.redis
@redis_only
def test_a_match_stream_cut_by_a_kill_is_resumed_on_the_other_process_with_the_state_then_current(
    tmp_path: Path, settings: Any,
) -> None:
    owner = make_user("owner")
    one, key_one = make_bot(owner, "f-one")
    two, key_two = make_bot(owner, "f-two")
    match = create_table(game="gomori", people=[one, two])
    seat_of = {s.user_id: s.index for s in match.seats.all()}
    env = api_env(CHANNELS_REDIS_PREFIX=settings.CHANNEL_LAYERS["default"]["CONFIG"]["prefix"],
                  GAMES_API_BURST="1000", GAMES_API_RATE="1000")
    a = Daphne(env, tmp_path / "a.log")
    b = Daphne(env, tmp_path / "b.log")
    try:
        apis = {seat_of[one.pk]: {"a": Api(a.url, key_one), "b": Api(b.url, key_one)},
                seat_of[two.pk]: {"a": Api(a.url, key_two), "b": Api(b.url, key_two)}}
        rng = random.Random(2)
        stream = apis[0]["a"].stream(f"/api/v1/matches/{match.pk}/stream")
        assert stream.until(lambda item: item["type"] == "state")["seat"] == 0
        a.kill()
        assert stream.next() is None  # cut: the process died under it
        stream.close()
        # Moves are made on B meanwhile; the program opens its stream there and is given the position as it is now.
        for _ in range(3):
            state = Match.objects.get(pk=match.pk)
            (seat,) = GOMORI.to_act(GOMORI.load(state.state))
            made = move_as(apis[seat]["b"], match.pk, rng)
        resumed = apis[0]["b"].stream(f"/api/v1/matches/{match.pk}/stream")
        first = resumed.until(lambda item: item["type"] == "state")
        assert first["version"] == made["version"] == Match.objects.get(pk=match.pk).version
        # ... and every change from then on.
        (seat,) = GOMORI.to_act(GOMORI.load(Match.objects.get(pk=match.pk).state))
        after = move_as(apis[seat]["b"], match.pk, rng)
        assert resumed.until(lambda item: item["type"] == "state")["version"] == after["version"]
        resumed.close()
    finally:
        a.stop()
        b.stop()


def test_the_bridge_rides_through_its_server_s_kill_and_restart_and_finishes_its_match(tmp_path: Path) -> None:
    owner = make_user("owner")
    bot, key = make_bot(owner, "crashbot")
    person = make_user("perry")
    env = api_env()
    server = Daphne(env, tmp_path / "daphne.log")
    log = tmp_path / "bridge.log"
    bridge = start_bridge(server.url, key, tmp_path, log)
    try:
        time.sleep(1.0)  # the bridge's events stream opens
        challenge = services.challenge(person, bot, game="gomori", clock="none")
        deadline = time.monotonic() + 30
        while (row := Challenge.objects.get(pk=challenge.pk)).status == "open":
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.1)
        assert row.status == "accepted", log.read_text()
        match_id = row.match_id
        person_seat = Match.objects.get(pk=match_id).seats.get(user=person).index
        rng, killed = random.Random(9), False
        deadline = time.monotonic() + 150
        while (match := Match.objects.get(pk=match_id)).status == "active":
            assert time.monotonic() < deadline, log.read_text()
            state = GOMORI.load(match.state)
            if not killed and match.move_count >= 4:
                server.kill()  # in the middle of the match: every stream and request of the bridge cut
                killed = True
                time.sleep(2.0)
                server = Daphne(env, tmp_path / "daphne-restarted.log", port=server.port)  # the same address
            if person_seat in GOMORI.to_act(state):
                time.sleep(0.2)
                run_change(match_id, decide_move, seat=person_seat, user_id=person.pk,
                           action=rng.choice(GOMORI.legal_actions(state, person_seat)), expected_version=match.version)
            else:
                time.sleep(0.05)
        assert killed and match.status == "finished", log.read_text()
        bridge_log = log.read_text()
        assert "playing a random legal action" not in bridge_log  # every bot move after the restart its program's
        assert "stopped" not in bridge_log, bridge_log
        assert match.moves.filter(seat=1 - person_seat, number__gt=4).exists()
    finally:
        bridge.terminate()
        bridge.wait(timeout=10)
        server.stop()
