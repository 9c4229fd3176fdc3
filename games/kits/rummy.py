"""Rummy's kit: Rommé for two."""

from __future__ import annotations

from functools import cache
from typing import Any

from ..bots import rummy as bots
from ..engines.base import card_name
from ..engines.rummy import ENGINE as RUMMY
from ..engines.rummy import card_penalty, joker_stands, new_pack
from ..presenters import card
from ..presenters import rummy as rummy_table
from ..presenters.rummy import describe_pack
from . import Kit, OptionSpec
from . import rummy_analysis as analysis


def _pack(cards: list[str], *, added: str | None = None) -> dict[str, Any]:
    pack = new_pack(cards, 0)
    captions = {j["at"]: "as " + " or ".join(card_name(j["rank"] + s) for s in j["suits"]) for j in joker_stands(pack)}
    return {
        "title": describe_pack(pack.kind, pack.cards, pack.low),
        "value": pack.value,
        "cards": [{**card(code), "caption": captions.get(at, ""), "added": code == added}
                  for at, code in enumerate(pack.cards)],
    }


def _lay_down(packs: list[list[str]], minimum: int = 40) -> dict[str, Any]:
    drawn = [_pack(cards) for cards in packs]
    total = sum(p["value"] for p in drawn)
    return {"packs": drawn, "total": total, "minimum": minimum, "enough": total >= minimum}


@cache
def _examples() -> dict[str, Any]:
    left = ["KS", "7H", "XB", "3D"]
    return {
        "values": [{"card": card(c), "value": v} for c, v in
                   (("2H", "2"), ("9C", "9"), ("JD", "10"), ("QS", "10"), ("KH", "10"), ("AC", "10 or 1"),
                    ("XR", "what it stands for"))],
        "sets": [_pack(["7H", "7S", "7D"]), _pack(["QH", "QD", "QC", "XB"])],
        "runs": [_pack(["4H", "5H", "6H", "7H"]), _pack(["AS", "2S", "3S"]), _pack(["QD", "KD", "AD"]),
                 _pack(["8C", "XB", "10C"])],
        "not_run": [card(c) for c in ("KC", "AC", "2C")],
        "first": _lay_down([["KH", "KD", "KS"], ["2C", "3C", "4C", "5C"]]),
        "short": _lay_down([["3H", "4H", "5H"], ["8S", "8D", "8C"]]),
        "joker_before": _pack(["7D", "8D", "XR", "10D"]),
        "joker_after": _pack(["7D", "8D", "9D", "10D"], added="9D"),
        "joker": card("XR"),
        "nine": card("9D"),
        "left": [{"card": card(c), "points": card_penalty(c)} for c in left],
        "left_total": sum(card_penalty(c) for c in left),
    }


KIT = Kit(
    slug="rummy",
    blurb="Rommé for two with two decks and four jokers: lay down sets and runs, then get rid of every card.",
    lower_is_better=True,
    score_label="penalty points",
    score_unit="pen.",
    engine=RUMMY,
    presenter=rummy_table,
    bots=bots.BOTS,
    usual_players=2,
    analysis=analysis.SPEC,
    level_blurbs=bots.LEVEL_BLURBS,
    options=(OptionSpec("min_first_meld", "Minimum first lay-down", "int", minimum=0, maximum=120),),
    table_css="css/rummy.css",
    table_js="js/rummy.js",
    rules_examples=_examples,
    log_verbs={"lays": "lay", "adds": "add"},
)
