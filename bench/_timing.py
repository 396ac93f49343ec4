"""Shared timing helper for the benchmark scripts (not tests)."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable


def measure(fn: Callable[[], object], runs: int, warmup: int = 50) -> tuple[float, float]:
    """Median and p99 of ``runs`` calls, in microseconds."""
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(runs):
        t0 = time.perf_counter_ns()
        fn()
        samples.append((time.perf_counter_ns() - t0) / 1000)
    samples.sort()
    return statistics.median(samples), samples[min(len(samples) - 1, int(0.99 * len(samples)))]


def line(name: str, med: float, p99: float, baseline: float | None = None, unit: str = "us") -> str:
    ratio = f"  ({med / baseline:.1f}x baseline)" if baseline else ""
    return f"{name:46} median {med:9.1f} {unit}  p99 {p99:9.1f} {unit}{ratio}"


def alternate(
    old: Callable[[object], object],
    new: Callable[[object], object],
    items: list,
    rounds: int,
    clock: Callable[[], int] = time.perf_counter_ns,
) -> tuple[list[float], list[float]]:
    """Time ``old(item)`` and ``new(item)`` back to back for every item, ``rounds`` times; which one
    runs first alternates per item and round: on the same item the second run is a few per cent
    faster whichever it is (caches warmed by the first), so a fixed order credits the second (an
    A/A run showed 0.93-0.97x). Returns the samples of each, in microseconds."""
    old_t: list[float] = []
    new_t: list[float] = []
    for r in range(rounds):
        for i, item in enumerate(items):
            first, second = (new, old) if (i + r) % 2 else (old, new)
            t0 = clock()
            first(item)
            t1 = clock()
            second(item)
            t2 = clock()
            a, b = (t1 - t0) / 1000, (t2 - t1) / 1000
            old_t.append(b if (i + r) % 2 else a)
            new_t.append(a if (i + r) % 2 else b)
    return old_t, new_t
