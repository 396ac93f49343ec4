"""One fact about a model or a card, answered as asked (issue 10): the value comes from the catalog
entry (with its source), and the question is not taken for a buying list."""

from __future__ import annotations

import pytest

from bot.core import facts
from bot.core.answer import answer
from bot.core.knowledge import get_catalog


def _model(mid: str, attr: str) -> object:
    return getattr(get_catalog().models[mid], attr)


def _card(gid: str, attr: str) -> object:
    return getattr(get_catalog().gpus[gid], attr)


@pytest.mark.parametrize(
    "question,subject,name,value",
    [
        (
            "how many attention heads does Mistral 7B have",
            "mistral-7b",
            "heads",
            lambda: _model("mistral-7b", "heads"),
        ),
        ("mistral 7b有几个注意力头", "mistral-7b", "heads", lambda: _model("mistral-7b", "heads")),
        ("llama 3 70b有几个kv头", "llama-3-70b", "kv_heads", lambda: _model("llama-3-70b", "kv_heads")),
        ("how many layers in llama 3 8b?", "llama-3-8b", "layers", lambda: _model("llama-3-8b", "layers")),
        ("qwen2.5 72b有多少层", "qwen2.5-72b", "layers", lambda: _model("qwen2.5-72b", "layers")),
        (
            "llama 3 70b context length",
            "llama-3-70b",
            "context",
            lambda: _model("llama-3-70b", "max_seq_len"),
        ),
        (
            "what's the hidden size of bert large",
            "bert-large",
            "hidden",
            lambda: _model("bert-large", "hidden"),
        ),
        ("what's gemma 3 27b's vocab size", "gemma-3-27b", "vocab", lambda: _model("gemma-3-27b", "vocab")),
        ("H100 memory bandwidth", "h100-sxm", "bandwidth", lambda: _card("h100-sxm", "memory_bandwidth_gbs")),
        ("4090 tdp", "rtx-4090", "tdp", lambda: _card("rtx-4090", "tdp_w")),
        ("3090有多少显存", "rtx-3090", "vram", lambda: _card("rtx-3090", "vram_gb")),
        ("how much vram does the rtx 5090 have", "rtx-5090", "vram", lambda: _card("rtx-5090", "vram_gb")),
        ("does the 2080 ti support bf16", "rtx-2080-ti", "bf16", lambda: False),
        ("what architecture is the L40S", "l40s", "architecture", lambda: _card("l40s", "architecture")),
    ],
)
def test_the_fact_asked_leads_with_its_source(question: str, subject: str, name: str, value: object) -> None:
    a = answer(question)
    j = a.to_json()
    assert j["intent"] == "info", j["intent"]
    f = j["facts"][0]
    want = value() if callable(value) else value
    assert (f["subject"], f["name"], f["value"]) == (subject, name, want)
    assert f["source"]
    assert j["recommendations"] == []


def test_asked_reads_the_fact_codes() -> None:
    assert facts.asked("how many kv heads does it have", True, False) == ["kv_heads"]
    assert facts.asked("attention heads and layers", True, False) == ["heads", "layers"]
    assert facts.asked("h100 memory bandwidth", False, True) == ["bandwidth"]
    assert facts.asked("tdp", True, True) == []  # a model and a card: a fit question, not a fact
    assert facts.asked("4090 specs", False, True) == []


def test_questions_that_are_not_facts_stay_what_they_were() -> None:
    assert answer("how much vram does llama 2 70b need").to_json()["intent"] == "fit"
    assert answer("can a 3090 run llama 3 8b").to_json()["intent"] == "fit"
    assert answer("what gpu for llama 3 8b under $800").to_json()["intent"] == "recommend"
    j = answer("4090 specs").to_json()
    assert j["intent"] == "info" and "facts" not in j
