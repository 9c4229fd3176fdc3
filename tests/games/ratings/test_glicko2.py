"""Glicko-2 against Glickman's published worked example ("Example of the Glicko-2 system", 2013)."""

from __future__ import annotations

import math

import pytest

from games.ratings.glicko2 import SCALE, Rating, _expected, _g, rate

PLAYER = Rating(1500, 200, 0.06)
OPPONENTS = [Rating(1400, 30), Rating(1550, 100), Rating(1700, 300)]
SCORES = [1.0, 0.0, 0.0]


def test_the_worked_example_gives_the_published_rating_deviation_and_volatility() -> None:
    after = rate(PLAYER, list(zip(OPPONENTS, SCORES, strict=True)), tau=0.5)
    assert after.rating == pytest.approx(1464.06, abs=0.01)
    assert after.deviation == pytest.approx(151.52, abs=0.01)
    assert after.volatility == pytest.approx(0.05999, abs=0.00001)


def test_the_intermediate_steps_match_the_paper() -> None:
    mu = (PLAYER.rating - 1500) / SCALE
    g = [_g(o.deviation / SCALE) for o in OPPONENTS]
    e = [_expected(mu, (o.rating - 1500) / SCALE, gj) for o, gj in zip(OPPONENTS, g, strict=True)]
    assert [round(x, 4) for x in g] == [0.9955, 0.9531, 0.7242]
    assert [round(x, 3) for x in e] == [0.639, 0.432, 0.303]
    v = 1 / sum(gj * gj * ej * (1 - ej) for gj, ej in zip(g, e, strict=True))
    delta = v * sum(gj * (s - ej) for gj, ej, s in zip(g, e, SCORES, strict=True))
    # The paper rounds g and E before summing, hence its 1.7785 for an exact 1.77898.
    assert v == pytest.approx(1.7785, abs=0.001)
    assert delta == pytest.approx(-0.4834, abs=0.001)


def test_a_player_who_did_not_compete_only_grows_uncertain() -> None:
    after = rate(PLAYER, [])
    assert after.rating == PLAYER.rating
    assert after.volatility == PLAYER.volatility
    assert after.deviation == pytest.approx(SCALE * math.sqrt((200 / SCALE) ** 2 + 0.06**2))


def test_two_newcomers_move_symmetrically() -> None:
    winner = rate(Rating(), [(Rating(), 1.0)])
    loser = rate(Rating(), [(Rating(), 0.0)])
    assert winner.rating > 1500 > loser.rating
    assert winner.rating - 1500 == pytest.approx(1500 - loser.rating)
    assert winner.deviation == pytest.approx(loser.deviation)
    assert winner.deviation < 350


def test_a_draw_between_equals_changes_no_rating() -> None:
    after = rate(Rating(1620, 80, 0.06), [(Rating(1620, 80, 0.06), 0.5)])
    assert after.rating == pytest.approx(1620)
    assert after.deviation < 80


def test_a_big_upset_takes_the_large_volatility_branch_and_converges() -> None:
    # delta^2 > phi^2 + v here: step 5 starts its bracket at ln(delta^2 - phi^2 - v).
    strong = Rating(2200, 40, 0.06)
    after = rate(strong, [(Rating(1200, 40), 0.0)] * 6)
    assert math.isfinite(after.rating) and after.rating < 2200
    assert after.volatility > strong.volatility
