"""Issue 17: KV cache by attention design, KV-cache quantization, the longest context that fits.

Each test carries its arithmetic from the model's config.json (values in knowledge/models.yaml).
"""

from __future__ import annotations

import copy
import json
import math
from dataclasses import replace
from typing import Any

import pytest

from bot.core import kv_cache, memory
from bot.core.answer import answer
from bot.core.knowledge import KnowledgeError, _build_model, get_catalog
from bot.core.memory import GB, GIB
from bot.core.parsing import parse
from bot.core.types import Intent, NoteCode, Precision, Task

S128K = 131072


@pytest.fixture(scope="module")
def cat():
    return get_catalog()


def _w(cat, mid: str, **kw: Any) -> memory.Workload:
    return memory.resolve_workload(cat.model(mid), task=Task.INFERENCE, **kw)


# --------------------------------------------------------------------------- attention designs


def test_gemma3_sliding_window_cache_at_128k_is_a_sixth_of_the_plain_formula(cat):
    m = cat.model("gemma-3-27b")
    # config: 62 layers, 16 KV heads x 128, sliding_window 1024, 5 local : 1 global -> 10 global.
    # plain formula: 62 x 2 x 16 x 128 x 2 bytes = 507,904 bytes per token at every context.
    plain = 62 * 2 * 16 * 128 * 2
    e = memory.estimate(m, None, workload=_w(cat, "gemma-3-27b", seq_len=S128K, engine="vllm"))
    # vLLM: 10 global layers hold 131,072 tokens, 52 local layers 1,024:
    # (10 x 131,072 + 52 x 1,024) x 8,192 bytes (2 x 16 x 128 values x 2) = 11.17 GB vs 66.6 GB -> 16.8%
    want = (10 * S128K + 52 * 1024) * (2 * 16 * 128 * 2)
    assert e.kv_cache == pytest.approx(want)
    assert e.kv_cache / (plain * S128K) == pytest.approx(0.168, abs=0.001)
    # llama.cpp keeps window + n_ubatch (512) cells in the local layers: (10 x 131,072 + 52 x 1,536) -> 17.1%
    e2 = memory.estimate(m, None, workload=_w(cat, "gemma-3-27b", seq_len=S128K))
    assert e2.kv_cache / (plain * S128K) == pytest.approx((10 * S128K + 52 * 1536) / (62 * S128K))
    assert e2.kv_cache < 0.2 * plain * S128K


def test_gpt_oss_alternating_128_token_window_halves_the_cache(cat):
    m = cat.model("gpt-oss-20b")
    # 24 layers alternate sliding (128) / full: 12 full x 131,072 + 12 x (128 + 512) token-layers, 2 x 8 x 64
    # values of 2 bytes each -> (12 x 131,072 + 12 x 640) / (24 x 131,072) = 0.502 of the plain formula
    w = _w(cat, "gpt-oss-20b", seq_len=S128K)
    got = memory.kv_token_layers(m, w, S128K)
    assert got == 12 * S128K + 12 * 640
    assert got / (24 * S128K) == pytest.approx(0.502, abs=0.001)


def test_mistral_v01_window_is_engine_dependent(cat):
    m = cat.model("mistral-7b")
    # sliding_window 4096 on all 32 layers: vLLM caches 4096 tokens per layer at 32k;
    # llama.cpp never implemented that window (sliding_window_full_in: [llama.cpp]) and caches all 32k
    s = 32768
    vllm = memory.kv_token_layers(m, _w(cat, "mistral-7b", seq_len=s, engine="vllm"), s)
    llama = memory.kv_token_layers(m, _w(cat, "mistral-7b", seq_len=s, engine="ollama"), s)
    assert vllm == 32 * 4096
    assert llama == 32 * s
    # below the window both are the plain formula
    assert memory.kv_token_layers(m, _w(cat, "mistral-7b", engine="vllm"), 2048) == 32 * 2048


def test_deepseek_v3_latent_cache_per_token(cat):
    m = cat.model("deepseek-v3")
    # MLA: kv_lora_rank 512 + qk_rope_head_dim 64 = 576 values per token per layer, 61 layers, bf16:
    # 576 x 61 x 2 = 70,272 bytes per token (the plain formula, 2 x 128 heads x 128 x 61 x 2, is 57x that)
    w = _w(cat, "deepseek-v3", precision=Precision.BF16)
    assert memory.kv_bytes_per_token(m, w, 4096) == 576 * 61 * 2 == 70272
    e = memory.estimate(m, None, workload=w)
    assert e.kv_cache == pytest.approx(70272 * 4096)
    assert (2 * 128 * 128 * 61 * 2) / 70272 == pytest.approx(56.9, abs=0.1)


def test_full_attention_model_is_the_plain_formula(cat):
    m = cat.model("llama-3.1-8b")
    # 32 layers x 2 x 8 KV heads x 128 x 2 bytes = 131,072 bytes (128 KiB) per token
    assert memory.kv_bytes_per_token(m, _w(cat, "llama-3.1-8b"), 4096) == 131072


# --------------------------------------------------------------------------- KV-cache types


@pytest.mark.parametrize(("kv", "ratio"), [("q8_0", 34 / 64), ("q4_0", 18 / 64), ("fp8", 0.5), ("f16", 1.0)])
def test_kv_cache_types_scale_the_cache(cat, kv, ratio):
    # ggml blocks of 32 values: q8_0 = 32 x int8 + fp16 scale = 34 bytes, q4_0 = 16 + 2 = 18 bytes;
    # f16 = 64 bytes per 32 values; fp8 one byte per value
    base = memory.estimate(cat.model("llama-3.1-8b"), None, workload=_w(cat, "llama-3.1-8b"))
    e = memory.estimate(cat.model("llama-3.1-8b"), None, workload=_w(cat, "llama-3.1-8b", kv_cache=kv))
    assert e.kv_cache / base.kv_cache == pytest.approx(ratio)
    assert e.weights == base.weights
    assert e.workload.kv_cache == ("" if kv == "f16" else kv)


def test_kv_cache_setting_is_dropped_for_training(cat):
    w = memory.resolve_workload(cat.model("llama-3.1-8b"), task=Task.FINETUNE, kv_cache="q8_0")
    assert w.kv_cache == ""


@pytest.mark.parametrize(
    ("text", "kv"),
    [
        ("can I run llama 3.1 8b on a 4090 with q8 kv cache", "q8_0"),
        ("llama 3.1 8b on a 4090, kv cache fp8, vllm", "fp8"),
        ("llama 3.1 8b on a 3090 with 8-bit KV", "q8_0"),
        ("4090 跑 qwen2.5 14b，KV缓存 q8", "q8_0"),
        ("llama 3.1 8b on a 3090 with -ctk q4_0 -ctv q4_0", "q4_0"),
    ],
)
def test_parse_kv_cache(cat, text, kv):
    q = parse(text, cat)
    assert q.kv_cache == kv
    # the cache type is not the weights' precision
    assert q.precision is None
    assert q.models and q.gpus


def test_parse_kv_cache_beside_weight_precision(cat):
    q = parse("llama 3.1 8b in int8 with 4-bit kv cache on a 4090", cat)
    assert (q.precision, q.kv_cache) == (Precision.INT8, "q4_0")


@pytest.mark.parametrize(
    ("text", "used", "asked"),
    [
        ("llama 3.1 8b on a 4090 with vllm and q8 kv cache", "fp8", "q8_0"),
        ("llama 3.1 8b on a 4090 with llama.cpp and fp8 kv cache", "q8_0", "fp8"),
    ],
)
def test_kv_cache_type_the_engine_has(cat, text, used, asked):
    q = parse(text, cat)
    assert q.kv_cache == used
    n = next(n for n in q.notes if n.code is NoteCode.KV_CACHE_ENGINE)
    assert (n.values["asked"], n.values["used"]) == (asked, used)


def test_settle_keeps_what_the_engine_offers():
    assert kv_cache.settle("q4_0", "llama.cpp") == ("q4_0", None)
    assert kv_cache.settle("fp8", "vllm") == ("fp8", None)
    assert kv_cache.settle(None, "vllm") == (None, None)


# --------------------------------------------------------------------------- longest context


def test_llama31_8b_longest_context_on_a_24gb_card_in_bf16(cat):
    m, g = cat.model("llama-3.1-8b"), cat.gpu("rtx-4090")
    w = _w(cat, "llama-3.1-8b", precision=Precision.BF16)
    mc = memory.max_context(m, w, memory.usable_bytes(g))
    assert mc is not None and not mc.capped
    # By hand: card 24 GiB = 25.77e9 bytes. Weights 8.03e9 params x 2 = 16.06e9. Fixed overhead: CUDA
    # context 0.6e9 + cuBLAS 8.5e6 + 1% allocator slack on the weights 0.16e9 = 0.77e9. llama.cpp's working
    # set, 512 tokens at a time: 512 x (4 x 4096 + 2 x 14336) x 2 + 512 x 128,256 logits x 4 = 0.309e9.
    # KV: 32 x 2 x 8 x 128 x 2 = 131,072 bytes per token. Per-token parts get 5% allocator slack:
    # s = (25.77e9 - 16.06e9 - 0.77e9 - 1.05 x 0.309e9) / (1.05 x 131,072) ~= 62.6k tokens
    # (the plain "VRAM - weights over 128 KiB" bound, 9.7e9 / 131,072, is 74k: overhead takes ~12k).
    cap = 24 * GIB
    weights = 8030261248 * 2
    fixed = 0.6e9 + 8.5e6 + 0.01 * weights
    work = 512 * (4 * 4096 + 2 * 14336) * 2 + 512 * 128256 * 4
    hand = (cap - weights - fixed - 1.05 * work) / (1.05 * 131072)
    assert 60_000 < hand < 64_000
    assert abs(mc.tokens - hand) <= 2 * memory.CONTEXT_STEP
    assert mc.tokens % memory.CONTEXT_STEP == 0
    assert mc.low <= mc.tokens <= mc.high
    # and at that context the memory model says it fits, one step more it does not
    at = memory.estimate(m, g, workload=replace(w, seq_len=mc.tokens))
    over = memory.estimate(m, g, workload=replace(w, seq_len=mc.tokens + 2 * memory.CONTEXT_STEP))
    assert at.fits and not over.fits


def test_max_context_is_capped_at_the_model_limit(cat):
    m = cat.model("llama-3.2-1b")
    mc = memory.max_context(m, _w(cat, "llama-3.2-1b"), memory.usable_bytes(cat.gpu("rtx-4090")))
    assert mc is not None and mc.capped and mc.tokens == m.max_seq_len == 131072


def test_quantized_kv_cache_gives_a_longer_context(cat):
    m, g = cat.model("llama-3.1-8b"), cat.gpu("rtx-4090")
    f16 = memory.max_context(m, _w(cat, "llama-3.1-8b"), memory.usable_bytes(g))
    q8 = memory.max_context(m, _w(cat, "llama-3.1-8b", kv_cache="q8_0"), memory.usable_bytes(g))
    assert f16 is not None and q8 is not None
    # 34/64 of the bytes per token: close to twice the tokens (the working set is not halved)
    assert 1.7 < q8.tokens / f16.tokens < 1.9


def test_no_context_for_models_without_one(cat):
    assert (
        memory.max_context(cat.model("resnet-50"), memory.resolve_workload(cat.model("resnet-50")), 1e10)
        is None
    )


@pytest.mark.parametrize(
    "text",
    [
        "max context for llama 3.1 8b on a 4090",
        "how long a context can I use with llama 3.1 8b on a 4090",
        "4090 跑 qwen2.5 14b 最多多长上下文",
    ],
)
def test_parse_max_context_question(cat, text):
    q = parse(text, cat)
    assert q.max_context and q.intent is Intent.FIT and q.seq_len is None


def test_full_context_runs_at_the_model_maximum(cat):
    q = parse("can I run llama 3.1 8b at full context on a 4090", cat)
    assert q.seq_len == 131072 and not q.max_context


def test_max_context_answer_and_json(cat):
    r = answer("max context for llama 3.1 8b on a 4090", catalog=cat)
    data = json.loads(json.dumps(r.to_json(), allow_nan=False))
    fits = data["fit"]
    assert [f["format"] for f in fits][:3] == ["bf16", "gguf-q8_0", "gguf-q4_k_m"]
    for f in fits:
        assert isinstance(f["max_context_tokens"], int)
        assert f["max_context_tokens"] <= 131072
        lo, hi = f["max_context_band"]
        assert lo <= f["max_context_tokens"] <= hi
    by = {f["format"]: f["max_context_tokens"] for f in fits}
    assert by["bf16"] < by["gguf-q8_0"] <= by["gguf-q4_k_m"]
    assert f"{by['bf16']:,}" in r.text.splitlines()[0]
    # the breakdown shown is the memory at that context: KV 131,072 bytes x tokens
    line = next(x for x in r.text.splitlines() if x.startswith(f"bf16 at {by['bf16']:,} tokens"))
    assert f"KV cache {131072 * by['bf16'] / GB:.1f} GB" in line


def test_chinese_max_context_answer_is_chinese(cat):
    r = answer("4090 跑 qwen2.5 14b 最多多长上下文", catalog=cat)
    first = r.text.splitlines()[0]
    assert "上下文" in first and "token" in first
    assert "longest" not in r.text


def test_kv_cache_in_assumptions_breakdown_and_cost(cat):
    r = answer("can I run llama 3.1 8b on a 4090 with q8 kv cache", catalog=cat)
    data = r.to_json()
    f = data["fit"][0]
    assert f["assumptions"]["kv_cache"] == "q8_0" and f["kv_cache_dtype"] == "q8_0"
    assert f["breakdown_gb"]["kv_cache"] == pytest.approx(0.54 * 34 / 64, abs=0.01)
    cost = next(n for n in data["notes"] if n["code"] == "kv_cache_cost")
    assert cost["source"] and cost["date"] == "2024-05"
    assert "KV cache q8_0" in r.text and "PR #7412" in r.text


def test_stated_context_is_the_default_not_the_maximum(cat):
    r = answer("can I run llama 3.1 8b on a 4090", catalog=cat)
    data = r.to_json()
    seq = next(a for a in data["assumptions"] if a["name"] == "seq_len")
    assert seq == {"name": "seq_len", "value": 4096, "stated": False}
    assert "4,096-token context" in r.text
    # the KV cache in the breakdown is 4,096 tokens' worth, not 128k
    assert data["fit"][0]["breakdown_gb"]["kv_cache"] == pytest.approx(131072 * 4096 / GB, abs=0.01)


# --------------------------------------------------------------------------- knowledge validation


@pytest.fixture(scope="module")
def shipped_models() -> list[dict[str, Any]]:
    import yaml

    from bot.core.knowledge import default_knowledge_dir

    text = (default_knowledge_dir() / "models.yaml").read_text(encoding="utf-8")
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return list(yaml.load(text, Loader=loader)["models"])


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda r: r.update(full_attention_layers=62), "full_attention_layers"),
        (lambda r: r.pop("attention_source"), "attention_source"),
        (lambda r: r.update(sliding_window_full_in=["koboldcpp"]), "sliding_window_full_in[0]"),
        (lambda r: r.update(sliding_window=131072), "sliding_window"),
        (lambda r: r.update(full_attention_layers=-1), "full_attention_layers"),
    ],
)
def test_attention_fields_are_validated(shipped_models, change, field):
    raw = copy.deepcopy(next(x for x in shipped_models if x["id"] == "gemma-3-27b"))
    change(raw)
    with pytest.raises(KnowledgeError) as info:
        _build_model("models.yaml", raw, 0)
    err = info.value
    assert err.file == "models.yaml" and err.entry == "model 'gemma-3-27b'" and err.field == field


def test_shipped_sliding_windows_are_below_the_context(cat):
    with_window = [m for m in cat.models.values() if m.sliding_window]
    assert {"mistral-7b", "gemma-2-9b", "gemma-3-27b", "gpt-oss-20b", "llama-4-scout"} <= {
        m.id for m in with_window
    }
    for m in with_window:
        assert m.attention_source and 0 <= (m.full_attention_layers or 0) < (m.layers or 0)
        assert m.sliding_window < (m.max_seq_len or 0)
        # fewer token-layers than the plain formula at the model's full context
        w = memory.resolve_workload(m, task=Task.INFERENCE, engine="vllm")
        assert memory.kv_token_layers(m, w, m.max_seq_len) < (m.layers or 0) * m.max_seq_len


def test_max_context_finite_for_every_llm_on_a_small_card(cat):
    g = cat.gpu("rtx-3060-12gb") if "rtx-3060-12gb" in cat.gpus else cat.gpu("rtx-4090")
    for m in cat.models.values():
        if m.kind not in ("decoder", "moe-decoder"):
            continue
        mc = memory.max_context(m, memory.resolve_workload(m, task=Task.INFERENCE), memory.usable_bytes(g))
        assert mc is not None and 0 <= mc.low <= mc.tokens <= mc.high <= (m.max_seq_len or 0)
        assert not math.isnan(mc.tokens)


def test_model_info_says_the_cache_by_attention_design(cat):
    # Gemma 3 27B at 131,072 tokens (llama.cpp rule, no engine named): (10 x 131,072 + 52 x 1,536) x
    # 8,192 bytes = 11.39e9 / 66.6e9 plain -> 17%; DeepSeek V3: 2 x 128 x 128 / 576 = 56.9 -> 1/57
    g = answer("tell me about gemma 3 27b", catalog=cat).text
    assert "52 of 62 layers" in g and "17%" in g
    d = answer("info deepseek v3", catalog=cat).text
    assert "576 values" in d and "1/57" in d
    z = answer("介绍一下 gpt-oss 20b", catalog=cat).text
    assert "滑动窗口" in z and "50%" in z


def test_a_longest_context_answer_does_not_claim_the_default_context() -> None:
    # the context is what the answer solves for: neither the JSON assumptions nor the "Assumed"
    # line say the 4,096-token default; an ordinary fit answer still says it
    from bot.core.answer import answer as ask

    r = ask("max context for llama 3.1 8b on a 4090")
    assert "seq_len" not in [a["name"] for a in r.to_json()["assumptions"]]
    assert "4,096-token context" not in r.text
    f = ask("can a 4090 run llama 3.1 8b")
    assert "seq_len" in [a["name"] for a in f.to_json()["assumptions"]]
    assert "4,096-token context" in f.text
