"""bench/club.py runs: a tiny club for a few seconds reports every kind of message with figures that make sense.
Speed itself is the benchmark's to measure, never a test's: nothing here asserts how fast the server is."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_a_tiny_club_reports_every_kind_of_message(tmp_path: Path) -> None:
    out = tmp_path / "club.json"
    # SQLite in the bench's own temporary folder and the in-memory layer, whatever this test run is set up on.
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE")}
    # Four tables (one of each game, the first with spectators), moves and chat lines fast enough for matches
    # to end (the lobby's redraws) and lines to be said within the window.
    command = [sys.executable, str(ROOT / "bench/club.py"), "-n", "4", "--warmup", "3", "--window", "8",
               "--pace", "0.05", "0.25", "--chat-every", "2", "--json", str(out)]
    run = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=240)
    assert run.returncode == 0, run.stderr[-3000:]
    [result] = json.loads(out.read_text())

    assert result["n"] == 4 and result["watchers"] == 1
    assert result["lost"] == [] and result["stats"]["lost"] == 0
    assert result["stats"]["errors"] == 0, run.stdout  # no move refused: the client follows each match exactly
    assert result["stats"]["moves"] > 20
    assert result["stats"]["matches"] > 4  # matches ended and their rematches were played
    for kind in ("ack", "opponent", "spectator", "turn cue", "lobby", "chat"):
        figures = result["kinds"][kind]
        assert figures["samples"] > 0, f"no {kind} measured:\n{run.stdout}"
        assert 0 < figures["p50"] <= figures["p99"] <= figures["max"] < 15, (kind, figures)
        assert f"\n  {kind:<10} {figures['samples']:>8}" in run.stdout  # the printed table says the same
    kinds = result["kinds"]
    assert kinds["ack"]["samples"] == kinds["opponent"]["samples"] == result["stats"]["moves"]
    # The lobby gathers a busy club's changes for half a second before it redraws: never sooner.
    assert kinds["lobby"]["p50"] >= 0.5
    assert 0 < result["server_cpu"] < 2.5  # a share of a core: the server's own process, measured
    assert 20 * 2**20 < result["rss"] <= result["rss_peak"] < 4 * 2**30
    assert len(result["client_cpu"]) == 1 and 0 < result["client_cpu"][0] < 2.5
    assert "server CPU" in run.stdout and "client CPU" in run.stdout
