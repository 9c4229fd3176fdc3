"""Staff schedule tournaments: the admin's form (through the same checks as the service) and the command that
makes the hourly arenas, once per hour however often it runs."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone
from factories import client_for, make_user

from games.catalog import GAMES
from games.models import Tournament

pytestmark = pytest.mark.django_db


def admin_form(**fields: object) -> dict[str, object]:
    start = timezone.localtime() + timedelta(hours=1)
    data: dict[str, object] = {
        "name": "Friday Arena", "kind": "arena", "game": "gomori", "table_size": 2, "clock_key": "3+2",
        "starts_at_0": start.strftime("%Y-%m-%d"), "starts_at_1": start.strftime("%H:%M:%S"), "minutes": 60,
        "rounds": "", "rated": "on",
        "entrants-TOTAL_FORMS": 0, "entrants-INITIAL_FORMS": 0,
    }
    data.update(fields)
    return data


def test_staff_create_a_public_arena_in_the_admin_and_bad_settings_are_refused_with_the_reason() -> None:
    boss = make_user("boss", is_staff=True, is_superuser=True)
    client = client_for(boss)
    add = reverse("admin:games_tournament_add")
    assert client.get(add).status_code == 200
    response = client.post(add, admin_form())
    assert response.status_code == 302, re.findall(r"errorlist.{0,300}", response.content.decode(), re.S)
    tournament = Tournament.objects.get()
    assert (tournament.name, tournament.kind, tournament.minutes, tournament.is_private) == (
        "Friday Arena", "arena", 60, False)
    assert tournament.clock == {"kind": "fischer", "base": 180.0, "increment": 2}
    refused = client.post(add, admin_form(minutes=1))
    assert refused.status_code == 200 and "An arena lasts 3 to 480 minutes." in refused.content.decode()
    refused = client.post(add, admin_form(game="rummy", table_size=4))
    assert "Rummy is for tables of 2 to 2." in refused.content.decode()
    assert Tournament.objects.count() == 1
    # After creation only the name changes.
    change = reverse("admin:games_tournament_change", args=[tournament.pk])
    assert client.get(change).status_code == 200


def test_the_hourly_arenas_are_made_once_per_game_and_hour_however_often_the_command_runs() -> None:
    call_command("create_arenas", "--hours", "2", verbosity=0)
    call_command("create_arenas", "--hours", "2", verbosity=0)
    arenas = Tournament.objects.filter(series__startswith="hourly-")
    assert arenas.count() == 2 * len(GAMES)
    next_hour = (timezone.now() + timedelta(hours=1)).replace(minute=0, second=0, microsecond=0)
    assert set(arenas.values_list("starts_at", flat=True)) == {next_hour, next_hour + timedelta(hours=1)}
    assert all(t.kind == "arena" and not t.is_private and t.minutes == 45 for t in arenas)
    assert set(arenas.values_list("game", flat=True)) == set(GAMES)
