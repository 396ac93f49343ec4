"""Every regular expression in bot/ runs in linear time on adversarial input.

Patterns are collected by introspection: every compiled ``re.Pattern`` held by
a module of ``bot`` (directly, or in a tuple/list/dict), the currency patterns
the parser builds from the catalog, and whatever ``re`` compiled and cached
while the parser answered a set of questions (the inline ``re.finditer(...)``
patterns). Each is timed on 4,000-character strings that make backtracking
patterns go quadratic (runs of digits, spaces, letters, repeated tokens) and
must stay within RATIO times a linear reference pattern timed on the same
strings in the same run (a few milliseconds on a laptop), so the test does
not depend on the machine's speed.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
import statistics
import time
from typing import Any

import pytest

import bot
from bot.core.answer import answer
from bot.core.gated_re import GatedPattern
from bot.core.knowledge import get_catalog
from bot.core.understand import budgets

N = 4000
RATIO = 40  # the worst linear pattern here is ~12x the reference; the quadratic ones were 400x-4000x

ADVERSARIAL: dict[str, str] = {
    "digits": "1" * N,
    "digits then k": "1" * (N - 1) + "k",
    "spaces": " " * N,
    "letters": "a" * N,
    "digit space": "1 " * (N // 2),
    "letter space": "a " * (N // 2),
    "decimals": "1." * (N // 2),
    "thousands": "1," * (N // 2),
    "hyphens": "a-" * (N // 2),
    "digit hyphens": "1-" * (N // 2),
    "times": "1x" * (N // 2),
    "spaced times": "1 x " * (N // 4),
    "cjk": "长度" * (N // 2),
    "cjk words": "可以预算" * (N // 4),
    "thousand k": "1k " * (N // 3),
    "seq": "seq " * (N // 4),
    "seq len": "seq len 1 " * (N // 10),
    "len": "len " * (N // 4),
    "ctx": "ctx " * (N // 4),
    "batch": "batch " * (N // 6),
    "max": "max " * (N // 4),
    "can": "can " * (N // 4),
    "full": "full " * (N // 5),
    "billions": "1b " * (N // 3),
    "dollars": "$1 " * (N // 3),
    "under": "under " * (N // 6),
    "precision": "fp16 " * (N // 5),
    "word numbers": "two " * (N // 4),
    "cards": "cards " * (N // 6),
    "mention": "<@1> " * (N // 5),
}

REFERENCE = re.compile(r"(?<![a-z0-9])(?:one|two|three|four|five)\b|\bx\d|[$€]\s*\d", re.ASCII)

SAMPLE_QUESTIONS = [
    "what gpu for bert under $1000",
    "can I fine-tune llama 3 8b with qlora on a 3090 with seq len 2048 and batch 8?",
    "2x 3090 vs 4090 for stable diffusion at 1024x1024",
    "预算800美元，训练BERT-large用什么显卡",
    "best card for qwen2.5 14b inference, I've got 2k, 8k context",
    "between $500 and $900 for resnet-50, 32 images per batch",
    "how much does a 5080 cost in euros, €900",
    "a 7b model on 2 cards with fsdp, without flash attention, 5000元以内",
    # (compiles a pattern inline, into re's cache: the collector reads those too)
    "how long to train resnet-50 on imagenet with 8x a100",
]


def _collect(value: Any, name: str, out: dict[str, re.Pattern[str]], depth: int = 0) -> None:
    if isinstance(value, GatedPattern):  # the pattern behind its literal check: timed as compiled
        value = value.raw
    if isinstance(value, re.Pattern):
        out.setdefault(name, value)
    elif depth < 3 and isinstance(value, tuple | list):
        for i, item in enumerate(value):
            _collect(item, f"{name}[{i}]", out, depth + 1)
    elif depth < 3 and isinstance(value, dict):
        for key, item in list(value.items())[:200]:
            _collect(item, f"{name}[{key!r}]", out, depth + 1)


def all_patterns() -> dict[str, re.Pattern[str]]:
    found: dict[str, re.Pattern[str]] = {}
    for info in pkgutil.walk_packages(bot.__path__, "bot."):
        if info.name == "bot.__main__" or ".migrations" in info.name:
            continue  # the entry point, and alembic scripts (run only inside alembic)
        module = importlib.import_module(info.name)
        for attr, value in vars(module).items():
            _collect(value, f"{info.name}.{attr}", found)
    cur = budgets.currencies(get_catalog())
    _collect(cur.pre, "parsing currencies.pre", found)
    _collect(cur.post, "parsing currencies.post", found)
    # inline patterns (re.finditer(r"...")) are compiled into re's cache when used: empty it
    # (other libraries' patterns are not ours to audit), then answer questions
    answer(SAMPLE_QUESTIONS[0])
    re.purge()
    for question in SAMPLE_QUESTIONS:
        answer(question)
    for cache_name in ("_cache", "_cache2"):
        cache = getattr(re, cache_name, None)
        if isinstance(cache, dict):
            for value in list(cache.values()):
                if isinstance(value, re.Pattern) and isinstance(value.pattern, str):
                    found.setdefault(f"re cache: {value.pattern[:60]!r}", value)
    return found


def _time(pattern: re.Pattern[str], text: str, runs: int = 3) -> float:
    best = float("inf")
    for _ in range(runs):
        t0 = time.perf_counter()
        for _m in pattern.finditer(text):
            pass
        best = min(best, time.perf_counter() - t0)
    return best


def test_collects_the_parser_patterns() -> None:
    names = all_patterns()
    assert len(names) > 60
    assert any("_SEQ_RES" in n for n in names) and any("_COUNT_AFTER_RE" in n for n in names)
    assert any(n.startswith("re cache:") for n in names)


def test_no_pattern_backtracks_super_linearly() -> None:
    patterns = all_patterns()
    baseline = statistics.median(_time(REFERENCE, s) for s in ADVERSARIAL.values())
    limit = RATIO * baseline
    slow: list[str] = []
    for pname, pattern in patterns.items():
        for sname, text in ADVERSARIAL.items():
            took = _time(pattern, text, runs=1)
            if took > limit:
                # a busy machine (2 cores, shared): measure both again before blaming the pattern
                took = _time(pattern, text, runs=5)
                again = statistics.median(_time(REFERENCE, s) for s in ADVERSARIAL.values())
                if took > RATIO * max(baseline, again):
                    slow.append(f"{pname} on {sname}: {took * 1000:.1f} ms ({took / again:.0f}x)")
    assert not slow, f"limit {limit * 1000:.2f} ms ({RATIO}x the reference):\n" + "\n".join(slow)


@pytest.mark.parametrize(
    "pattern",
    [
        # the two that were quadratic: a number not preceded by a digit, and one optional group between \s*
        r"(?<![0-9.])(\d+(?:\.\d+)?)\s*(k)?\s*(?:上下文|token)",
        r"^(?:s|'s)?\s*(?:(?:cards?|gpus?)\s*)?[x×]\s*(\d{1,4})\b",
    ],
)
def test_the_fixed_patterns_are_the_ones_in_use(pattern: str) -> None:
    assert any(pattern in p.pattern for p in all_patterns().values())


def test_the_old_sequence_pattern_would_fail_this_audit() -> None:
    """The audit can fail: the pattern as it was is far past the limit on a run of digits."""
    old = re.compile(r"(\d+(?:\.\d+)?)\s*(k)?\s*(?:上下文|token)", re.ASCII)
    baseline = statistics.median(_time(REFERENCE, s) for s in ADVERSARIAL.values())
    assert _time(old, ADVERSARIAL["digits"]) > RATIO * baseline
