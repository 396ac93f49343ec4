"""The memory model's terms (issue 13): precisions, optimizers, QLoRA, the loss, bands, and the
plain-language settings that reach them."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot import estimate_cli
from bot.core import memory
from bot.core.knowledge import get_catalog
from bot.core.memory import GB
from bot.core.parsing import parse
from bot.core.recommend import workload_for
from bot.core.types import Method, Optimizer, Parallelism, Precision, Task

CAT = get_catalog()


def _bytes_per_param(mid: str, **kw) -> float:
    m = CAT.model(mid)
    w = memory.resolve_workload(m, task=Task.FINETUNE, method=Method.FULL, **kw)
    e = memory.estimate(m, None, workload=w)
    return (e.weights + e.gradients + e.optimizer) / m.params


@pytest.mark.parametrize(
    ("kw", "expected"),
    [
        ({"precision": Precision.BF16}, 16.0),  # mixed: 2 + 2 + master 4 + Adam 8 (ZeRO)
        ({"precision": Precision.BF16, "pure_16bit": True}, 8.0),  # bf16 weights, grads, AdamW states
        ({"precision": Precision.FP32}, 16.0),
        ({"precision": Precision.BF16, "optimizer": Optimizer.ADAM8BIT}, 10.0),
        ({"precision": Precision.BF16, "optimizer": Optimizer.PAGED_ADAM8BIT, "pure_16bit": True}, 6.0),
        ({"precision": Precision.BF16, "optimizer": Optimizer.SGD}, 12.0),
        ({"precision": Precision.BF16, "pure_16bit": True, "optimizer": Optimizer.SGD}, 6.0),
    ],
)
def test_bytes_per_parameter_by_precision_and_optimizer(kw, expected):
    assert _bytes_per_param("llama-2-7b", **kw) == pytest.approx(expected)


def test_adafactor_states_are_nearly_free():
    mixed = _bytes_per_param("llama-2-7b", precision=Precision.BF16, optimizer=Optimizer.ADAFACTOR)
    assert 8.0 < mixed < 8.01  # 2 + 2 + master 4 + factored second moment ~0.001


def test_pure_bf16_7b_fits_where_mixed_does_not():
    m, g = CAT.model("llama-2-7b"), CAT.gpu("a100-80gb")
    mixed = memory.estimate(
        m, g, task=Task.FINETUNE, method=Method.FULL, precision=Precision.BF16, seq_len=512
    )
    pure = memory.estimate(
        m,
        g,
        workload=memory.resolve_workload(
            m, task=Task.FINETUNE, precision=Precision.BF16, pure_16bit=True, seq_len=512
        ),
    )
    assert not mixed.fits and pure.fits
    assert pure.total / GB == pytest.approx(mixed.total / GB - 8 * m.params / GB, abs=1.5)


def test_qlora_keeps_embeddings_and_untied_head_in_16_bit():
    m = CAT.model("llama-2-7b")  # untied: 2 x 32000 x 4096 in bf16
    w = memory.resolve_workload(m, method=Method.QLORA)
    e = memory.estimate(m, None, workload=w)
    emb = 2 * 32000 * 4096
    adapters = memory.lora_params(m, 64) * 2.0
    assert e.weights - adapters == pytest.approx((m.params - emb) * 4.127 / 8 + emb * 2.0)


def test_lora_targets_order_and_rank_scale():
    m = CAT.model("llama-3-8b")
    qv, att, alll = (memory.lora_params(m, 16, t) for t in ("qv", "attention", "all-linear"))
    assert qv < att < alll
    assert memory.lora_params(m, 32, "qv") == 2 * qv


def test_loss_logits_grow_with_vocabulary():
    # the same decoder shape with a 4x vocabulary: the fp32-upcast logits dominate at long context
    l2, l3 = CAT.model("llama-2-7b"), CAT.model("llama-3-8b")

    def act(m):
        w = memory.resolve_workload(
            m, method=Method.LORA, seq_len=8192, batch_size=1, grad_checkpointing=True
        )
        return memory.estimate(m, None, workload=w).activations

    assert act(l3) - act(l2) > 0.8 * 16 * 8192 * (128256 - 32000)


def test_cpu_offload_leaves_only_the_gathered_units_on_the_card():
    m = CAT.model("llama-2-70b")
    w = memory.resolve_workload(
        m, method=Method.QLORA, num_gpus=2, parallelism=Parallelism.SHARDED, cpu_offload=True, batch_size=2
    )
    e = memory.estimate(m, None, workload=w)
    on = memory.estimate(
        m,
        None,
        workload=memory.resolve_workload(
            m, method=Method.QLORA, num_gpus=2, parallelism=Parallelism.SHARDED, batch_size=2
        ),
    )
    assert e.weights == 0 and e.optimizer == 0
    assert on.total - e.total > 15 * GB  # the 4-bit 70B's half per card


def test_whisper_holds_cross_attention_keys_and_values():
    m = CAT.model("whisper-large-v3")  # 32 decoder layers, width 1280, 1500 encoder frames
    e = memory.estimate(m, None, task=Task.INFERENCE, batch_size=1)
    assert e.kv_cache >= 32 * 2 * 1280 * 1500 * 2


def test_sdxl_vae_decode_of_four_images_dominates():
    m = CAT.model("sdxl")
    e = memory.estimate(m, None, task=Task.INFERENCE, batch_size=4)
    assert e.activations > 14 * GB  # HF's SDXL blog: ~16 GB above the weights


def test_band_contains_the_estimate_and_tight_means_capacity_inside_it():
    m = CAT.model("llama-3-8b")
    e = memory.estimate(m, None, task=Task.INFERENCE, precision=Precision.FP16)
    assert e.low < e.total < e.high and e.category == "llm-inference"
    lo, hi = e.band_gb()
    assert lo <= round(e.total / GB, 2) <= hi
    assert not e.tight  # no card
    tight = [
        g
        for g in CAT.gpus.values()
        if memory.estimate(m, g, task=Task.INFERENCE, precision=Precision.FP16).tight
    ]
    assert "rtx-4080" in {g.id for g in tight}  # 16 GB (17.2 GB) against ~17.8 GB needed
    for g in tight:
        t = memory.estimate(m, g, task=Task.INFERENCE, precision=Precision.FP16)
        assert t.low <= memory.usable_bytes(g) <= t.high
    roomy = memory.estimate(m, CAT.gpu("h100-sxm"), task=Task.INFERENCE, precision=Precision.FP16)
    assert roomy.fits and not roomy.tight


@pytest.mark.parametrize(
    ("text", "check"),
    [
        ("full fine-tune llama 3 8b in pure bf16 on a 4090", lambda q, w: q.pure_16bit and w.pure_16bit),
        ("train llama 2 7b with 8-bit adam on a 3090", lambda q, w: w.optimizer is Optimizer.ADAM8BIT),
        ("fine-tune mistral 7b with adafactor", lambda q, w: w.optimizer is Optimizer.ADAFACTOR),
        ("lora on all linear layers for llama 3 8b on a 4090", lambda q, w: w.lora_targets == "all-linear"),
        ("llama 3 8b lora on q and v", lambda q, w: w.lora_targets == "qv" and w.method is Method.LORA),
        ("bert large with eager attention on a 3090", lambda q, w: not w.fused_attention),
        (
            "full finetune llama 3 70b with deepspeed zero-3 offload on 4x 4090",
            lambda q, w: w.parallelism is Parallelism.SHARDED and w.cpu_offload,
        ),
        (
            "qlora llama 2 13b with paged adamw 8bit",
            lambda q, w: w.optimizer is Optimizer.PAGED_ADAM8BIT and w.nf4,
        ),
        (
            "lora llama 3 8b with adamw 8-bit",
            lambda q, w: w.optimizer is Optimizer.ADAM8BIT and q.precision is None,
        ),
    ],
)
def test_plain_questions_reach_the_settings(text, check):
    q = parse(text, CAT)
    w = workload_for(CAT.model(q.models[0]), q)
    assert check(q, w), (q, w)


def test_follow_up_keeps_pure_bf16():
    from bot.core.types import Context

    q1 = parse("full fine-tune llama 3 8b in pure bf16 on a 4090", CAT)
    q2 = parse("what about on an a100 80gb?", CAT, Context(last=q1))
    assert q2.pure_16bit is True and q2.models == q1.models


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=10), inner, max_size=3),
    max_leaves=8,
)
estimate_objects = st.fixed_dictionaries(
    {"model": st.sampled_from(sorted(CAT.models)) | st.text(max_size=12)},
    optional={
        k: json_values | st.sampled_from(["bf16", "nf4", "qlora", "fsdp", "eager", "qv", "training"])
        for k in estimate_cli.INPUT_FIELDS
        if k != "model"
    },
)


@settings(max_examples=300, deadline=None)
@given(st.one_of(estimate_objects, json_values))
def test_estimate_line_answers_anything_with_json_and_no_nan(obj):
    o = estimate_cli.estimate_line(CAT, obj)
    assert set(o) == set(estimate_cli.OUTPUT_FIELDS)
    json.dumps(o, allow_nan=False)
    if o["error"] is None:
        assert o["low_gb"] <= o["required_gb"] <= o["high_gb"]
        assert sum(o["breakdown_gb"].values()) == pytest.approx(o["required_gb"], abs=0.015)
    else:
        assert o["required_gb"] is None and o["error"].strip()
