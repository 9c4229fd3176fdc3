"""The lobby's match-creation form, one per game."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django import forms

from ..bots import level_rating
from ..catalog import GAMES, Kit
from ..play.bot_accounts import LEVEL_TITLES, bot_level_blurb, bot_levels
from ..play.clock import CORRESPONDENCE_DAYS, clock_label, clock_spec
from ..play.create import SeatSpec


def seat_choices(slug: str) -> list[tuple[str, str]]:
    choices = [("open", "Open seat (anyone in the lobby)"), ("invite", "Invite link (a friend)")]
    for level in bot_levels(slug):
        choices.append((f"bot:{level}", f"Bot: {level_label(slug, level)}"))
    return choices


def level_label(slug: str, level: str) -> str:
    """A bot level's title with its measured rating (games.bots.LEVEL_RATINGS): "Shark (1720)"."""
    title = LEVEL_TITLES.get(level, level.title())
    rating = level_rating(slug, level)
    return title if rating is None else f"{title} ({rating})"


class CreateMatchForm(forms.Form):
    """Players, options and how each other seat is filled, for one game."""

    def __init__(self, info: Kit, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("prefix", info.slug)
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)
        self.info = info
        engine = info.engine
        counts = info.player_counts
        self.fields["players"] = forms.TypedChoiceField(
            label="Players", choices=[(n, str(n)) for n in counts], coerce=int, initial=min(2, counts[-1])
            if counts[0] <= 2 else counts[0],
        )
        bots = [(key, label) for key, label in seat_choices(info.slug) if key.startswith("bot:")]
        self.fields["seat_0"] = forms.ChoiceField(
            label="Seat 1", choices=[("me", "Me"), *bots], initial="me", required=False,
            help_text="Put a bot here to watch bots play each other.",
        )
        choices = seat_choices(info.slug)
        bot_keys = [key for key, _ in choices if key.startswith("bot:")]
        default_seat = "bot:reference" if "bot:reference" in bot_keys else (bot_keys[0] if bot_keys else "open")
        for index in range(1, engine.max_players):
            self.fields[f"seat_{index}"] = forms.ChoiceField(
                label=f"Seat {index + 1}", choices=choices, initial=default_seat, required=False
            )
        for spec in info.options:
            default = engine.default_options.get(spec.name)
            if spec.kind == "int":
                self.fields[f"opt_{spec.name}"] = forms.IntegerField(
                    label=spec.label, min_value=spec.minimum, max_value=spec.maximum, initial=default
                )
            else:
                self.fields[f"opt_{spec.name}"] = forms.ChoiceField(
                    label=spec.label, choices=list(spec.choices), initial=default
                )
        self.fields["is_public"] = forms.BooleanField(label="Public (listed in the lobby, anyone may watch)",
                                                      required=False, initial=True)
        self.fields["rated"] = forms.BooleanField(label="Rated", required=False, initial=True)
        self.fields["clock"] = forms.ChoiceField(
            label="Clock", required=False, initial="none",
            help_text="Without a clock, a player away 60 s on their turn may be claimed. With days per move "
                      "nobody is claimed: only the clock ends the match.",
            choices=[("none", "No clock"),
                     ("fischer", "Minutes per player, plus seconds per move"), ("turn", "A time limit per turn"),
                     ("days", "Days per move (correspondence)")])
        self.fields["clock_minutes"] = forms.FloatField(label="Minutes per player", min_value=0.5, max_value=180,
                                                        initial=5, required=False)
        self.fields["clock_increment"] = forms.IntegerField(label="Seconds added per move", min_value=0,
                                                            max_value=180, initial=3, required=False)
        self.fields["clock_turn"] = forms.IntegerField(label="Seconds per turn", min_value=5, max_value=3600,
                                                       initial=30, required=False)
        self.fields["clock_days"] = forms.TypedChoiceField(
            label="Days per move", coerce=int, initial=3, required=False,
            choices=[(d, clock_label(clock_spec("days", days=d)).removesuffix(" a move"))
                     for d in CORRESPONDENCE_DAYS])

    def clock(self) -> dict[str, Any]:
        """The clock as games.play.clock.clock_spec makes it (ServiceError if out of range)."""
        data = self.cleaned_data
        return clock_spec(data.get("clock") or "none", minutes=data.get("clock_minutes") or 0,
                          increment=data.get("clock_increment") or 0, turn_seconds=data.get("clock_turn") or 0,
                          days=data.get("clock_days") or 3)

    @property
    def seat_fields(self) -> list[forms.BoundField]:
        return [self[f"seat_{i}"] for i in range(0, self.info.engine.max_players)]

    @property
    def bot_blurbs(self) -> list[tuple[str, str, str]]:
        """(title, measured rating or "", how it plays) for each bot level of the game, weakest first."""
        slug = self.info.slug
        out = []
        for level in bot_levels(slug):
            rating = level_rating(slug, level)
            out.append((LEVEL_TITLES.get(level, level.title()), "" if rating is None else str(rating),
                        bot_level_blurb(slug, level)))
        return out

    @property
    def option_fields(self) -> list[forms.BoundField]:
        return [self[f"opt_{spec.name}"] for spec in self.info.options]

    def seat_specs(self) -> list[SeatSpec]:
        specs = []
        for index in range(1, self.cleaned_data["players"]):
            raw = self.cleaned_data.get(f"seat_{index}") or "open"
            if raw.startswith("bot:"):
                specs.append(SeatSpec("bot", raw[4:]))
            else:
                specs.append(SeatSpec(raw))
        return specs

    def first_seat_bot(self) -> str:
        """The bot level for seat 1 when the creator watches instead of playing; "" when the creator plays."""
        raw = self.cleaned_data.get("seat_0") or "me"
        return raw[4:] if raw.startswith("bot:") else ""

    def options(self) -> dict[str, Any]:
        return {spec.name: self.cleaned_data[f"opt_{spec.name}"] for spec in self.info.options}


@dataclass(frozen=True)
class FieldView:
    """A form field as templates/jinja2/games/form_fields.html draws it: its label, its control as Django's widget
    would be given it (name, value, attributes, options), its help text and its errors."""

    id: str
    label: str
    widget: dict[str, Any]
    help_text: str
    errors: list[str]


def field_view(field: forms.BoundField) -> FieldView:
    """The field as Django's BoundField.as_widget prepares it (required, min and max, aria-invalid and
    aria-describedby, the chosen option), without drawing it: Django's template renderer drew the lobby's four
    forms in 8 ms, three times the whole sign-in page (issue 20); Jinja2 draws the same in a fraction of it."""
    widget = field.field.widget
    attrs = field.build_widget_attrs({}, widget)
    if field.auto_id and "id" not in widget.attrs:
        attrs.setdefault("id", field.auto_id)
    return FieldView(
        id=str(attrs.get("id", "")),
        label=str(field.label),
        widget=widget.get_context(field.html_name, field.value(), attrs)["widget"],
        help_text=str(field.help_text),
        errors=[str(error) for error in field.errors],
    )


def all_forms(data: Any = None, only: str | None = None) -> list[CreateMatchForm]:
    return [CreateMatchForm(info, data if slug == only else None) for slug, info in GAMES.items()]
