"""Best models for a card and a task (issue 17): quality.yaml validation, the ranking rule, and a
corpus of "best model for my card" questions whose picks must all fit and put the current
generation first."""

from __future__ import annotations

import json
from types import MappingProxyType
from typing import Any

import pytest

from bot.core import memory, quality
from bot.core.answer import answer
from bot.core.engine import best, compute
from bot.core.errors import KnowledgeError
from bot.core.knowledge import get_catalog
from bot.core.parsing import parse
from bot.core.results import ModelPicksResult
from bot.core.types import Lang

CAT = get_catalog()

#: current generation: released in 2025 or later (Qwen3, Gemma 3, Llama 4, gpt-oss, R1 distills, ...)
CURRENT = "2025-01"

# (question, vram per card it must fit, number of cards, task)
CORPUS: list[tuple[str, str]] = [
    ("what's the best model I can run on a 3090 for coding", "coding"),
    ("best LLM for Chinese on 16 GB", "chinese"),
    ("best vision-language model for a 3060 12GB", "vision"),
    ("what can I run on 2x 4090", "general"),
    ("3090 最适合跑什么模型写代码", "coding"),
    ("16G显存最好的中文模型", "chinese"),
    ("best coding model for 8 GB", "coding"),
    ("best model for 12gb vram", "general"),
    ("best model for a 4060 ti 16gb for math", "reasoning"),
    ("best llm for an rtx 5090", "general"),
    ("best model for my m4 max 128gb", "general"),
    ("best coding model on an m2 ultra 192gb", "coding"),
    ("best model for 48 GB", "general"),
    ("best reasoning model for a 4090 48gb", "reasoning"),
    ("best coding model for two 3090s", "coding"),
    ("best model for 4x 3090 for chat", "general"),
    ("which model is best for vision on a 4090", "vision"),
    ("best multimodal model for 8gb", "vision"),
    ("what's the strongest model for 24 GB", "general"),
    ("best model for a 3060 12gb for coding", "coding"),
    ("best llm for math on 16 GB", "reasoning"),
    ("4090最好的模型", "general"),
    ("双卡3090最好的代码模型", "coding"),
    ("12G显存推荐什么模型", "general"),
    ("8G显存最适合的视觉模型", "vision"),
    ("M3 Ultra 512GB 最强的推理模型", "reasoning"),
    ("24G显存最好的数学模型", "reasoning"),
    ("best chinese model for a 4080", "chinese"),
    ("what can I run on 2x 3090 for coding", "coding"),
    ("best model for an rtx 2080 ti 22gb", "general"),
]


def _result(text: str) -> ModelPicksResult:
    q = parse(text, CAT, None)
    _, r = compute(CAT, q)
    assert isinstance(r, ModelPicksResult), (text, type(r).__name__)
    return r


@pytest.mark.parametrize(("text", "task"), CORPUS)
def test_corpus_picks_fit_and_current_generation_first(text: str, task: str) -> None:
    r = _result(text)
    assert r.task == task
    assert r.gpu is not None and r.picks, text
    usable = memory.usable_bytes(r.gpu) / memory.GB
    for p in (*r.picks, *r.low_bit):
        assert p.required_gb <= usable + 0.05, (text, p.model.id, p.required_gb, usable)
        assert p.context_tokens >= 2048
        assert p.score.source and p.score.date
    # the picks are at Q4_K_M or better; lower-bit builds only in the separate list
    q4 = CAT.formats["gguf-q4_k_m"].quality_rank
    for p in r.picks:
        rank = 0 if p.release_build else CAT.formats[p.format_id].quality_rank
        assert rank <= q4, (text, p.model.id, p.format_id)
    assert (r.picks[0].model.release or "") >= CURRENT, (text, r.picks[0].model.id)
    if task == "vision":
        assert all(CAT.quality.is_vision(p.model.id) for p in r.picks)
    # the memory figure is the model's own estimate at that build on that many cards
    first = r.picks[0]
    assert first.required_gb > 0.5


def test_json_model_picks_names() -> None:
    a = answer("best coding model for a 3090")
    js = json.loads(json.dumps(a.to_json(), allow_nan=False))
    picks = js["model_picks"]
    assert picks
    for p in picks:
        for k in (
            "model",
            "format",
            "precision",
            "fits",
            "required_gb",
            "context_tokens",
            "quality",
            "reason",
        ):
            assert k in p
        for k in ("benchmark", "score", "date", "source"):
            assert k in p["quality"]
        assert p["fits"] is True and p["required_gb"] <= 25.8
        assert p["reason"]


def test_chinese_answer_in_chinese() -> None:
    a = answer("3090 最适合跑什么模型写代码")
    assert a.language is Lang.ZH_HANS
    assert "能跑的写代码模型" in a.verdict
    assert "Qwen3 32B" in a.details[0]  # the highest LiveCodeBench that fits 24 GB at Q4_K_M
    assert "the best" not in a.text and "tokens of context" not in a.text


def test_two_cards_fit_more_than_one() -> None:
    one, two = _result("best coding model for a 3090"), _result("best coding model for two 3090s")
    assert two.count == 2
    big = max(p.model.params for p in two.picks)
    assert big >= max(p.model.params for p in one.picks)
    # each card holds half: the per-card figure of a 32B at Q8 on two cards is below one card's capacity
    assert all(p.required_gb <= two.usable_gb for p in two.picks)


def test_plain_what_runs_still_lists_by_size() -> None:
    # one card, no task: issue 11's answer (largest first) is kept
    q = parse("what can I run on a 3090", CAT, None)
    _, r = compute(CAT, q)
    assert not isinstance(r, ModelPicksResult)


def test_questions_that_are_not_best_model_questions() -> None:
    assert not best.asks_best_model("can a 3090 run llama 3 8b")
    assert not best.asks_best_model("how much does a 3090 cost")
    assert best.asks_best_model("16G显存最好的中文模型")
    # which card to buy is a recommendation, not model picks
    for text in ("best 24gb gpu for llms", "which card should I buy for coding models", "跑大模型买什么显卡"):
        assert not best.asks_best_model(text), text
    q = parse("best gpu for llms under $1000", CAT, None)
    assert not isinstance(compute(CAT, q)[1], ModelPicksResult)
    assert best.memory_card(CAT, "best model with 64GB RAM") is None
    assert best.memory_card(CAT, "best model for 16 GB").vram_gb == 16  # type: ignore[union-attr]


# --------------------------------------------------------------------------- the ranking rule


def _book(models: dict[str, dict[str, float]], tasks: dict[str, tuple[str, ...]]) -> quality.QualityBook:
    benches = {b for sc in models.values() for b in sc} | {b for t in tasks.values() for b in t}
    return quality.QualityBook(
        source="test",
        date="2026-12",
        benchmarks=MappingProxyType({b: quality.Benchmark(b, b.upper(), "x") for b in benches}),
        tasks=MappingProxyType(tasks),
        models=MappingProxyType(
            {
                m: quality.ModelQuality(
                    m, m, False, {b: quality.Score(b, v, "s", "2025-01", "src") for b, v in sc.items()}
                )
                for m, sc in models.items()
            }
        ),
    )


def test_newer_generation_not_below_older_for_having_fewer_rows() -> None:
    # the old model has more rows, and a high score on a benchmark the new one lacks
    book = _book(
        {"old": {"humaneval": 92.0, "mbpp": 90.0, "mmlu": 85.0}, "new": {"livecodebench": 40.0}},
        {"coding": ("livecodebench", "humaneval", "mbpp")},
    )
    ranked, missing = quality.rank(book, "coding", ["old", "new"], {"old": "2024-06", "new": "2025-04"}, {})
    assert ranked == ["new", "old"] and missing == []
    # turned around in time, the rule is not "fewest rows first": the newer wins again
    ranked, _ = quality.rank(book, "coding", ["old", "new"], {"old": "2025-06", "new": "2024-04"}, {})
    assert ranked == ["old", "new"]


def test_shared_benchmark_decides_over_release() -> None:
    book = _book(
        {"old": {"livecodebench": 60.0, "humaneval": 90.0}, "new": {"livecodebench": 50.0}},
        {"coding": ("livecodebench", "humaneval")},
    )
    ranked, _ = quality.rank(book, "coding", ["new", "old"], {"old": "2024-06", "new": "2025-04"}, {})
    assert ranked == ["old", "new"]  # the shared benchmark says the older is better: it is


def test_unscored_model_is_missing_not_ranked() -> None:
    book = _book({"a": {"mmlu": 70.0}}, {"general": ("mmlu",)})
    ranked, missing = quality.rank(book, "general", ["a", "b"], {"a": "2024-01", "b": "2026-01"}, {})
    assert ranked == ["a"] and missing == ["b"]


def test_real_data_qwen3_above_qwen25_of_same_size() -> None:
    # Qwen2.5-32B has rows Qwen3-32B lacks (MMLU-Pro, HumanEval, MATH): they must not decide
    book = CAT.quality
    assert {"mmlu-pro", "humaneval", "math"} <= set(book.models["qwen2.5-32b"].scores)
    assert not {"mmlu-pro", "humaneval", "math"} & set(book.models["qwen3-32b"].scores)
    rel = {m.id: m.release or "" for m in CAT.models.values()}
    for task in quality.TASKS:
        if task == "vision":
            continue
        ranked, _ = quality.rank(book, task, ["qwen2.5-32b", "qwen3-32b"], rel, {})
        assert ranked[0] == "qwen3-32b", task


# --------------------------------------------------------------------------- quality.yaml validation


def _raw() -> dict[str, Any]:
    return {
        "source": "s",
        "date": "2026-12",
        "benchmarks": [{"id": "mmlu", "name": "MMLU", "about": "x"}],
        "tasks": {t: ["mmlu"] for t in quality.TASKS},
        "models": [
            {
                "model": "qwen3-8b",
                "scores": [{"benchmark": "mmlu", "score": 70.0, "date": "2025-04", "source": "card"}],
            }
        ],
    }


def _load(raw: Any) -> quality.QualityBook | None:

    class _Dir:
        def __truediv__(self, name: str) -> Any:
            class _P:
                def is_file(self) -> bool:
                    return True

            return _P()

    return quality.load(_Dir(), CAT.models, lambda path, display: raw)  # type: ignore[arg-type]


def test_valid_file_loads() -> None:
    book = _load(_raw())
    assert book is not None and book.score_for("qwen3-8b", "coding") is not None


@pytest.mark.parametrize(
    ("change", "where"),
    [
        (lambda r: r["models"][0].update(model="no-such-model"), "field 'model'"),
        (lambda r: r["models"][0]["scores"][0].update(score=130), "field 'scores[0].score'"),
        (lambda r: r["models"][0]["scores"][0].update(score=float("nan")), "field 'scores[0].score'"),
        (lambda r: r["models"][0]["scores"][0].update(benchmark="bogus"), "field 'scores[0].benchmark'"),
        (lambda r: r["models"][0]["scores"][0].update(date="April 2025"), "field 'scores[0].date'"),
        (lambda r: r["models"][0]["scores"][0].pop("source"), "field 'source'"),
        (lambda r: r["tasks"].update(coding=["bogus"]), "field 'tasks.coding[0]'"),
        (lambda r: r["tasks"].pop("vision"), "field 'tasks.vision'"),
        (lambda r: r["models"][0].update(vision="yes"), "field 'vision'"),
        (lambda r: r.update(extra=1), "field 'extra'"),
        (lambda r: r["models"][0].update(model=["qwen3-8b"]), "field 'model'"),
        (lambda r: r["models"][0]["scores"][0].update(benchmark={"a": 1}), "field 'scores[0].benchmark'"),
        (lambda r: r["models"][0]["scores"][0].update(score=True), "field 'scores[0].score'"),
        (lambda r: r["models"].append(dict(r["models"][0])), "duplicate model"),
    ],
)
def test_bad_entries_name_file_entry_field(change: Any, where: str) -> None:
    raw = _raw()
    change(raw)
    with pytest.raises(KnowledgeError) as ei:
        _load(raw)
    msg = str(ei.value)
    assert msg.startswith("quality.yaml") and where in msg, msg


def test_every_score_has_source_and_date_and_known_model() -> None:
    book = CAT.quality
    assert book is not None and len(book.models) >= 25
    for mq in book.models.values():
        assert mq.model in CAT.models
        for s in mq.scores.values():
            assert 0 <= s.score <= 100 and s.source and len(s.date) >= 7


def test_low_bit_builds_are_listed_apart_and_said() -> None:
    # on 8 GB, Qwen3 14B fits only as IQ3_XXS: it ranks above the 8B models but is not a pick
    r = _result("best model for 8gb")
    low_ids = {p.model.id for p in r.low_bit}
    assert "qwen3-14b" in low_ids
    assert not low_ids & {p.model.id for p in r.picks}
    q4 = CAT.formats["gguf-q4_k_m"].quality_rank
    assert all(CAT.formats[p.format_id].quality_rank > q4 for p in r.low_bit)
    en, zh = answer("best model for 8gb"), answer("8G显存最好的模型")
    assert "2-3 bits" in en.text and "quality drops" in en.text
    assert "2–3 bit" in zh.text and "质量明显下降" in zh.text
    js = en.to_json()["model_picks"]
    assert any(p["low_bit"] and p["model"] == "qwen3-14b" for p in js)
