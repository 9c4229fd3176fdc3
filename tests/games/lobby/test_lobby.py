"""The lobby drawn by Jinja2 (games/lobby/display.py, templates/jinja2/games/lobby.html and form_fields.html).

Its create forms are drawn from the widgets' own context rather than by Django's widget templates: each field
must come out as Django would draw it, unbound and with errors, for every game. The page must also hold
together as a whole: every id an aria-describedby names is on the page, and a strict client posting a create
form with the page's own token gets its match.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from typing import Any

import pytest
from django.test.html import parse_html
from django.urls import reverse
from factories import client_for, make_user

from games.catalog import GAMES
from games.core.jinja import fragments_environment
from games.lobby.forms import CreateMatchForm, FieldView, all_forms, field_view
from games.models import Match

pytestmark = pytest.mark.django_db

# Bad input of every kind a field can have: a choice that is not one, a number out of range and one that is not
# a number, a required field left empty (the game options carry no value at all).
BAD = {"players": "9", "seat_1": "bot:no-such-level", "clock": "fischer", "clock_minutes": "0.01",
       "clock_increment": "many", "clock_turn": "-4", "is_public": "on"}


def drawn(macro: str, field: FieldView) -> str:
    module = fragments_environment().get_template("games/form_fields.html").module
    return str(getattr(module, macro)(field))


def forms_to_check() -> list[tuple[str, CreateMatchForm]]:
    cases = []
    for slug in GAMES:
        cases.append((f"{slug} unbound", all_forms(only=slug)[list(GAMES).index(slug)]))
        bound = CreateMatchForm(GAMES[slug], {f"{slug}-{name}": value for name, value in BAD.items()})
        assert not bound.is_valid()
        cases.append((f"{slug} with errors", bound))
    return cases


@pytest.mark.parametrize(("case", "form"), forms_to_check(), ids=lambda value: value if isinstance(value, str) else "")
def test_every_field_is_drawn_as_django_draws_it(case: str, form: CreateMatchForm) -> None:
    errors_seen = 0
    for bound in form:
        view = field_view(bound)
        assert parse_html(drawn("control", view)) == parse_html(str(bound)), (case, bound.name)
        assert parse_html(drawn("label", view)) == parse_html(bound.label_tag()), (case, bound.name)
        assert parse_html(drawn("errors", view)) == parse_html(str(bound.errors)), (case, bound.name)
        errors_seen += bool(bound.errors)
    # The bound forms do exercise the error drawing (aria-invalid, the error list's id).
    assert (errors_seen >= 5) == case.endswith("with errors"), case


class Ids(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.described: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if values.get("id"):
            self.ids.add(values["id"] or "")
        self.described += (values.get("aria-describedby") or "").split()


def page_ids(html: str) -> Ids:
    reader = Ids()
    reader.feed(html)
    return reader


@pytest.mark.parametrize("signed_in", [True, False])
def test_every_description_a_control_points_to_is_on_the_page(signed_in: bool) -> None:
    client = client_for(make_user() if signed_in else None)
    reader = page_ids(client.get("/play/").content.decode())
    assert len(reader.described) >= 2 * len(GAMES)  # the first seat's and the clock's help, in each form
    assert set(reader.described) <= reader.ids


def test_a_form_sent_back_with_errors_points_to_them() -> None:
    url = reverse("create_match", args=["columbo"])
    response = client_for(make_user()).post(url, {f"columbo-{name}": value for name, value in BAD.items()})
    body = response.content.decode()
    assert response.status_code == 400
    reader = page_ids(body)
    assert "id_columbo-players_error" in reader.described and set(reader.described) <= reader.ids
    assert re.search(r'<details class="create-game" id="create-columbo" open>', body)  # unfolded to correct
    assert 'id="create-gomori" open' not in body


def test_the_create_button_is_only_for_signed_in_people() -> None:
    def buttons(client: Any) -> list[str]:
        return re.findall(r"<button type=\"submit\" class=\"button\"( disabled)?>Create the", client.get("/play/")
                          .content.decode())

    assert buttons(client_for(None)) == [" disabled"] * len(GAMES)
    assert buttons(client_for(make_user())) == [""] * len(GAMES)


def test_a_strict_client_creates_with_the_token_the_form_carries() -> None:
    user = make_user()
    client = client_for(user, enforce_csrf_checks=True)
    page = client.get("/play/").content.decode()
    url = reverse("create_match", args=["rummy"])
    form = page[page.index(f'action="{url}"'):]
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form)
    assert token
    response = client.post(url, {"csrfmiddlewaretoken": token.group(1), "rummy-players": "2", "rummy-seat_0": "me",
                                 "rummy-seat_1": "bot:random", "rummy-clock": "none",
                                 **{f"rummy-opt_{spec.name}": spec.choices[0][0] if spec.choices else spec.minimum
                                    for spec in GAMES["rummy"].options}})
    assert response.status_code == 302
    assert Match.objects.get(game="rummy").seats.get(index=0).user == user
    refused = client.post(url, {"rummy-players": "2"})  # the same post without the token
    assert refused.status_code == 403 and Match.objects.count() == 1
