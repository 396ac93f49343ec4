"""Absolute speed, time to train and serving capacity (issue 12)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from bot.core import throughput
from bot.core.answer import answer
from bot.core.engine import compute
from bot.core.knowledge import get_catalog
from bot.core.parsing import parse
from bot.core.results import ServeResult, SpeedResult, TimeResult
from bot.core.types import Intent, Lang, Method, Precision
from bot.core.understand_time import read

CAT = get_catalog()


# --------------------------------------------------------------------------- calibration


def test_calibration_within_1_5x() -> None:
    """>= 80% of carried measurements (decode tokens/s, images/s, training images/s) within 1.5x; goal 95%."""
    pts = throughput.calibration_points(CAT)
    cats = {p.category for p in pts}
    assert {"decode", "cnn_training", "prefill", "diffusion"} <= cats
    assert len(pts) >= 200
    within = [p for p in pts if 1 / 1.5 <= p.ratio <= 1.5]
    assert len(within) / len(pts) >= 0.9, [
        (p.model, p.gpu, round(p.ratio, 2)) for p in pts if p not in within
    ]
    for c in ("decode", "cnn_training"):
        rs = [p.ratio for p in pts if p.category == c]
        assert sum(1 / 1.5 <= r <= 1.5 for r in rs) / len(rs) >= 0.8, c


def test_llm_training_calibration_on_current_stacks() -> None:
    """LLM training tokens/s: the 2024 stacks (torchtune, vectorlm: packed data, flash attention) within
    1.5x for at least 80%, and the median ratio within 1.25x. PaddleNLP's 2023 HF PEFT baseline (no flash
    attention, padded batches) is carried but runs at about a quarter of the modelled rate."""
    pts = [p for p in throughput.calibration_points(CAT) if p.category == "llm_training"]
    assert len(pts) >= 9
    modern = [p for p in pts if "PaddleNLP" not in p.source]
    assert len(modern) >= 7
    within = [p for p in modern if 1 / 1.5 <= p.ratio <= 1.5]
    assert len(within) / len(modern) >= 0.8, [(p.model, p.gpu, round(p.ratio, 2)) for p in modern]
    rs = sorted(p.ratio for p in modern)
    assert 0.8 <= rs[len(rs) // 2] <= 1.25
    # QLoRA is slower than LoRA on the same card, and LoRA faster than full training
    m, g = CAT.model("llama-3.1-8b"), CAT.gpu("rtx-4090")
    full, lora, qlora = (
        throughput.training_tokens_per_s(m, g, Precision.BF16, k).value
        for k in (Method.FULL, Method.LORA, Method.QLORA)
    )
    assert full < qlora < lora


def test_measured_decode_is_quoted_as_measured() -> None:
    d = throughput.decode(CAT.model("llama-3-8b"), CAT.gpu("rtx-4090"), Precision.INT4, catalog=CAT)
    assert d.basis == "measured" and d.value == pytest.approx(130.58)
    assert d.low < d.value < d.high


# --------------------------------------------------------------------------- arithmetic


def test_serving_l40s_qwen14b_16k_hand_checked() -> None:
    # KV per token: 48 layers x 2 (K, V) x 8 KV heads x 128 head dim x 2 bytes = 196,608 B
    # per user at 16,384 tokens (1,024 pages of 16): 16,384 x 196,608 = 3.221 GB
    # card: 48 GiB = 51.54 GB x 0.9 (gpu_memory_utilization) = 46.39 GB
    # minus bf16 weights 14.770e9 x 2 = 29.54 GB, minus 1.5 GB reserve -> 15.35 GB of KV cache
    # 15.35 / 3.221 = 4.77 -> 4 users
    s = throughput.serving(CAT.model("qwen2.5-14b"), CAT.gpu("l40s"), Precision.BF16, 16384)
    assert s.kv_per_user_gb == pytest.approx(3.221, abs=0.002)
    assert s.weights_gb == pytest.approx(29.54, abs=0.01)
    assert s.kv_budget_gb == pytest.approx(15.35, abs=0.02)
    assert s.concurrent_users == 4
    assert s.aggregate.value == pytest.approx(4 * s.per_user.value)


def test_time_to_train_lora_7b_on_4090_hand_checked() -> None:
    # 10k samples x 1,024 tokens x 1 epoch = 10,240,000 tokens
    # LoRA: 4 x 7.6156e9 = 3.046e10 FLOPs per token; 4090: 165.2 TFLOPS x 0.55 (TRAIN_MFU) = 90.86e12 FLOP/s
    # -> 2,983 tokens/s -> 10.24e6 / 2,983 / 3,600 = 0.954 hours
    # energy: 450 W x 0.85 x 0.954 h = 0.365 kWh; x $0.18 (prices.yaml default, 2025-12) = $0.066
    q = parse("how long to lora fine-tune qwen2.5 7b on 10k samples of 1024 tokens on a 4090", CAT)
    assert q.intent is Intent.TIME and q.budget_usd is None
    _, r = compute(CAT, q)
    assert isinstance(r, TimeResult)
    row = r.rows[0]
    assert r.amount == 10_240_000
    assert row.training.value == pytest.approx(2983, rel=0.01)
    assert row.hours.value == pytest.approx(0.954, rel=0.01)
    assert row.kwh == pytest.approx(0.365, abs=0.01)
    assert row.electricity_cost == pytest.approx(0.066, abs=0.01)
    assert r.kwh_price == 0.18 and not r.kwh_price_stated
    assert row.hours.low < row.hours.value < row.hours.high


def test_user_electricity_price_and_two_gb_of_text() -> None:
    q = parse("how long to train gpt-2 on my 2 GB of text on a 4090 at 0.30 €/kWh", CAT)
    assert q.intent is Intent.TIME and q.budget_usd is None
    assert q.dataset_tokens == pytest.approx(5e8)  # 2e9 bytes / 4 bytes per token
    _, r = compute(CAT, q)
    assert (
        isinstance(r, TimeResult) and r.kwh_price == 0.30 and r.kwh_currency == "EUR" and r.kwh_price_stated
    )


# --------------------------------------------------------------------------- parsing


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("20k samples of 1,024 tokens, 2 epochs", {"samples": 20000, "sample_tokens": 1024, "epochs": 2.0}),
        ("train resnet-50 on COCO for 100 epochs", {"samples": 118287, "epochs": 100.0, "kind": "time"}),
        ("full fine-tune on 1B tokens", {"dataset_tokens": 1e9, "kind": "time"}),
        ("at least 15 tokens/s on a 32B model", {"target_tokens_per_s": 15.0, "kind": "speed"}),
        ("30 users at 8k context", {"users": 30, "context": 8192, "kind": "serve"}),
        ("train in under a day", {"target_hours": 24.0, "kind": "time"}),
        ("an image in under 5 seconds", {"target_seconds_per_image": 5.0, "kind": "speed"}),
        (
            "2万条样本，每条1024 token，2轮要多久",
            {"samples": 20000, "sample_tokens": 1024, "epochs": 2.0, "kind": "time"},
        ),
        ("至少每秒15个token", {"target_tokens_per_s": 15.0, "kind": "speed"}),
        ("能支持多少用户并发，16k上下文", {"context": 16384, "kind": "serve"}),
        ("电价0.6元", {"kwh_price": 0.6, "kwh_currency": "CNY"}),
    ],
)
def test_read(text: str, want: dict[str, object]) -> None:
    ask = read(text)
    for k, v in want.items():
        assert getattr(ask, k) == v, (k, ask)


# --------------------------------------------------------------------------- answers


def test_target_recommendation_meets_the_target_within_budget() -> None:
    q = parse("what do I need for 20 tokens per second on qwen2.5 32b, budget 2500 dollars", CAT)
    _, r = compute(CAT, q)
    assert isinstance(r, SpeedResult) and r.recommend and r.rows
    for row in r.rows:
        assert row.decode.value >= 20 and (row.price_usd or 0) * row.count <= 2500 and row.fits


def test_target_nobody_meets_names_the_closest() -> None:
    q = parse("what do I need for 500 tokens per second on qwen2.5 32b, budget 1000 dollars", CAT)
    _, r = compute(CAT, q)
    assert isinstance(r, SpeedResult) and not r.rows and r.closest is not None
    a = answer("what do I need for 500 tokens per second on qwen2.5 32b, budget 1000 dollars")
    assert "No option" in a.verdict


def test_serve_answer_in_both_languages() -> None:
    en = answer("how many users can an L40S serve with Qwen2.5 14B at 16k context")
    zh = answer("L40S跑Qwen2.5 14B 16k上下文能支持多少用户并发")
    assert isinstance(en.result, ServeResult) and isinstance(zh.result, ServeResult)
    assert en.serving is not None and en.serving["concurrent_users"] == 4 == zh.serving["concurrent_users"]
    assert zh.language is Lang.ZH_HANS and "用户" in zh.verdict


def test_serve_answer_for_one_user_says_one_user() -> None:
    """A card that serves a single user says so, not "about 1 users"."""
    en = answer("how many concurrent users can a single h100 serve llama 3 70b fp8")
    zh = answer("一张h100用fp8跑llama 3 70b能同时服务多少用户")
    assert en.serving is not None and en.serving["concurrent_users"] == 1 == zh.serving["concurrent_users"]
    assert "one user at a time" in en.verdict and "1 users" not in en.text
    assert "1 个用户" in zh.verdict


def _ask_json(q: str) -> dict[str, object]:
    out = subprocess.run(
        [sys.executable, "-m", "bot", "ask", "--json", q],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    return json.loads(out.stdout)


def test_e2e_json_speed_time_serving() -> None:
    j = _ask_json("tokens/s of llama 3 8b on a 4090")
    assert j["intent"] == "speed" and "130" in str(j["text"]) or "131" in str(j["text"])
    j = _ask_json("how long to lora fine-tune qwen2.5 7b on 10k samples of 1024 tokens on a 4090")
    t = j["time"]
    assert isinstance(t, dict) and t["low"] < t["hours"] < t["high"] and t["assumed"]["sample_tokens"] == 1024
    j = _ask_json("what do I need for 20 tokens per second on qwen2.5 32b, budget 2500 dollars")
    recs = j["recommendations"]
    assert isinstance(recs, list) and recs and recs[0]["speed"]["decode_tokens_per_s"] >= 20
    j = _ask_json("does llama 3 8b fit on a 3090")
    fit = j["fit"]
    assert isinstance(fit, list) and fit[0]["speed"]["basis"] in ("measured", "modelled")
    assert "NaN" not in json.dumps(j) and "Infinity" not in json.dumps(j)


def test_whisper_real_time_factor_and_weak_speed_cue() -> None:
    q = parse("whisper large v3 speed on a 3060", CAT)
    assert q.intent is Intent.SPEED
    _, r = compute(CAT, q)
    assert isinstance(r, SpeedResult) and r.rows[0].rtf is not None
    assert 0.01 < r.rows[0].rtf.value < 0.5  # faster than real time, by the published faster-whisper scale
    assert parse("what is the speed of a 4090", CAT).intent is not Intent.SPEED  # no model: a card question


def test_serving_targets_skip_cards_vllm_cannot_run() -> None:
    _, r = compute(CAT, parse("gpu to serve llama 3 8b to 30 users at 8k context", CAT))
    assert isinstance(r, ServeResult) and r.rows
    for row in r.rows:
        assert "pascal" not in row.gpu.architecture.lower() and row.serving.concurrent_users >= 30


@pytest.mark.parametrize(
    "text",
    [
        "预算2万元，想让qwen2.5 32b每秒至少20个token，买什么卡",
        "what do I need for 20 tokens per second on qwen2.5 32b, budget 2500 dollars",
    ],
)
def test_speed_target_in_both_languages(text: str) -> None:
    a = answer(text)
    assert isinstance(a.result, SpeedResult) and a.result.recommend
    assert a.result.target_tokens_per_s == 20.0
    for row in a.result.rows:
        assert row.decode.value >= 20
    j = a.to_json()
    assert j["recommendations"] and all(r["speed"]["decode_tokens_per_s"] >= 20 for r in j["recommendations"])


def test_train_in_under_a_day_ranks_cards_that_make_it() -> None:
    a = answer("train resnet-50 on imagenet for 90 epochs in under a day")
    r = a.result
    assert isinstance(r, TimeResult) and r.recommend and r.target_hours == 24.0
    assert r.rows and all(x.hours.value <= 24.0 for x in r.rows)
    prices = [(x.price_usd or 0) * x.count for x in r.rows]
    assert prices == sorted(prices)  # cheapest first


def test_time_answer_in_chinese_names_what_it_assumed() -> None:
    a = answer("用4090微调qwen2.5 7b，2万条样本，每条1024 token，2轮要多久")
    assert a.language is Lang.ZH_HANS
    assert isinstance(a.result, TimeResult)
    assert a.time is not None and a.time["assumed"]["epochs"] == 2.0 and a.time["assumed"]["samples"] == 20000
    assert "小时" in a.verdict and any("2 轮" in s for s in a.assumptions)


def test_apple_decode_rows_within_1_5x_with_the_metal_per_token_cost() -> None:
    pts = [
        p
        for p in throughput.calibration_points(CAT)
        if p.category == "decode" and CAT.gpus[p.gpu].vendor.lower() == "apple"
    ]
    assert len(pts) >= 12
    assert all(1 / 1.5 <= p.ratio <= 1.5 for p in pts), [(p.model, p.gpu, round(p.ratio, 2)) for p in pts]


def test_speed_table_is_relative_speed_per_card() -> None:
    """speed_table (the per-model work done once) gives exactly relative_speed's figures."""
    from bot.core import speed
    from bot.core.knowledge import get_catalog
    from bot.core.types import Precision, Task

    cat = get_catalog()
    for mid in ("llama-3-8b", "resnet-50", "sdxl", "bert-base"):
        m = cat.model(mid)
        for task, prec in ((Task.INFERENCE, Precision.INT4), (Task.TRAINING, Precision.FP32)):
            table = speed.speed_table.__wrapped__(cat, mid, task, prec)
            assert list(table) == list(cat.gpus)
            for g in cat.gpus.values():
                assert table[g.id] == speed.relative_speed(m, g, prec, task=task, catalog=cat)
