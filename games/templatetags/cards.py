"""Card faces as HTML: a filter instead of an {% include %} per card, which is many times slower."""

from __future__ import annotations

from typing import Any

from django import template
from django.template.loader import render_to_string
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe

from ..memo import Memo

register = template.Library()


_faces: Memo[SafeString] = Memo(4096)
_pieces: Memo[SafeString] = Memo(16384)  # a hundred live boards keep their cells; about 10 MB at most


@register.filter
def card_face(card: dict[str, Any] | None) -> SafeString | str:
    """A face-up card from games.tables.card(); the accessible name rides along for screen readers."""
    if not card:
        return ""
    key = (card["name"], card["rank"], card["suit"], card["red"], card.get("joker"))
    return _faces.get(key, lambda: _card_face(card))


def _card_face(card: dict[str, Any]) -> SafeString:
    classes = "card" + (" card-red" if card["red"] else "") + (" card-joker" if card.get("joker") else "")
    return format_html(
        '<span class="{}" title="{}"><span class="card-rank">{}</span>'
        '<span class="card-suit" aria-hidden="true">{}</span><span class="visually-hidden">{}</span></span>',
        classes, card["name"], card["rank"], card["suit"], card["name"],
    )


@register.simple_tag
def piece(template_name: str, **values: Any) -> SafeString:
    """A small template rendered from its arguments alone, remembered by their value: a board's cells
    mostly stay as they were from one move to the next, and rendering each again dominated a move's cost.
    The HTML comes from the arguments only, so it can't carry one viewer's view to another."""
    key = (template_name, repr(sorted(values.items())))
    return _pieces.get(key, lambda: mark_safe(render_to_string(template_name, values)))
