"""Rummy's scores are penalty points, said so wherever a score is shown (so that the loser's 44 beside the winner's 0
does not read as a lead): the table's chips, the result box, the history's rows and the replay's last step."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from history_helpers import play_random, start_match

from games.models import Match, Seat

pytestmark = pytest.mark.django_db


def text_of(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def test_rummy_scores_are_labelled_penalty_points_at_the_table_in_the_result_box_history_and_replay(
        django_user_model: Any, settings: Any) -> None:
    settings.GAMES_BOT_DELAY = 0
    alice = django_user_model.objects.create_user(username="alice", password="x", display_name="Alice")
    bob = django_user_model.objects.create_user(username="bob", password="x", display_name="Bob")
    match = play_random(start_match("rummy", [alice, bob], seed=4), [alice, bob], random.Random(4))
    assert match.status == Match.Status.FINISHED
    loser = Seat.objects.filter(match=match).order_by("-final_score").first()
    assert loser is not None and loser.final_score and loser.final_score > 0
    client = Client()
    client.force_login(alice)

    table = client.get(match.get_absolute_url()).content.decode()
    assert 'title="penalty points: fewer is better"' in table  # each header chip says what its number is
    assert f'{loser.final_score} <span class="score-unit">pen.</span>' in table
    assert "Penalty points (fewer is better):" in text_of(table)  # the result box's heading

    history = client.get(reverse("history")).content.decode()
    assert f'{loser.final_score} <span class="score-unit">pen.</span>' in history
    assert 'title="penalty points: fewer is better"' in history

    replay = client.get(reverse("replay", args=[match.pk])).content.decode()
    assert 'title="penalty points: fewer is better"' in replay  # the last step's chips
    assert f'{loser.final_score} <span class="score-unit">pen.</span>' in replay
