"""What the analysis needs to know about each game: its bots, which recorded actions are decisions worth
analysing, a cheap ordering of the options for the first screening stage, how far a play-out runs, and how its
end is scored for the deciding seat.

Value of a play-out: a *soft win*, ``1 / (1 + exp(-margin / scale))``, where margin is the seat's final score
against the best other seat (positive = ahead; for Columbo and Rummy, where the lower score wins, the sign is
turned). A plain win counts 1, a loss 0, a draw 0.5, and the scale softens the step so that winning or losing
by more counts a little more. The mean over play-outs is a win chance in [0, 1], the quantity lichess reports
(there from an engine evaluation, here from play-outs); the softening cuts the variance of a 0/1 outcome, and
the scale (one "unit" of the game: bench/ANALYSIS.md) keeps it close to a win chance.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from games.bots import columbo as columbo_bots
from games.bots import gomori as gomori_bots
from games.bots import ruhd as ruhd_bots
from games.bots import rummy as rummy_bots
from games.engines import get_engine
from games.engines.base import Action, Bot, Engine, View
from games.engines.rummy import JOKER_SUITS, card_penalty, new_pack

from .determinize import SAMPLERS, Sampler

Option = Action | None  # None: Columbo's "let this discard go" (no slap), the one option that is no action


def option_key(option: Option) -> str:
    """A canonical text of an option, to compare and deduplicate actions."""
    return json.dumps(option, sort_keys=True, separators=(",", ":"))


@dataclass(frozen=True)
class GameSpec:
    """The analysis's view of one game."""

    slug: str
    strongest: Bot
    rollout: Bot
    lower_wins: bool
    scale: float  # the soft-win scale, in the game's score units
    sampler: Sampler
    classify: Callable[[View, list[Action], Action], tuple[str | None, list[Option]]]
    rank: Callable[[View, list[Option], random.Random], list[Option]]

    @property
    def engine(self) -> Engine[Any]:
        return get_engine(self.slug)

    def stop(self, view: View) -> Callable[[Any], bool]:
        """When a play-out started at this decision stops before the game's end (never, but for Columbo)."""
        return lambda state: False

    def let_go(self, state: Any, seat: int) -> Any:
        """The state in which the seat lets the open discard go without slapping (Columbo only)."""
        raise ValueError(f"{self.slug} has no optional actions to let go")

    def soft_win(self, scores: list[int], seat: int, view: View) -> float:
        """The play-out's value for the seat: the soft win of its margin over the best other seat."""
        others = [s for i, s in enumerate(scores) if i != seat]
        if not others:
            return 0.5
        margin = (min(others) - scores[seat]) if self.lower_wins else (scores[seat] - max(others))
        return _sigmoid(margin / self.scale)


def _sigmoid(x: float) -> float:
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    z = math.exp(x)
    return z / (1.0 + z)


def _strongest(bots: dict[str, Bot]) -> Bot:
    return list(bots.values())[-1]


def _shuffled(options: list[Option], rng: random.Random) -> list[Option]:
    out = list(options)
    rng.shuffle(out)
    return out


# ---------------------------------------------------------------------------------------------------------
# Gomori
# ---------------------------------------------------------------------------------------------------------

def _classify_gomori(view: View, legal: list[Action], action: Action) -> tuple[str | None, list[Option]]:
    return ("chain" if view["chain"] else "play"), list(legal)


def _rank_gomori(view: View, options: list[Option], rng: random.Random) -> list[Option]:
    """The greedy bot's order: 2 x cards gathered + 1 if stacked (ties at random)."""
    board = gomori_bots.board_from_view(view)
    scored: list[tuple[float, float, Option]] = []
    for option in options:
        assert option is not None
        score = 0.0
        if board:
            target = tuple(option["king_target"]) if "king_target" in option else None
            _, gain, stacked = gomori_bots.play_on_board(board, option["card"], (option["at"][0], option["at"][1]),
                                                         target)
            score = 2 * gain + (1 if stacked else 0)
        scored.append((-score, rng.random(), option))
    scored.sort(key=lambda item: (item[0], item[1]))
    return [item[2] for item in scored]


GOMORI = GameSpec("gomori", _strongest(gomori_bots.BOTS), gomori_bots.BOTS["reference"], lower_wins=False,
                  scale=2.0, sampler=SAMPLERS["gomori"], classify=_classify_gomori, rank=_rank_gomori)


# ---------------------------------------------------------------------------------------------------------
# Ruhd
# ---------------------------------------------------------------------------------------------------------

def _classify_ruhd(view: View, legal: list[Action], action: Action) -> tuple[str | None, list[Option]]:
    return view["phase"], list(legal)


def _rank_ruhd(view: View, options: list[Option], rng: random.Random) -> list[Option]:
    """Placements by the points they score now (the view's hints); covers at random."""
    if view["phase"] != "place":
        return _shuffled(options, rng)
    points: dict[tuple[str, int, int, int], int] = {}
    for tile, cells in view["legal_cells"].items():
        for cell, rotations in zip(cells, view["cell_points"][tile], strict=True):
            for rotation, p in enumerate(rotations):
                points[(tile, cell[0], cell[1], rotation)] = p
    scored = []
    for option in options:
        assert option is not None
        p = points.get((option["tile"], option["at"][0], option["at"][1], option["rotation"]), 0)
        scored.append((-p, rng.random(), option))
    scored.sort(key=lambda item: (item[0], item[1]))
    return [item[2] for item in scored]


RUHD = GameSpec("ruhd", _strongest(ruhd_bots.BOTS), ruhd_bots.BOTS["reference"], lower_wins=False, scale=3.0,
                sampler=SAMPLERS["ruhd"], classify=_classify_ruhd, rank=_rank_ruhd)


# ---------------------------------------------------------------------------------------------------------
# Rummy
# ---------------------------------------------------------------------------------------------------------

def _classify_rummy(view: View, legal: list[Action], action: Action) -> tuple[str | None, list[Option]]:
    return ("draw" if view["phase"] == "draw" else "play"), list(legal)


def _rank_rummy(view: View, options: list[Option], rng: random.Random) -> list[Option]:
    """Draws as listed; then the most valuable lay-down, the additions, and the discards from the highest card
    down (jokers last): the classic order of a Rummy turn."""
    melds: list[tuple[int, Option]] = []
    adds: list[Option] = []
    discards: list[tuple[int, float, Option]] = []
    draws: list[Option] = []
    for option in options:
        assert option is not None
        kind = option["type"]
        if kind == "meld":
            value = sum(new_pack(list(p), 0).value for p in option["packs"])
            melds.append((value, option))
        elif kind == "add":
            adds.append(option)
        elif kind == "discard":
            card = option["card"]
            joker = card in JOKER_SUITS
            discards.append((1 if joker else 0, -card_penalty(card) + rng.random() * 0.1, option))
        else:
            draws.append(option)
    melds.sort(key=lambda item: -item[0])
    discards.sort(key=lambda item: (item[0], item[1]))
    return [*draws, *(m[1] for m in melds[:1]), *adds, *(d[2] for d in discards), *(m[1] for m in melds[1:])]


RUMMY = GameSpec("rummy", _strongest(rummy_bots.BOTS), rummy_bots.BOTS["reference"], lower_wins=True, scale=10.0,
                 sampler=SAMPLERS["rummy"], classify=_classify_rummy, rank=_rank_rummy)


# ---------------------------------------------------------------------------------------------------------
# Columbo
# ---------------------------------------------------------------------------------------------------------

TURN_GROUPS: dict[str, tuple[str, ...]] = {
    "draw": ("draw", "tap"),
    "place": ("swap", "discard"),
    "card_action": ("look", "exchange", "skip"),
}
GROUP_OF: dict[str, str] = {kind: group for group, kinds in TURN_GROUPS.items() for kind in kinds}


def _classify_columbo(view: View, legal: list[Action], action: Action) -> tuple[str | None, list[Option]]:
    """The turn's steps (draw or tap; keep or discard; the 7-Q card action) are decisions among the options of
    that step. A slap is a decision between slapping (any card) and letting this discard go. The peek is not
    analysed: before it every card is unseen, so all six choices are alike."""
    kind = action["type"]
    if kind == "peek":
        return None, []
    if kind == "slap":
        return "slap", [None, *(a for a in legal if a["type"] == "slap")]
    group = GROUP_OF[kind]
    return group, [a for a in legal if GROUP_OF.get(a["type"]) == group]


def _rank_columbo(view: View, options: list[Option], rng: random.Random) -> list[Option]:
    """Letting a discard go first among slaps; the rest at random (a turn step has few options)."""
    rest: list[Option] = [o for o in options if o is not None]
    first: list[Option] = [None] if None in options else []
    return first + _shuffled(rest, rng)


class _ColumboSpec(GameSpec):
    """Columbo's play-outs stop at the end of the decision's round: rounds are dealt afresh, so a decision
    changes only its own round's score, and playing three more rounds would mostly add noise (and cost). The
    margin is the match total after that round; the rounds still to come widen the soft-win scale by
    sqrt(1 + rounds left), as independent rounds add up."""

    def stop(self, view: View) -> Callable[[Any], bool]:
        start = view["round"]
        return lambda state: bool(state.round != start)

    def let_go(self, state: Any, seat: int) -> Any:
        """The seat counts as having tried its one slap on this discard: it can no longer slap it."""
        engine = self.engine
        data = engine.dump(state)
        window = data["window"]
        if window is not None and seat not in window["attempted"]:
            window["attempted"].append(seat)
        return engine.load(data)

    def soft_win(self, scores: list[int], seat: int, view: View) -> float:
        others = [s for i, s in enumerate(scores) if i != seat]
        if not others:
            return 0.5
        left = view["rounds"] - view["round"]
        margin = min(others) - scores[seat]
        return _sigmoid(margin / (self.scale * math.sqrt(1 + left)))


COLUMBO: GameSpec = _ColumboSpec("columbo", _strongest(columbo_bots.BOTS), columbo_bots.BOTS["reference"],
                                 lower_wins=True, scale=5.0, sampler=SAMPLERS["columbo"],
                                 classify=_classify_columbo, rank=_rank_columbo)


SPECS: dict[str, GameSpec] = {"gomori": GOMORI, "ruhd": RUHD, "rummy": RUMMY, "columbo": COLUMBO}


def get_spec(game: str) -> GameSpec:
    """The spec of a game; KeyError for an unknown slug."""
    return SPECS[game]


__all__ = ["SPECS", "GameSpec", "Option", "get_spec", "option_key"]
