"""answer() at another git revision against the working tree, in one process, question by question.

usage: python bench/ab_answer.py REV [--rounds N] [--common-names] [--cpu-time] [--same-knowledge] [--block N]

The per-question benchmark of an issue is "within 1.2x of today's median and
p99": timing two checkouts in two processes on a shared 2-core machine swings
by more than that. Here the old revision's ``bot`` package is extracted with
``git archive`` into a temporary directory, renamed ``oldbot`` (imports
rewritten), and both versions answer the same questions alternately in the
same process (which one first alternates per question) (each with its own revision's knowledge files), so noise hits both alike.
Prints the median and p99 of each and their ratios.

The questions are drawn from the working tree's catalog, which may name models
and cards the old revision does not know (it then answers them cheaply, as
unknown). ``--common-names`` times only the questions whose answers name the
same models and cards in both revisions (each answered once beforehand to
tell), so both do the same work. ``--cpu-time`` times with the thread's CPU clock instead of the
wall clock: on a machine shared with other busy processes, time spent waiting for a core is
then not counted. ``--same-knowledge`` has the working tree answer from the old revision's knowledge
files too (the code loads them: newer files are optional) and draws the questions from that catalog:
the code's own cost per question, apart from what a larger catalog costs (more cards weighed per
recommendation, more names to match). ``--block N`` has each revision answer N questions in a row
(then the other the same N; which goes first alternates per block): question by question (the
default, 1), each revision answers with the other's code and data just through the CPU's caches,
which a running bot never does, and which costs most the revision with the larger working set.
"""

from __future__ import annotations

import io
import re
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from _timing import alternate  # noqa: E402
from bench_answer import questions  # noqa: E402

from bot.core.answer import answer as new_answer  # noqa: E402
from bot.core.knowledge import get_catalog, load_catalog  # noqa: E402


def extract_old(rev: str, into: Path) -> None:
    data = subprocess.run(
        ["git", "archive", rev, "bot", "knowledge"], cwd=ROOT, check=True, capture_output=True
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        tar.extractall(into, filter="data")
    (into / "bot").rename(into / "oldbot")
    for py in (into / "oldbot").rglob("*.py"):
        text = py.read_text(encoding="utf-8")
        py.write_text(re.sub(r"\b(from|import) bot(\.| )", r"\1 oldbot\2", text), encoding="utf-8")


def stats(xs: list[float]) -> tuple[float, float]:
    xs = sorted(xs)
    return statistics.median(xs), xs[int(0.99 * (len(xs) - 1))]


def _names(ans: object) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The models and cards an answer is about (its query's), comparable across revisions."""
    q = ans.query  # type: ignore[attr-defined]
    return tuple(q.models), tuple(q.gpus)


def main() -> int:
    rev = sys.argv[1]
    rounds = int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv else 2
    block = int(sys.argv[sys.argv.index("--block") + 1]) if "--block" in sys.argv else 1
    with tempfile.TemporaryDirectory() as tmp:
        extract_old(rev, Path(tmp))
        sys.path.insert(0, tmp)
        import oldbot.core.answer as old_mod  # type: ignore[import-not-found]
        import oldbot.core.knowledge as old_knowledge  # type: ignore[import-not-found]

        ocat = old_knowledge.get_catalog(Path(tmp) / "knowledge")  # each revision with its own knowledge
        same = "--same-knowledge" in sys.argv
        ncat = load_catalog(Path(tmp) / "knowledge") if same else get_catalog()
        qs = questions(2000, catalog=ncat if same else None)
        for q in qs[:200]:  # warm both
            new_answer(q, catalog=ncat)
            old_mod.answer(q, catalog=ocat)
        if "--common-names" in sys.argv:
            qs = [
                q
                for q in qs
                if _names(new_answer(q, catalog=ncat)) == _names(old_mod.answer(q, catalog=ocat))
            ]
        clock = time.thread_time_ns if "--cpu-time" in sys.argv else time.perf_counter_ns
        # which revision answers first alternates per question (see _timing.alternate)
        old_t, new_t = alternate(
            lambda q: old_mod.answer(q, catalog=ocat),
            lambda q: new_answer(q, catalog=ncat),
            qs,
            rounds,
            clock,
            block,
        )
    om, op = stats(old_t)
    nm, np_ = stats(new_t)
    common = " (same models and cards named in both)" if "--common-names" in sys.argv else ""
    cpu = ", CPU time" if "--cpu-time" in sys.argv else ""
    if "--same-knowledge" in sys.argv:
        cpu += f", both with {rev[:12]}'s knowledge files"
    by = "question by question" if block == 1 else f"in blocks of {block} questions"
    print(f"{len(qs)} questions{common} x {rounds} rounds, alternating {by} in one process{cpu}")
    print(f"{rev[:12]:>12} answer(): median {om:7.0f} us  p99 {op:7.0f} us")
    print(f"{'working tree':>12} answer(): median {nm:7.0f} us  p99 {np_:7.0f} us")
    print(f"ratio: median {nm / om:.2f}x  p99 {np_ / op:.2f}x (target <= 1.2x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
