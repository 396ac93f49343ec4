"""Work the engine leaves for when the JSON is written (perf round 3): the JSON is the same as
when it was computed with the answer."""

from __future__ import annotations

import pytest

from bot.core import memory
from bot.core.answer import answer
from bot.core.engine import fit as fit_mod
from bot.core.knowledge import get_catalog
from bot.core.types import Task


@pytest.fixture(scope="module")
def cat():
    return get_catalog()


@pytest.mark.parametrize(
    "text",
    [
        "can a 4090 run llama 3.1 8b",  # builds: the longest context of each build shown
        "can a 3090 run qwen2.5 14b in int4",  # a precision named: one entry
        "3090 vs 4090 for llama 3.1 8b",  # compare rows' entries
    ],
)
def test_max_context_in_json_when_not_asked(cat, text):
    a = answer(text, catalog=cat)
    assert not a.query.max_context
    entries = [f for f in a.fit if f.gpu is not None]
    assert entries
    for f in entries:
        assert f.max_context_of is not None and f.max_context_tokens is None  # not worked out yet
        j = f.to_json()
        m, g = cat.model(f.model), cat.gpu(f.gpu)
        w = memory.resolve_workload(m, task=Task.INFERENCE)
        assert isinstance(j["max_context_tokens"], int) and j["max_context_tokens"] > 0
        lo, hi = j["max_context_band"]
        assert lo <= j["max_context_tokens"] <= hi
        assert j["kv_cache_dtype"] == "f16"
        if f.format is None and f.assumptions["precision"] == "bf16":
            mc = memory.max_context(m, w, memory.usable_bytes(g))
            assert mc is not None and j["max_context_tokens"] == mc.tokens


def test_lazy_entry_json_equals_eager(cat):
    m, g = cat.model("llama-3.1-8b"), cat.gpu("rtx-3090")
    for kw in ({}, {"kv_cache": "q8_0"}, {"engine": "vllm"}):
        w = memory.resolve_workload(m, task=Task.INFERENCE, **kw)
        e = memory.estimate(m, g, workload=w)
        eager = fit_mod.fit_entry(m, g, e)
        lazy = fit_mod.fit_entry(m, g, e, lazy_context=True)
        assert eager.max_context_tokens and lazy.max_context_tokens is None
        assert lazy.to_json() == eager.to_json()
        assert list(lazy.to_json()) == list(eager.to_json())  # the same keys in the same order


def test_training_entry_has_no_context_either_way(cat):
    m, g = cat.model("llama-3.1-8b"), cat.gpu("rtx-3090")
    e = memory.estimate(m, g, task=Task.FINETUNE)
    lazy = fit_mod.fit_entry(m, g, e, lazy_context=True)
    assert lazy.max_context_of is None and lazy.to_json() == fit_mod.fit_entry(m, g, e).to_json()
    assert lazy.to_json()["max_context_tokens"] is None


@pytest.mark.parametrize(
    "text",
    [
        "what gpu for llama 3 8b under $1000",  # builds: release or Q4_K_M per card
        "best card for training resnet-50, budget 1000 dollars",
        "what gpu for qwen2.5 72b under $500",  # nothing in budget: the cheapest fit beyond it
        "gpu for sdxl",  # no budget
        "what gpu for llama 3 8b under $1000? a 3090 is $650 used here",  # a quoted price
        "gpu for sdxl under $800, used only",  # the used prices: a card without one is not weighed
    ],
)
def test_chart_candidates_are_every_priced_card(cat, text):
    """The recommendation makes candidates only of the cards it decides among; the chart's rows
    (every priced card weighed, made when drawn) are still every card worth buying, in order."""
    from bot.core import recommend
    from bot.core.results import RecommendResult

    a = answer(text, catalog=cat)
    r = a.result
    assert isinstance(r, RecommendResult) and r.candidates_of is not None
    rows = a.candidates
    cards, _ = recommend._pool(cat, False)
    if a.query.price_question is None:
        assert [row.gpu for row in rows] == [g.id for g in cards]
    else:  # the priced cards, in the pool's order
        order = {g.id: i for i, g in enumerate(cards)}
        seen = [order[row.gpu] for row in rows]
        assert seen == sorted(seen) and len(seen) > 10
    fits = {row.gpu for row in rows if row.fits}
    assert {p.gpu.id for p in r.picks} <= fits
    by_id = {row.gpu: row for row in rows}
    for p in r.picks:  # the chart's row of a pick says what the pick says
        row = by_id[p.gpu.id]
        assert row.price_usd == p.price_usd and round(row.relative_speed, 3) == p.relative_speed
        assert row.max_batch_size == p.max_batch
    if r.budget_usd is not None:
        in_budget = {row.gpu for row in rows if row.fits and (row.price_usd or 0) <= r.budget_usd}
        assert {p.gpu.id for p in r.picks} <= in_budget
        assert bool(r.picks) == bool(in_budget)
    else:
        assert r.picks and fits


def test_inference_act_kv_is_act_kv_at_for_every_model(cat):
    """``memory._inference_act_kv`` (one context, written out) gives ``_act_kv_at``'s figures exactly."""
    from bot.core.types import Precision

    checked = 0
    for m in cat.models.values():
        if m.kind not in memory.TRANSFORMER_KINDS or m.activation_mb_per_sample is not None:
            continue
        for kw in (
            {},
            {"engine": "llama.cpp"},
            {"engine": "vllm", "kv_cache": "fp8"},
            {"fused_attention": False},
        ):
            w = memory.resolve_workload(m, task=Task.INFERENCE, **kw)
            for act16 in (1.0, 1.3):
                at = memory._act_kv_at(m, w, act16)
                for s in (1, 300, 512, 513, 4096, 131072):
                    assert memory._inference_act_kv(m, w, s, act16) == at(s), (m.id, kw, s)
                    checked += 1
        w32 = memory.resolve_workload(m, task=Task.INFERENCE, precision=Precision.FP32)
        assert memory._inference_act_kv(m, w32, 2048, 2.0) == memory._act_kv_at(m, w32, 2.0)(2048)
    assert checked > 100


@pytest.mark.parametrize(
    "text",
    [
        "rtx a4500 vs rtx 3090 for llama 3 8b",
        "RTX 4090 vs RX 7900 XTX",
        "can a gtx 1650 run bert",
        "tesla v100 vs a100",
        "rtx 3070 ti or rtx 3060 12gb",
        "geforce rtx 4060 ti 16gb for sdxl",
    ],
)
def test_other_cards_with_the_catalog_names_table_is_the_matcher(text):
    """``other_cards`` skips the matcher for a phrase the per-catalog table knows as a catalog card's
    name: the same phrases as asking the matcher about each one."""
    from bot.core import specs_fallback as sf
    from bot.core.matching import get_matcher, normalize

    matcher = get_matcher()
    slow = [
        p
        for p in sf.card_mentions(text)
        if sf.is_bare_card(p) or not any(m.kind == "gpu" for m in matcher.mentions(normalize(p), "gpu"))
    ]
    assert sf.other_cards(text) == slow
    known = sf._catalog_card_names(matcher)
    assert "rtx 3090" in known and "rtx a4500" not in known


@pytest.mark.parametrize(
    ("model", "card"),
    [
        ("qwen2.5-72b", "rtx-4060"),
        ("llama-3.1-70b", "rtx-4090"),
        ("deepseek-r1", "h100-sxm"),
        ("llama-3.1-8b", "rtx-3060-12gb"),
    ],
)
def test_builds_judged_without_an_estimate_do_not_fit(cat, model, card):
    """A build no answer lists whose weights alone pass the card is judged without its estimate;
    read later, the estimate is the build's and says it does not fit, as the verdict does."""
    from bot.core import recommend
    from bot.core.engine import builds
    from bot.core.parsing import parse

    m, g = cat.model(model), cat.gpu(card)
    q = parse(f"can a {g.name} run {m.name}", cat)
    base = recommend.workload_for(m, q)
    verdicts = builds.judge_builds(cat, m, g, q, base)
    later = [v for v in verdicts if isinstance(v, builds._LaterVerdict)]
    for v in verdicts:
        e = memory.estimate(m, g, workload=builds.build_workload(m, base, v.build))
        assert v.estimate == e
        assert v.fits == builds._fits(e, False) or v.model_offload
    for v in later:
        assert not v.fits and not v.headline and v.min_cards is None
    if model != "llama-3.1-8b":
        assert later  # (a large model on a small card: the middle builds are judged this way)


def test_support_table_is_supports(cat):
    """``support.supports`` of a catalog card reads a per-catalog table: the same answer as working it out."""
    from dataclasses import replace

    from bot.core import support

    for tool, t in cat.tools.items():
        for g in cat.gpus.values():
            if g.software in t.support:
                assert support.supports(g, tool) == support._supports(g, tool, cat)
    g = cat.gpu("rtx-3090")
    other = replace(g, architecture="Pascal")  # not the catalog's card: worked out, not looked up
    assert support.supports(other, "bitsandbytes") == support._supports(other, "bitsandbytes", cat)
