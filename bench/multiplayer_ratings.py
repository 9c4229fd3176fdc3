"""How far one match at a table of n moves a rating, under three rules, against the bound the site keeps: one
two-player game won or lost against an opponent of the table's average rating.

    .venv/bin/python bench/multiplayer_ratings.py [--tables 20000] [--seed 1]

- full pairings (the rule before): each pairing by place a whole Glicko-2 game, all in one rating period;
- weighted pairings: each pairing by place weighted 1/(n-1) in the Glicko-2 sums (the variance and the improvement);
- one game against the table (the rule the site took, games.ratings.stats.table_game): the pairings' scores by place
  averaged, against the opponents' average rating and their deviations' root mean square.

Prints the tour's tables, then, over random tables of 3-6 seats (ratings 700-2300, deviations 45-350, the player
last), the largest ratio of each rule's move to the bound. Pure: no database.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games.ratings import glicko2


def weighted(me: glicko2.Rating, opponents: list[glicko2.Rating], scores: list[float]) -> float:
    """Glicko-2 (Glickman's steps 3-8) with each pairing weighted 1/(n-1): the move in rating points."""
    mu, phi = (me.rating - glicko2.START_RATING) / glicko2.SCALE, me.deviation / glicko2.SCALE
    weight = 1 / len(opponents)
    inverse_v = improvement = 0.0
    for opponent, score in zip(opponents, scores, strict=True):
        g = glicko2._g(opponent.deviation / glicko2.SCALE)
        e = glicko2._expected(mu, (opponent.rating - glicko2.START_RATING) / glicko2.SCALE, g)
        inverse_v += weight * g * g * e * (1 - e)
        improvement += weight * g * (score - e)
    v = 1 / inverse_v
    sigma = glicko2._new_volatility(me.volatility, phi, v, v * improvement, glicko2.TAU)
    phi_star = math.sqrt(phi * phi + sigma * sigma)
    phi_new = 1 / math.sqrt(1 / phi_star ** 2 + 1 / v)
    return glicko2.SCALE * phi_new * phi_new * improvement


def average(opponents: list[glicko2.Rating]) -> glicko2.Rating:
    return glicko2.Rating(sum(o.rating for o in opponents) / len(opponents),
                          math.sqrt(sum(o.deviation ** 2 for o in opponents) / len(opponents)))


def moves(me: glicko2.Rating, opponents: list[glicko2.Rating]) -> dict[str, float]:
    """The player last: each rule's move, and the bound (one game lost against the table's average)."""
    lost = [0.0] * len(opponents)
    bound = glicko2.rate(me, [(average(opponents), 0.0)]).rating - me.rating
    return {
        "full pairings": glicko2.rate(me, list(zip(opponents, lost, strict=True))).rating - me.rating,
        "weighted pairings": weighted(me, opponents, lost),
        "one game against the table": bound,  # last place: exactly that game lost
        "bound": bound,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    new = glicko2.Rating()
    print("A provisional 1500, last at the tour's tables (bots at deviation 50):")
    for name, ratings in (("Columbo: Regular 1620, Rookie 767", [1620, 767]),
                          ("Ruhd: two Regulars 1663", [1663, 1663]),
                          ("1300 and 1700", [1300, 1700]), ("1700 and 1900", [1700, 1900])):
        found = moves(new, [glicko2.Rating(r, 50) for r in ratings])
        print(f"  {name:36} " + "  ".join(f"{rule} {value:+.0f}" for rule, value in found.items()))
    rng = random.Random(args.seed)
    worst = {rule: 0.0 for rule in ("full pairings", "weighted pairings", "one game against the table")}
    for _ in range(args.tables):
        players = rng.randint(3, 6)
        me = glicko2.Rating(rng.uniform(700, 2300), rng.uniform(45, 350))
        opponents = [glicko2.Rating(rng.uniform(700, 2300), rng.uniform(45, 350)) for _ in range(players - 1)]
        found = moves(me, opponents)
        for rule in worst:
            worst[rule] = max(worst[rule], found[rule] / found["bound"])
    print(f"Over {args.tables} random tables of 3-6 (the player last), the largest move as a multiple of the bound:")
    for rule, ratio in worst.items():
        print(f"  {rule:28} {ratio:.2f}x")


if __name__ == "__main__":
    main()
