"""A real match of each game analyses without error, with one entry per decision; the result is JSON and
deterministic; the marks, values and accuracy hold together."""

from __future__ import annotations

import json
from typing import Any

import pytest
from analysis_helpers import SMALL

from games.analysis import THRESHOLDS, AnalysisError, Budget, analyse, decisions_of, match_accuracy, move_accuracy
from games.analysis.selfplay import bots_of, play_match

OPTIONS: dict[str, dict[str, Any] | None] = {"gomori": None, "ruhd": None, "rummy": None, "columbo": {"rounds": 1}}


def _match(game: str, seed: int) -> list[tuple[int, dict[str, Any]]]:
    bots = list(bots_of(game).values())
    actions, _ = play_match(game, [bots[len(bots) // 2], bots[-1]], seed, options=OPTIONS[game])
    return actions


@pytest.mark.parametrize("game", ["gomori", "ruhd", "rummy", "columbo"])
def test_a_whole_match_gives_one_entry_per_decision(game: str) -> None:
    actions = _match(game, 3)
    calls: list[tuple[int, int]] = []
    result = analyse(game, 2, 3, OPTIONS[game], actions, budget=SMALL, progress=lambda d, n: calls.append((d, n)))
    decisions, skipped = decisions_of(game, 2, 3, OPTIONS[game], actions)
    assert [d.ply for d in result.decisions] == [d.ply for d in decisions]
    assert len(result.decisions) + sum(skipped.values()) == len(actions) == result.actions
    assert calls == [(i, len(decisions)) for i in range(len(decisions) + 1)]
    for d in result.decisions:
        seat, action = actions[d.ply]
        assert d.seat == seat and d.played == action
        assert d.options >= 2
        assert 0.0 <= d.value_played <= 1.0 and 0.0 <= d.value_best <= 1.0
        assert d.cost == pytest.approx(max(0.0, d.value_best - d.value_played))
        assert d.mark == THRESHOLDS[game].mark(d.cost, d.cost_se)
        assert (d.better is None) == (d.mark is None)
        assert d.accuracy == pytest.approx(move_accuracy(d.cost, THRESHOLDS[game].accuracy_scale))
    data = result.to_json()
    assert json.loads(json.dumps(data)) == data
    assert [s["decisions"] for s in data["seats"]] == [sum(1 for d in decisions if d.seat == s) for s in (0, 1)]
    assert all(0 <= s["accuracy"] <= 100 for s in data["seats"])


def test_the_same_inputs_and_seed_give_the_same_analysis() -> None:
    actions = _match("gomori", 5)
    first = analyse("gomori", 2, 5, None, actions, budget=SMALL, analysis_seed=11).to_json()
    second = analyse("gomori", 2, 5, None, actions, budget=SMALL, analysis_seed=11).to_json()
    assert first == second
    other = analyse("gomori", 2, 5, None, actions, budget=SMALL, analysis_seed=12).to_json()
    assert other["seed"] == 12 and [d["ply"] for d in other["decisions"]] == [d["ply"] for d in first["decisions"]]


def test_columbo_slaps_are_weighed_against_letting_the_discard_go() -> None:
    for seed in range(40):
        actions = _match("columbo", seed)
        slaps = [ply for ply, (_, action) in enumerate(actions) if action["type"] == "slap"]
        if slaps:
            break
    else:
        pytest.fail("no slap in 40 matches")
    decisions, skipped = decisions_of("columbo", 2, seed, OPTIONS["columbo"], actions)
    assert skipped.get("peek") == 2  # each seat's peek: every card unseen, every choice alike
    slap = next(d for d in decisions if d.ply == slaps[0])
    assert slap.kind == "slap" and slap.options[0] is None
    assert all(o is not None and o["type"] == "slap" for o in slap.options[1:])
    result = analyse("columbo", 2, seed, OPTIONS["columbo"], actions[:slaps[0] + 1], budget=SMALL,
                     seats=[slap.seat])
    assert result.decisions[-1].ply == slaps[0]
    assert result.decisions[-1].kind == "slap"


def test_a_mark_needs_a_loss_beyond_the_noise() -> None:
    t = THRESHOLDS["gomori"]
    assert t.mark(0.35) == "blunder" and t.mark(0.25) == "mistake" and t.mark(0.12) == "inaccuracy"
    assert t.mark(0.05) is None
    assert t.mark(0.35, se=0.10) == "blunder"
    assert t.mark(0.35, se=0.20) is None  # within two standard errors of no loss at all


def test_only_the_asked_seats_are_analysed() -> None:
    actions = _match("ruhd", 2)
    result = analyse("ruhd", 2, 2, None, actions, budget=Budget(2, 1, 2), seats=[1])
    assert result.decisions and {d.seat for d in result.decisions} == {1}
    assert result.seats[0].decisions == 0 and result.seats[0].accuracy is None


def test_accuracy_follows_lichess() -> None:
    assert move_accuracy(0.0) == pytest.approx(100.0, abs=1e-3)
    assert move_accuracy(0.10) == pytest.approx(103.1668 * 2.718281828 ** (-0.4354) - 3.1669, abs=1e-2)
    assert move_accuracy(1.0) == 0.0
    costs = [0.0, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5]
    values = [move_accuracy(c) for c in costs]
    assert values == sorted(values, reverse=True)
    assert move_accuracy(0.05, scale=2.0) == pytest.approx(move_accuracy(0.10))
    assert THRESHOLDS["rummy"].accuracy_scale * THRESHOLDS["rummy"].mistake == pytest.approx(0.20)
    assert match_accuracy([]) is None
    assert match_accuracy([100.0, 100.0]) == pytest.approx(100.0)
    # one blunder among good moves weighs more than in a plain mean
    assert match_accuracy([100.0] * 9 + [10.0]) < (100.0 * 9 + 10.0) / 10  # type: ignore[operator]


def test_an_action_list_that_does_not_replay_is_refused() -> None:
    actions = _match("gomori", 1)
    bad = [*actions[:3], (actions[3][0], {"type": "play", "card": "ZZ", "at": [0, 0]})]
    with pytest.raises(AnalysisError, match="Move 4"):
        analyse("gomori", 2, 1, None, bad, budget=SMALL)
    with pytest.raises(AnalysisError, match="Move 1"):
        analyse("gomori", 2, 1, None, [(1, actions[0][1])], budget=SMALL)
