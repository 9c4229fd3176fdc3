"""The live table's Jinja2 environment (games.core.jinja): what it adds to Jinja2, and its strictness."""

from __future__ import annotations

import jinja2
import pytest
from django.utils.safestring import mark_safe

from games.core.jinja import card_face, fragments_environment
from games.play.display import error_fragment, render_fragment
from games.presenters import card


def draw(source: str, **context: object) -> str:
    return fragments_environment().from_string(source).render(**context)


def test_a_missing_key_is_false_in_a_test_and_none_but_an_error_when_printed_looped_or_compared() -> None:
    cell: dict[str, object] = {"classes": "cell"}
    assert draw("{% if cell.hx %}button{% else %}plain{% endif %}", cell=cell) == "plain"
    assert draw("{% if cell.control.selected %}on{% else %}off{% endif %}", cell=cell) == "off"
    assert draw("{% if cell.score is not none %}+{{ cell.score }}{% endif %}", cell=cell) == ""
    assert draw("{{ cell.hx or 'none' }}", cell=cell) == "none"
    for typo in ("{{ cell.clases }}", "{% for c in cell.cards %}{% endfor %}", "{% if cell.kind == 'up' %}{% endif %}",
                 "{{ cell.height > 1 }}", "{{ missing }}", "{{ cell.control.label }}"):
        with pytest.raises(jinja2.UndefinedError):
            draw(typo, cell=cell)


def test_a_dict_key_comes_before_the_dicts_own_methods_as_in_django_templates() -> None:
    hand = {"clear": '{"ui":{}}', "count": 3, "items": ["a"]}
    assert draw("{{ hand.clear }} {{ hand.count }} {{ hand.items|length }}", hand=hand) == "{&#34;ui&#34;:{}} 3 1"


def test_django_safe_strings_stay_as_they_are_and_everything_else_is_escaped() -> None:
    assert draw("{{ svg }} {{ name }}", svg=mark_safe('<svg class="tile"></svg>'), name="<b>Bob's</b>") == (
        '<svg class="tile"></svg> &lt;b&gt;Bob&#39;s&lt;/b&gt;'
    )
    assert error_fragment("It's <yours>").strip() == (
        '<div id="error" class="error-slot" role="alert"><p class="error">It&#39;s &lt;yours&gt;</p></div>'
    )


def test_filters_and_globals() -> None:
    assert draw("{{ c|card_face }}", c=card("QH")) == str(card_face(card("QH")))
    assert 'class="card card-red"' in card_face(card("QH")) and "Q" in card_face(card("QH"))
    assert draw("{{ c|card_face }}", c=None) == ""
    assert [draw("{{ n|pluralize }}", n=n) for n in (0, 1, 2, [1], [1, 2])] == ["s", "", "s", "", "s"]
    assert draw("{{ url('replay', 7) }}") == "/m/7/replay/"
    assert draw("{{ static('css/tables.css') }}").endswith("css/tables.css")


def test_an_unknown_fragment_or_a_broken_context_fails_loudly() -> None:
    with pytest.raises(KeyError):
        render_fragment("nothing", {})
    with pytest.raises(jinja2.UndefinedError):
        render_fragment("players", {"players": [{"index": 0}]})
