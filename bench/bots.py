#!/usr/bin/env python3
"""Our bots against the original projects' own strategies (bench/opponents/): wins, draws, losses, think time.

    nice -n 10 .venv/bin/python bench/bots.py [--games 1000] [--game gomori --game ruhd] [--budget-scale 0.5]
                                             [--levels strongest,rookie] [--jobs 2]

For every game, the strongest level and the Rookie each play --games seeded games against the game's opponent,
seats alternated (game i: seed i, our bot in seat i % 2). Two players; Columbo plays its default 4 rounds and
the lowest total wins. A draw (or a shared win) counts as not won. Each line gives the wins / draws / losses
with a 95% Wilson interval on the win rate, the p50 / p99 think time of each side (ms per decision), and the
level's bot-against-bot rating (games.bots.LEVEL_RATINGS, measured by bench/bot_ratings.py).

--budget-scale multiplies the search budgets (node counts and time limits) of our bots: 0.5 shows how much a
machine twice as slow would cost.
"""

from __future__ import annotations

import argparse
import importlib
import math
import multiprocessing
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.bots import level_rating
from games.engines import get_engine

GAMES = ("gomori", "ruhd", "rummy", "columbo")
TARGETS = {"gomori": 0.75, "ruhd": 0.65, "rummy": 0.65, "columbo": 0.65}
ROOKIE_MAX = 0.30  # the Rookie must lose at least 70% of its games to the opponent
STEP_CAP = 20_000  # actions per game: a safety net, no game of ours comes near it

Bot = Callable[[dict[str, Any], list[dict[str, Any]], random.Random], tuple[dict[str, Any] | None, str]]


@dataclass
class Tally:
    """One pairing's results and think times."""

    wins: int = 0
    draws: int = 0
    losses: int = 0
    ours: list[float] = field(default_factory=list)
    theirs: list[float] = field(default_factory=list)

    def add(self, other: Tally) -> None:
        self.wins += other.wins
        self.draws += other.draws
        self.losses += other.losses
        self.ours += other.ours
        self.theirs += other.theirs


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a win rate."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def bots_of(game: str) -> tuple[Any, Bot]:
    """(our bots module, the opponent)."""
    ours = importlib.import_module(f"games.bots.{game}")
    theirs = importlib.import_module(f"bench.opponents.{game}")
    return ours, theirs.OPPONENT


def play(game: str, seats: list[Bot], seed: int, times: list[list[float]]) -> dict[str, Any]:
    """One seeded game; every seat that may act is asked, optional moves (Columbo's slaps and card actions)
    race in a random order ahead of the seat the game waits on, as equally quick players would."""
    engine = get_engine(game)
    state = engine.new_game(len(seats), seed=seed)
    order = random.Random(f"race:{seed}")
    rngs = [random.Random(f"{seed}:{s}") for s in range(len(seats))]
    for _ in range(STEP_CAP):
        if engine.is_over(state):
            return engine.result(state)
        must = set(engine.must_act(state))
        wanted: list[tuple[int, dict[str, Any]]] = []
        for seat in engine.to_act(state):
            view = engine.view(state, seat)
            legal = engine.legal_actions(state, seat)
            started = time.perf_counter()
            action, _ = seats[seat](view, legal, rngs[seat])
            times[seat].append(time.perf_counter() - started)
            if action is not None:
                wanted.append((seat, action))
            elif seat in must:
                raise RuntimeError(f"{game}: seat {seat} must act but chose nothing (seed {seed})")
        optional = [w for w in wanted if w[0] not in must]
        order.shuffle(optional)
        seat, action = (optional or wanted)[0]
        state = engine.apply(state, seat, action)
    raise RuntimeError(f"{game}: seed {seed} did not end in {STEP_CAP} actions")


def run_block(args: tuple[str, str, int, int, float]) -> Tally:
    """Games [start, stop) of one pairing (a worker's share)."""
    game, level, start, stop, scale = args
    ours, opponent = bots_of(game)
    if hasattr(ours, "BUDGET_SCALE"):
        ours.BUDGET_SCALE = scale
    bot = ours.BOTS[level]
    tally = Tally()
    for i in range(start, stop):
        me = i % 2
        seats = [bot, opponent] if me == 0 else [opponent, bot]
        times: list[list[float]] = [[], []]
        result = play(game, seats, i, times)
        winners = result["winners"]
        if result.get("draw") or len(winners) != 1:
            tally.draws += 1
        elif winners[0] == me:
            tally.wins += 1
        else:
            tally.losses += 1
        tally.ours += times[me]
        tally.theirs += times[1 - me]
    return tally


def strongest(game: str) -> str:
    return list(importlib.import_module(f"games.bots.{game}").BOTS)[-1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=1000, help="games per pairing (default 1000)")
    parser.add_argument("--game", action="append", choices=GAMES, help="only these games (repeatable)")
    parser.add_argument("--levels", default="strongest,rookie",
                        help="comma-separated level keys of our bots, or 'strongest' / 'rookie' / 'all'")
    parser.add_argument("--budget-scale", type=float, default=1.0, help="multiply our bots' search budgets")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (the games are split between them)")
    parser.add_argument("--first-seed", type=int, default=0)
    args = parser.parse_args()

    print(f"{args.games} games per pairing, seats alternated, budget scale {args.budget_scale}, {args.jobs} job(s)")
    header = (f"{'game':8} {'level':10} {'rating':>6} {'wins':>5} {'draws':>5} {'losses':>6}  {'win rate (95% CI)':24} "
              f"{'target':>7}  {'ours p50/p99 ms':>16}  {'opp. p50/p99 ms':>16}")
    print(header)
    print("-" * len(header))
    pool = multiprocessing.Pool(args.jobs) if args.jobs > 1 else None
    for game in args.game or GAMES:
        module = importlib.import_module(f"games.bots.{game}")
        keys = list(module.BOTS)
        levels: list[str] = []
        for want in args.levels.split(","):
            if want == "strongest":
                levels.append(keys[-1])
            elif want == "rookie":
                levels.append(keys[0])
            elif want == "all":
                levels += keys
            else:
                levels.append(want)
        for level in dict.fromkeys(levels):
            started = time.perf_counter()
            step = math.ceil(args.games / max(1, args.jobs * 4))
            blocks = [(game, level, s, min(s + step, args.first_seed + args.games), args.budget_scale)
                      for s in range(args.first_seed, args.first_seed + args.games, step)]
            tally = Tally()
            for part in (pool.imap_unordered(run_block, blocks) if pool else map(run_block, blocks)):
                tally.add(part)
            n = tally.wins + tally.draws + tally.losses
            low, high = wilson(tally.wins, n)
            if level == keys[-1]:
                target = f">={TARGETS[game]:.0%}"
            elif level == keys[0]:
                target = f"<={ROOKIE_MAX:.0%}"
            else:
                target = ""
            rating = level_rating(game, level)
            print(f"{game:8} {level:10} {rating or '':>6} {tally.wins:5} {tally.draws:5} {tally.losses:6}  "
                  f"{tally.wins / n:5.1%} ({low:5.1%}-{high:5.1%})  {target:>7}  "
                  f"{percentile(tally.ours, .5) * 1000:6.2f}/{percentile(tally.ours, .99) * 1000:7.2f}  "
                  f"{percentile(tally.theirs, .5) * 1000:6.2f}/{percentile(tally.theirs, .99) * 1000:7.2f}"
                  f"   [{time.perf_counter() - started:.0f} s]", flush=True)
    if pool:
        pool.close()


if __name__ == "__main__":
    main()
