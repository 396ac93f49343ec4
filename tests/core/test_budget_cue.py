"""bot.core.understand.budgets._CUE_NUM_RE, written for speed (a lookahead of the cues' first
characters, possessive spaces), finds exactly what the plain pattern finds."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.core.matching import normalize
from bot.core.understand import budgets
from bot.core.yaml_io import safe_load

ROOT = Path(__file__).resolve().parents[2]
PLAIN = re.compile(
    budgets._CUE_RE
    + r"\s*:?\s*(?:(?:like|roughly|maybe|just|only)\s+)?(?<![a-z0-9.])"
    + budgets._NUM
    + r"(?![a-z0-9.])",
    re.ASCII,
)


def _spans(pattern: object, text: str) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    return [(m.span(), m.span(1)) for m in pattern.finditer(text)]  # type: ignore[attr-defined]


def test_the_cue_pattern_is_the_plain_one_on_the_corpora() -> None:
    texts: list[str] = []
    for rel in ("tests/corpus/questions.yaml", "tests/core/questions.yaml"):
        for row in safe_load((ROOT / rel).read_text(encoding="utf-8")):
            if isinstance(row, dict) and isinstance(row.get("q"), str):
                texts.append(normalize(row["q"]))
    texts += [
        "what gpu for" + " " * 30 + "under $500",
        "budget:  1,500",
        "for like 800",
        "不超过 3000",
        "<= 700",
    ]
    assert any(_spans(PLAIN, t) for t in texts)
    for t in texts:
        assert _spans(budgets._CUE_NUM_RE, t) == _spans(PLAIN, t), t


PIECES = ["under", "below", "for", "have", "got", "budget", "of", "up to", "max", "预算", "最多", "<", "=", ":",
          " ", "  ", "\t", "like", "1", "500", "1,500", "2.5", ".", "k", "a", "x", "ub"]  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=14))
def test_the_cue_pattern_is_the_plain_one_on_generated_text(parts: list[str]) -> None:
    text = "".join(parts)
    assert _spans(budgets._CUE_NUM_RE, text) == _spans(PLAIN, text)
