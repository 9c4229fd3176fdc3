"""A game's kit: everything the site knows about one game, in one object.

Each game has a module here that builds its `KIT` from its engine (games/engines/), its bots (games/bots/) and
its presenter (games/presenters/), with its part of the post-match analysis beside it (`<slug>_analysis.py`);
registry.py lists them and games/catalog.py serves them. Generic code (the live match and its pages, pools,
statistics, rules pages, the analysis) asks a game's kit and never names a game (tests/games/test_kits_complete.py).

The kits import nothing above them, and no Django: the engines, bots and presenters, and the kit-side types beside
them (figures.py for the statistics, examples.py for the rules pages, analysis_spec.py for the analysis).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from types import ModuleType
from typing import Any

from ..engines.base import Action, Bot, Engine, View
from .analysis_spec import AnalysisSpec
from .figures import Figure, StatsExtra


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
class ActionContext:
    """What the server knows when a person's action arrives, for the parts of an action it decides itself."""

    players: int
    started_at: datetime | None
    now: datetime


def _unchanged(action: Action, context: ActionContext) -> Action:
    return action


def _as_written(text: str, view: View | None) -> str:
    return text


@dataclass(frozen=True)
class Kit:
    """One game, as the site plays, shows, measures and explains it."""

    slug: str
    blurb: str
    lower_is_better: bool  # whether the lower score wins (the tables, results and statistics read it)
    score_label: str
    engine: Engine[Any]
    # Turns a seat's view into display-ready data: present(view, seat, ui, names) and clean_ui(view, seat, raw);
    # optionally keep_ui(view, seat, ui) (what a selection keeps after an update) and BOARD_IS_PUBLIC.
    presenter: ModuleType
    bots: Mapping[str, Bot]
    # The table size people usually play the game at: its quick-pairing pools and hourly arenas seat that many.
    usual_players: int
    analysis: AnalysisSpec  # its post-match analysis: sampler, bots, budget, marks' thresholds (<slug>_analysis.py)
    level_blurbs: Mapping[str, str] = field(default_factory=dict)
    options: tuple[OptionSpec, ...] = ()
    # A bot's pause before it moves, per level (seconds), and how long it waits for a person who may still act.
    reaction_delay: Mapping[str, float] = field(default_factory=dict)
    patience: Callable[[View], float] | None = None
    table_css: str = ""
    # Shown after a score where the number alone would mislead ("pen.": Rummy's 44 is 44 penalty points, worse than 0).
    score_unit: str = ""
    table_js: str = ""  # a table's own few lines of JS, loaded with the page
    # The server-decided parts of an action (never the browser's word): e.g. Columbo solo's elapsed time.
    prepare_action: Callable[[Action, ActionContext], Action] = _unchanged
    # Refusals a player is shown for a while, not just once (a slap that came too late).
    lingering_refusals: tuple[type[Exception], ...] = ()
    # The game's own figures (PlayerStats.extras, shown on the profile) and what reads them from a finished match.
    figures: tuple[Figure, ...] = ()
    stats_extra: StatsExtra | None = None
    stats_needs_moves: bool = False  # whether stats_extra replays the moves (the others read the final state)
    rules_examples: Callable[[], dict[str, Any]] = dict  # the rules page's worked examples, drawn by the tables
    # The game's own verbs in its log's sentences ("{s0} slaps"), and how they read said to that seat ("you slap");
    # the common ones are games.play.wording.COMMON_VERBS.
    log_verbs: Mapping[str, str] = field(default_factory=dict)
    # An engine sentence (a log entry, a bot's reason) with its notation as a person finds it on the board drawn
    # from this view: "[1, 0]" as "row 2, column 1", a Ruhd tile id by its sides.
    words: Callable[[str, View | None], str] = _as_written

    @property
    def score_title(self) -> str:
        """What a score is, in a tooltip: "penalty points: fewer is better"."""
        return self.score_label + (": fewer is better" if self.lower_is_better else "")

    @property
    def score_heading(self) -> str:
        """The final scores' heading: "Penalty points (fewer is better)", "Cards gathered"."""
        return self.score_label[:1].upper() + self.score_label[1:] + (" (fewer is better)" if self.lower_is_better
                                                                       else "")

    @property
    def name(self) -> str:
        return self.engine.name

    @property
    def player_counts(self) -> list[int]:
        return list(range(self.engine.min_players, self.engine.max_players + 1))

    @property
    def levels(self) -> list[str]:
        """The bots' levels, weakest first."""
        return list(self.bots)

    @property
    def takeover_level(self) -> str:
        """The level that takes over a seat a person left: the middle one, a fair stand-in."""
        levels = self.levels
        return levels[len(levels) // 2] if levels else ""

    @property
    def figure(self) -> dict[str, Figure]:
        """The game's figures by key."""
        return {f.key: f for f in self.figures}

    @property
    def board_is_public(self) -> bool:
        """Whether the board fragment is the same for every viewer (rendered once per update, not per socket)."""
        return bool(getattr(self.presenter, "BOARD_IS_PUBLIC", False))

    def keep_ui(self, view: View, seat: int | None, ui: dict[str, Any]) -> dict[str, Any]:
        """What a socket's selection keeps after an update: what still makes sense in the new view (a presenter's
        clean_ui: a card played, or no longer playable, is no longer selected), or the presenter's own keep_ui."""
        keep = getattr(self.presenter, "keep_ui", None)
        return keep(view, seat, ui) if keep is not None else self.presenter.clean_ui(view, seat, ui)
