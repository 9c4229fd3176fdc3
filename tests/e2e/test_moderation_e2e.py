"""In a real browser: an administrator annuls a finished match's result from the admin's match list."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

import pytest

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

PASSWORD = "baize-and-brass-2024"


def test_an_administrator_annuls_a_result_through_the_admin(page: Any, make_user: Callable[..., Any]) -> None:
    from django.contrib.admin.models import LogEntry
    from django.db import transaction
    from django.utils import timezone

    from games.models import FinishedMatch, Match, PlayerStats, Seat
    from games.ratings import stats

    make_user("boss", password=PASSWORD, is_staff=True, is_superuser=True)
    alice, bob = make_user("alice", display_name="Alice"), make_user("bob", display_name="Bob")
    matches = []
    for minutes, winner in ((30, 0), (20, 1)):
        at = timezone.now() - dt.timedelta(minutes=minutes)
        match = Match.objects.create(
            game="gomori", players=2, seed=minutes, status=Match.Status.FINISHED, options={}, version=1,
            started_at=at - dt.timedelta(minutes=5), finished_at=at,
            result={"scores": [0, 0], "winners": [winner], "draw": False, "reason": "normal"},
        )
        for index, user in enumerate((alice, bob)):
            Seat.objects.create(match=match, index=index, user=user, final_score=0, place=1 if index == winner else 2)
        with transaction.atomic():  # as services.commit records a finished match (it locks the stats rows)
            stats.record_finished(match)
        matches.append(match)
    annulled = matches[1]
    assert PlayerStats.objects.get(user=alice).played == 2

    page.goto("/admin/login/?next=/admin/games/match/")
    page.get_by_label("Username").fill("boss")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url("**/admin/games/match/")
    page.locator(f'input[name="_selected_action"][value="{annulled.pk}"]').check()
    page.locator('select[name="action"]').select_option("annul_results")
    page.locator('button[name="index"]').first.click()
    page.wait_for_load_state()
    assert f"Annulled: Gomori #{annulled.pk}." in page.locator(".messagelist").inner_text()

    # Its page says so; it counts for nothing: Alice's figures are those of the first match alone.
    page.goto(f"/m/{annulled.pk}/")
    assert page.locator(".annulled").count() == 1
    assert "annulled this match’s result" in page.locator("#status .annulled").inner_text()
    row = PlayerStats.objects.get(user=alice)
    assert (row.played, row.won, row.lost, row.rated_matches) == (1, 1, 0, 1)
    assert Match.objects.get(pk=annulled.pk).result["annulled"] is True
    assert not FinishedMatch.objects.filter(match=annulled).exists()
    entry = LogEntry.objects.get(object_id=str(annulled.pk))
    assert entry.user.username == "boss" and entry.change_message.startswith("Moderation: annulled")
