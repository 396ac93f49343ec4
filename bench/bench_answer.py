"""Benchmark the whole question path: text -> answer() -> Answer with rendered text.

usage: python bench/bench_answer.py [--questions N]

Per-question latency (median and p99) over N (default 2,000) varied
questions, generated from templates over the catalog's own names plus the
question table of the tests; the baseline, run in the same process over the
same questions, is bare rapidfuzz matching (``process.extractOne`` of the
whole question against every name and alias) - the least a fuzzy-matching
bot does per question. Also process start-up to first answer
(``python -m bot ask``) over 10 runs. Targets (issue #4): p99 under 1 ms,
start-up under 0.5 s.
"""

from __future__ import annotations

import random
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from _timing import line  # noqa: E402
from rapidfuzz import fuzz, process, utils  # noqa: E402

from bot.core.answer import answer  # noqa: E402
from bot.core.knowledge import get_catalog  # noqa: E402
from bot.core.yaml_io import safe_load  # noqa: E402

TEMPLATES = (
    "what gpu for {m} under ${b}",
    "can I fine-tune {m} with qlora on a {g}?",
    "max batch size for {m} on a {g}",
    "{g} vs {g2} for {m}",
    "can a {g} run {m} in int4",
    "how much vram does {m} need",
    "best card for training {m}, budget {b} dollars",
    "{m}用什么显卡？预算{b}美元",
    "does {m} fit on 2x {g}",
    "info {g}",
    "how big is {m}",
    "lamma 3 8b on {g} w/ qlora???",
    "asdfghjkl {b}",
)


def questions(n: int, seed: int = 7, catalog: Any = None) -> list[str]:
    """``n`` questions: the question table's, then templates over ``catalog``'s names (default: the
    shipped catalog)."""
    cat = catalog if catalog is not None else get_catalog()
    rng = random.Random(seed)
    mnames = [a for m in cat.models.values() for a in (m.name, *m.aliases[:2])]
    gnames = [a for g in cat.gpus.values() for a in g.aliases[:2] or (g.name,)]
    out = []
    table = safe_load((ROOT / "tests/core/questions.yaml").read_text(encoding="utf-8"))
    for row in table:
        out.extend([row["q"]] if "q" in row else [s["q"] for s in row.get("seq", [])])
    while len(out) < n:
        t = rng.choice(TEMPLATES)
        out.append(
            t.format(
                m=rng.choice(mnames),
                g=rng.choice(gnames),
                g2=rng.choice(gnames),
                b=rng.choice([300, 500, 800, 1000, 1500, 2000, 5000]),
            )
        )
    rng.shuffle(out)
    return out[:n]


def timed(fn, items):  # type: ignore[no-untyped-def]
    samples = []
    for it in items:
        t0 = time.perf_counter_ns()
        fn(it)
        samples.append((time.perf_counter_ns() - t0) / 1000)
    samples.sort()
    return statistics.median(samples), samples[int(0.99 * (len(samples) - 1))]


def main() -> int:
    n = int(sys.argv[sys.argv.index("--questions") + 1]) if "--questions" in sys.argv else 2000
    cat = get_catalog()
    qs = questions(n)
    choices = [a for e in (*cat.gpus.values(), *cat.models.values()) for a in (e.name, *e.aliases)]
    for q in qs[:100]:  # warm up caches on both sides
        answer(q, catalog=cat)
        process.extractOne(q, choices, scorer=fuzz.WRatio, processor=utils.default_process)

    def bare(q: str) -> object:
        return process.extractOne(q, choices, scorer=fuzz.WRatio, processor=utils.default_process)

    bmed, bp99 = timed(bare, qs)
    print(f"{len(qs)} questions ({len(set(qs))} distinct)")
    print(line("baseline: bare rapidfuzz extractOne", bmed, bp99))
    amed, ap99 = timed(lambda q: answer(q, catalog=cat), qs)
    print(line("answer() end to end (parse+engine+render)", amed, ap99, bmed))
    longest = max(qs, key=lambda q: timed(lambda x: answer(x, catalog=cat), [q])[0])
    print(f"slowest question: {longest!r}")

    # issue 12: speed answers against today's fit answers (same cards and models, warmed up)
    cards = ["3060", "3090", "4090", "a6000", "l40s", "4070 ti", "3080", "7900 xtx"]
    mods = ["llama 3 8b", "mistral 7b", "qwen2.5 14b", "qwen2.5 7b", "gemma 2 9b"]
    fit_qs = [f"does {m} fit on a {c}" for m in mods for c in cards]
    speed_qs = [f"tokens/s of {m} on a {c}" for m in mods for c in cards]
    speed_qs += [f"how many users can a {c} serve with {m} at 8k context" for m in mods for c in cards]
    speed_qs += [
        f"how long to lora fine-tune {m} on 10k samples of 1024 tokens on a {c}" for m in mods for c in cards
    ]
    for q in fit_qs + speed_qs:
        answer(q, catalog=cat)
    fmed, fp99 = timed(lambda q: answer(q, catalog=cat), fit_qs * 5)
    smed, sp99 = timed(lambda q: answer(q, catalog=cat), speed_qs * 2)
    print(line("fit answers (card named)", fmed, fp99))
    print(line("speed / serving / time answers (card named)", smed, sp99, fmed))
    print(f"speed answers cost {smed / fmed:.2f}x a fit answer (median; target <= 1.2x)")
    target_qs = [
        f"what do I need for {k} tokens per second on {m}, budget 2500 dollars"
        for k in (10, 20, 40)
        for m in mods
    ]
    target_qs += [f"gpu to serve {m} to {u} users at 8k context" for u in (10, 30) for m in mods]
    target_qs += [f"lora fine-tune {m} on 100k samples of 1024 tokens in under a day" for m in mods]
    for q in target_qs:
        answer(q, catalog=cat)
    tmed, tp99 = timed(lambda q: answer(q, catalog=cat), target_qs * 3)
    print(line("target searches (no card named: weigh every card)", tmed, tp99, fmed))

    starts = []
    for _ in range(10):
        t0 = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "bot", "ask", "can a 3090 run llama 3 8b"],
            cwd=ROOT,
            check=True,
            capture_output=True,
        )
        starts.append(time.perf_counter() - t0)
    starts.sort()
    print(
        f"start-up to first answer (python -m bot ask): median {statistics.median(starts) * 1000:.0f} ms, "
        f"max {starts[-1] * 1000:.0f} ms over 10 runs"
    )
    ok = ap99 < 1000 and statistics.median(starts) < 0.5
    print(f"targets: p99 < 1 ms, start-up < 0.5 s: {'met' if ok else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
