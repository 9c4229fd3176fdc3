"""Every road to a correspondence match makes one whose clock is {"kind": "days", "days": d, "seconds": d days}:
quick pairing's correspondence row, the challenge form on a profile, the lobby's custom form ("Days per move")
and a Swiss of days-a-move rounds (an arena refuses them); the pages name the clock "3 days a move". (The Bot
API's challenge: tests/games/api/test_api_correspondence.py.)"""

from __future__ import annotations

import html
from datetime import timedelta
from typing import Any

import playing
import pytest
from django.utils import timezone
from factories import client_for, make_user
from openings import opened_on_turn
from tournament_play import everyone_moves

from games.models import Challenge, Entrant, Match, PlayerStats, Tournament
from games.play.clock import clock_spec
from games.play.snapshot import ServiceError
from games.pool import pairing
from games.tournaments import services

pytestmark = pytest.mark.django_db

DAY = 86400


def days(d: int) -> dict[str, Any]:
    return {"kind": "days", "days": d, "seconds": d * DAY}


def person(name: str) -> Any:
    user = make_user(name, display_name=name.title())
    for game in ("gomori", "rummy"):
        PlayerStats.objects.create(user=user, game=game, rating=1500)
    return user


def text(response: Any) -> str:
    return html.unescape(response.content.decode())


def test_the_lobby_s_correspondence_row_pairs_each_days_value() -> None:
    page = text(client_for(person("viewer")).get("/play/"))
    assert "Correspondence" in page
    for d, label in ((1, "1 day"), (2, "2 days"), (3, "3 days"), (7, "7 days")):
        assert f'data-pool="rummy-2-{d}d"' in page and f'<span class="quick-clock">{label}</span>' in page
    for d in (1, 2, 3, 7):
        first, second = person(f"first{d}"), person(f"second{d}")
        assert pairing.seek(first, f"rummy-2-{d}d").match is None
        match = pairing.seek(second, f"rummy-2-{d}d").match
        assert match is not None and match.clock == days(d) and match.game == "rummy"


def test_a_challenge_from_the_profile_to_days_a_move() -> None:
    alice, bob = person("alice"), person("bob")
    profile = text(client_for(alice).get("/u/bob/"))
    for d, label in ((1, "1 day a move"), (2, "2 days a move"), (3, "3 days a move"), (7, "7 days a move")):
        assert f'<option value="{d}d">{label}</option>' in profile
    assert client_for(alice).post("/challenge/bob/", {"game": "gomori", "clock": "2d"}).status_code == 302
    made = Challenge.objects.get()
    assert made.clock == days(2)
    assert "(2 days a move)" in text(client_for(bob).get("/history/"))  # the notice, on any page
    client_for(bob).post(f"/challenges/{made.pk}/accept/", HTTP_HX_REQUEST="true")
    assert Match.objects.get().clock == days(2)


def test_a_custom_match_with_days_per_move() -> None:
    alice = person("alice")
    form = text(client_for(alice).get("/play/"))
    assert '<option value="days">Days per move (correspondence)</option>' in form
    assert 'name="gomori-clock_days"' in form
    response = client_for(alice).post("/play/new/gomori/", {
        "gomori-players": 2, "gomori-seat_0": "me", "gomori-seat_1": "open", "gomori-is_public": "on",
        "gomori-rated": "on", "gomori-clock": "days", "gomori-clock_days": 7,
    })
    assert response.status_code == 302, text(response)
    assert Match.objects.get().clock == days(7)
    refused = client_for(alice).post("/play/new/gomori/", {
        "gomori-players": 2, "gomori-seat_0": "me", "gomori-seat_1": "open", "gomori-clock": "days",
        "gomori-clock_days": 5,
    })
    assert refused.status_code == 400 and Match.objects.count() == 1


def swiss_3d(ann: Any) -> Tournament:
    response = client_for(ann).post("/tournaments/new/", {
        "name": "Postal", "game": "gomori", "kind": "swiss", "rounds": 2, "minutes": "", "table_size": 2,
        "clock": "3d", "starts_in": 0, "rated": "on"})
    assert response.status_code == 302, text(response)
    return Tournament.objects.get()


def test_a_swiss_of_days_a_move_rounds_goes_on_when_a_round_s_matches_end() -> None:
    ann, ben = person("ann"), person("ben")
    t = swiss_3d(ann)
    assert t.clock == days(3)
    assert "3 days a move" in text(client_for(ann).get(t.get_absolute_url()))
    for user in (ann, ben):
        services.join(tournament_id=t.pk, user=user, code=t.invite_code)
    services.tick()
    first = Entrant.objects.get(tournament=t, user=ann).match
    assert first is not None and first.clock == days(3)
    # The round lasts as long as its match: a day later nothing has moved on; three days on, the clock ends it.
    everyone_moves(first.pk)
    services.tick(now=timezone.now() + timedelta(days=1))
    t.refresh_from_db()
    assert t.round == 1 and Match.objects.get(pk=first.pk).status == Match.Status.ACTIVE
    match = Match.objects.get(pk=first.pk)
    waiting = opened_on_turn(match, match.seats.get(user=ann).index)
    Match.objects.filter(pk=first.pk).update(
        turn_started_at=waiting.turn_started_at - timedelta(days=3, seconds=1),
        clock_due_at=waiting.clock_due_at - timedelta(days=3, seconds=1))
    playing.check_clock(match_id=first.pk)
    assert Match.objects.get(pk=first.pk).result["reason"] == "time"
    services.tick()
    t.refresh_from_db()
    assert t.round == 2
    second = Entrant.objects.get(tournament=t, user=ann).match
    assert second is not None and second.pk != first.pk and second.clock == days(3)


def test_an_arena_refuses_days_a_move() -> None:
    ann = person("ann")
    response = client_for(ann).post("/tournaments/new/", {
        "game": "gomori", "kind": "arena", "minutes": 30, "table_size": 2, "clock": "3d", "starts_in": 5})
    assert response.status_code == 400
    assert "An arena is played in real time: days a move are for a Swiss." in text(response)
    with pytest.raises(ServiceError, match="An arena is played in real time"):
        services.create_tournament(creator=make_user("staff", is_staff=True), kind="arena", game="gomori",
                                   clock_key="7d", minutes=30, starts_at=timezone.now(), table_size=2)
    assert not Tournament.objects.exists()
    assert clock_spec("days", days=3) == services.clock_of("3d")
