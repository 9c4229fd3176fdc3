"""The event loop's lag monitor (games.core.lag, GAMES_LAG_MONITOR): a stall is measured and named by the code that
held the loop, a collection of the garbage collector is timed and names the stall it caused, and the summary the
benchmarks read says both."""

from __future__ import annotations

import asyncio
import gc
import json
import time
from pathlib import Path

from games.core import lag


def hold_the_loop(seconds: float) -> None:
    time.sleep(seconds)


def test_a_stall_is_measured_and_named_by_the_code_that_held_the_loop(tmp_path: Path) -> None:
    async def run() -> dict:
        monitor = lag.LagMonitor(tmp_path / "lag.json", asyncio.get_running_loop())
        monitor.start()
        try:
            await asyncio.sleep(0.05)
            hold_the_loop(0.12)
            await asyncio.sleep(0.05)
            monitor.write()
            return json.loads((tmp_path / "lag.json").read_text())
        finally:
            monitor.stop.set()
            gc.callbacks.remove(monitor._collection)
            assert monitor.task is not None
            monitor.task.cancel()

    summary = asyncio.run(run())
    assert summary["max_ms"] >= 100 and summary["over_50ms"] >= 1
    assert any("hold_the_loop" in stall["stack"] and stall["ms"] >= 100 for stall in summary["stalls"])


def test_a_collection_is_timed_and_names_the_stall_it_caused(tmp_path: Path) -> None:
    async def run() -> dict:
        monitor = lag.LagMonitor(tmp_path / "lag.json", asyncio.get_running_loop())
        monitor.start()
        garbage = []
        try:
            await asyncio.sleep(0.05)
            for _ in range(400_000):  # cycles, so that the oldest generation's collection takes a while
                node: list = []
                node.append(node)
                garbage.append(node)
            await asyncio.sleep(0.05)
            monitor.reset()
            gc.collect()
            await asyncio.sleep(0.05)
            return monitor.summary()
        finally:
            monitor.stop.set()
            gc.callbacks.remove(monitor._collection)
            assert monitor.task is not None
            monitor.task.cancel()

    summary = asyncio.run(run())
    oldest = summary["gc"]["2"]
    assert oldest["count"] >= 1 and oldest["max_ms"] >= 40, oldest  # 400,000 cycles take longer than a stall
    assert any("collection_of_generation_2" in stall["stack"] for stall in summary["stalls"]), summary["stalls"]


def test_a_stall_says_how_long_its_thread_waited_for_a_cpu(tmp_path: Path) -> None:
    """The run delay comes from the loop thread's own schedstat: a thread that slept (not runnable) waited for none
    of its stall, and the figure is there for the benchmarks to print."""
    async def run() -> dict:
        monitor = lag.LagMonitor(tmp_path / "lag.json", asyncio.get_running_loop())
        assert monitor.run_delay() >= 0.0
        monitor.start()
        try:
            await asyncio.sleep(0.05)
            hold_the_loop(0.12)  # asleep, not runnable: no run delay for it
            await asyncio.sleep(0.05)
            return monitor.summary()
        finally:
            monitor.stop.set()
            gc.callbacks.remove(monitor._collection)
            assert monitor.task is not None
            monitor.task.cancel()

    summary = asyncio.run(run())
    stall = next(stall for stall in summary["stalls"] if "hold_the_loop" in stall["stack"])
    assert stall["ms"] >= 100 and 0 <= stall["waiting_ms"] < stall["ms"] / 2
    assert summary["stall_waiting_ms"] >= stall["waiting_ms"]
