"""The history's filters."""

from __future__ import annotations

from typing import Any

from django import forms
from django.urls import reverse

from ..catalog import GAMES

RESULT_CHOICES = [("", "Any result"), ("won", "Won"), ("lost", "Lost"), ("drawn", "Draw")]
OPPONENT_CHOICES = [("", "Bots or people"), ("bots", "Against bots"), ("people", "Only people")]
# The list of names a name field suggests, filled as one types (games.history.views.name_suggestions).
NAMES_LIST = "player-names"


def name_input() -> forms.TextInput:
    """A field for a player's name that suggests the names beginning with what is typed (a combobox, as WAI-ARIA
    has it): htmx asks for them, in a request of the field's own (not the form's), and swaps the list under it;
    site.js opens it, moves through it with the arrow keys, and filters at once on the name picked."""
    return forms.TextInput(attrs={
        "placeholder": "name or username", "autocomplete": "off", "autocapitalize": "none", "spellcheck": "false",
        "role": "combobox", "aria-autocomplete": "list", "aria-controls": NAMES_LIST, "aria-expanded": "false",
        "data-suggest": "",
        "hx-get": reverse("history_names"), "hx-trigger": "input changed delay:150ms", "hx-target": f"#{NAMES_LIST}",
        "hx-swap": "outerHTML", "hx-push-url": "false", "hx-sync": "this:replace",
    })


class HistoryFilterForm(forms.Form):
    """The history filters, all optional; read from the query string. The site-wide history has a Player, a
    player's own history a "Played against" (both a name as the pages show it, or a username)."""

    game = forms.ChoiceField(choices=[("", "Every game"), *((g.slug, g.name) for g in GAMES.values())],
                             required=False)
    player = forms.CharField(max_length=200, required=False, label="Player")
    opponent = forms.CharField(max_length=200, required=False, label="Played against")
    result = forms.ChoiceField(choices=RESULT_CHOICES, required=False)
    opponents = forms.ChoiceField(choices=OPPONENT_CHOICES, required=False, label="Opponents")
    date_from = forms.DateField(required=False, label="From", widget=forms.DateInput(attrs={"type": "date"}))
    date_to = forms.DateField(required=False, label="To", widget=forms.DateInput(attrs={"type": "date"}))

    def __init__(self, *args: Any, fixed_player: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        del self.fields["player" if fixed_player else "opponent"]
        self.name_field = "opponent" if fixed_player else "player"
        self.fields[self.name_field].widget = name_input()

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        start, end = data.get("date_from"), data.get("date_to")
        if start and end and start > end:
            raise forms.ValidationError("The first day comes after the last one.")
        return data
