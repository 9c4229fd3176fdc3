"""Columbo's kit: Golf at full speed, with slaps."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

from ..bots import columbo as bots
from ..engines.base import card_name
from ..engines.columbo import ENGINE as COLUMBO
from ..engines.columbo import TAP_LIMIT, TAP_PENALTY, SlapTooLate, card_points
from ..presenters import card
from ..presenters import columbo as columbo_table
from . import ActionContext, Kit, OptionSpec
from . import columbo_analysis as analysis
from .figures import Figure, FigureFacts, MatchRecord, MoveLoader


def _signed(points: int) -> str:
    return f"−{-points}" if points < 0 else str(points)  # a true minus sign, as printed in the rules


def _cb_hand(seat: int, name: str, cards: Sequence[str | None], *, me: bool = False, shown: tuple[int, ...] = (),
             marks: dict[int, str] | None = None, tapped: bool = False) -> dict[str, Any]:
    """A grid: None is an empty slot; `shown` the slots drawn face-up; `marks` what happened to a slot."""
    marks = marks or {}
    slots = []
    for k, code in enumerate(cards):
        where = "Your card" if me else f"{name}'s card"
        if code is None:
            slots.append({"seat": seat, "slot": k, "empty": True, "label": f"{where}: empty"})
            continue
        face = card(code) if k in shown else None
        slots.append({
            "seat": seat, "slot": k, "empty": False, "face": face, "flash": None, "remembered": False,
            "known": False, "mark": marks.get(k, ""), "seen_by": "",
            "label": f"{where}: {card_name(code)}" if face else f"{where}: face-down card",
        })
    columns: list[list[dict[str, Any] | None]] = [[slots[0], slots[2]], [slots[1], slots[3]]]
    for first in range(4, len(slots), 2):
        columns.append([slots[first], slots[first + 1] if first + 1 < len(slots) else None])
    return {"seat": seat, "name": name, "me": me, "columns": columns, "cards": sum(1 for c in cards if c),
            "tapped": tapped, "current": False, "peeking": False, "total": None, "dealer": False}


def _cb_result(seat: int, name: str, cards: list[str], *, tapper: bool = False) -> dict[str, Any]:
    points = sum(card_points(c) for c in cards)
    penalty = TAP_PENALTY if tapper and points >= TAP_LIMIT else 0
    faces = [{"face": card(c), "points": card_points(c)} for c in cards]
    return {"seat": seat, "name": name, "columns": [[faces[0], faces[2]], [faces[1], faces[3]]],
            "points": points, "penalty": penalty, "total": points + penalty, "tapper": tapper, "me": False}


def _cb_results(rows: list[dict[str, Any]], ended: str) -> dict[str, Any]:
    """A round's results as the table's results macro takes them (round 1, so no totals by round)."""
    low = min(row["total"] for row in rows)
    for row in rows:
        row["leading"] = row["total"] == low
    return {"solo": False, "results": {
        "round": 1, "final": False, "ended": ended, "rows": rows, "history": [],
        "totals": [row["total"] for row in rows], "names": [row["name"] for row in rows],
        "fresh": True, "tap_limit": TAP_LIMIT, "tap_penalty": TAP_PENALTY,
    }}


@cache
def _examples() -> dict[str, Any]:
    values = [{"card": card(c), "points": card_points(c), "text": _signed(card_points(c))} for c in
              ("AS", "2D", "7C", "10H", "JS", "QD", "KC", "KH")]
    hidden = ["4H", "JC", "9S", "2D"]
    ben = ["KS", "3C", "8D", "QH"]
    good_tap = _cb_results([
        _cb_result(0, "Ada", ["AH", "2S", "KH", "AC"], tapper=True),
        _cb_result(1, "Ben", ["KS", "3C", "8D", "QH"]),
        _cb_result(2, "Cy", ["5C", "6H", "AD", "4S"]),
    ], "Ada tapped")
    bad_tap = _cb_results([
        _cb_result(0, "Ada", ["AH", "2S", "4C", "3D"], tapper=True),
        _cb_result(1, "Ben", ["9S", "3C", "8D", "2H"]),
    ], "Ada tapped")
    return {
        "values": values,
        "peek": _cb_hand(0, "You", hidden, me=True, shown=(2, 3)),
        "stock_top": None,
        "discard": {"six": card("6S"), "eight": card("8S"), "nine": card("9D"), "jack": card("JD"),
                    "queen": card("QC"), "drawn": card("4C"), "seven": card("7H")},
        "look_other": _cb_hand(1, "Ben", ben, shown=(1,), marks={1: "looked"}),
        "look_own": _cb_hand(0, "You", hidden, me=True, shown=(0,), marks={0: "looked"}),
        "jack_mine": _cb_hand(0, "You", hidden, me=True, marks={1: "exchanged"}),
        "jack_other": _cb_hand(1, "Ben", ben, marks={2: "exchanged"}),
        "queen_other": _cb_hand(1, "Ben", ben, shown=(0,), marks={0: "looked"}),
        "queen_swap_mine": _cb_hand(0, "You", hidden, me=True, marks={3: "exchanged"}),
        "queen_swap_other": _cb_hand(1, "Ben", ben, marks={0: "exchanged"}),
        "slap_own_hit": _cb_hand(0, "You", ["4H", None, "9S", "2D"], me=True),
        "slap_other_hit": _cb_hand(1, "Ben", ["KS", "3C", "5D", "QH", "10C"], marks={2: "dealt", 4: "dealt"}),
        "slap_own_miss": _cb_hand(0, "You", ["4H", "JC", "9S", "2D", "7D"], me=True, shown=(1,),
                                  marks={1: "slapped", 4: "dealt"}),
        "slap_other_miss": _cb_hand(1, "Ben", ben, shown=(3,), marks={3: "slapped"}),
        "slap_other_miss_me": _cb_hand(0, "You", ["4H", "JC", "9S", "2D", "5S", "AC"], me=True,
                                       marks={4: "dealt", 5: "dealt"}),
        "slapped_six": card("6H"),
        "good_tap": good_tap,
        "bad_tap": bad_tap,
        "tap_limit": TAP_LIMIT,
        "tap_penalty": TAP_PENALTY,
    }


def _timed_tap(action: Any, context: ActionContext) -> Any:
    """A solo game's tap carries the seconds since the start, measured by the server (the browser's word is
    dropped): the time bonus depends on it."""
    if context.players != 1 or not isinstance(action, dict) or action.get("type") != "tap":
        return action
    started = context.started_at or context.now
    return {**{k: v for k, v in action.items() if k != "seconds"},
            "seconds": max(0, int((context.now - started).total_seconds()))}


FIGURES = (Figure("best_round", "Lowest round score", "low", unit="points"),
           Figure("best_solo", "Best solo score", "high"))


def _figures(match: MatchRecord, facts: FigureFacts, moves: MoveLoader) -> None:
    """Each seat's lowest round score, from the public view of the final state (every round's scores); a solo
    game played to its end, its score."""
    if match.state is None:
        return
    view = COLUMBO.view(COLUMBO.load(match.state), None)
    for entry in view.get("rounds_played", []):
        for seat, score in enumerate(entry.get("scores", [])):
            facts.report(seat, "best_round", FIGURES[0].best(facts.extras.get(seat, {}).get("best_round"), score))
    if facts.solo and facts.played_out and facts.seats and facts.seats[0].score is not None:
        facts.report(0, "best_solo", facts.seats[0].score)


KIT = Kit(
    slug="columbo",
    blurb="Golf at full speed: keep your hand low while you barely know it, and slap matching cards first.",
    lower_is_better=True,
    score_label="points",
    engine=COLUMBO,
    presenter=columbo_table,
    bots=bots.BOTS,
    usual_players=4,
    analysis=analysis.SPEC,
    level_blurbs=bots.LEVEL_BLURBS,
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
    reaction_delay=bots.REACTION_DELAY,
    patience=bots.patience,
    table_css="css/columbo.css",
    prepare_action=_timed_tap,
    lingering_refusals=(SlapTooLate,),
    figures=FIGURES,
    stats_extra=_figures,
    rules_examples=_examples,
    log_verbs={"taps": "tap", "slaps": "slap", "peeks": "peek", "looks": "look", "swaps": "swap",
               "exchanges": "exchange"},
)
