#!/usr/bin/env python3
"""Every bot level of every game rated by bot-against-bot Glicko-2 (games/ratings/glicko2.py).

    nice -n 10 .venv/bin/python bench/bot_ratings.py [--rounds 100] [--game rummy ...] [--write]

For each game, every pair of levels plays --rounds rounds of two seeded games (each level once in each seat;
two players, Columbo its default 4 rounds); a win scores 1, a draw (or a shared win) 0.5. Each round is one
Glicko-2 rating period: every level is rated on its round's games against the others' ratings from before
the round. All levels start at 1500, so the levels' ratings sit around 1500 (the scale people start on).
Prints the table (rating, deviation, and each pairing's score); the figures are kept as LEVEL_RATINGS in
games/bots/__init__.py (the lobby shows them; level_near picks a level for a person's rating); --write prints
that constant ready to paste.
"""

from __future__ import annotations

import argparse
import importlib
import itertools
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.bots import GAMES, play
from games.ratings.glicko2 import Rating, rate


def rate_game(game: str, rounds: int, first_seed: int) -> tuple[dict[str, Rating], dict[tuple[str, str], float]]:
    """(level -> rating, (a, b) -> a's score share against b) after `rounds` rounds of the game's levels."""
    module = importlib.import_module(f"games.bots.{game}")
    levels = list(module.BOTS)
    ratings = {level: Rating() for level in levels}
    score: dict[tuple[str, str], float] = {}
    games: dict[tuple[str, str], int] = {}
    seed = first_seed
    for _ in range(rounds):
        results: dict[str, list[tuple[Rating, float]]] = {level: [] for level in levels}
        for a, b in itertools.combinations(levels, 2):
            for a_seat in (0, 1):
                seats = [module.BOTS[a], module.BOTS[b]] if a_seat == 0 else [module.BOTS[b], module.BOTS[a]]
                result = play(game, seats, seed, [[], []])
                seed += 1
                winners = result["winners"]
                points = 0.5 if result.get("draw") or len(winners) != 1 else float(winners[0] == a_seat)
                results[a].append((ratings[b], points))
                results[b].append((ratings[a], 1.0 - points))
                score[a, b] = score.get((a, b), 0.0) + points
                score[b, a] = score.get((b, a), 0.0) + 1.0 - points
                games[a, b] = games.get((a, b), 0) + 1
                games[b, a] = games.get((b, a), 0) + 1
        ratings = {level: rate(ratings[level], results[level]) for level in levels}
    return ratings, {pair: score[pair] / games[pair] for pair in score}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=100, help="rounds per game (2 games per pair of levels each)")
    parser.add_argument("--game", action="append", choices=GAMES, help="only these games (repeatable)")
    parser.add_argument("--first-seed", type=int, default=100_000)
    parser.add_argument("--write", action="store_true", help="also print LEVEL_RATINGS as Python")
    args = parser.parse_args()
    print(f"{args.rounds} rounds per game, 2 games per pair of levels a round (seats alternated), "
          f"one Glicko-2 rating period a round")
    header = f"{'game':8} {'level':10} {'rating':>7} {'RD':>5}  score against the other levels"
    print(header)
    print("-" * len(header))
    table: dict[str, dict[str, int]] = {}
    for game in args.game or GAMES:
        started = time.perf_counter()
        ratings, shares = rate_game(game, args.rounds, args.first_seed)
        table[game] = {level: round(r.rating) for level, r in ratings.items()}
        for level, r in ratings.items():
            against = ", ".join(f"{b} {share:.0%}" for (a, b), share in shares.items() if a == level)
            print(f"{game:8} {level:10} {r.rating:7.0f} {r.deviation:5.0f}  {against}")
        print(f"{'':8} [{time.perf_counter() - started:.0f} s]", flush=True)
    if args.write:
        print("LEVEL_RATINGS: dict[str, dict[str, int]] = {")
        for game, levels in table.items():
            print(f"    {game!r}: {levels!r},")
        print("}")


if __name__ == "__main__":
    main()
