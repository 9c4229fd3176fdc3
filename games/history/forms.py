"""The history's filters."""

from __future__ import annotations

from typing import Any

from django import forms

from ..catalog import GAMES

RESULT_CHOICES = [("", "Any result"), ("won", "Won"), ("lost", "Lost"), ("drawn", "Draw")]
OPPONENT_CHOICES = [("", "Bots or people"), ("bots", "Against bots"), ("people", "Only people")]


class HistoryFilterForm(forms.Form):
    """The history filters, all optional; read from the query string."""

    game = forms.ChoiceField(choices=[("", "Every game"), *((g.slug, g.name) for g in GAMES.values())],
                             required=False)
    player = forms.CharField(max_length=150, required=False, label="Player",
                             widget=forms.TextInput(attrs={"placeholder": "username"}))
    result = forms.ChoiceField(choices=RESULT_CHOICES, required=False)
    opponents = forms.ChoiceField(choices=OPPONENT_CHOICES, required=False, label="Opponents")
    date_from = forms.DateField(required=False, label="From", widget=forms.DateInput(attrs={"type": "date"}))
    date_to = forms.DateField(required=False, label="To", widget=forms.DateInput(attrs={"type": "date"}))

    def __init__(self, *args: Any, fixed_player: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if fixed_player:
            del self.fields["player"]

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        start, end = data.get("date_from"), data.get("date_to")
        if start and end and start > end:
            raise forms.ValidationError("The first day comes after the last one.")
        return data
