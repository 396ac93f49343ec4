"""Score the public question corpus (tests/corpus/questions.yaml): the share fully understood.

usage: python bench/score_corpus.py [--corpus FILE] [--python PY] [--tag TAG] [--show N]
                                    [--min FRACTION] [--json]

A measurement, not a test: it exits 0 whatever the score, unless ``--min`` is given and the
overall share is below it (then 1). Everything runs through the bot's public JSON contract:

- all single questions (``q``) go through ONE process, ``python -m bot ask --json -``
  (one question per line in, one JSON object per line out);
- each conversation (``turns``) goes through its own ``python -m bot ask --json --conversation -``
  (context carries from line to line).

A case is *fully understood* when every check holds:

``expect`` (fields of the JSON answer; for a conversation, of its last turn)
  intent, task, method, precision, language   a string (or a list of acceptable strings); null = must be null
  models, gpus                                ids, compared as sets (order-free, exact); an entry that is a
                                              list is a slot any one of whose ids will do
  budget_usd                                  a number (within 1%), [lo, hi] (inclusive), or null
  batch_size, seq_len, num_gpus               integers (or null)
  unrecognized                                spans read as names and matched to nothing; compared after
                                              lowercasing and collapsing spaces, a reported span may
                                              contain the expected one (or the reverse); same count
  gpu_counts                                  {gpu-id: count}, read from ``gpus`` zipped with ``gpu_counts``
``says`` / ``not_says``
  regexes (case-insensitive) the answer's text must / must not match (last turn of a conversation).

A conversation's turns may be plain strings or mappings ``{q, expect, says, not_says}``: those
checks apply to that turn's answer, so a conversation is understood only when every turn is.

Dependency-free beyond PyYAML (standard library otherwise).
"""

from __future__ import annotations

import argparse
import json
import math
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

from bot.core.yaml_io import safe_load

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_CORPUS = ROOT / "tests" / "corpus" / "questions.yaml"
STRING_FIELDS = ("intent", "task", "method", "precision", "language")
INT_FIELDS = ("batch_size", "seq_len", "num_gpus")
ID_FIELDS = ("models", "gpus")
FIELDS = (*STRING_FIELDS, *INT_FIELDS, *ID_FIELDS, "budget_usd", "unrecognized", "gpu_counts")
TIMEOUT_S = 900


def norm(value: Any) -> str:
    return " ".join(str(value).lower().split())


def one_line(text: str) -> str:
    """A question as one stdin line (the batch reader splits on newlines)."""
    return " ".join(text.splitlines())


# ------------------------------------------------------------------ running the bot


def run_lines(py: str, lines: list[str], conversation: bool) -> tuple[list[dict[str, Any] | None], str]:
    """Answers (parsed JSON, or None where a line produced no usable JSON) and an error, if any."""
    cmd = [py, "-m", "bot", "ask", "--json"] + (["--conversation"] if conversation else []) + ["-"]
    stdin = "".join(one_line(s) + "\n" for s in lines)
    try:
        proc = subprocess.run(
            cmd, input=stdin.encode("utf-8"), capture_output=True, cwd=ROOT, timeout=TIMEOUT_S
        )
    except subprocess.TimeoutExpired:
        return [None] * len(lines), f"timed out after {TIMEOUT_S} s"
    out = [ln for ln in proc.stdout.decode("utf-8", errors="replace").split("\n") if ln.strip()]
    answers: list[dict[str, Any] | None] = []
    for i in range(len(lines)):
        if i >= len(out):
            answers.append(None)
            continue
        try:
            obj = json.loads(out[i])
        except json.JSONDecodeError:
            obj = None
        answers.append(obj if isinstance(obj, dict) else None)
    error = ""
    if proc.returncode != 0 or len(out) != len(lines):
        tail = proc.stderr.decode("utf-8", errors="replace").strip().splitlines()[-1:]
        error = f"exit {proc.returncode}, {len(out)} lines for {len(lines)} questions {' '.join(tail)}"
    return answers, error


# ------------------------------------------------------------------ checks


def _ids_ok(expected: list[Any], actual: Any) -> bool:
    if not isinstance(actual, list):
        return False
    got = [norm(a) for a in actual]
    if len(got) != len(expected) or len(set(got)) != len(got):
        return False
    remaining = set(got)
    # specific slots first, so an alternative slot cannot take an id a plain slot needs
    for slot in sorted(expected, key=lambda s: len(s) if isinstance(s, list) else 1):
        options = [norm(s) for s in (slot if isinstance(slot, list) else [slot])]
        hit = next((o for o in options if o in remaining), None)
        if hit is None:
            return False
        remaining.discard(hit)
    return True


def _budget_ok(expected: Any, actual: Any) -> bool:
    if expected is None:
        return actual is None
    if not isinstance(actual, int | float) or isinstance(actual, bool) or not math.isfinite(actual):
        return False
    if isinstance(expected, list):
        lo, hi = expected
        return float(lo) <= actual <= float(hi)
    return abs(actual - float(expected)) <= 0.01 * abs(float(expected))


def _spans_ok(expected: list[str], actual: Any) -> bool:
    if not isinstance(actual, list) or len(actual) != len(expected):
        return False
    remaining = [norm(a) for a in actual]
    for span in (norm(e) for e in expected):
        hit = next((r for r in remaining if span in r or r in span), None)
        if hit is None:
            return False
        remaining.remove(hit)
    return True


def _counts_ok(expected: dict[str, int], ans: dict[str, Any]) -> bool:
    gpus, counts = ans.get("gpus") or [], ans.get("gpu_counts") or []
    got = {norm(g): c for g, c in zip(gpus, counts, strict=False)}
    return all(got.get(norm(g)) == n for g, n in expected.items())


def field_ok(name: str, expected: Any, ans: dict[str, Any]) -> bool:
    actual = ans.get(name)
    if name in STRING_FIELDS:
        if expected is None:
            return actual is None
        options = expected if isinstance(expected, list) else [expected]
        return actual is not None and norm(actual) in {norm(o) for o in options}
    if name in INT_FIELDS:
        return actual == expected
    if name in ID_FIELDS:
        return _ids_ok(list(expected or []), actual)
    if name == "budget_usd":
        return _budget_ok(expected, actual)
    if name == "unrecognized":
        return _spans_ok(list(expected or []), actual)
    if name == "gpu_counts":
        return _counts_ok(dict(expected), ans)
    raise ValueError(f"unknown expect field {name!r}")


def check(spec: dict[str, Any], ans: dict[str, Any] | None) -> list[str]:
    """What does not hold for one answer (empty: fully understood)."""
    if ans is None:
        return ["no JSON answer"]
    problems = []
    for name, expected in (spec.get("expect") or {}).items():
        if not field_ok(name, expected, ans):
            problems.append(f"{name}: expected {expected!r}, got {ans.get(name)!r}")
    text = str(ans.get("text") or "")
    for rx in spec.get("says") or []:
        if not re.search(rx, text, re.IGNORECASE):
            problems.append(f"says /{rx}/: not in the text")
    for rx in spec.get("not_says") or []:
        if re.search(rx, text, re.IGNORECASE):
            problems.append(f"not_says /{rx}/: in the text")
    return problems


# ------------------------------------------------------------------ scoring


def turn_specs(case: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """(question, checks) per turn; the case's own checks go to the last turn."""
    out: list[tuple[str, dict[str, Any]]] = []
    for t in case["turns"]:
        out.append((t, {}) if isinstance(t, str) else (t["q"], t))
    q, spec = out[-1]
    merged = dict(spec)
    merged["expect"] = {**(spec.get("expect") or {}), **(case.get("expect") or {})}
    for key in ("says", "not_says"):
        merged[key] = list(spec.get(key) or []) + list(case.get(key) or [])
    out[-1] = (q, merged)
    return out


def label(case: dict[str, Any]) -> str:
    return (
        case["q"] if "q" in case else " / ".join(t if isinstance(t, str) else t["q"] for t in case["turns"])
    )


def score(cases: list[dict[str, Any]], py: str) -> list[tuple[dict[str, Any], list[str]]]:
    results: list[tuple[dict[str, Any], list[str]]] = []
    singles = [c for c in cases if "q" in c]
    answers, error = run_lines(py, [c["q"] for c in singles], conversation=False)
    if error:
        print(f"warning: single questions: {error}", file=sys.stderr)
    for case, ans in zip(singles, answers, strict=True):
        results.append((case, check(case, ans)))
    for case in (c for c in cases if "turns" in c):
        specs = turn_specs(case)
        answers, error = run_lines(py, [q for q, _ in specs], conversation=True)
        problems = [f"conversation: {error}"] if error else []
        for i, ((_, spec), ans) in enumerate(zip(specs, answers, strict=True), start=1):
            problems += [f"turn {i}: {p}" for p in check(spec, ans)]
        results.append((case, problems))
    return results


def report(results: list[tuple[dict[str, Any], list[str]]], show: int) -> float:
    by_tag: dict[str, list[bool]] = defaultdict(list)
    by_kind: dict[str, list[bool]] = defaultdict(list)
    for case, problems in results:
        by_tag[case.get("tag", "?")].append(not problems)
        by_kind["conversations" if "turns" in case else "single questions"].append(not problems)
    failures = [(c, p) for c, p in results if p]
    if show and failures:
        print(f"First {min(show, len(failures))} of {len(failures)} not fully understood:")
        for case, problems in failures[:show]:
            print(f"- [{case.get('tag', '?')}] {label(case)}")
            for p in problems:
                print(f"    {p}")
        print()
    width = max([len(t) for t in by_tag] + [16])
    print(f"{'tag':<{width}}  {'cases':>5}  {'understood':>10}  {'share':>6}")
    for tag in sorted(by_tag):
        oks = by_tag[tag]
        print(f"{tag:<{width}}  {len(oks):>5}  {sum(oks):>10}  {sum(oks) / len(oks):>6.1%}")
    print()
    for kind in ("single questions", "conversations"):
        oks = by_kind.get(kind, [])
        if oks:
            print(f"{kind:<{width}}  {len(oks):>5}  {sum(oks):>10}  {sum(oks) / len(oks):>6.1%}")
    total = [not p for _, p in results]
    share = sum(total) / len(total) if total else 0.0
    print(f"{'overall':<{width}}  {len(total):>5}  {sum(total):>10}  {share:>6.1%}")
    print(f"\nfully understood: {sum(total)}/{len(total)} = {share:.1%}")
    return share


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    ap.add_argument("--python", default=sys.executable, help="the Python that runs the bot")
    ap.add_argument("--tag", action="append", help="score only these tags (repeatable)")
    ap.add_argument("--show", type=int, default=0, metavar="N", help="list the first N failures")
    ap.add_argument("--min", type=float, default=None, metavar="FRACTION", help="exit 1 below this share")
    ap.add_argument("--json", action="store_true", help="also write per-case results as JSON lines")
    args = ap.parse_args(argv)
    cases = safe_load(args.corpus.read_text(encoding="utf-8"))
    if args.tag:
        cases = [c for c in cases if c.get("tag") in args.tag]
    if not cases:
        print("no cases to score")
        return 0
    results = score(cases, args.python)
    if args.json:
        for case, problems in results:
            print(json.dumps({"tag": case.get("tag"), "case": label(case), "problems": problems}))
    share = report(results, args.show)
    return 1 if args.min is not None and share < args.min else 0


if __name__ == "__main__":
    sys.exit(main())
