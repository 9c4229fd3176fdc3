"""nnmm/gomori's greedy bot (bots/greedy_bot): every (card, cell) play scored 2 x cards won + 1 if the card
was stacked (a "combo", which lets it play again), a random pick among the best; a king's target drawn at random
among the face-up tops before the play is scored; its first card of the game at random. It plays again while
its last play was stacked, choosing afresh each time, as the original does within one turn."""

from __future__ import annotations

import random

from games.engines.base import Action, Cell, View
from games.engines.gomori import RANK, resolve_play


def greedy(view: View, legal: list[Action], rng: random.Random) -> tuple[Action | None, str]:
    if not legal:
        return None, "has nothing to play"
    stacks: dict[Cell, tuple[str, ...]] = {(f["at"][0], f["at"][1]): tuple(f["stack"]) for f in view["field"]}
    down = frozenset(cell for cell, f in zip(stacks, view["field"], strict=True) if not f["face_up"])
    if not stacks:
        return rng.choice(legal), "opens at random"
    face_up = [cell for cell in stacks if cell not in down]
    # (card, cell) -> the legal king targets there; one play per (card, cell) is scored, as in the original
    plays: dict[tuple[str, Cell], list[Action]] = {}
    for action in legal:
        plays.setdefault((action["card"], (action["at"][0], action["at"][1])), []).append(action)
    best: list[Action] = []
    top = 0
    for (card, at), options in plays.items():
        action = options[0]
        target: Cell | None = None
        if RANK[card] == "K" and at in stacks:
            target = rng.choice(face_up) if face_up else at
            chosen = [a for a in options if tuple(a.get("king_target", ())) == target]
            action = chosen[0] if chosen else options[0]
            target = (action["king_target"][0], action["king_target"][1])
        outcome = resolve_play(stacks, down, card, at, target)
        score = 2 * len(outcome.gathered) + (1 if outcome.stacked else 0)
        if score > top:
            best, top = [action], score
        elif score == top:
            best.append(action)
    return rng.choice(best), f"greedy play scoring {top}"


OPPONENT = greedy
