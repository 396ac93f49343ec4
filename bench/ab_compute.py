"""engine.compute() at another git revision against the working tree, in one process, per question.

usage: python bench/ab_compute.py REV [--rounds N]

The engine's share of ``bench/ab_answer.py``: each revision parses the same 2,000 benchmark
questions once with its own parser (its own Query type), then both compute every query
alternately, timed on the thread's CPU clock. Which revision runs first alternates from one
question to the next: on the same question the second run is ~7% faster whichever it is (an A/A
run of a revision against itself shows it when the order is fixed), so a fixed order would credit
the working tree with a gain it does not have. Prints mean, median and p99 of each and the ratios.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from _timing import alternate  # noqa: E402
from ab_answer import extract_old  # noqa: E402
from bench_answer import questions  # noqa: E402

from bot.core import language  # noqa: E402
from bot.core.answer import _checked  # noqa: E402
from bot.core.engine import compute  # noqa: E402
from bot.core.knowledge import get_catalog  # noqa: E402
from bot.core.parsing import parse  # noqa: E402


def _stats(xs: list[float]) -> tuple[float, float, float]:
    xs = sorted(xs)
    return sum(xs) / len(xs), statistics.median(xs), xs[int(0.99 * (len(xs) - 1))]


def main() -> int:
    rev = sys.argv[1]
    rounds = int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv else 3
    with tempfile.TemporaryDirectory() as tmp:
        extract_old(rev, Path(tmp))
        sys.path.insert(0, tmp)
        import oldbot.core.knowledge as old_knowledge  # type: ignore[import-not-found]
        from oldbot.core import language as old_language  # type: ignore[import-not-found]
        from oldbot.core.answer import _checked as old_checked  # type: ignore[import-not-found]
        from oldbot.core.engine import compute as old_compute  # type: ignore[import-not-found]
        from oldbot.core.parsing import parse as old_parse  # type: ignore[import-not-found]

        ocat = old_knowledge.get_catalog(Path(tmp) / "knowledge")
        ncat = get_catalog()
        pairs = [
            (
                _checked(parse(language.to_simplified(t), ncat, None)),
                old_checked(old_parse(old_language.to_simplified(t), ocat, None)),
            )
            for t in questions(2000)
        ]
        for nq, oq in pairs:  # warm both
            compute(ncat, nq)
            old_compute(ocat, oq)
        clock = time.thread_time_ns
        old_t, new_t = alternate(
            lambda p: old_compute(ocat, p[1]), lambda p: compute(ncat, p[0]), pairs, rounds, clock
        )
    om, omed, op = _stats(old_t)
    nm, nmed, np_ = _stats(new_t)
    print(
        f"{len(pairs)} questions x {rounds} rounds, alternating (and alternating which runs first), CPU time"
    )
    print(f"{rev[:12]:>12} compute(): mean {om:6.0f} us  median {omed:6.0f} us  p99 {op:6.0f} us")
    print(f"{'working tree':>12} compute(): mean {nm:6.0f} us  median {nmed:6.0f} us  p99 {np_:6.0f} us")
    print(f"ratio: mean {nm / om:.2f}x  median {nmed / omed:.2f}x  p99 {np_ / op:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
