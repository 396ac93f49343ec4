"""A "worth it" question that names a model and a task is answered for that workload (issue 10):
whether it fits (the memory model, per fine-tuning method), how fast where the speed model has a
figure, then the value of the card. Both languages; the JSON carries the workload's numbers."""

from __future__ import annotations

import json

import pytest

from bot.core import memory
from bot.core.answer import answer
from bot.core.knowledge import get_catalog
from bot.core.parsing import parse
from bot.core.types import Intent, Method, Task


def test_dgx_spark_fine_tuning_70b_reads_the_workload() -> None:
    q = parse("is the dgx spark worth it for fine tuning 70b")
    assert q.intent is Intent.ADVICE and q.advice_topic == "worth"
    assert q.gpus == ("nvidia-dgx-spark",)
    assert q.task is Task.FINETUNE
    assert q.models == ("llama-3.3-70b",)  # a typical 70B dense decoder, said as such


def test_dgx_spark_fine_tuning_70b_answer() -> None:
    a = answer("is the dgx spark worth it for fine tuning 70b")
    text = a.text
    # the workload first: QLoRA fits on 128 GB, full fine-tuning does not
    assert a.verdict.startswith("Partly")
    assert "QLoRA" in a.verdict and "full fine-tuning" in a.verdict
    cat = get_catalog()
    m, g = cat.model("llama-3.3-70b"), cat.gpu("nvidia-dgx-spark")
    assert memory.estimate(m, g, task=Task.FINETUNE, method=Method.QLORA).fits
    assert not memory.estimate(m, g, task=Task.FINETUNE, method=Method.FULL).fits
    # how fast (the speed model's training figure, with its band), then the value
    assert "tokens/s of training" in text and "hours per 10 million tokens" in text
    assert "As a purchase" in text and "per GB" in text
    assert text.index("tokens/s") < text.index("As a purchase")


@pytest.mark.parametrize(
    "text",
    ["is the dgx spark worth it for fine tuning 70b", "dgx spark 微调70b值得买吗"],
)
def test_json_carries_the_workload(text: str) -> None:
    d = json.loads(json.dumps(answer(text).to_json(), allow_nan=False))
    adv = d["advice"]
    assert adv["topic"] == "worth" and adv["models"] == ["llama-3.3-70b"]
    n = adv["numbers"]
    assert n["workload_task"] == "finetune"
    assert n["workload_fits"] == ["qlora"]
    assert n["workload_checked"] == ["qlora", "lora", "full"]
    assert n["speed_label"] == "qlora" and n["speed_low"] < n["speed_tokens_per_s"] < n["speed_high"]
    fit_rows = [r for r in adv["rows"] if r["kind"] == "fit"]
    assert [r["fits"] for r in fit_rows] == [True, False, False]


def test_chinese_workload_answer() -> None:
    a = answer("dgx spark 微调70b值得买吗")
    assert a.verdict.startswith("部分可以") and "QLoRA" in a.verdict and "全量微调" in a.verdict
    assert "token/秒" in a.text and "性价比" in a.text


def test_inference_workload_low_bit_is_not_a_plain_yes() -> None:
    a = answer("is a 3090 worth it for running llama 3 70b")
    assert a.query.advice_topic == "worth" and a.query.models == ("llama-3-70b",)
    assert not a.verdict.startswith("Yes")
    assert "lower quality" in a.verdict


def test_worth_without_a_model_is_unchanged() -> None:
    a = answer("is a p40 still worth it in 2026")
    assert a.query.advice_topic == "worth" and a.query.models == ()
    assert "As a purchase" not in a.text


def test_worth_over_another_card_stays_a_comparison() -> None:
    q = parse("3090 vs 4090 for llama finetuning, is the 4090 worth it")
    assert q.intent is Intent.COMPARE


def test_size_index_picks_what_a_full_pass_picks() -> None:
    """``model_by_size`` reads a per-catalog index by size; it must pick exactly what comparing
    every dense decoder would (named that size before within 15%, a typical vocabulary before an
    outlier, nearest, newest on ties, catalog order last)."""
    import re

    from bot.core.understand.names import TYPICAL_VOCAB_MAX, model_by_size

    cat = get_catalog()

    def full_pass(size: float) -> str | None:
        best: tuple[tuple[int, float, int], str] | None = None
        for mid, m in cat.models.items():
            if m.kind != "decoder" or m.base_model:
                continue
            said = re.findall(r"(?<![\d.])(\d+(?:\.\d+)?)\s*b\b", m.name, re.I)
            named = bool(said) and float(said[-1]) == size
            gap = abs(m.params / 1e9 - size) / size
            tier = (0 if named else 2) + (1 if (m.vocab or 0) > TYPICAL_VOCAB_MAX else 0)
            key = (tier, round(gap, 2), -int((m.release or "0").replace("-", "") or 0))
            if (gap <= 0.15 or named) and (best is None or key < best[0]):
                best = (key, mid)
        return best[1] if best else None

    for size in (0.5, 1, 1.5, 2, 3, 7, 8, 9, 13, 14, 27, 32, 34, 70, 72, 120, 405, 999):
        got = model_by_size(f"a {size:g}b model", cat)
        assert (got[0] if got else None) == full_pass(size), size
