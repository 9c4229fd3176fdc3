"""Issue 39, point 4 without a browser: the Computer Gomori bridge as a real process (python3, standard library
only, run from a copy outside the repository) with the tests' protocol bot behind it accepts a person's challenge
and plays the whole rated match through daphne, opening its match's stream again each time the server ends it.
The browser's version is tests/e2e/test_bridge_e2e.py."""

from __future__ import annotations

import random
import time
from pathlib import Path
from typing import Any

import pytest
from apiclient import make_bot, start_bridge
from factories import make_user

from games.challenges import services
from games.engines import get_engine
from games.models import Challenge, Match, PlayerStats
from games.play.decide import decide_move
from games.play.sync import run_change

pytestmark = pytest.mark.django_db(transaction=True)

# Every stream ends after a second here: the bridge must open its match's stream again to finish the match.
API_ENV = {"GAMES_API_STREAM_SECONDS": "1"}

def test_the_bridge_plays_a_whole_rated_match_for_a_protocol_bot(server: Any, owner: Any, tmp_path: Path) -> None:
    bot, key = make_bot(owner, "judgebot")
    person = make_user("judy")
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
        started = time.monotonic()
        engine, rng = get_engine("gomori"), random.Random(9)
        person_seat = Match.objects.get(pk=match_id).seats.get(user=person).index
        deadline = time.monotonic() + 120
        while (match := Match.objects.get(pk=match_id)).status == "active":
            assert time.monotonic() < deadline, log.read_text()
            state = engine.load(match.state)
            if person_seat in engine.to_act(state):
                time.sleep(0.4)  # a person's pace: the match lasts longer than a stream
                run_change(match_id, decide_move, seat=person_seat, user_id=person.pk,
                           action=rng.choice(engine.legal_actions(state, person_seat)), expected_version=match.version)
            else:
                time.sleep(0.05)
        assert match.status == "finished", log.read_text()
        bot_seat = 1 - person_seat
        assert match.moves.filter(seat=bot_seat).exists()
        assert "playing a random legal action" not in log.read_text()  # every bot move was the program's own
        # The match outlived its streams: the bridge opened them again.
        lasted = time.monotonic() - started
        opened = server.log.read_text().count(f"GET /api/v1/matches/{match_id}/stream")
        assert lasted < 2.5 or opened >= 2, (lasted, log.read_text())
        assert lasted > 2.5, "a match too short to show the reconnection: play it slower"
        deadline = time.monotonic() + 10
        while PlayerStats.objects.filter(game="gomori", rated_matches=1).count() < 2:
            assert time.monotonic() < deadline
            time.sleep(0.1)
    finally:
        bridge.terminate()
        bridge.wait(timeout=10)
