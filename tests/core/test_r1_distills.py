"""The DeepSeek R1 distills by size (issue 10): people drop the word "distill" ("r1 8b", "deepseek r1
14b") or write it in Chinese ("8b蒸馏版", "蒸馏 14b"); each reaches the distill of that size, and where
two share a size (8B) the one not taken is said."""

from __future__ import annotations

import pytest

from bot.core.answer import answer
from bot.core.knowledge import get_catalog
from bot.core.parsing import parse
from bot.core.types import Lang, NoteCode


@pytest.mark.parametrize(
    ("text", "mid"),
    [
        ("can a 3060 run deepseek r1 8b", "deepseek-r1-distill-llama-8b"),
        ("can a 3060 run r1 8b", "deepseek-r1-distill-llama-8b"),
        ("can a 3060 run deepseek r1 distill 8b", "deepseek-r1-distill-llama-8b"),
        ("can a 3060 run deepseek r1 14b", "deepseek-r1-distill-qwen-14b"),
        ("can a 3060 run deepseek r1 distill 14b", "deepseek-r1-distill-qwen-14b"),
        ("can a 3060 run r1 7b", "deepseek-r1-distill-qwen-7b"),
        ("can a 3060 run r1 1.5b", "deepseek-r1-distill-qwen-1.5b"),
        ("can a 3090 run deepseek r1 distill 32b", "deepseek-r1-distill-qwen-32b"),
        ("deepseek r1 8b蒸馏版 3060能跑吗", "deepseek-r1-distill-llama-8b"),
        ("r1 蒸馏 14b 3060能跑吗", "deepseek-r1-distill-qwen-14b"),
        ("r1 蒸餾版 7b 3060能跑嗎", "deepseek-r1-distill-qwen-7b"),
        ("can a 3060 run deepseek r1 0528 qwen3 8b", "deepseek-r1-0528-qwen3-8b"),
        ("can a 3060 run deepseek-ai/DeepSeek-R1-0528-Qwen3-8B", "deepseek-r1-0528-qwen3-8b"),
    ],
)
def test_distill_by_size(text: str, mid: str) -> None:
    q = parse(text)
    assert q.models == (mid,)
    assert not q.needs_clarification
    assert not any(n.code is NoteCode.UNKNOWN_NAME for n in q.notes)


@pytest.mark.parametrize("text", ["can a 3060 run deepseek r1 8b", "can a 3060 run r1 distill 8b"])
def test_the_other_8b_distill_is_said(text: str) -> None:
    q = parse(text)
    also = next(n for n in q.notes if n.code is NoteCode.TOOK_MODEL_ALSO)
    assert also.values["chosen"] == "DeepSeek-R1-Distill-Llama-8B"
    assert "DeepSeek-R1-0528-Qwen3-8B" in also.values["others"]
    assert "DeepSeek-R1-0528-Qwen3-8B" in answer(text).text


def test_chinese_distill_note_names_both() -> None:
    a = answer("deepseek r1 8b蒸馏版 3060能跑吗")
    assert a.language is Lang.ZH_HANS
    assert "DeepSeek-R1-Distill-Llama-8B" in a.text and "DeepSeek-R1-0528-Qwen3-8B" in a.text


def test_0528_qwen3_8b_has_qwen3_8b_shapes() -> None:
    cat = get_catalog()
    m, base = cat.model("deepseek-r1-0528-qwen3-8b"), cat.model("qwen3-8b")
    assert m.base_model == "qwen3-8b"
    for f in ("params", "layers", "hidden", "heads", "kv_heads", "ffn", "vocab"):
        assert getattr(m, f) == getattr(base, f), f
    assert m.max_seq_len == 131072 and "2025-05" in m.source


def test_bare_r1_and_full_r1_unchanged() -> None:
    assert parse("what gpu for R1").needs_clarification
    assert parse("can 8x h100 run deepseek r1 671b").models == ("deepseek-r1",)
