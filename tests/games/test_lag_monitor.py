"""The event loop's lag monitor (games.core.lag, GAMES_LAG_MONITOR): a stall is measured and named by the code that
held the loop, a collection of the garbage collector is timed and names the stall it caused, a stall says how long
its thread waited for a CPU, and the summary the benchmarks read says all three."""

from __future__ import annotations

import asyncio
import gc
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from games.core import lag


def hold_the_loop(seconds: float) -> None:
    time.sleep(seconds)


def monitored(tmp_path: Path, steps: Callable[[lag.LagMonitor], Awaitable[None]]) -> dict[str, Any]:
    """The monitor's summary of `steps`, run on a fresh loop under it; the monitor stopped after."""
    async def run() -> dict[str, Any]:
        monitor = lag.LagMonitor(tmp_path / "lag.json", asyncio.get_running_loop())
        assert monitor.run_delay() >= 0.0
        monitor.start()
        try:
            await asyncio.sleep(0.05)
            await steps(monitor)
            await asyncio.sleep(0.05)
            return monitor.summary()
        finally:
            monitor.stop.set()
            gc.callbacks.remove(monitor._collection)
            assert monitor.task is not None
            monitor.task.cancel()

    return asyncio.run(run())


async def _hold(monitor: lag.LagMonitor) -> None:
    hold_the_loop(0.12)  # asleep, so not runnable: no run delay for it


def test_a_stall_is_measured_and_named_by_the_code_that_held_the_loop(tmp_path: Path) -> None:
    summary = monitored(tmp_path, _hold)
    assert summary["max_ms"] >= 100 and summary["over_50ms"] >= 1
    assert any("hold_the_loop" in stall["stack"] and stall["ms"] >= 100 for stall in summary["stalls"])


def test_a_collection_is_timed_and_names_the_stall_it_caused(tmp_path: Path) -> None:
    garbage: list[list[Any]] = []

    async def collect(monitor: lag.LagMonitor) -> None:
        for _ in range(400_000):  # cycles, so that the oldest generation's collection takes a while
            node: list[Any] = []
            node.append(node)
            garbage.append(node)
        await asyncio.sleep(0.05)
        monitor.reset()
        gc.collect()

    summary = monitored(tmp_path, collect)
    oldest = summary["gc"]["2"]
    assert oldest["count"] >= 1 and oldest["max_ms"] >= 40, oldest  # 400,000 cycles take longer than a stall
    assert any("collection_of_generation_2" in stall["stack"] for stall in summary["stalls"]), summary["stalls"]


def test_a_stall_says_how_long_its_thread_waited_for_a_cpu(tmp_path: Path) -> None:
    """The run delay comes from the loop thread's own schedstat: a thread that slept (not runnable) waited for none
    of its stall, and the figure is there for the benchmarks to print."""
    summary = monitored(tmp_path, _hold)
    stall = next(stall for stall in summary["stalls"] if "hold_the_loop" in stall["stack"])
    assert stall["ms"] >= 100 and 0 <= stall["waiting_ms"] < stall["ms"] / 2
    assert summary["stall_waiting_ms"] >= stall["waiting_ms"]
