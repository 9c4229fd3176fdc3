"""Issue 39, point 1 and 3: bot accounts and their tokens, through real HTTP against daphne. A missing, wrong or
revoked token is 401; a token without the scope 403; the token is shown once and stored hashed; a suspended bot
takes nothing; a burst past the bucket is 429 with Retry-After."""

from __future__ import annotations

import hashlib
import time
from typing import Any

import pytest
from apiclient import Api, make_bot
from django.core.management import call_command
from django.test import Client
from factories import make_user

from accounts.models import ApiToken, User
from games.api import tokens
from games.models import Challenge
from games.moderation import suspend_user
from games.play.snapshot import ServiceError

pytestmark = pytest.mark.django_db(transaction=True)

API_ENV = {"GAMES_API_STREAMS": "3"}


def test_missing_wrong_and_revoked_tokens_are_401(server: Any, owner: Any) -> None:
    bot, key = make_bot(owner, "robot")
    assert Api(server.url, key).get("/api/v1/account").json["username"] == "robot"
    for token, header in ((None, None), ("ccb_nonsense", None), (None, "Basic Zm9vOmJhcg==")):
        api = Api(server.url, token)
        reply = api.request("GET", "/api/v1/account", headers={"Authorization": header} if header else None)
        assert reply.status == 401, reply
        assert reply.headers["content-type"] == "application/json"
        assert reply.json["error"]
        assert "bearer" in reply.headers["www-authenticate"].lower()
    tokens.revoke(ApiToken.objects.get(user=bot).pk, by=owner)
    reply = Api(server.url, key).get("/api/v1/account")
    assert reply.status == 401 and "revoked" in reply.json["error"]


def test_a_token_without_the_scope_is_403(server: Any, owner: Any) -> None:
    make_user("target")
    _, key = make_bot(owner, "player-only", scopes=("play",))
    reply = Api(server.url, key).post("/api/v1/challenge/target", {"game": "gomori"})
    assert reply.status == 403 and "challenge" in reply.json["error"]
    _, key = make_bot(owner, "challenger-only", scopes=("challenge",))
    assert Api(server.url, key).get("/api/v1/matches").status == 403


def test_the_token_is_shown_once_and_stored_hashed(owner: Any) -> None:
    bot = tokens.create_bot(owner, "hashbot")
    row, key = tokens.make_token(bot, name="laptop", scopes=["play"])
    stored = ApiToken.objects.get(pk=row.pk)
    assert stored.key_hash == hashlib.sha256(key.encode()).hexdigest()
    assert key not in {str(value) for value in ApiToken.objects.filter(pk=row.pk).values().first().values()}
    assert key.startswith(stored.prefix) and len(stored.prefix) < len(key) // 3
    assert tokens.authenticate(key) is not None and tokens.authenticate(key + "x") is None


def test_bot_accounts_are_made_by_people_and_only_fresh_accounts_turn_into_bots(owner: Any) -> None:
    bot = tokens.create_bot(owner, "mybot", "My Bot")
    assert bot.program and bot.owner == owner and not bot.has_usable_password() and not bot.is_bot
    with pytest.raises(ServiceError):
        tokens.create_bot(bot, "botbot")  # a bot makes no bots
    with pytest.raises(ServiceError):
        tokens.create_bot(owner, "MYBOT")  # looks like a taken name
    fresh = make_user("fresh")
    assert tokens.turn_into_bot(fresh, owner).program
    from factories import make_match

    veteran = make_user("veteran")
    make_match(creator=veteran, game="gomori", seats=["open"], joiners=[make_user("other")])
    with pytest.raises(ServiceError, match="never played"):
        tokens.turn_into_bot(veteran, owner)


def test_the_command_makes_the_bot_and_prints_a_token(owner: Any, capsys: Any) -> None:
    call_command("bot_token", "owner", "cli-bot", "--scopes", "play")
    key = capsys.readouterr().out.strip()
    bot = User.objects.get(username="cli-bot")
    assert bot.program and bot.owner == owner
    token = tokens.authenticate(key)
    assert token is not None and token.scopes == ["play"]


def test_a_suspended_bot_takes_nothing(server: Any, owner: Any) -> None:
    bot, key = make_bot(owner, "naughty")
    suspend_user(bot)
    reply = Api(server.url, key).get("/api/v1/account")
    assert reply.status == 403 and "suspended" in reply.json["error"]


def test_a_burst_past_the_bucket_is_429_with_retry_after(server: Any, owner: Any) -> None:
    _, key = make_bot(owner, "hasty")
    api = Api(server.url, key)
    statuses = []
    for _ in range(60):  # the module's server allows a burst of 40
        reply = api.get("/api/v1/account")
        statuses.append(reply.status)
        if reply.status == 429:
            assert int(reply.headers["retry-after"]) >= 1
            assert "slow down" in reply.json["error"] and 0 < reply.json["retry_after"] <= 1
            break
    assert statuses[-1] == 429 and statuses.count(200) >= 30, statuses
    # Another token has its own bucket.
    _, other = make_bot(owner, "patient")
    assert Api(server.url, other).get("/api/v1/account").status == 200


def test_bodies_too_long_or_not_json_are_refused_with_json(server: Any, owner: Any) -> None:
    make_user("target")
    _, key = make_bot(owner, "sloppy")
    api = Api(server.url, key)
    reply = api.request("POST", "/api/v1/challenge/target", raw=b"{not json")
    assert reply.status == 400 and "JSON" in reply.json["error"]
    reply = api.request("POST", "/api/v1/challenge/target", raw=b"x" * 100_000)
    assert reply.status == 413 and reply.json["error"]
    reply = api.request("POST", "/api/v1/challenge/target", raw=b"[" * 5000 + b"]" * 5000)
    assert reply.status == 400 and reply.json["error"]
    # curl -d sends a form's content type: the JSON is read all the same.
    reply = api.request("POST", "/api/v1/challenge/target", raw=b'{"game": "gomori", "clock": "none"}',
                        headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert reply.status == 200 and reply.json["challenge"]["to"] == "target"
    assert api.get("/api/v1/challenge/target").status == 405


def test_a_careless_client_gets_json_for_everything(server: Any, owner: Any) -> None:
    _, key = make_bot(owner, "careless")
    api = Api(server.url, key)
    assert "trailing slash" in api.get("/api/v1/account/").json["error"]
    assert "trailing slash" not in api.get("/api/v1/nothing/").json["error"]
    for path in ("/api/v1/account/", "/api/v1/nothing", "/api/v1/matches/abc", "/api/v1/"):
        reply = api.get(path)
        assert reply.status == 404 and reply.headers["content-type"] == "application/json", (path, reply)
    reply = api.post("/api/v1/matches/1/gomori/turn", {"answer": [{"card": "x"}]})
    assert reply.status == 404  # no such match of its own, before anything is read of the answer
    reply = api.request("POST", "/api/v1/account", raw=b"[]")
    assert reply.status == 405 and reply.json["error"]


def test_a_bot_opening_streams_in_a_loop_is_refused_past_the_cap(server: Any, owner: Any) -> None:
    _, key = make_bot(owner, "greedy")
    api = Api(server.url, key)
    streams = [api.stream("/api/v1/stream/events") for _ in range(3)]
    try:
        for stream in streams:
            assert stream.status == 200
            stream.response.readline()  # running: counted
        reply = api.get("/api/v1/stream/events")
        assert reply.status == 429 and "streams" in reply.json["error"] and reply.headers["retry-after"]
        streams.pop().close()
        deadline = time.monotonic() + 10
        while True:  # the closed one is given back once the server notices the close (its next keep-alive)
            again = api.stream("/api/v1/stream/events")
            if again.status == 200:
                again.close()
                break
            again.close()
            assert time.monotonic() < deadline, "a closed stream was never given back"
            time.sleep(0.3)
    finally:
        for stream in streams:
            stream.close()


def test_a_bot_has_a_bounded_number_of_open_challenges(server: Any, owner: Any, settings: Any) -> None:
    _, key = make_bot(owner, "spammer")
    api = Api(server.url, key)
    for i in range(20):  # the server's default cap
        make_user(f"target{i}")
        assert api.post(f"/api/v1/challenge/target{i}", {"game": "gomori"}).status == 200
    make_user("one-more")
    reply = api.post("/api/v1/challenge/one-more", {"game": "gomori"})
    assert reply.status == 429 and "open challenges" in reply.json["error"]
    assert api.post("/api/v1/challenge/target3", {"game": "ruhd"}).status == 200  # replacing one is fine


def test_a_wait_of_a_fraction_of_a_millisecond_is_never_said_as_zero(owner: Any,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The bucket can come back a hair short of a token: the body's wait is rounded up (a bot that paces itself
    by it would otherwise ask again at once, and be refused again)."""
    from django.test import Client

    from games.api import auth

    _, key = make_bot(owner, "hair")
    monkeypatch.setattr(auth.buckets, "take", lambda token_id: 0.0002)
    reply = Client().get("/api/v1/account", HTTP_AUTHORIZATION=f"Bearer {key}")
    assert reply.status_code == 429 and reply["Retry-After"] == "1"
    assert reply.json()["retry_after"] == 0.001


def test_rated_is_true_or_false_never_a_string_taken_for_yes(server: Any, owner: Any) -> None:
    _, key = make_bot(owner, "flags")
    make_user("target")
    api = Api(server.url, key)
    for value in ("no", "0", 0, None, [], "yes please"):
        reply = api.post("/api/v1/challenge/target", {"game": "gomori", "rated": value})
        assert reply.status == 400 and reply.json["error"] == "rated must be true or false.", (value, reply)
    assert not Challenge.objects.exists()
    for value, rated in ((False, False), ("false", False), (True, True), ("True", True)):
        reply = api.post("/api/v1/challenge/target", {"game": "gomori", "rated": value})
        assert reply.status == 200, (value, reply)
        assert Challenge.objects.get(pk=reply.json["challenge"]["id"]).rated is rated
        Challenge.objects.all().delete()  # a bot's open challenges are capped


def test_a_content_length_that_is_no_number_is_a_json_400_behind_any_server(owner: Any) -> None:
    """daphne refuses it before the site; Django's own handler (another ASGI or WSGI server) passes it on."""
    _, key = make_bot(owner, "lengths")
    make_user("target")
    reply = Client().post("/api/v1/challenge/target", data=b'{"game": "gomori"}', content_type="application/json",
                          CONTENT_LENGTH="abc", HTTP_AUTHORIZATION=f"Bearer {key}")
    assert reply.status_code == 400 and reply.json() == {"error": "The Content-Length header is not a number of bytes."}
    assert not Challenge.objects.exists()
