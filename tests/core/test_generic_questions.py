"""Issue 10, "answer the question that was asked": memory sizes, budget words and card counts.

- "what can i run on 8gb vram" / "16g显存能跑什么模型": model picks for a generic card of that memory,
  while "cards with 16gb" stays a card filter;
- "显存16g能微调qwen2.5 7b吗": the memory after the word is a generic card too (a fit verdict);
- "best budget gpu", "cheap gpu for X", "性价比最高的显卡": value leads, and the answer says no
  budget was given; an amount keeps the old answer;
- "how many h100s for deepseek v3", "需要几张h100": the count of the named card leads.
"""

from __future__ import annotations

import json

import pytest

from bot.core.answer import answer
from bot.core.engine import compute
from bot.core.knowledge import get_catalog
from bot.core.parsing import parse
from bot.core.results import (
    FilterResult,
    FitResult,
    GeneralResult,
    ModelPicksResult,
    ReasonCode,
    RecommendResult,
)
from bot.core.types import Intent, Lang, NoteCode

CAT = get_catalog()


def _run(text: str):  # type: ignore[no-untyped-def]
    q = parse(text, CAT, None)
    return compute(CAT, q)


# --------------------------------------------------------------------------- what runs on N GB


@pytest.mark.parametrize(
    ("text", "gb"),
    [
        ("what can i run on 8gb vram", 8),
        ("what models can I run with 12gb", 12),
        ("16g显存能跑什么模型", 16),
        ("which llm can i run on 24 GB?", 24),
        ("显存12G可以跑哪些模型", 12),
    ],
)
def test_memory_size_what_runs_gives_picks_for_a_generic_card(text: str, gb: int) -> None:
    q, r = _run(text)
    assert isinstance(r, ModelPicksResult), (text, type(r).__name__)
    assert r.generic_card and r.gpu is not None and r.gpu.vram_gb == gb
    assert r.picks and all(p.required_gb <= r.usable_gb + 0.05 for p in r.picks)
    assert q.card_filter is None and q.vram_gb == gb


def test_what_runs_answer_says_generic_card_in_both_languages() -> None:
    en = answer("what can i run on 8gb vram")
    assert "CUDA card with 8 GB" in en.text and "Cards with 8 GB" not in en.text
    js = json.loads(json.dumps(en.to_json(), allow_nan=False))
    assert js["model_picks"] and js["vram_gb"] == 8
    zh = answer("16g显存能跑什么模型")
    assert zh.language is Lang.ZH_HANS
    assert "16 GB 显存的 CUDA 显卡" in zh.text and "符合" not in zh.verdict


@pytest.mark.parametrize(
    "text",
    ["cards with 16gb", "16GB+ cards below 700 euros", "cheapest card with 20GB", "16g显存的显卡有哪些"],
)
def test_card_filters_stay_filters(text: str) -> None:
    q, r = _run(text)
    if text.startswith("16g显存的显卡"):  # a list question either way: never model picks
        assert not isinstance(r, ModelPicksResult)
        return
    assert isinstance(r, FilterResult), (text, type(r).__name__)
    assert q.intent is Intent.FILTER


def test_named_card_what_runs_unchanged() -> None:
    _, r = _run("what can I run on a 3090")
    assert not isinstance(r, ModelPicksResult)  # issue 11's list by size for a named card


# --------------------------------------------------------------------------- memory after the word


@pytest.mark.parametrize(
    ("text", "gb", "model"),
    [
        ("显存16g能微调qwen2.5 7b吗", 16, "qwen2.5-7b"),
        ("16g显存够跑qwen2.5 14b吗", 16, "qwen2.5-14b"),
        ("我只有8G显存，能跑sdxl吗", 8, "sdxl"),
        ("24GB显存能不能lora微调llama 3 8b", 24, "llama-3-8b"),
        ("显存只有12G，能跑llama 3 8b吗", 12, "llama-3-8b"),
        ("vram: 12gb, can i run mistral 7b", 12, "mistral-7b"),
    ],
)
def test_memory_size_is_a_generic_card_for_fit(text: str, gb: int, model: str) -> None:
    q, r = _run(text)
    assert q.intent is Intent.FIT and q.vram_gb == gb and q.models == (model,)
    assert isinstance(r, FitResult)
    assert r.items and all(it.gpu.vram_gb == gb for it in r.items)


def test_ram_is_not_vram_after_the_word() -> None:
    q = parse("内存64G，显卡没有，能跑qwen2.5 7b吗", CAT, None)
    assert q.vram_gb != 64


@pytest.mark.parametrize("text", ["16gb vram enough to fine-tune qwen2.5 7b?", "显存16g能微调qwen2.5 7b吗"])
def test_full_finetune_no_with_the_change_that_fits(text: str) -> None:
    _, r = _run(text)
    assert isinstance(r, FitResult)
    it = r.items[0]
    assert not it.fits and it.capacity_gb < it.total_gb
    methods = {c.after for f in it.fixes for c in f.changes if str(c.kind) == "method"}
    assert methods & {"lora", "qlora"}, it.fixes
    fix = next(f for f in it.fixes if any(str(c.kind) == "method" for c in f.changes))
    assert fix.total_gb <= it.capacity_gb
    a = answer(text)
    assert ("QLoRA" in a.text) and (("No" in a.verdict) or ("不行" in a.verdict))


def test_generic_card_fit_verdict_names_the_size_once() -> None:
    a = answer("24GB显存能不能lora微调llama 3 8b")
    assert "24 GB（24 GB）" not in a.verdict and "24 GB" in a.verdict


# --------------------------------------------------------------------------- budget words


@pytest.mark.parametrize(
    "text",
    [
        "best budget gpu for kaggle",
        "cheap gpu for deep learning",
        "性价比最高的显卡",
        "affordable gpu for ML?",
    ],
)
def test_budget_word_without_amount_leads_with_value(text: str) -> None:
    q, r = _run(text)
    assert q.intent is Intent.RECOMMEND and q.budget_usd is None
    assert any(n.code is NoteCode.BUDGET_NO_AMOUNT for n in q.notes)
    assert isinstance(r, GeneralResult) and r.value_first
    first = r.picks[0]
    assert ReasonCode.BEST_VALUE_MIN_VRAM in {x.code for x in first.reasons}
    # the best value by the same measure as the plain answer's value pick
    plain = compute(CAT, parse("best gpu for deep learning", CAT, None))[1]
    assert isinstance(plain, GeneralResult)
    value = next(p for p in plain.picks if ReasonCode.BEST_VALUE_MIN_VRAM in {x.code for x in p.reasons})
    assert first.gpu.id == value.gpu.id
    fastest = plain.picks[0].gpu
    assert all(p.gpu.id != fastest.id for p in r.picks) or fastest.id == value.gpu.id
    # the cheapest card with room is there too, and costs no more than the value pick
    assert (r.picks[-1].price_usd or 0) <= (first.price_usd or 0)
    assert all(p.gpu.vram_gb >= r.min_vram_gb for p in r.picks)


def test_budget_word_answer_says_no_budget_given() -> None:
    en = answer("best budget gpu for kaggle")
    assert "No budget given" in en.text and "RTX 5090" not in en.verdict
    zh = answer("性价比最高的显卡")
    assert zh.language is Lang.ZH_HANS and "没说预算" in zh.text and "性价比" in zh.verdict


@pytest.mark.parametrize(
    "text",
    [
        "best gpu under $1000",
        "best budget gpu under $1000",
        "best gpu for deep learning",
        "no budget, best gpu",
    ],
)
def test_amount_or_no_budget_word_keeps_the_old_answer(text: str) -> None:
    q, r = _run(text)
    assert isinstance(r, GeneralResult) and not r.value_first
    assert not any(n.code is NoteCode.BUDGET_NO_AMOUNT for n in q.notes)
    assert ReasonCode.FASTEST_IN_RANGE in {x.code for x in r.picks[0].reasons}


def test_budget_word_with_model_drops_the_speed_only_pick() -> None:
    q, r = _run("budget gpu for sdxl")
    _, plain = _run("best gpu for sdxl")
    assert isinstance(r, RecommendResult) and isinstance(plain, RecommendResult)
    assert r.best_value is not None and r.cheapest is not None
    kept = {p.gpu.id for p in r.picks}
    assert r.best_value.gpu.id in kept and r.cheapest.gpu.id in kept
    assert len(r.picks) < len(plain.picks)
    assert "No budget given" in answer("budget gpu for sdxl").text


# --------------------------------------------------------------------------- how many cards


@pytest.mark.parametrize(
    ("text", "card"),
    [
        ("how many h100s do i need for deepseek v3", "H100"),
        ("跑deepseek v3需要几张h100", "H100"),
        ("how many 3090s to run llama 3 70b", "RTX 3090"),
    ],
)
def test_how_many_leads_with_the_count(text: str, card: str) -> None:
    _, r = _run(text)
    assert isinstance(r, FitResult) and r.how_many
    a = answer(text)
    assert card in a.verdict
    counts = [1 if it.fits else it.min_cards for it in r.items if it.fits or it.min_cards]
    assert counts and max(counts) > 1
    for n in counts:  # each build's count is in the lead
        assert (f"{n}x" in a.verdict) or (f"{n} 张" in a.verdict)
    js = json.loads(json.dumps(a.to_json(), allow_nan=False))
    assert [c["cards"] for c in js["cards_needed"]] == counts


def test_how_many_numbers_are_the_fit_numbers() -> None:
    _, r = _run("how many 3090s to run llama 3 70b")
    _, plain = _run("can a 3090 run llama 3 70b")
    assert isinstance(r, FitResult) and isinstance(plain, FitResult) and not plain.how_many
    assert [it.min_cards for it in r.items] == [it.min_cards for it in plain.items]
    assert not answer("can a 3090 run llama 3 70b").verdict.startswith("How many")


def test_how_many_at_a_stated_precision() -> None:
    _, r = _run("how many 4090s for llama 3 70b in int4")
    assert isinstance(r, FitResult) and r.how_many and not r.builds
    it = r.items[0]
    assert not it.fits and it.min_cards == 2  # 44 GB of int4 weights: two 24 GB cards, split tensor-parallel
    a = answer("how many 4090s for llama 3 70b in int4")
    assert a.verdict.startswith("How many RTX 4090") and "2x for int4" in a.verdict
    big = answer("how many 3090s do i need for deepseek r1 at 4bit")
    assert "more than 8x" in big.verdict  # 363 GB: not even eight 24 GB cards
    js = json.loads(json.dumps(big.to_json(), allow_nan=False))
    assert js["cards_needed"] == [{"gpu": "rtx-3090", "format": "int4", "cards": None}]


def test_how_many_of_something_else_is_not_a_card_count() -> None:
    from bot.core.engine.fit import asks_how_many

    assert asks_how_many("how many h100s do i need") and asks_how_many("跑deepseek要几块4090")
    for text in (
        "how many gb does llama 3 70b need on a 3090",
        "3090跑llama要多少块钱",
        "how many tokens/s on a 3090",
    ):
        assert not asks_how_many(text), text


def test_what_runs_on_several_generic_cards() -> None:
    _, two = _run("what can i run on 2x 24gb")
    _, one = _run("what can i run on 24gb")
    assert isinstance(two, ModelPicksResult) and isinstance(one, ModelPicksResult)
    assert two.count == 2 and one.count == 1 and two.gpu is not None and two.gpu.vram_gb == 24
    # split over two cards, each pick needs at most one card's memory, and the biggest is no smaller
    assert all(p.required_gb <= two.usable_gb + 0.05 for p in two.picks)
    assert max(p.model.params for p in two.picks) >= max(p.model.params for p in one.picks)


def test_how_many_for_training_uses_the_engines_card_change() -> None:
    text = "how many a100 80gb to full finetune llama 3 8b"
    _, r = _run(text)
    assert isinstance(r, FitResult) and r.how_many and not r.items[0].fits
    split = [
        f for f in r.items[0].fixes if f.num_gpus > 1 and all(str(c.kind) == "num_gpus" for c in f.changes)
    ]
    assert split and split[0].total_gb <= r.items[0].capacity_gb
    a = answer(text)
    assert a.verdict.startswith("How many A100") and f"{split[0].num_gpus}x" in a.verdict
    js = json.loads(json.dumps(a.to_json(), allow_nan=False))
    assert js["cards_needed"][0]["cards"] == split[0].num_gpus
    # no count the engine can back: the old verdict, no lead and no count in the JSON
    big = answer("how many 3090s to full finetune llama 3 70b")
    assert not big.verdict.startswith("How many")
    assert json.loads(json.dumps(big.to_json()))["cards_needed"] == []
