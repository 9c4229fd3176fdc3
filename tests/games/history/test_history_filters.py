"""The history's filter form drawn by Jinja2 from its widgets' own context (games.history.views.filter_fields,
templates/jinja2/games/history_filters.html) must come out as Django's widget templates drew it: every field, on
the site-wide history and a player's own, empty, filled in, and with errors."""

from __future__ import annotations

from typing import Any

import pytest
from django.template import Context, Template
from django.test.html import parse_html
from factories import client_for, make_user

from games.history.forms import NAMES_LIST, HistoryFilterForm
from games.history.views import filter_fields

# The form as games/history.html drew it with Django's widget templates before issue 47.
DJANGO_DRAWN = Template("""
    <div class="filter-grid">
      {% for field in form %}
        <div class="filter-field{% if field.name == form.name_field %} filter-name{% endif %}">
          <label for="{{ field.id_for_label }}">{{ field.label }}</label>
          {{ field }}
          {% if field.name == form.name_field %}{% include "games/_name_suggestions.html" %}{% endif %}
          {% if field.errors %}<span class="errorlist" role="alert">{{ field.errors|join:" " }}</span>{% endif %}
        </div>
      {% endfor %}
    </div>
""")

CASES: dict[str, dict[str, Any]] = {
    "empty": {},
    "filled in": {"game": "rummy", "player": "Ann <b>", "opponent": "Bob & co", "result": "won",
                  "opponents": "people", "date_from": "2026-01-02", "date_to": "2026-03-04"},
    "with errors": {"game": "chess", "result": "maybe", "opponents": "cats", "date_from": "2026-13-01",
                    "date_to": "yesterday", "player": "x" * 201, "opponent": "y" * 201},
}


@pytest.mark.parametrize("fixed_player", [False, True])
@pytest.mark.parametrize("case", list(CASES))
def test_the_filters_are_drawn_as_django_draws_them(case: str, fixed_player: bool) -> None:
    form = HistoryFilterForm(CASES[case] or None, fixed_player=fixed_player)
    form.is_valid()
    if case == "with errors":
        assert len(form.errors) >= 5
    expected = DJANGO_DRAWN.render(Context({"form": form, "names_list": NAMES_LIST, "suggestions": []}))
    assert parse_html(str(filter_fields(form))) == parse_html(expected)


@pytest.mark.django_db
def test_the_page_has_the_form_and_an_htmx_redraw_only_the_results() -> None:
    client = client_for(make_user("reader"))
    page = client.get("/history/?game=rummy&player=Ann").content.decode()
    assert '<select name="game" id="id_game">' in page
    assert '<option value="rummy" selected>' in page
    assert 'name="player" value="Ann"' in page
    assert f'<ul id="{NAMES_LIST}" class="name-suggestions"' in page
    redraw = client.get("/history/?game=rummy", headers={"HX-Request": "true"}).content.decode()
    assert "history-results" in redraw and 'name="game"' not in redraw
