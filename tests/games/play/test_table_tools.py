"""The table's "Sounds" and "Notify me when it is my turn": offered only where they do something, to a player of a
match still to be played (waiting for its players or being played); never to a spectator, nor once it has ended
(its page hides them then too: tests/e2e/test_keyboard_e2e.py)."""

from __future__ import annotations

from typing import Any

import playing
import pytest
from factories import client_for, make_match, make_user
from openings import play_openings

pytestmark = pytest.mark.django_db

TOOLS = ('id="sound-toggle"', 'id="notify-toggle"')


def offered(user: Any, match: Any) -> list[bool]:
    html = client_for(user).get(f"/m/{match.pk}/").content.decode()
    return [tool in html for tool in TOOLS]


def test_a_player_is_offered_them_while_the_match_waits_and_while_it_is_played() -> None:
    ana, ben, cleo = make_user("ana"), make_user("ben"), make_user("cleo")
    waiting = make_match(creator=ana, seats=["open"])
    assert offered(ana, waiting) == [True, True]
    assert offered(cleo, waiting) == [False, False]
    playing.join(match_id=waiting.pk, user=ben)
    for player in (ana, ben):
        assert offered(player, waiting) == [True, True]


def test_a_spectator_is_not_offered_them() -> None:
    ana, ben, cleo = make_user("ana"), make_user("ben"), make_user("cleo")
    match = make_match(creator=ana, joiners=[ben])
    assert offered(cleo, match) == [False, False]
    assert offered(None, match) == [False, False]  # a visitor who is not signed in


def test_nobody_is_offered_them_once_the_match_has_ended() -> None:
    ana, ben, cleo = make_user("ana"), make_user("ben"), make_user("cleo")
    match = make_match(creator=ana, joiners=[ben])
    playing.abort(match_id=match.pk, user=ana)  # called off before anyone moved
    for viewer in (ana, ben, cleo):
        assert offered(viewer, match) == [False, False]
    finished = make_match(creator=ana, joiners=[ben])
    play_openings(finished)
    playing.resign(match_id=finished.pk, user=ben)
    for viewer in (ana, ben, cleo):
        assert offered(viewer, finished) == [False, False]
