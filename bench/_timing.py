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
