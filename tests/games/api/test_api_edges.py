"""The Bot API's edges, through real HTTP against daphne: an unknown address is a JSON 404 whatever the method (not
a browser's CSRF refusal), the events stream's headers come at once, and a challenge made and withdrawn between
two looks of the events stream is still told."""

from __future__ import annotations

import socket
import time
from typing import Any
from urllib.parse import urlsplit

import pytest
from apiclient import Api, make_bot
from django.db import transaction
from factories import make_user

from games.challenges import services

pytestmark = pytest.mark.django_db(transaction=True)

# Keep-alives far apart: the stream's headers must not wait for the first of them.
API_ENV = {"GAMES_API_KEEPALIVE": "5"}


def test_an_unknown_address_is_a_json_404_with_every_method(server: Any, owner: Any) -> None:
    _, key = make_bot(owner, "lost")
    for token in (key, None):  # with a token or none: the address is wrong either way
        api = Api(server.url, token)
        for method in ("GET", "POST", "PUT", "PATCH", "DELETE"):
            for path in ("/api/v1/nothing", "/api/v1/matches/1/nothing", "/api/v1", "/api/v2/account"):
                reply = api.request(method, path, body={} if method != "GET" else None)
                assert reply.status == 404 and reply.headers["content-type"] == "application/json", (method, path)
                assert reply.json["error"] == "No such address: see /api/ for the list.", (method, path)
            reply = api.request(method, "/api/v1/matches", body={} if method != "GET" else None)
            if method == "GET":
                continue
            assert reply.status == 405 and reply.headers["content-type"] == "application/json", (method, reply)
            assert reply.json["error"] and reply.headers["allow"]


def test_the_events_stream_sends_its_headers_at_once(server: Any, owner: Any) -> None:
    _, key = make_bot(owner, "quiet")  # nothing to tell: no challenge, no match
    assert Api(server.url, key).get("/api/v1/account").status == 200  # the server warmed up
    parts = urlsplit(server.url)
    with socket.create_connection((parts.hostname, parts.port), timeout=5) as sock:
        began = time.monotonic()
        sock.sendall(f"GET /api/v1/stream/events HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                     f"Authorization: Bearer {key}\r\n\r\n".encode())
        sock.settimeout(1.0)
        received = b""
        while b"\r\n\r\n" not in received:
            chunk = sock.recv(4096)  # socket.timeout after a second: the headers waited for a keep-alive
            assert chunk, received
            received += chunk
        took = time.monotonic() - began
    head, _, body = received.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200") and b"application/x-ndjson" in head.lower(), head
    assert took < 1.0 and body == b"", (took, body)  # the empty first chunk sends no bytes of its own


def test_a_challenge_made_and_withdrawn_between_two_looks_is_told(server: Any, owner: Any) -> None:
    bot, key = make_bot(owner, "attentive")
    person, other = make_user("fickle"), make_user("steady")
    events = Api(server.url, key).stream("/api/v1/stream/events")
    try:
        first = services.challenge(other, bot, game="gomori", clock="none")
        events.until(lambda item: item["type"] == "challenge" and item["challenge"]["id"] == first.pk)  # it looked
        # Made and withdrawn in one transaction: no look of the stream can fall between the two.
        with transaction.atomic():
            made = services.challenge(person, bot, game="ruhd", clock="none")
            services.withdraw(person, made.pk)
        # A later challenge, to know when to stop reading (told after the other in the same look: ids in order).
        later = services.challenge(make_user("later"), bot, game="gomori", clock="none")
        told = []
        while True:
            item = events.until(lambda item: item["type"] in ("challenge", "challengeAnswered"))
            if item["challenge"]["id"] == later.pk:
                break
            told.append((item["type"], item["challenge"]["id"], item["challenge"]["status"]))
        assert told == [("challenge", made.pk, "withdrawn"), ("challengeAnswered", made.pk, "withdrawn")]
    finally:
        events.close()
