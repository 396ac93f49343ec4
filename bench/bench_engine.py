"""Benchmark the advisor engine: one memory estimate, one recommendation over the whole catalog.

usage: python bench/bench_engine.py [--runs N]

Targets (issue #3): one estimate under 20 us, a recommendation under 0.5 ms
(median). The baseline, run in the same process, is a bare dict lookup plus
one float multiply-add per card: the floor any per-card loop pays.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _timing import line, measure  # noqa: E402

from bot.core import memory, recommend  # noqa: E402
from bot.core.knowledge import get_catalog  # noqa: E402
from bot.core.types import Intent, Method, Query, Task  # noqa: E402


def main() -> int:
    runs = int(sys.argv[sys.argv.index("--runs") + 1]) if "--runs" in sys.argv else 5000
    cat = get_catalog()
    m, g = cat.model("llama-3-8b"), cat.gpu("rtx-3090")
    cards = list(cat.gpus.values())

    def baseline() -> float:
        return sum(c.vram_gb * 1.07 + 0.6 for c in cards)

    base_med, base_p99 = measure(baseline, runs)
    print(line("baseline: one multiply-add per card", base_med, base_p99))

    med, p99 = measure(lambda: memory.estimate(m, g), runs)
    print(line("estimate (llama-3-8b on rtx-3090, defaults)", med, p99, base_med))
    med2, p992 = measure(lambda: memory.estimate(m, g, method=Method.QLORA, batch_size=8), runs)
    print(line("estimate (qlora, batch 8)", med2, p992, base_med))
    res = cat.model("resnet-50")
    med3, p993 = measure(lambda: memory.estimate(res, g, task=Task.TRAINING), runs)
    print(line("estimate (resnet-50 training)", med3, p993, base_med))

    q = Query(intent=Intent.RECOMMEND, models=("bert-base",), budget_usd=1000)
    bert = cat.model("bert-base")
    rmed, rp99 = measure(lambda: recommend.recommend(cat, bert, q), max(200, runs // 10))
    print(line(f"recommend (bert-base, $1000, {len(cards)} cards)", rmed, rp99, base_med))
    q2 = Query(intent=Intent.RECOMMEND, models=("llama-3-70b",), budget_usd=500)
    llama70 = cat.model("llama-3-70b")
    fmed, fp99 = measure(lambda: recommend.recommend(cat, llama70, q2), max(200, runs // 10))
    print(line("recommend, nothing fits (llama-3-70b, $500)", fmed, fp99, base_med))
    ok = med < 20 and rmed < 500
    print(f"targets: estimate < 20 us, recommend < 500 us: {'met' if ok else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
