"""The lobby's blank create forms are drawn once a process (games.lobby.display._blank_forms) with a slot for the
CSRF token: what a page gets must be what drawing them afresh for that person gives."""

from __future__ import annotations

import re

import pytest
from factories import client_for, make_user

from games.catalog import GAMES
from games.lobby import display
from games.lobby.forms import all_forms


@pytest.mark.parametrize("signed_in", [True, False])
@pytest.mark.parametrize("open_game", ["", *GAMES])
def test_the_kept_drawing_is_the_fresh_one_with_the_person_s_token(open_game: str, signed_in: bool) -> None:
    token = "aB3" * 20
    kept = display.create_forms_html(None, open_game=open_game, signed_in=signed_in, csrf_token=token)
    fresh = display.create_forms_html(all_forms(), open_game=open_game, signed_in=signed_in, csrf_token=token)
    assert kept == fresh
    assert kept.count(f'name="csrfmiddlewaretoken" value="{token}"') == len(GAMES)


@pytest.mark.django_db
def test_a_page_s_forms_carry_a_token_and_no_slot() -> None:
    """(test_lobby's strict client posts one of them with its token and gets its match.)"""
    page = client_for(make_user("ann")).get("/play/").content.decode()
    assert "{csrf-token}" not in page
    assert len(re.findall(r'name="csrfmiddlewaretoken" value="[A-Za-z0-9]{64}"', page)) >= len(GAMES)
