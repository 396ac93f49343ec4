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
