"""Issue 39, points 2 and 3: the streams. A match's stream shows the seat's state after each change and the chat,
the events stream tells challenges and matches, a reader that stops reading is dropped without holding the server,
a revoked token ends a stream, and a bot whose stream closed is away under the same rules as a person."""

from __future__ import annotations

import random
import time
from datetime import timedelta
from typing import Any

import pytest
from apiclient import Api, make_bot, raw_get
from django.utils import timezone
from factories import make_user

from accounts.models import ApiToken
from games.api import tokens
from games.models import Match, Presence
from games.play.create import create_table
from games.play.decide import decide_claim, decide_move
from games.play.presence import presence_of
from games.play.snapshot import ServiceError
from games.play.sync import run_change
from games.results import Termination

pytestmark = pytest.mark.django_db(transaction=True)

BUDGET = 16384
API_ENV = {"GAMES_API_BURST": "1000", "GAMES_API_RATE": "1000", "GAMES_API_STREAM_BYTES": str(BUDGET)}


def bots_match(owner: Any, server: Any) -> tuple[Match, dict[int, Api]]:
    one, key_one = make_bot(owner, "s-one")
    two, key_two = make_bot(owner, "s-two")
    match = create_table(game="gomori", people=[one, two])
    seats = {s.user_id: s.index for s in match.seats.all()}
    return match, {seats[one.pk]: Api(server.url, key_one), seats[two.pk]: Api(server.url, key_two)}


def move_once(match: Match, apis: dict[int, Api], rng: random.Random) -> dict[str, Any] | None:
    for api in apis.values():
        state = api.get(f"/api/v1/matches/{match.pk}").json
        if state["status"] != "active":
            return None
        if state["your_turn"]:
            reply = api.post(f"/api/v1/matches/{match.pk}/move",
                             {"action": rng.choice(state["legal"]), "version": state["version"]})
            assert reply.status == 200, reply
            return dict(reply.json)
    raise AssertionError("nobody to move")


def test_the_match_stream_shows_every_change_and_the_chat_then_ends(server: Any, owner: Any) -> None:
    match, apis = bots_match(owner, server)
    stream = apis[0].stream(f"/api/v1/matches/{match.pk}/stream")
    try:
        assert stream.status == 200 and stream.response.getheader("Content-Type") == "application/x-ndjson"
        first = stream.next()
        assert first is not None and first["type"] == "state" and first["seat"] == 0
        rng = random.Random(1)
        for _ in range(3):
            after = move_once(match, apis, rng)
            assert after is not None
            shown = stream.until(lambda item: item["type"] == "state")
            assert shown["version"] == after["version"] and shown["view"]["seat"] == 0
        apis[1].post(f"/api/v1/matches/{match.pk}/chat", {"text": "nice move"})
        said = stream.until(lambda item: item["type"] == "chat")
        assert said["text"] == "nice move"
        apis[1].post(f"/api/v1/matches/{match.pk}/resign")
        last = stream.until(lambda item: item["type"] == "state" and item["status"] != "active")
        assert last["status"] == "finished" and last["result"]
        deadline = time.monotonic() + 10
        while stream.next() is not None:  # ends once the match's statistics are written
            assert time.monotonic() < deadline
    finally:
        stream.close()


def test_the_events_stream_tells_challenges_and_matches(server: Any, owner: Any) -> None:
    bot, key = make_bot(owner, "eventful")
    person = make_user("challenger")
    api = Api(server.url, key)
    events = api.stream("/api/v1/stream/events")
    try:
        from games.challenges import services

        made = services.challenge(person, bot, game="gomori", clock="none")
        told = events.until(lambda item: item["type"] == "challenge")
        assert told["challenge"]["id"] == made.pk and told["challenge"]["from"] == "challenger"
        reply = api.post(f"/api/v1/challenges/{made.pk}/accept")
        assert reply.status == 200, reply
        match_id = reply.json["match"]
        answered = events.until(lambda item: item["type"] == "challengeAnswered")
        assert answered["challenge"]["status"] == "accepted" and answered["challenge"]["match"] == match_id
        started = events.until(lambda item: item["type"] == "matchStart")
        assert started["match"]["id"] == match_id
        from games.play.decide import decide_abort

        run_change(match_id, decide_abort, user_id=person.pk)
        finished = events.until(lambda item: item["type"] == "matchFinish")
        assert finished["match"]["id"] == match_id and finished["match"]["status"] == "aborted"
        # Declined, from the bot's side.
        again = services.challenge(person, bot, game="ruhd", clock="none")
        events.until(lambda item: item["type"] == "challenge" and item["challenge"]["id"] == again.pk)
        assert api.post(f"/api/v1/challenges/{again.pk}/decline").status == 200
        told = events.until(lambda item: item["type"] == "challengeAnswered")
        assert told["challenge"]["status"] == "declined"
        # And a bot challenges a person (challenges go both ways).
        reply = api.post("/api/v1/challenge/challenger", {"game": "gomori", "clock": "none"})
        assert reply.status == 200 and reply.json["challenge"]["to"] == "challenger"
    finally:
        events.close()


def test_a_revoked_token_ends_its_streams(server: Any, owner: Any) -> None:
    match, apis = bots_match(owner, server)
    stream = apis[0].stream(f"/api/v1/matches/{match.pk}/stream")
    try:
        stream.next()
        bot_id = match.seats.get(index=0).user_id
        tokens.revoke(ApiToken.objects.get(user_id=bot_id).pk)
        ended = stream.until(lambda item: item["type"] == "end")
        assert "revoked" in ended["reason"]
        assert stream.next() is None
    finally:
        stream.close()


def test_a_stream_that_stops_reading_is_dropped(server: Any, owner: Any) -> None:
    match, apis = bots_match(owner, server)
    bot_id = match.seats.get(index=0).user_id
    key = tokens.make_token(match.seats.get(index=0).user, name="lazy")[1]
    sock = raw_get(server.url, f"/api/v1/matches/{match.pk}/stream", key)
    try:
        deadline = time.monotonic() + 10
        while not Presence.objects.filter(match=match, seat=0).exists():
            assert time.monotonic() < deadline, "the stream never opened"
            time.sleep(0.05)
        # The bots play on: a state line per change for the stream, far more than the budget, unread.
        rng, sent, produced = random.Random(2), 0, 0
        while Presence.objects.filter(match=match, seat=0).exists():
            assert sent < 60, "the unread stream was never dropped"
            after = move_once(match, apis, rng)
            if after is None:
                pytest.fail("the match ended first")
            # What the stream has to say of this change: the seat's state, as its own GET gives it.
            produced += len(apis[0].get(f"/api/v1/matches/{match.pk}").body)
            sent += 1
        # Dropped: its presence released while this client still holds the connection; reading finds it cut short.
        sock.settimeout(5)
        received = 0
        try:
            while chunk := sock.recv(65536):
                received += len(chunk)
        except (ConnectionResetError, TimeoutError):
            pass
        assert produced > BUDGET and received < produced, (received, produced)
        assert bot_id  # the bot itself may go on: a new stream works
        fresh = apis[0].stream(f"/api/v1/matches/{match.pk}/stream")
        assert fresh.next() is not None
        fresh.close()
    finally:
        sock.close()


def test_a_bot_whose_stream_closed_is_away_like_a_person(server: Any, owner: Any, settings: Any) -> None:
    settings.GAMES_ABANDON_SECONDS = 1
    bot, key = make_bot(owner, "flaky")
    person = make_user("steady")
    match = create_table(game="gomori", people=[bot, person])
    bot_seat = match.seats.get(user=bot).index
    api = Api(server.url, key)
    # No stream yet: seated just now, the seat has the opening's grace a person's has (games.play.presence).
    assert presence_of(match.pk)[bot_seat].is_opening(timezone.now())
    stream = api.stream(f"/api/v1/matches/{match.pk}/stream")
    stream.next()
    assert presence_of(match.pk)[bot_seat].present  # the open stream is the seat's presence
    # Both move once, and it is the bot's turn again.
    rng = random.Random(5)
    for _ in range(40):
        state = api.get(f"/api/v1/matches/{match.pk}").json
        if state["your_turn"] and state["moves"] >= 2:
            break
        if state["your_turn"]:
            api.post(f"/api/v1/matches/{match.pk}/move", {"action": rng.choice(state["legal"]),
                                                          "version": state["version"]})
        else:
            from games.engines import get_engine

            engine = get_engine("gomori")
            fresh = Match.objects.get(pk=match.pk)
            live = engine.load(fresh.state)
            run_change(match.pk, decide_move, seat=1 - bot_seat, user_id=person.pk,
                       action=rng.choice(engine.legal_actions(live, 1 - bot_seat)))
    with pytest.raises(ServiceError, match=r"may still come back|can claim in"):
        run_change(match.pk, decide_claim, user_id=person.pk, absent_seat=bot_seat, presence=presence_of(match.pk))
    stream.close()
    deadline = time.monotonic() + 10
    while presence_of(match.pk)[bot_seat].present:
        assert time.monotonic() < deadline, "the closed stream still counts as present"
        time.sleep(0.05)
    time.sleep(1.2)
    after = run_change(match.pk, decide_claim, user_id=person.pk, absent_seat=bot_seat,
                       presence=presence_of(match.pk))
    assert after.status == "finished" and after.result["reason"] == Termination.ABANDON
    assert timezone.now() - after.finished_at < timedelta(seconds=30)


def test_two_programs_challenge_each_other_through_the_api_and_play(server: Any, owner: Any) -> None:
    """Bots challenge each other (lichess's rule for bots: among themselves, or by people): one challenges, the
    other hears it on its events stream and accepts, both hear the match start, and it plays over the API."""
    _, key_one = make_bot(owner, "first-program")
    _, key_two = make_bot(owner, "second-program")
    one, two = Api(server.url, key_one), Api(server.url, key_two)
    events = two.stream("/api/v1/stream/events")
    try:
        reply = one.post("/api/v1/challenge/second-program", {"game": "gomori", "clock": "none", "rated": False})
        assert reply.status == 200 and reply.json["challenge"]["to"] == "second-program", reply
        made = reply.json["challenge"]["id"]
        told = events.until(lambda item: item["type"] == "challenge")
        assert told["challenge"]["id"] == made and told["challenge"]["from"] == "first-program"
        accepted = two.post(f"/api/v1/challenges/{made}/accept")
        assert accepted.status == 200, accepted
        match_id = accepted.json["match"]
        assert events.until(lambda item: item["type"] == "matchStart")["match"]["id"] == match_id
        states = {api: api.get(f"/api/v1/matches/{match_id}").json for api in (one, two)}
        assert sorted(state["seat"] for state in states.values()) == [0, 1]
        mover = next(api for api, state in states.items() if state["your_turn"])
        state = states[mover]
        moved = mover.post(f"/api/v1/matches/{match_id}/move",
                           {"action": state["legal"][0], "version": state["version"]})
        assert moved.status == 200, moved
        assert Match.objects.get(pk=match_id).move_count >= 1
    finally:
        events.close()
