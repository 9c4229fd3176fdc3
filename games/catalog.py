"""What the site says about each game beyond its rules: blurbs, which way scores count, lobby options."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .engines import SLUGS, get_engine


@dataclass(frozen=True)
class OptionSpec:
    """One match option the lobby offers; values are checked against it before reaching the engine."""

    name: str
    label: str
    kind: str  # "int" or "choice"
    minimum: int = 0
    maximum: int = 0
    choices: tuple[tuple[str, str], ...] = ()

    def clean(self, raw: Any) -> Any:
        if self.kind == "int":
            try:
                value = int(raw)
            except (TypeError, ValueError):
                raise ValueError(f"{self.label} must be a whole number.") from None
            if not self.minimum <= value <= self.maximum:
                raise ValueError(f"{self.label} must be between {self.minimum} and {self.maximum}.")
            return value
        if raw not in {key for key, _ in self.choices}:
            raise ValueError(f"{self.label}: choose one of the offered values.")
        return raw


@dataclass(frozen=True)
class GameInfo:
    slug: str
    name: str
    blurb: str
    lower_is_better: bool
    score_label: str
    options: tuple[OptionSpec, ...] = field(default_factory=tuple)

    @property
    def engine(self) -> Any:
        return get_engine(self.slug)

    @property
    def player_counts(self) -> list[int]:
        return list(range(self.engine.min_players, self.engine.max_players + 1))


GAMES: dict[str, GameInfo] = {
    "gomori": GameInfo(
        slug="gomori",
        name="Gomori",
        blurb="Black against red on a loose 4x4 field: stack, flip with face cards and gather lines of one suit.",
        lower_is_better=False,
        score_label="cards gathered",
    ),
    "columbo": GameInfo(
        slug="columbo",
        name="Columbo",
        blurb="Golf at full speed: keep your hand low while you barely know it, and slap matching cards first.",
        lower_is_better=True,
        score_label="points",
        options=(
            OptionSpec("rounds", "Rounds", "int", minimum=1, maximum=12),
            OptionSpec(
                "action_trigger",
                "Card actions",
                "choice",
                choices=(
                    ("drawn_discard", "Only a drawn card discarded at once"),
                    ("any_discard", "Any discarded 7 to Q"),
                ),
            ),
        ),
    ),
    "ruhd": GameInfo(
        slug="ruhd",
        name="Ruhd",
        blurb="Lay square tiles from a shared open hand and score where colours and numbers meet.",
        lower_is_better=False,
        score_label="points",
    ),
    "rummy": GameInfo(
        slug="rummy",
        name="Rummy",
        blurb="Rommé for two with two decks and four jokers: lay down sets and runs, then get rid of every card.",
        lower_is_better=True,
        score_label="penalty points",
        options=(OptionSpec("min_first_meld", "Minimum first lay-down", "int", minimum=0, maximum=120),),
    ),
}

assert set(GAMES) == set(SLUGS)


def clean_options(slug: str, raw: dict[str, Any]) -> dict[str, Any]:
    """The engine's default options overlaid with the offered options the request set; ValueError if bad."""
    info = GAMES[slug]
    known = {spec.name for spec in info.options}
    unknown = sorted(set(raw) - known)
    if unknown:
        raise ValueError(f"{info.name} has no option {unknown[0]!r}.")
    options = dict(info.engine.default_options)
    for spec in info.options:
        if spec.name in raw and raw[spec.name] not in (None, ""):
            options[spec.name] = spec.clean(raw[spec.name])
    return options
