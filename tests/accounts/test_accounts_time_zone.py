"""The profile page's time zone: a form of its own, a choice of IANA zones with the browser's own first (blank),
validated and kept on User.time_zone (the zone a correspondence move's due time is written in)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from factories import client_for

pytestmark = pytest.mark.django_db


def test_the_profile_page_offers_the_zones_with_the_browser_s_first(make_user: Callable[..., Any]) -> None:
    user = make_user("ada")
    page = client_for(user).get("/accounts/profile/").content.decode()
    form = page[page.index('<form method="post" action="/accounts/profile/time-zone/"'):]
    form = form[:form.index("</form>")]
    assert 'id="time-zone"' in form
    options = re.findall(r'<option value="([^"]*)"', form)
    assert options[0] == "" and "My browser’s time zone" in form
    assert "Asia/Tokyo" in options and "America/New_York" in options
    assert options[1:] == sorted(options[1:])
    assert re.search(r'<option value="" selected>', form)


def test_a_zone_is_saved_and_chosen_again(make_user: Callable[..., Any]) -> None:
    user = make_user("ada", display_name="Ada")
    client = client_for(user)
    response = client.post("/accounts/profile/time-zone/", {"time_zone": "Asia/Tokyo"})
    assert response.status_code == 302 and response["Location"] == "/accounts/profile/#time-zone"
    user.refresh_from_db()
    assert user.time_zone == "Asia/Tokyo" and user.display_name == "Ada"  # the rest of the profile untouched
    page = client.get("/accounts/profile/").content.decode()
    assert '<option value="Asia/Tokyo" selected>' in page
    # Back to the browser's own.
    client.post("/accounts/profile/time-zone/", {"time_zone": ""})
    user.refresh_from_db()
    assert user.time_zone == ""


def test_an_unknown_zone_is_refused(make_user: Callable[..., Any]) -> None:
    user = make_user("ada", time_zone="Europe/Paris")
    response = client_for(user).post("/accounts/profile/time-zone/", {"time_zone": "Mars/Olympus_Mons"})
    assert response.status_code == 400
    assert "Select a valid choice" in response.content.decode()
    user.refresh_from_db()
    assert user.time_zone == "Europe/Paris"


def test_signed_in_and_post_only(make_user: Callable[..., Any]) -> None:
    assert client_for().post("/accounts/profile/time-zone/", {"time_zone": "UTC"}).status_code == 302
    assert client_for(make_user()).get("/accounts/profile/time-zone/").status_code == 405
