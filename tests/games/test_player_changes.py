"""A player's new name or picture reaches their live tables at once, and no warm copy draws the old one."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from fragments import section

from games import broadcast, services
from games.engines import get_engine
from games.models import Match

ENGINE = get_engine("gomori")


def fresh(match: Match) -> Match:
    return Match.objects.get(pk=match.pk)


def play_one(match: Match, users: dict[int, Any]) -> None:
    match = fresh(match)
    state = ENGINE.load(match.state)
    (seat,) = ENGINE.to_act(state)
    action = ENGINE.legal_actions(state, seat)[0]
    services.act(match_id=match.pk, user=users[seat], seat=seat, action=action, expected_version=match.version)


@pytest.mark.django_db
def test_a_name_change_retires_warm_copies_and_redraws_live_matches_only(
    gomori_match: Match, alice: Any, bob: Any, carol: Any, start_gomori: Any,
    monkeypatch: pytest.MonkeyPatch, django_capture_on_commit_callbacks: Any,
) -> None:
    sent: list[int] = []
    monkeypatch.setattr(broadcast, "broadcast_match", lambda match_id, match=None: sent.append(match_id))
    play_one(gomori_match, {0: alice, 1: bob})
    assert gomori_match.pk in services._warm  # this process holds the match, with its seats' users
    finished = start_gomori(alice, carol)
    Match.objects.filter(pk=finished.pk).update(status=Match.Status.FINISHED, finished_at=timezone.now())
    other = start_gomori(bob, carol)  # not Alice's
    before = fresh(gomori_match).updated_at

    with django_capture_on_commit_callbacks(execute=True):
        alice.display_name = "Alicia"
        alice.save()
    assert gomori_match.pk not in services._warm
    assert fresh(gomori_match).updated_at > before  # so other processes' copies fail the guard too
    assert sent == [gomori_match.pk]  # the finished match and Bob's other match are left alone
    assert other.pk not in sent and finished.pk not in sent

    # The next move takes the slow path, which reads the seats again: the broadcast names Alicia.
    play_one(gomori_match, {0: alice, 1: bob})
    meta, _ = broadcast.read_message(broadcast.build_messages(services._warm[gomori_match.pk])[0][1])
    assert [p["name"] for p in meta["players"]] == ["Alicia", "Bob"]


@pytest.mark.django_db
def test_saves_that_change_nothing_shown_leave_live_matches_alone(
    gomori_match: Match, alice: Any, bob: Any, django_capture_on_commit_callbacks: Any
) -> None:
    play_one(gomori_match, {0: alice, 1: bob})
    before = fresh(gomori_match).updated_at
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        alice.last_login = timezone.now()
        alice.save(update_fields=["last_login"])
    assert callbacks == [] and fresh(gomori_match).updated_at == before
    assert gomori_match.pk in services._warm


@pytest.mark.django_db(transaction=True)
async def test_an_edited_profile_shows_on_the_other_players_table_at_once(
    ws_client: Callable[..., Any], alice: Any, bob: Any, start_gomori: Any
) -> None:
    match = await database_sync_to_async(start_gomori)(alice, bob)
    ok, _, red = await ws_client(match.pk, bob)
    assert ok
    page = await red.settle()
    assert "Alice" in section(page, "players")

    def edit_profile() -> int:
        client = Client()
        client.force_login(alice)
        return client.post(reverse("profile_edit"), {"display_name": "Alicia", "email": ""}).status_code

    assert await database_sync_to_async(edit_profile)() == 302
    page = await red.settle()
    players = section(page, "players")
    assert "Alicia" in players and "Alice<" not in players
