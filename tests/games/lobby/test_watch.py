"""The lobby's "Watch": matches in progress with their players' ratings, the best-rated first."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client
from factories import make_match, make_user

from games.bots import LEVEL_RATINGS
from games.lobby.queries import watchable_matches
from games.models import PlayerStats
from games.play.create import SeatSpec, create_match

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


def test_a_bot_s_rating_is_its_level_s_measured_one_and_two_of_one_level_are_named_apart(settings: Any) -> None:
    """Watch showed bots at 1500 while the seat choices said 1663 (Ruhd Regular), and two Regulars as one name."""
    settings.GAMES_BOT_DELAY = 60  # the bots wait: the match stays in progress
    bob = make_user("bob", display_name="Bob")
    match = create_match(creator=bob, game="ruhd", players=3, seed=5,
                         seats=[SeatSpec("bot", "reference"), SeatSpec("bot", "reference")])
    viewer = make_user("viewer")
    listed = watchable_matches(viewer)
    regular = LEVEL_RATINGS["ruhd"]["reference"]
    assert [m.pk for m in listed] == [match.pk]
    assert listed[0].seat_ratings == {0: 1500, 1: regular, 2: regular}
    client = Client()
    client.force_login(viewer)
    html = client.get("/play/").content.decode()
    watch = html[html.index('id="watch-heading"'):]
    assert re.search(rf"Ruhd Regular \(bot\) <span[^>]*>{regular}</span>.*"
                     rf"Ruhd Regular 2 \(bot\) <span[^>]*>{regular}</span>", watch, re.S)
    # The same names as the table gives them (games.play.wording.distinct_names: one naming).
    table = client.get(f"/m/{match.pk}/").content.decode()
    assert "Ruhd Regular 2 (bot)" in table and "Ruhd Regular (bot)" in table
    # And the seat choices show the same number.
    assert f"Regular ({regular})" in html
