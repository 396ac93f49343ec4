"""Training answers that answer the question asked (issue 10): multi-card QLoRA shards (FSDP-QLoRA),
a bare "1B model" stands for a typical 1B model, and "how much does it cost to train X" is a job cost.
"""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from bot.core import memory
from bot.core.answer import answer
from bot.core.knowledge import load_catalog
from bot.core.types import Method, Parallelism


@pytest.fixture(scope="module")
def cat():
    return load_catalog()


def _json(text: str) -> dict:
    return json.loads(json.dumps(answer(text).to_json()))  # as the CLI prints it


# ------------------------------------------------------------------ multi-card LoRA / QLoRA shards


def test_multi_card_qlora_shards_when_a_copy_does_not_fit(cat):
    m, g = cat.models["llama-3-70b"], cat.gpus["rtx-3090"]
    w = memory.resolve_workload(m, method=Method.QLORA, num_gpus=4, parallelism=Parallelism.DATA)
    ddp = memory.estimate(m, g, workload=replace(w, parallelism_stated=True))  # "ddp" said
    auto = memory.estimate(m, g, method=Method.QLORA, num_gpus=4)
    # a 4-bit 70B copy (~41 GB of weights) does not fit a 24 GB card; sharded 4 ways it does
    assert not ddp.fits and ddp.weights > 35e9
    assert auto.workload.parallelism is Parallelism.SHARDED and auto.fits
    assert auto.total < ddp.total and auto.weights == pytest.approx(ddp.weights / 4, rel=0.01)


def test_multi_card_lora_stays_data_parallel_when_a_copy_fits(cat):
    e = memory.estimate(cat.models["llama-3-8b"], cat.gpus["rtx-3090"], method=Method.LORA, num_gpus=2)
    assert e.fits and e.workload.parallelism is Parallelism.DATA


@pytest.mark.parametrize(
    "text", ["can 4x 3090 fine-tune llama 3 70b with qlora", "4张3090能用qlora微调llama 3 70b吗"]
)
def test_four_3090s_qlora_70b_answer_is_sharded_yes(text):
    j = _json(text)
    fit = j["fit"][0]
    assert fit["fits"] is True and fit["num_gpus"] == 4
    assert fit["assumptions"]["parallelism"] == "sharded"
    assert fit["required_gb"] < fit["capacity_gb"]


def test_ddp_asked_stays_ddp_and_offers_sharding():
    j = _json("can 4x 3090 fine-tune llama 3 70b with qlora, ddp")
    fit = j["fit"][0]
    assert fit["fits"] is False and fit["assumptions"]["parallelism"] == "data"
    note = next(n for n in j["notes"] if n["code"] == "multi_train")
    assert note["sharded_gb"] < fit["capacity_gb"] < note["copy_gb"]
