"""The tour's Ruhd table of three (10 / 16 / 16: two Regular bots tie for first, the person is last), played
through the services: every page says what the places say. The person lost (never "a draw"), the bots drew with
each other; history rows and filters, profile, leaderboard, the replay's last step and the analysis rows agree;
the rating moved as one game lost against the table's average. Also: records kept before results had places are
recomputed (migration 0013, then rebuild_stats), and an annulled match's later result boxes are recomputed.
"""

from __future__ import annotations

import importlib
import re
from typing import Any

import pytest
import ruhd_tie
from django.apps import apps
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from games.bots import LEVEL_RATINGS
from games.models import AnalysisJob, Match, PlayerResult, PlayerStats, Seat
from games.ratings import glicko2
from games.ratings.rules import BOT_DEVIATION

pytestmark = pytest.mark.django_db


@pytest.fixture
def tie(settings: Any, django_user_model: Any) -> tuple[Match, Any]:
    settings.GAMES_BOT_DELAY = 0
    alice = django_user_model.objects.create_user(username="alice", password="x", display_name="Alice")
    match = ruhd_tie.play(ruhd_tie.create(alice), alice, leave_last=False)
    return match, alice


def text_of(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def test_the_last_of_three_lost_and_the_two_tied_at_the_top_drew(tie: tuple[Match, Any]) -> None:
    match, alice = tie
    assert match.status == Match.Status.FINISHED
    seats = list(Seat.objects.filter(match=match).order_by("index"))
    assert [s.final_score for s in seats] == ruhd_tie.FINAL_SCORES
    assert [s.place for s in seats] == [3, 1, 1]
    assert match.result["places"] == [3, 1, 1] and match.result["draw"] is False
    outcomes = dict(PlayerResult.objects.filter(match=match).values_list("seat", "outcome"))
    assert outcomes == {0: "lost", 1: "drawn", 2: "drawn"}
    mine = PlayerStats.objects.get(user=alice, game="ruhd")
    assert (mine.won, mine.lost, mine.drawn, mine.streak) == (0, 1, 0, 0)

    # The rating: one game lost against an opponent of the two bots' rating (both Regular: 1663).
    regular = glicko2.Rating(LEVEL_RATINGS["ruhd"]["reference"], BOT_DEVIATION)
    expected = glicko2.rate(glicko2.Rating(), [(regular, 0.0)])
    assert mine.rating == pytest.approx(expected.rating)
    box = {change["seat"]: change for change in Match.objects.get(pk=match.pk).result["ratings"]}
    assert (box[0]["before"], box[0]["after"]) == (1500, round(expected.rating))


def test_every_page_says_the_person_lost(tie: tuple[Match, Any]) -> None:
    match, alice = tie
    client = Client()
    client.force_login(alice)

    table = text_of(client.get(reverse("match", args=[match.pk])).content.decode())
    said = "Ruhd Regular (bot) and Ruhd Regular 2 (bot) shared first place."
    assert f"{said} You came 3rd." in table
    assert "A draw" not in table

    replay = text_of(client.get(reverse("replay", args=[match.pk]) + f"?move={match.move_count}").content.decode())
    assert f"{said} Alice came 3rd." in replay

    history = reverse("player_history", args=["alice"])
    rows = client.get(history).content.decode()
    assert re.findall(r'class="outcome-badge outcome-(\w+)">(\w+)<', rows) == [("lost", "Lost")]
    assert f"/m/{match.pk}/replay/" not in client.get(history + "?result=drawn").content.decode()
    assert f"/m/{match.pk}/replay/" in client.get(history + "?result=lost").content.decode()

    profile = text_of(client.get(reverse("profile", args=["alice"])).content.decode())
    assert "Won · lost · drawn 0 · 1 · 0" in profile
    # Ruhd's best single tile is named as points, never as a rank ("Best placement 5").
    assert re.search(r"Best tile \d+ points?", profile) and "Best placement" not in profile

    board = text_of(client.get(reverse("leaderboard") + "?game=ruhd").content.decode())
    line = board.split("Provisional ratings")[1].split("Alice")[1]  # her line (the header names her too)
    rating = round(PlayerStats.objects.get(user=alice, game="ruhd").rating)
    assert re.match(rf" {rating} \? ±\d+ 1 0 · 1 · 0 0 % ", line), line[:80]  # rating, 1 match, W·L·D, win rate


def test_a_record_kept_before_places_is_recomputed_by_the_migration_and_rebuild_stats(
        tie: tuple[Match, Any]) -> None:
    """The record as the old code kept it: the engine's "draw" for a shared first place, every seat drawn."""
    match, alice = tie
    legacy = {key: value for key, value in match.result.items() if key != "places"}
    Match.objects.filter(pk=match.pk).update(result={**legacy, "draw": True, "winners": [1, 2]})
    PlayerResult.objects.filter(match=match).update(outcome="drawn")
    PlayerStats.objects.filter(user=alice).update(lost=0, drawn=1)

    migration = importlib.import_module("games.migrations.0013_results_by_place")
    migration.forwards(apps, None)
    match = Match.objects.get(pk=match.pk)
    assert match.result["places"] == [3, 1, 1] and match.result["draw"] is False
    assert dict(PlayerResult.objects.filter(match=match).values_list("seat", "outcome")) == {
        0: "lost", 1: "drawn", 2: "drawn"}
    call_command("rebuild_stats", verbosity=0)
    mine = PlayerStats.objects.get(user=alice, game="ruhd")
    assert (mine.won, mine.lost, mine.drawn) == (0, 1, 0)


def test_the_migration_keeps_a_match_nobody_won_a_loss_for_everyone(tie: tuple[Match, Any]) -> None:
    """Alice left (a bot finished for her), then the only one who stayed resigned: the old code kept no winners
    and no draw, every seat lost; the places it wrote put the resigner first."""
    match, _ = tie
    Match.objects.filter(pk=match.pk).update(result={"reason": "resign", "scores": [10, 16, 16], "winners": [],
                                                     "draw": False, "loser": 1, "left": [0]})
    for index, place in enumerate([2, 1, 1]):
        Seat.objects.filter(match=match, index=index).update(place=place)
    importlib.import_module("games.migrations.0013_results_by_place").forwards(apps, None)
    result = Match.objects.get(pk=match.pk).result
    assert result["places"] == [3, 2, 2] and result["winners"] == [] and result["draw"] is False


def test_the_analysis_rows_say_each_seat_s_result(tie: tuple[Match, Any]) -> None:
    match, alice = tie
    seats = [{"seat": i, "accuracy": 80.0, "decisions": 5, "inaccuracies": 0, "mistakes": 0, "blunders": 0}
             for i in range(3)]
    AnalysisJob.objects.update_or_create(match=match, defaults={
        "state": AnalysisJob.State.DONE, "result": {"decisions": [], "seats": seats}, "done": 1, "total": 1})
    client = Client()
    client.force_login(alice)
    page = client.get(reverse("replay", args=[match.pk])).content.decode()
    table = page.split('class="analysis-seats"')[1].split("</table>")[0]
    assert re.findall(r'outcome-badge outcome-(\w+)">(\w+)<', table) == [("lost", "Lost"), ("drawn", "Draw"),
                                                                        ("drawn", "Draw")]
