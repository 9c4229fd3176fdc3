"""Glicko-2 ratings, step by step as in Mark Glickman's "Example of the Glicko-2 system" (2013).

Pure Python and standard library only, so it can be tested (and reasoned about) without Django.
A rating period here is one finished match: a player's results in it are rated together against the
opponents' ratings from before the match.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

# The Glicko-2 scale: r = 173.7178 * mu + 1500, RD = 173.7178 * phi.
SCALE = 173.7178
START_RATING = 1500.0
START_DEVIATION = 350.0
START_VOLATILITY = 0.06
# The system constant: how much the volatility may change; the paper suggests 0.3 to 1.2.
TAU = 0.5
# The convergence tolerance of the volatility iteration (step 5).
EPSILON = 0.000001


@dataclass(frozen=True)
class Rating:
    """A player's rating, its deviation (RD) and volatility, on the Glicko (1500-centred) scale."""

    rating: float = START_RATING
    deviation: float = START_DEVIATION
    volatility: float = START_VOLATILITY


def _g(phi: float) -> float:
    """Step 3's g(phi): how much an opponent's uncertainty damps the result's weight."""
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _expected(mu: float, mu_j: float, g_j: float) -> float:
    """Step 3's E(mu, mu_j, phi_j): the expected score against opponent j."""
    return 1.0 / (1.0 + math.exp(-g_j * (mu - mu_j)))


def _new_volatility(sigma: float, phi: float, v: float, delta: float, tau: float) -> float:
    """Step 5: the new volatility, the root of f found by the Illinois (regula falsi) iteration."""
    a = math.log(sigma * sigma)
    phi2 = phi * phi
    delta2 = delta * delta

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta2 - phi2 - v - ex) / (2.0 * (phi2 + v + ex) ** 2) - (x - a) / (tau * tau)

    big_a = a
    if delta2 > phi2 + v:
        big_b = math.log(delta2 - phi2 - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > EPSILON:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2.0
        big_b, f_b = big_c, f_c
    return math.exp(big_a / 2.0)


def rate(player: Rating, results: Sequence[tuple[Rating, float]], tau: float = TAU) -> Rating:
    """The player's rating after one rating period with these (opponent, score) results.

    A score is 1 for a win, 0.5 for a draw and 0 for a loss. With no results only the deviation grows
    (step 6 alone), as the paper prescribes for a player who did not compete.
    """
    # Step 2: to the Glicko-2 scale.
    mu = (player.rating - START_RATING) / SCALE
    phi = player.deviation / SCALE
    sigma = player.volatility
    if not results:
        phi_star = math.sqrt(phi * phi + sigma * sigma)
        return Rating(player.rating, phi_star * SCALE, sigma)

    # Step 3: the estimated variance v from the game outcomes alone; step 4: the estimated improvement delta.
    inverse_v = 0.0
    improvement = 0.0
    for opponent, score in results:
        mu_j = (opponent.rating - START_RATING) / SCALE
        g_j = _g(opponent.deviation / SCALE)
        e_j = _expected(mu, mu_j, g_j)
        inverse_v += g_j * g_j * e_j * (1.0 - e_j)
        improvement += g_j * (score - e_j)
    v = 1.0 / inverse_v
    delta = v * improvement

    # Step 5: the new volatility.
    sigma_new = _new_volatility(sigma, phi, v, delta, tau)

    # Step 6: the pre-period deviation; step 7: the new deviation and rating.
    phi_star = math.sqrt(phi * phi + sigma_new * sigma_new)
    phi_new = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    mu_new = mu + phi_new * phi_new * improvement

    # Step 8: back to the Glicko scale.
    return Rating(SCALE * mu_new + START_RATING, SCALE * phi_new, sigma_new)
