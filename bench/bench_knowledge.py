"""Time an uncached knowledge load plus a trivial name index.

    .venv/bin/python bench/bench_knowledge.py [--runs 200] [--dir knowledge]

Prints median and p99 in ms; the target is a median under 150 ms. Exits 1 when the
median misses the target.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.core.knowledge import load_catalog, normalise_name  # noqa: E402

TARGET_MS = 150.0


def one_run(directory: Path | None) -> float:
    t0 = time.perf_counter()
    cat = load_catalog(directory)
    index: dict[str, str] = {}
    for g in cat.gpus.values():
        for n in (g.id, *g.aliases, g.name):
            index[normalise_name(n)] = g.id
    for m in cat.models.values():
        for n in (m.id, *m.aliases, m.name):
            index[normalise_name(n)] = m.id
    return (time.perf_counter() - t0) * 1000.0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--dir", type=Path, default=None, help="knowledge directory (default: the package's)")
    args = ap.parse_args(argv)
    one_run(args.dir)  # warm imports and the OS file cache
    times = sorted(one_run(args.dir) for _ in range(args.runs))
    median = statistics.median(times)
    p99 = times[min(len(times) - 1, int(round(0.99 * (len(times) - 1))))]
    print(
        f"load_catalog + name index, {args.runs} runs: median {median:.1f} ms, p99 {p99:.1f} ms "
        f"(target median < {TARGET_MS:.0f} ms)"
    )
    return 0 if median < TARGET_MS else 1


if __name__ == "__main__":
    sys.exit(main())
