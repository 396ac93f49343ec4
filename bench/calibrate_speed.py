"""Calibration of bot/core/throughput.py against every carried speed measurement.

    .venv/bin/python bench/calibrate_speed.py [--fit]

Prints, per category (decode tokens/s, MoE decode tokens/s ("moe_decode": the MoE rows of
speed-calibration.yaml), prefill tokens/s, diffusion images/s, CNN training images/s, LLM
training tokens/s), the count, the share within 1.5x, and the median and worst
ratio measured / modelled. ``--fit`` also prints the median of measured / modelled per
category, which is how PREFILL_MFU and the diffusion constants were set.
"""

from __future__ import annotations

import statistics
import sys
from collections import defaultdict

from bot.core.knowledge import get_catalog
from bot.core.throughput import calibration_points


def main(argv: list[str]) -> int:
    pts = calibration_points(get_catalog())
    by: dict[str, list[float]] = defaultdict(list)
    for p in pts:
        by[p.category].append(p.ratio)
    print(f"{'category':14} {'n':>4} {'<=1.5x':>7} {'median':>7} {'worst':>7}")
    for cat, rs in sorted(by.items()):
        within = sum(1 for r in rs if 1 / 1.5 <= r <= 1.5) / len(rs)
        worst = max(rs, key=lambda r: max(r, 1 / r))
        print(f"{cat:14} {len(rs):4d} {within:7.0%} {statistics.median(rs):7.2f} {worst:7.2f}")
    allr = [p.ratio for p in pts]
    within = sum(1 for r in allr if 1 / 1.5 <= r <= 1.5) / len(allr)
    print(f"{'all':14} {len(allr):4d} {within:7.0%} {statistics.median(allr):7.2f}")
    if "--fit" in argv:
        for p in sorted(pts, key=lambda p: (p.category, p.ratio)):
            print(
                f"  {p.category:13} {p.model:18} {p.gpu:16} {p.precision:6} {p.measured:9.2f} {p.predicted:9.2f} {p.ratio:5.2f}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
