#!/usr/bin/env python3
"""Engine benchmark: full random games per second, actions per second, reference bot decision time.

    .venv/bin/python bench/engines.py <slug> [--players N] [--seconds S] [--bot reference]
"""

from __future__ import annotations

import argparse
import importlib
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.engines import get_engine


def random_game(engine, players: int, seed: int, max_actions: int = 100_000) -> int:
    """Play one game with uniformly random legal actions; returns the number of actions applied."""
    rng = random.Random(seed)
    state = engine.new_game(players, seed=seed)
    actions = 0
    while not engine.is_over(state) and actions < max_actions:
        seat = rng.choice(engine.to_act(state))
        legal = engine.legal_actions(state, seat)
        if not legal:
            continue
        state = engine.apply(state, seat, rng.choice(legal))
        actions += 1
    return actions


def bot_game(engine, bot, players: int, seed: int, timings: list[float]) -> None:
    """Every seat played by the same bot; records each decision's wall time."""
    rng = random.Random(seed)
    state = engine.new_game(players, seed=seed)
    steps = 0
    while not engine.is_over(state) and steps < 20_000:
        steps += 1
        must = set(engine.must_act(state))
        acted = False
        for seat in engine.to_act(state):
            view = engine.view(state, seat)
            legal = engine.legal_actions(state, seat)
            start = time.perf_counter()
            action, _reason = bot(view, legal, rng)
            timings.append(time.perf_counter() - start)
            if action is not None:
                state = engine.apply(state, seat, action)
                acted = True
                break
            if seat in must:
                raise SystemExit(f"the bot returned no action for seat {seat}, which must act")
        if not acted:
            raise SystemExit("no seat acted")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("slug")
    parser.add_argument("--players", type=int, default=None)
    parser.add_argument("--seconds", type=float, default=5.0, help="time budget for each measurement")
    parser.add_argument("--bot", default="reference")
    args = parser.parse_args()

    engine = get_engine(args.slug)
    players = args.players or max(2, engine.min_players)

    games = actions = 0
    start = time.perf_counter()
    while time.perf_counter() - start < args.seconds:
        actions += random_game(engine, players, seed=games)
        games += 1
    elapsed = time.perf_counter() - start
    print(f"{engine.name}, {players} players")
    print(f"random games:  {games / elapsed:8.1f} full games/s  ({games} games in {elapsed:.1f} s)")
    print(f"actions:       {actions / elapsed:8.0f} actions/s  ({actions / games:.0f} per game)")

    bot = importlib.import_module(f"games.bots.{args.slug}").BOTS[args.bot]
    timings: list[float] = []
    start = time.perf_counter()
    seed = 0
    while time.perf_counter() - start < args.seconds:
        bot_game(engine, bot, players, seed, timings)
        seed += 1
    print(
        f"{args.bot} bot:  p50 {percentile(timings, 0.50) * 1000:.2f} ms  "
        f"p99 {percentile(timings, 0.99) * 1000:.2f} ms  max {max(timings) * 1000:.2f} ms  "
        f"({len(timings)} decisions, {seed} games)"
    )
    print(f"mean decision: {statistics.fmean(timings) * 1000:.2f} ms")


if __name__ == "__main__":
    main()
