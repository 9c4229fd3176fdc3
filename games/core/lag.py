"""A lag monitor for a process's event loop: how late a tick that asked to run every 10 ms actually ran, and, for
every stall longer than 20 ms, the stack of the code that held the loop meanwhile.

Switched on by GAMES_LAG_MONITOR=<file> (off, nothing runs: no task, no thread). A task on the loop ticks every
TICK seconds and records how late each tick was; a watchdog thread looks every few milliseconds at when the loop
last ticked, and when that is older than STALL it takes the loop thread's stack (sys._current_frames) once per
stall, so the stack named is the code running when the loop should have ticked; a stall met during a collection
of the garbage collector is named after the collection instead (any thread's allocation may start one, and it holds
every thread), and each generation's collections are timed (gc.callbacks). On Linux each stall also says how much of
it the loop's thread spent ready to run but waiting for a CPU (the scheduler's run delay, /proc's schedstat): on a
machine whose cores are busy with the database, Redis and the clients, that part is the machine's, not the code's.
Every WRITE_SECONDS the summary is written to the file as JSON (percentiles, counts over 20 and 50 ms, the stacks
that stalled most), for the benchmarks to read (bench/club.py) and a person to look at. No Django: the bench's
clients use it too.
"""

from __future__ import annotations

import asyncio
import gc
import json
import os
import sys
import threading
import time
import traceback
from collections import Counter
from pathlib import Path
from typing import Any

TICK = 0.010
STALL = 0.020
WRITE_SECONDS = 2.0
STACK_DEPTH = 12  # frames kept of a stall's stack, innermost last


class LagMonitor:
    def __init__(self, path: Path, loop: asyncio.AbstractEventLoop) -> None:
        self.path = path
        self.loop = loop
        self.lags: list[float] = []  # seconds each tick was late, in order
        self.beat = time.monotonic()  # when the loop last ticked
        self.stalls: Counter[str] = Counter()  # a stall's stack -> how many stalls had it
        self.stall_time: dict[str, float] = {}  # ... -> the seconds they held the loop
        self.caught: str | None = None  # the stack taken during the stall under way
        self.loop_thread = threading.get_ident()
        self.started = time.monotonic()
        self.task: asyncio.Task[None] | None = None
        self.stop = threading.Event()
        self.collecting: tuple[int, float] | None = None  # (generation, since) while a collection runs
        self.collections: dict[int, list[float]] = {0: [], 1: [], 2: []}  # seconds each collection took
        self.stall_waiting: dict[str, float] = {}  # a stall's stack -> the seconds its thread waited for a CPU
        self.waiting_in_stalls = 0.0
        try:  # kept open and read again in place: opening it every tick was 2% of a busy server's time
            self.schedstat: int | None = os.open(f"/proc/self/task/{threading.get_native_id()}/schedstat", os.O_RDONLY)
        except OSError:
            self.schedstat = None

    def start(self) -> None:
        gc.callbacks.append(self._collection)
        self.task = self.loop.create_task(self._tick())
        threading.Thread(target=self._watch, name="lag-watchdog", daemon=True).start()

    def run_delay(self) -> float:
        """Seconds the loop's thread has spent runnable but waiting for a CPU since it started (0 off Linux)."""
        if self.schedstat is None:
            return 0.0
        try:
            return int(os.pread(self.schedstat, 128, 0).split()[1]) / 1e9
        except (OSError, IndexError, ValueError):
            return 0.0

    async def _tick(self) -> None:
        written = time.monotonic()
        delay = self.run_delay()
        while True:
            asked = time.monotonic()
            await asyncio.sleep(TICK)
            now = time.monotonic()
            lag = max(0.0, now - asked - TICK)
            self.lags.append(lag)
            self.beat = now
            waited, delay = -delay, self.run_delay()
            waited += delay
            if self.caught is not None:  # the stall is over: its length is known now
                self.stall_time[self.caught] = self.stall_time.get(self.caught, 0.0) + lag
                self.stall_waiting[self.caught] = self.stall_waiting.get(self.caught, 0.0) + waited
                self.waiting_in_stalls += waited
                self.caught = None
            if now - written >= WRITE_SECONDS:
                written = now
                reset = self.path.with_suffix(self.path.suffix + ".reset")
                if reset.exists():  # a benchmark's warm-up is over: count afresh
                    reset.unlink(missing_ok=True)
                    self.reset()
                self.write()

    def _collection(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self.collecting = (info["generation"], time.perf_counter())
        elif self.collecting is not None:
            generation, since = self.collecting
            self.collecting = None
            self.collections[generation].append(time.perf_counter() - since)

    def _watch(self) -> None:
        while not self.stop.wait(TICK / 4):
            if self.caught is None and time.monotonic() - self.beat > TICK + STALL:
                collecting = self.collecting
                if collecting is not None:
                    stack = f'File "gc", line {collecting[0]}, in collection_of_generation_{collecting[0]}\n'
                else:
                    frame = sys._current_frames().get(self.loop_thread)
                    if frame is None:
                        continue
                    lines = traceback.format_stack(frame)[-STACK_DEPTH:]
                    stack = "".join(line for line in lines if "lag.py" not in line)
                self.caught = stack
                self.stalls[stack] += 1

    def summary(self) -> dict[str, Any]:
        ordered = sorted(self.lags)

        def at(share: float) -> float:
            return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else 0.0

        return {
            "seconds": round(time.monotonic() - self.started, 1),
            "ticks": len(ordered),
            "p50_ms": round(at(0.50) * 1000, 2),
            "p99_ms": round(at(0.99) * 1000, 2),
            "max_ms": round((ordered[-1] if ordered else 0.0) * 1000, 2),
            "over_20ms": sum(lag > 0.020 for lag in ordered),
            "over_50ms": sum(lag > 0.050 for lag in ordered),
            "gc": {str(generation): {"count": len(times), "max_ms": round(max(times, default=0.0) * 1000, 2),
                                     "ms": round(sum(times) * 1000, 1)}
                   for generation, times in self.collections.items()},
            "stall_waiting_ms": round(self.waiting_in_stalls * 1000, 1),
            "stalls": [{"count": count, "ms": round(self.stall_time.get(stack, 0.0) * 1000, 1),
                        "waiting_ms": round(self.stall_waiting.get(stack, 0.0) * 1000, 1), "stack": stack}
                       for stack, count in self.stalls.most_common(15)],
        }

    def reset(self) -> None:
        """Start counting afresh (a benchmark's warm-up is over)."""
        self.lags.clear()
        self.stalls.clear()
        self.stall_time.clear()
        self.stall_waiting.clear()
        self.waiting_in_stalls = 0.0
        for times in self.collections.values():
            times.clear()
        self.started = time.monotonic()

    def write(self) -> None:
        temporary = self.path.with_suffix(self.path.suffix + ".tmp")
        temporary.write_text(json.dumps(self.summary(), indent=1))
        os.replace(temporary, self.path)


_monitor: LagMonitor | None = None
_TARGET = os.environ.get("GAMES_LAG_MONITOR", "")


def start_if_asked(path: str | None = None) -> LagMonitor | None:
    """Start the monitor on the running loop if GAMES_LAG_MONITOR (or `path`) names a file; once per loop. Off, this
    is one comparison (it is asked with every connection a server takes)."""
    global _monitor
    target = path or _TARGET
    if not target:
        return None
    loop = asyncio.get_running_loop()
    if _monitor is None or _monitor.loop is not loop:
        _monitor = LagMonitor(Path(target), loop)
        _monitor.start()
    return _monitor
