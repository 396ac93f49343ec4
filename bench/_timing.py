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
    block: int = 1,
) -> tuple[list[float], list[float]]:
    """Time ``old(item)`` and ``new(item)`` for every item, ``rounds`` times, in blocks of ``block``
    items: one revision answers the block, then the other the same block; which one goes first
    alternates per block and round: on the same item the second run is a few per cent faster
    whichever it is (caches warmed by the first), so a fixed order credits the second (an A/A run
    showed 0.93-0.97x). ``block`` 1 interleaves the two question by question (noise, which drifts
    over seconds, hits both alike); a larger block lets each revision answer a run of questions
    with its own code and data in the CPU's caches, as a running bot does, instead of the other
    revision's. Returns the samples of each, in microseconds, per item."""
    old_t: list[float] = []
    new_t: list[float] = []
    for r in range(rounds):
        for b, start in enumerate(range(0, len(items), block)):
            chunk = items[start : start + block]
            swap = (b + r) % 2
            order = ((new, new_t), (old, old_t)) if swap else ((old, old_t), (new, new_t))
            for fn, into in order:
                for item in chunk:
                    t0 = clock()
                    fn(item)
                    into.append((clock() - t0) / 1000)
    return old_t, new_t
