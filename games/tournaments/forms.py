"""The form a signed-in person fills to make a private tournament (a club evening): the rules it asks for are
services.create_tournament's, which has the last word."""

from __future__ import annotations

from typing import Any

from django import forms

from ..catalog import GAMES
from ..models import Tournament
from . import services

MAX_START_MINUTES = 7 * 24 * 60  # a week ahead at most: it is for a club evening


def table_sizes() -> list[int]:
    """Every table size some game allows (the service checks the chosen game's own range)."""
    return sorted({n for info in GAMES.values()
                   for n in range(services.min_table(info.slug), info.engine.max_players + 1)})


class NewTournamentForm(forms.Form):
    name = forms.CharField(label="Name", max_length=80, required=False,
                           help_text="Left empty: the game and the format (“Gomori Arena”).")
    game = forms.ChoiceField(label="Game", choices=[(slug, info.name) for slug, info in GAMES.items()])
    kind = forms.ChoiceField(label="Format", choices=Tournament.Kind.choices, initial=Tournament.Kind.ARENA,
                             widget=forms.RadioSelect)
    minutes = forms.IntegerField(label="Minutes (an arena)", min_value=services.ARENA_MINUTES[0],
                                 max_value=services.ARENA_MINUTES[1], initial=30, required=False)
    rounds = forms.IntegerField(label="Rounds (a Swiss)", min_value=services.SWISS_ROUNDS[0],
                                max_value=services.SWISS_ROUNDS[1], initial=5, required=False)
    table_size = forms.TypedChoiceField(
        label="Players at a table", coerce=int, initial=2, choices=[(n, str(n)) for n in table_sizes()],
        help_text="More than two only where the game allows it (Columbo, Ruhd).")
    clock = forms.ChoiceField(label="Clock", initial="3+2",
                              choices=[(key, label) for key, (label, _) in services.CLOCKS.items()])
    starts_in = forms.IntegerField(label="Starts in (minutes)", min_value=0, max_value=MAX_START_MINUTES, initial=5,
                                   help_text="You can also start it early from its page, once your friends are in.")
    rated = forms.BooleanField(label="Rated matches", required=False, initial=True)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        kind = data.get("kind")
        if kind == Tournament.Kind.ARENA and data.get("minutes") is None and "minutes" not in self.errors:
            self.add_error("minutes", "How long does the arena last?")
        if kind == Tournament.Kind.SWISS and data.get("rounds") is None and "rounds" not in self.errors:
            self.add_error("rounds", "How many rounds?")
        if kind == Tournament.Kind.ARENA and data.get("clock") in services.CORRESPONDENCE_KEYS:
            self.add_error("clock", services.ARENA_IS_REAL_TIME)
        return data
