"""Issue 17: hybrid linear-attention models (Qwen3-Next) cache tokens only in their full-attention
layers and hold a fixed state per sequence in the others.

Arithmetic from Qwen/Qwen3-Next-80B-A3B-Instruct config.json (values in knowledge/models.yaml):
48 layers, full_attention_interval 4 -> 12 attention layers with 2 KV heads x head_dim 256;
36 Gated DeltaNet layers with 32 value heads x 128 x 128 (recurrent) + (2 x 16 x 128 + 32 x 128)
x 3 (conv) values each.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from bot.core import memory, throughput
from bot.core.answer import answer
from bot.core.knowledge import KnowledgeError, _build_model, get_catalog
from bot.core.parsing import parse
from bot.core.types import Task

S4K, S128K = 4096, 131072
# per attention layer and token: keys + values of 2 heads x 256 = 1,024 values
PER_TOKEN_LAYER = 2 * 2 * 256
# per Gated DeltaNet layer: 32 x 128 x 128 = 524,288 + 8,192 x 3 = 24,576 -> 548,864; x 36 layers
STATE_VALUES = 36 * (32 * 128 * 128 + (2 * 16 * 128 + 32 * 128) * 3)


@pytest.fixture(scope="module")
def cat():
    return get_catalog()


def _w(cat, **kw: Any) -> memory.Workload:
    return memory.resolve_workload(cat.model("qwen3-next-80b-a3b"), task=Task.INFERENCE, **kw)


def test_state_values_in_the_catalog_follow_the_config(cat):
    m = cat.model("qwen3-next-80b-a3b")
    assert STATE_VALUES == 19_759_104
    assert m.linear_state_values == STATE_VALUES
    assert (m.layers, m.full_attention_layers, m.kv_heads, m.head_dim) == (48, 12, 2, 256)


def test_kv_at_128k_is_a_quarter_of_plain_attention_plus_a_constant_state(cat):
    m = cat.model("qwen3-next-80b-a3b")
    e = memory.estimate(m, None, workload=_w(cat, seq_len=S128K, engine="vllm"))
    # plain attention with the same heads in all 48 layers: 48 x 131,072 x 1,024 x 2 bytes = 12.88 GB
    plain = 48 * S128K * PER_TOKEN_LAYER * 2
    # 12 attention layers: 12 x 131,072 x 1,024 x 2 = 3.22 GB (12/48 of plain);
    # + the state in bf16 (vLLM: model dtype): 19,759,104 x 2 = 39.5 MB -> 3.26 GB
    kv = 12 * S128K * PER_TOKEN_LAYER * 2
    state = STATE_VALUES * 2
    assert kv == pytest.approx(plain * 12 / 48)
    assert e.kv_cache == pytest.approx(kv + state)
    assert e.kv_cache / plain == pytest.approx(0.2531, abs=0.0001)
    # llama.cpp keeps its recurrent state in f32: 19,759,104 x 4 = 79.0 MB
    e2 = memory.estimate(m, None, workload=_w(cat, seq_len=S128K))
    assert e2.kv_cache == pytest.approx(kv + STATE_VALUES * 4)


def test_state_does_not_grow_with_the_context(cat):
    m = cat.model("qwen3-next-80b-a3b")
    for engine in ("vllm", "llama.cpp"):
        at = {
            s: memory.estimate(m, None, workload=_w(cat, seq_len=s, engine=engine)).kv_cache
            for s in (S4K, S128K)
        }
        tok = {s: memory.kv_token_layers(m, _w(cat, seq_len=s, engine=engine), s) for s in at}
        # the part that scales: 12 layers x s; the rest is the same at 4k and 128k
        const = {s: at[s] - tok[s] * PER_TOKEN_LAYER * 2 for s in at}
        assert tok[S4K] == 12 * S4K and tok[S128K] == 12 * S128K
        assert const[S4K] == pytest.approx(const[S128K])
        assert const[S4K] == pytest.approx(memory.linear_state_bytes(m, _w(cat, engine=engine)))
        assert const[S4K] > 0


def test_fp8_kv_cache_leaves_the_state_in_the_model_dtype(cat):
    m = cat.model("qwen3-next-80b-a3b")
    e = memory.estimate(m, None, workload=_w(cat, seq_len=S128K, engine="vllm", kv_cache="fp8"))
    # fp8: 12 x 131,072 x 1,024 x 1 byte = 1.61 GB; the state stays bf16 (39.5 MB)
    assert e.kv_cache == pytest.approx(12 * S128K * PER_TOKEN_LAYER * 1 + STATE_VALUES * 2)


def test_decode_reads_kv_of_the_attention_layers_only(cat):
    m = cat.model("qwen3-next-80b-a3b")
    # 12 x 1,024 values x 2 bytes = 24,576 bytes per token of context
    assert throughput.kv_bytes_per_token(m) == 12 * PER_TOKEN_LAYER * 2
    assert throughput.kv_bytes_per_token(m, context=S128K) == 12 * PER_TOKEN_LAYER * 2


@pytest.mark.parametrize(
    "text",
    [
        "qwen3-next",
        "qwen3 next 80b",
        "Qwen3-Next-80B-A3B-Instruct",
        "qwen3 next",
        "qwen3-next-80b-a3b-thinking",
    ],
)
def test_name_forms(cat, text):
    assert parse(f"can I run {text} on a 4090", cat).models == ("qwen3-next-80b-a3b",)


def test_max_context_on_h100_is_the_whole_context_at_4_bit(cat):
    r = answer("max context for qwen3-next-80b-a3b on an H100", catalog=cat)
    data = json.loads(json.dumps(r.to_json(), allow_nan=False))
    by = {f["format"]: f for f in data["fit"]}
    # 80B at 16 bits is 160 GB: no context fits on 80 GB
    assert by["bf16"]["max_context_tokens"] == 0
    # Q4_K_M (~50 GB) + 262,144 tokens x 24,576 bytes (6.44 GB) + 79 MB state fits 80 GB
    assert by["gguf-q4_k_m"]["max_context_tokens"] == 262144
    # the breakdown shown at that context: 262,144 x 24,576 bytes = 6.44 GB + 79 MB state -> 6.5 GB
    # (a plain-attention model with these heads would need 4 x 6.44 = 25.8 GB)
    line = next(x for x in r.text.splitlines() if " at 262,144 tokens: " in x)
    kv = (262144 * 12 * PER_TOKEN_LAYER * 2 + STATE_VALUES * 4) / 1e9
    assert f"KV cache {kv:.1f} GB" in line


def test_two_3090s_need_a_4_bit_build(cat):
    r = answer("can I run qwen3 next 80b on 2x 3090", catalog=cat)
    by = {f["format"]: f for f in r.to_json()["fit"]}
    # 160 GB in bf16 and ~85 GB in Q8_0 do not fit 2 x 24 GB; Q4_K_M (~49 GB, split in two) does, tightly
    assert not by["bf16"]["fits"] and not by["gguf-q8_0"]["fits"]
    assert by["gguf-q4_k_m"]["fits"] and by["gguf-q4_k_m"]["num_gpus"] == 2
    first = r.text.splitlines()[0]
    assert "Qwen3-Next 80B-A3B" in first and "Q4_K_M" in first


@pytest.fixture(scope="module")
def shipped() -> dict[str, Any]:
    import yaml

    from bot.core.knowledge import default_knowledge_dir

    text = (default_knowledge_dir() / "models.yaml").read_text(encoding="utf-8")
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return next(x for x in yaml.load(text, Loader=loader)["models"] if x["id"] == "qwen3-next-80b-a3b")


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda r: r.update(sliding_window=4096), "linear_state_values"),
        (lambda r: r.update(sliding_window_full_in=["vllm"]), "linear_state_values"),
        (lambda r: r.pop("full_attention_layers"), "full_attention_layers"),
        (lambda r: r.pop("attention_source"), "attention_source"),
        (lambda r: r.update(linear_state_values=0), "linear_state_values"),
        (lambda r: r.update(linear_state_values="big"), "linear_state_values"),
        (lambda r: r.update(full_attention_layers=48), "full_attention_layers"),
    ],
)
def test_linear_state_fields_are_validated(shipped, change, field):
    raw = copy.deepcopy(shipped)
    _build_model("models.yaml", copy.deepcopy(raw), 0)  # the shipped entry loads
    change(raw)
    with pytest.raises(KnowledgeError) as info:
        _build_model("models.yaml", raw, 0)
    assert field in str(info.value)


def test_jamba_caches_one_layer_in_eight_plus_its_mamba_state(cat):
    m = cat.model("jamba-1.5-mini")
    # ai21labs/AI21-Jamba-1.5-Mini config.json: 32 layers, attn_layer_period 8 -> 4 attention layers with
    # 8 KV heads x 128: 4 x 131,072 x 2 x 8 x 128 x 2 bytes = 2.147 GB (plain, 32 layers: 17.18 GB)
    kv = 4 * S128K * 2 * 8 * 128 * 2
    # 28 Mamba layers: d_inner 8,192 x (d_state 16 + d_conv 4 - 1) = 155,648 values each -> 4,358,144
    state = 28 * 8192 * (16 + 4 - 1)
    assert m.linear_state_values == state
    for s, want in ((S4K, 4 * S4K * 2 * 8 * 128 * 2), (S128K, kv)):
        w = memory.resolve_workload(m, task=Task.INFERENCE, seq_len=s, engine="vllm")
        # bf16 state in vLLM: 8.7 MB at every context
        assert memory.estimate(m, None, workload=w).kv_cache == pytest.approx(want + state * 2)
    assert kv / (32 * S128K * 2 * 8 * 128 * 2) == pytest.approx(1 / 8)
