"""bench/tournament.py runs: a small arena played by bots through the services ends, with every player paired and
the figures the benchmark reports. How fast pairing is, is the benchmark's to measure, never a test's."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_a_small_arena_simulation_ends_with_everyone_paired_and_reports_its_figures(tmp_path: Path) -> None:
    out = tmp_path / "arena.json"
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE")}
    command = [sys.executable, str(ROOT / "bench/tournament.py"), "--players", "10", "--seconds", "6",
               "--threads", "2", "--json", str(out)]
    run = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=240)
    assert run.returncode == 0, run.stderr[-3000:]
    figures = json.loads(out.read_text())
    assert figures["players"] == 10 and figures["vendor"] == "sqlite"
    assert figures["matches"] >= 5 and figures["finished"] == figures["matches"]  # every table ended and counted
    assert figures["never_played"] == 0  # everyone was seated
    assert figures["double_seated"] == 0  # and never at two tables at once
    assert figures["waits"] >= 10  # each player's stretches of being free were measured
    # The first three places in order; equal standings share one (1, =2, =2: the next place skips).
    places = [place for place, _, _ in figures["podium"]]
    assert len(places) == 3 and places[0] == 1
    assert all(place in (index + 1, places[index - 1]) for index, place in enumerate(places) if index)
    assert "the longest two who could sit together were both free" in run.stdout
