#!/usr/bin/env python3
"""The post-match analysis (games/analysis) on bot-against-bot matches: its cost per match, the distribution of
its decision costs (what bench/ANALYSIS.md sets the thresholds from), and its noise.

    heavy .venv/bin/python bench/analysis.py run --game gomori --matches 8 [--first-seed 0] [--budget 6,8,24]
                                                 [--pairings mixed|strongest|all] [--jobs 1] [--out FILE.jsonl]
    .venv/bin/python bench/analysis.py report FILE.jsonl [FILE.jsonl ...]
    heavy .venv/bin/python bench/analysis.py noise --game gomori --matches 2 --repeats 4 [--budget 6,8,24]
    heavy .venv/bin/python bench/analysis.py versus --game ruhd --matches 40 [--budget ...]

run: match i (seed first-seed + i) pairs two bot levels (mixed: cycles through random-strongest,
reference-strongest, strongest-strongest and random-reference, seats swapped every other match), records it,
analyses it at the budget (candidates,screen,samples; default: the game's DEFAULT_BUDGETS) and prints one line
per match: actions, decisions, seconds, each seat's level, accuracy and marks. --out appends one JSON line per
match (the analysis plus the levels) for `report`. Seconds are wall time of one process; with --jobs 2 two
matches run at once (use --jobs 1 for timings).

report: the cost distribution (percentiles; share of decisions marked at least inaccuracy / mistake / blunder)
per game, per bot level and per kind of decision, and the mean match accuracy per level. Marks and accuracy are
recomputed from the stored costs with the current THRESHOLDS.

versus: the analysis as a player (at each of its decisions it plays the analysis's best move, the strongest bot's
move being always among the candidates) against the strongest bot, seats alternated: W/D/L. A check that the
"better moves" the analysis shows are at least as good as the strongest bot's.

noise: every decision of a few matches analysed --repeats times with different analysis seeds: the spread of
the cost and of the played move's value, and how often the mark changes.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import random
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.analysis import DEFAULT_BUDGETS, THRESHOLDS, Budget, analyse, match_accuracy, move_accuracy
from games.analysis.decision import Decision, analyse_decision
from games.analysis.determinize import new_tracker
from games.analysis.evaluate import decisions_of
from games.analysis.selfplay import bots_of, play_match
from games.analysis.specs import get_spec

GAMES = ("gomori", "ruhd", "rummy", "columbo")


def pairing(game: str, mode: str, i: int) -> list[str]:
    """The two levels of match i (seat 0 first)."""
    keys = list(bots_of(game))
    weakest, middle, strongest = keys[0], keys[len(keys) // 2], keys[-1]
    if mode == "strongest":
        pair = [strongest, strongest]
    elif mode == "reference":
        pair = [middle, middle]
    else:
        cycle = [[weakest, strongest], [middle, strongest], [strongest, strongest], [weakest, middle]]
        pair = list(cycle[(i // 2) % len(cycle)])
    return pair if i % 2 == 0 else pair[::-1]


def parse_budget(text: str | None, game: str) -> Budget:
    if not text:
        return DEFAULT_BUDGETS[game]
    candidates, screen, samples = (int(x) for x in text.split(","))
    return Budget(candidates=candidates, screen=screen, samples=samples)


def run_one(args: tuple[str, int, str, str | None, int]) -> dict[str, Any]:
    game, seed, mode, budget_text, index = args
    levels = pairing(game, mode, index)
    bots = bots_of(game)
    actions, _ = play_match(game, [bots[level] for level in levels], seed)
    started = time.perf_counter()
    result = analyse(game, len(levels), seed, None, actions, budget=parse_budget(budget_text, game))
    seconds = time.perf_counter() - started
    return {"game": game, "seed": seed, "levels": levels, "seconds": seconds, "analysis": result.to_json()}


def cmd_run(args: argparse.Namespace) -> None:
    jobs = [(args.game, args.first_seed + i, args.pairings, args.budget, args.first_seed + i)
            for i in range(args.matches)]
    budget = parse_budget(args.budget, args.game)
    print(f"{args.game}: {args.matches} matches, budget {budget.to_json()} "
          f"(<= {budget.playouts()} play-outs per decision), {args.jobs} job(s)", flush=True)
    pool = multiprocessing.Pool(args.jobs) if args.jobs > 1 else None
    out = open(args.out, "a") if args.out else None  # noqa: SIM115
    total = 0.0
    decisions = 0
    try:
        for row in (pool.imap(run_one, jobs) if pool else map(run_one, jobs)):
            a = row["analysis"]
            total += row["seconds"]
            decisions += len(a["decisions"])
            seats = "  ".join(
                f"s{s['seat']} {row['levels'][s['seat']]:9} "
                f"acc {s['accuracy'] if s['accuracy'] is not None else '-':>5} "
                f"i/m/b {s['inaccuracies']}/{s['mistakes']}/{s['blunders']}" for s in a["seats"])
            print(f"seed {row['seed']:4}  {a['actions']:4} actions {len(a['decisions']):4} decisions "
                  f"{row['seconds']:7.1f} s   {seats}", flush=True)
            if out:
                out.write(json.dumps(row) + "\n")
                out.flush()
    finally:
        if out:
            out.close()
        if pool:
            pool.close()
    n = max(1, args.matches)
    print(f"mean {total / n:.1f} s per match, {total / max(1, decisions) * 1000:.0f} ms per decision")


def percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def cmd_report(args: argparse.Namespace) -> None:
    rows = [json.loads(line) for path in args.files for line in open(path) if line.strip()]  # noqa: SIM115
    by_game: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_game[row["game"]].append(row)
    qs = (0.5, 0.75, 0.9, 0.95, 0.97, 0.99)
    for game, matches in by_game.items():
        t = THRESHOLDS[game]
        seconds = [m["seconds"] for m in matches]
        print(f"\n== {game}: {len(matches)} matches, {statistics.mean(seconds):.1f} s per match "
              f"(max {max(seconds):.1f}), thresholds {t.inaccuracy}/{t.mistake}/{t.blunder}")
        costs: dict[str, list[float]] = defaultdict(list)
        ses: list[float] = []
        accuracy: dict[str, list[float]] = defaultdict(list)
        marks: dict[str, list[str | None]] = defaultdict(list)
        for m in matches:
            a = m["analysis"]
            moves: dict[int, list[float]] = defaultdict(list)
            for d in a["decisions"]:
                level = m["levels"][d["seat"]]
                mark = t.mark(d["cost"], d.get("cost_se", 0.0))  # today's thresholds, whatever the run had
                for who in ("all", level, d["kind"]):
                    costs[who].append(d["cost"])
                    marks[who].append(mark)
                ses.append(d.get("cost_se", 0.0))
                moves[d["seat"]].append(move_accuracy(d["cost"], t.accuracy_scale))
            for seat, scores in moves.items():
                accuracy[m["levels"][seat]].append(match_accuracy(scores) or 0.0)
        header = f"{'who':12} {'n':>6} {'zero':>6} " + " ".join(f"p{int(q * 100):<5}" for q in qs) + \
            f" {'>=inacc':>8} {'>=mist':>7} {'>=blund':>8} {'accuracy':>9}"
        print(header)
        for who in ["all", *bots_of(game), *sorted(k for k in costs if k != "all" and k not in bots_of(game))]:
            values = costs.get(who)
            if not values:
                continue
            n = len(values)
            zero = sum(1 for v in values if v == 0) / n
            order = ("inaccuracy", "mistake", "blunder")
            share = [sum(1 for x in marks[who] if x is not None and order.index(x) >= i) / n for i in range(3)]
            acc = accuracy.get(who)
            print(f"{who:12} {n:6} {zero:6.1%} " + " ".join(f"{percentile(values, q):.3f}" for q in qs)
                  + f" {share[0]:8.1%} {share[1]:7.1%} {share[2]:8.1%} "
                  + (f"{statistics.mean(acc):9.1f}" if acc else ""))
        print(f"cost standard error: median {percentile(ses, 0.5):.3f}, p90 {percentile(ses, 0.9):.3f}")


def noise_one(args: tuple[str, int, str | None, int, int]) -> list[dict[str, Any]]:
    game, seed, budget_text, repeats, index = args
    levels = pairing(game, "mixed", index)
    bots = bots_of(game)
    actions, _ = play_match(game, [bots[level] for level in levels], seed)
    decisions, _ = decisions_of(game, len(levels), seed, None, actions)
    spec = get_spec(game)
    budget = parse_budget(budget_text, game)
    out = []
    for decision in decisions:
        runs = [analyse_decision(spec, decision, seed=1000 + r, budget=budget, thresholds=THRESHOLDS[game])
                for r in range(repeats)]
        out.append({"costs": [r.cost for r in runs], "values": [r.value_played for r in runs],
                    "marks": [r.mark for r in runs], "ses": [r.cost_se for r in runs]})
    return out


def cmd_noise(args: argparse.Namespace) -> None:
    jobs = [(args.game, args.first_seed + i, args.budget, args.repeats, args.first_seed + i)
            for i in range(args.matches)]
    pool = multiprocessing.Pool(args.jobs) if args.jobs > 1 else None
    started = time.perf_counter()
    rows = [r for part in (pool.imap(noise_one, jobs) if pool else map(noise_one, jobs)) for r in part]
    if pool:
        pool.close()
    cost_sd = [statistics.pstdev(r["costs"]) for r in rows]
    value_sd = [statistics.pstdev(r["values"]) for r in rows]
    changed = sum(1 for r in rows if len(set(r["marks"])) > 1)
    marked = sum(1 for r in rows if any(r["marks"]))
    se = [statistics.mean(r["ses"]) for r in rows]
    print(f"{args.game}: {len(rows)} decisions x {args.repeats} repeats, budget "
          f"{parse_budget(args.budget, args.game).to_json()}, {time.perf_counter() - started:.0f} s")
    print(f"cost sd: mean {statistics.mean(cost_sd):.3f} p90 {percentile(cost_sd, 0.9):.3f} "
          f"max {max(cost_sd):.3f}; reported se: mean {statistics.mean(se):.3f}")
    print(f"value(played) sd: mean {statistics.mean(value_sd):.3f} p90 {percentile(value_sd, 0.9):.3f}")
    print(f"marks: {marked} decisions marked in some repeat, {changed} whose mark changed between repeats")
    for r in rows:
        if any(r["marks"]):
            print("  costs " + " ".join(f"{c:.3f}" for c in r["costs"])
                  + "  marks " + " ".join(str(m) for m in r["marks"]))


def versus_one(args: tuple[str, int, str | None, int]) -> str:
    """One match of the analysis-as-a-player (seat index % 2) against the strongest bot: "W", "D" or "L"."""
    game, seed, budget_text, index = args
    engine = get_spec(game).engine
    spec = get_spec(game)
    budget = parse_budget(budget_text, game)
    strongest = list(bots_of(game).values())[-1]
    me = index % 2
    state = engine.new_game(2, seed=seed)
    trackers = [new_tracker(game, s) for s in range(2)]
    rng = random.Random(seed)
    order = random.Random(f"race:{seed}")
    ply = 0
    while not engine.is_over(state):
        must = set(engine.must_act(state))
        wanted: list[tuple[int, dict[str, Any]]] = []
        for seat in engine.to_act(state):
            view = engine.view(state, seat)
            legal = view["legal"]
            action, _ = strongest(view, legal, rng)
            if seat == me and legal and action is not None:
                kind, group = spec.classify(view, legal, action)
                if kind is not None and len(group) > 1:
                    decision = Decision(ply, seat, kind, view, group, action, trackers[seat].knowledge())
                    action = analyse_decision(spec, decision, seed=seed, budget=budget,
                                              thresholds=THRESHOLDS[game]).best
            if action is not None:
                wanted.append((seat, action))
        optional = [w for w in wanted if w[0] not in must]
        order.shuffle(optional)
        seat, action = (optional or wanted)[0]
        state = engine.apply(state, seat, action)
        ply += 1
        for s, tracker in enumerate(trackers):
            if tracker.needs_view:
                tracker.observe(seat, action, engine.view(state, s))
    result = engine.result(state)
    if result["draw"] or len(result["winners"]) != 1:
        return "D"
    return "W" if result["winners"][0] == me else "L"


def cmd_versus(args: argparse.Namespace) -> None:
    jobs = [(args.game, args.first_seed + i, args.budget, i) for i in range(args.matches)]
    pool = multiprocessing.Pool(args.jobs) if args.jobs > 1 else None
    started = time.perf_counter()
    outcomes = list(pool.imap(versus_one, jobs) if pool else map(versus_one, jobs))
    if pool:
        pool.close()
    print(f"{args.game}: the analysis ({parse_budget(args.budget, args.game).to_json()}) against the strongest bot: "
          f"W/D/L {outcomes.count('W')}/{outcomes.count('D')}/{outcomes.count('L')} "
          f"({time.perf_counter() - started:.0f} s)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run")
    run.add_argument("--game", choices=GAMES, required=True)
    run.add_argument("--matches", type=int, default=8)
    run.add_argument("--first-seed", type=int, default=0)
    run.add_argument("--pairings", choices=("mixed", "strongest", "reference"), default="mixed")
    run.add_argument("--budget", help="candidates,screen,samples")
    run.add_argument("--jobs", type=int, default=1)
    run.add_argument("--out")
    run.set_defaults(func=cmd_run)
    report = sub.add_parser("report")
    report.add_argument("files", nargs="+")
    report.set_defaults(func=cmd_report)
    noise = sub.add_parser("noise")
    noise.add_argument("--game", choices=GAMES, required=True)
    noise.add_argument("--matches", type=int, default=2)
    noise.add_argument("--first-seed", type=int, default=0)
    noise.add_argument("--repeats", type=int, default=4)
    noise.add_argument("--budget", help="candidates,screen,samples")
    noise.add_argument("--jobs", type=int, default=1)
    noise.set_defaults(func=cmd_noise)
    versus = sub.add_parser("versus")
    versus.add_argument("--game", choices=GAMES, required=True)
    versus.add_argument("--matches", type=int, default=20)
    versus.add_argument("--first-seed", type=int, default=5000)
    versus.add_argument("--budget", help="candidates,screen,samples")
    versus.add_argument("--jobs", type=int, default=1)
    versus.set_defaults(func=cmd_versus)
    args = parser.parse_args()
    args.func(args)


if __name__ == "__main__":
    main()
