"""The lobby's "Watch": matches in progress with their players' ratings, the best-rated first."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from factories import make_match, make_user

from games.lobby.watch import watchable_matches
from games.models import PlayerStats

pytestmark = pytest.mark.django_db


def test_watch_lists_the_best_rated_tables_first_with_each_player_s_rating() -> None:
    people = [make_user(f"p{i}", display_name=f"P{i}") for i in range(6)]
    for person, rating in zip(people, (1400, 1450, 1900, 1850, 1600, 1500), strict=True):
        PlayerStats.objects.create(user=person, game="gomori", rating=rating)
    low = make_match(creator=people[0], joiners=[people[1]])
    high = make_match(creator=people[2], joiners=[people[3]])
    middle = make_match(creator=people[4], joiners=[people[5]])
    viewer = make_user("viewer")
    assert [m.pk for m in watchable_matches(viewer)] == [high.pk, middle.pk, low.pk]
    client = Client()
    client.force_login(viewer)
    html = client.get("/play/").content.decode()
    watch = html[html.index('id="watch-heading"'):]
    assert re.search(r"P2 <span[^>]*>1900</span>.*P3 <span[^>]*>1850</span>", watch, re.S)
    assert watch.index("P2") < watch.index("P4") < watch.index("P0")
    # A player's own matches are listed elsewhere.
    assert [m.pk for m in watchable_matches(people[2])] == [middle.pk, low.pk]
