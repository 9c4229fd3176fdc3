"""The Bot API's challenge takes a correspondence clock: the key ("3d") or spelled out ({"clock": "days",
"days": 1}); another number of days is a 400 naming the choices. The match made reads the clock as
{"kind": "days", "days": d, "seconds": ...}; the /api/ page says so."""

from __future__ import annotations

from typing import Any

import pytest
from apiclient import Api, make_bot
from factories import client_for, make_user

from games.challenges import services
from games.models import Challenge

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_program_challenges_to_days_a_move(server: Any, owner: Any) -> None:
    _, key = make_bot(owner, "postal")
    person = make_user("penfriend")
    api = Api(server.url, key)
    reply = api.post("/api/v1/challenge/penfriend", {"game": "rummy", "clock": "3d"})
    assert reply.status == 200, reply
    assert reply.json["challenge"]["clock"] == {"kind": "days", "days": 3, "seconds": 3 * 86400}
    match = services.accept(person, reply.json["challenge"]["id"])
    assert match.clock == {"kind": "days", "days": 3, "seconds": 3 * 86400}
    spelled = api.post("/api/v1/challenge/penfriend", {"game": "gomori", "clock": "days", "days": 1})
    assert spelled.status == 200, spelled
    assert Challenge.objects.get(pk=spelled.json["challenge"]["id"]).clock == {"kind": "days", "days": 1,
                                                                                "seconds": 86400}
    for body in ({"clock": "days", "days": 5}, {"clock": "days", "days": "3"}, {"clock": "5d"}):
        refused = api.post("/api/v1/challenge/penfriend", {"game": "gomori", **body})
        assert refused.status == 400 and "1, 2, 3 or 7 days a move" in refused.json["error"], refused


def test_the_api_page_names_the_correspondence_clocks() -> None:
    page = client_for().get("/api/").content.decode()
    assert "<code>3d</code>" in page and "<code>{\"clock\": \"days\", \"days\": 3}</code>" in page
