"""Numbers out of range: reported (never dropped silently, never used), typed queries
sanitised by validate_query, and no answer's JSON holding NaN/Infinity or a negative
memory, price, count or power."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.core.answer import answer
from bot.core.knowledge import get_catalog
from bot.core.limits import LIMITS, check_number, number_text, validate_query
from bot.core.parsing import parse
from bot.core.types import Intent, Method, OutOfRange, Precision, Query, Task

FAST = settings(max_examples=120, deadline=None)


# -- the parser ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "field", "kept"),
    [
        ("can a 3090 train bert with batch 1000001", "batch_size", None),
        ("can a 3090 train bert with batch 0", "batch_size", None),
        ("llama 3 8b on a 3090 with seq len 99999999999", "seq_len", None),
        ("what gpu for bert under $" + "9" * 309, "budget_usd", None),
        ("what gpu for bert under 100000000000 yuan", "budget_usd", None),
        ("2000x 4090 for llama 3 70b", "num_gpus", 1),
        ("can 0x 4090 run llama 3 8b", "num_gpus", 1),
        ("sdxl at 20000px on a 4090", "resolution", None),
    ],
)
def test_out_of_range_numbers_are_reported_not_used(question: str, field: str, kept: Any) -> None:
    q = parse(question)
    assert [o.field for o in q.out_of_range] == [field], q.out_of_range
    assert getattr(q, field) == kept
    bad = q.out_of_range[0]
    assert (bad.low, bad.high) == tuple(float(x) for x in LIMITS[field])
    assert 0 < len(bad.text) <= 24


def test_the_edge_of_a_range_is_in_range() -> None:
    q = parse("can a 3090 train bert with batch 1000000")
    assert q.batch_size == 1_000_000 and q.out_of_range == ()
    # one past the edge no longer flips the verdict by vanishing: it is reported
    assert parse("can a 3090 train bert with batch 1000001").out_of_range


def test_a_309_digit_budget_never_becomes_infinity() -> None:
    ans = answer("what gpu for bert under $" + "9" * 309)
    data = ans.to_json()
    assert data["budget_usd"] is None
    json.dumps(data, allow_nan=False)
    assert "inf" not in ans.text.lower().replace("info", "")


def test_follow_up_keeps_its_own_out_of_range() -> None:
    first = answer("what gpu for bert under $1000")
    q = parse("and with batch 0?", None, first.context)
    assert [o.field for o in q.out_of_range] == ["batch_size"]


# -- limits ----------------------------------------------------------------------------------


def test_check_number() -> None:
    assert check_number("batch_size", 8) is None
    assert check_number("batch_size", -1) == OutOfRange("batch_size", "-1", 1.0, 1_000_000.0)
    assert check_number("budget_usd", float("inf")) == OutOfRange("budget_usd", "inf", 1.0, 1e8)
    assert check_number("budget_usd", float("nan")) is not None
    assert check_number("num_gpus", 10**400) is not None  # too big for a float
    assert check_number("num_gpus", True) is not None  # not a number


def test_number_text_is_short_for_huge_values() -> None:
    assert number_text(10**400) == "~1e400"
    assert len(number_text("9" * 5000)) <= 24
    assert number_text(-3) == "-3" and number_text(2.5) == "2.5"


def test_validate_query_unsets_and_reports() -> None:
    q = Query(
        intent=Intent.FIT,
        models=("llama-3-8b",),
        gpus=("rtx-3090", "rtx-4090"),
        budget_usd=-5.0,
        batch_size=-3,
        seq_len=0,
        num_gpus=-2,
        resolution=10**9,
        gpu_counts=(2, -1),
    )
    v = validate_query(q)
    assert (v.budget_usd, v.batch_size, v.seq_len, v.num_gpus, v.resolution, v.gpu_counts) == (
        None,
        None,
        None,
        1,
        None,
        (),
    )
    assert [o.field for o in v.out_of_range] == [
        "budget_usd",
        "batch_size",
        "seq_len",
        "resolution",
        "num_gpus",
        "gpu_counts",
    ]
    assert validate_query(v) == v  # idempotent
    ok = Query(intent=Intent.FIT, models=("llama-3-8b",), batch_size=8, num_gpus=2)
    assert validate_query(ok) is ok


# -- JSON: fuzzed questions, and typed queries out of range ----------------------------------

WORDS = [
    "batch",
    "seq",
    "len",
    "context",
    "budget",
    "under",
    "$",
    "€",
    "k",
    "x",
    "2x",
    "4090",
    "3090",
    "a100",
    "llama 3 8b",
    "bert",
    "sdxl",
    "fit",
    "vs",
    "tokens",
    "px",
    "gpus",
    "元",
    "-",
    "0",
    "1e309",
    "9" * 320,
    "nan",
    "inf",
]
question_text = st.lists(
    st.one_of(st.sampled_from(WORDS), st.integers(-(10**12), 10**12).map(str), st.text(max_size=6)),
    max_size=12,
).map(" ".join)


@FAST
@given(question_text)
def test_fuzzed_questions_give_strict_json(question: str) -> None:
    data = answer(question).to_json()
    json.dumps(data, allow_nan=False)  # raises on NaN/Infinity


CAT = get_catalog()
GPU_IDS = sorted(CAT.gpus)
MODEL_IDS = sorted(CAT.models)
wild_int = st.one_of(st.integers(-(10**6), 10**7), st.sampled_from([0, -1, 10**18, -(10**18), 10**400]))
wild_float = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True), st.sampled_from([0.0, -1.0, 1e308, 1e309])
)

typed_query = st.builds(
    Query,
    intent=st.sampled_from([Intent.FIT, Intent.RECOMMEND, Intent.COMPARE, Intent.INFO]),
    models=st.lists(st.sampled_from(MODEL_IDS), max_size=1).map(tuple),
    gpus=st.lists(st.sampled_from(GPU_IDS), max_size=2, unique=True).map(tuple),
    budget_usd=st.one_of(st.none(), wild_float),
    task=st.one_of(st.none(), st.sampled_from(list(Task))),
    method=st.one_of(st.none(), st.sampled_from(list(Method))),
    precision=st.one_of(st.none(), st.sampled_from(list(Precision))),
    batch_size=st.one_of(st.none(), wild_int),
    seq_len=st.one_of(st.none(), wild_int),
    num_gpus=wild_int,
    resolution=st.one_of(st.none(), wild_int),
    gpu_counts=st.lists(wild_int, max_size=2).map(tuple),
)

NON_NEGATIVE = {
    "required_gb",
    "vram_gb",
    "capacity_gb",
    "price_usd",
    "max_batch_size",
    "num_gpus",
    "count",
    "tdp_w",
    "budget_usd",
    "batch_size",
    "seq_len",
    "gpu_counts",
    "throughput",
    "relative_speed",
    "value",
    "breakdown_gb",
}


def _negatives(data: Any, key: str = "", inherited: bool = False) -> list[str]:
    bad: list[str] = []
    watched = inherited or key in NON_NEGATIVE
    if isinstance(data, dict):
        for k, v in data.items():
            bad += _negatives(v, str(k), watched and key == "breakdown_gb")
            if key == "breakdown_gb" and isinstance(v, int | float) and v < 0:
                bad.append(f"breakdown_gb.{k}={v}")
    elif isinstance(data, list):
        for v in data:
            bad += _negatives(v, key, watched)
    elif isinstance(data, int | float) and not isinstance(data, bool) and watched:
        if not math.isfinite(data) or data < 0 or (key in ("num_gpus", "count", "gpu_counts") and data < 1):
            bad.append(f"{key}={data}")
    return bad


@FAST
@given(typed_query)
def test_typed_queries_out_of_range_never_give_negative_numbers(q: Query) -> None:
    v = validate_query(q)
    data = answer(v).to_json()
    json.dumps(data, allow_nan=False)
    assert _negatives(data) == [], (q, _negatives(data))


def test_the_property_can_fail_without_validation() -> None:
    """Without validate_query a negative batch gives negative memory in the engine: what the check
    guards; answer() validates every query, so the same typed query answers with no negative number."""
    from bot.core.engine import compute
    from bot.core.knowledge import get_catalog

    q = Query(intent=Intent.FIT, models=("llama-3-8b",), gpus=("rtx-3090",), batch_size=-50, seq_len=4096)
    _, raw = compute(get_catalog(), q)
    assert _negatives({"fit": [it.entry.to_json() for it in raw.items]})  # type: ignore[union-attr]
    assert _negatives(answer(q).to_json()) == []
    assert _negatives(answer(validate_query(q)).to_json()) == []
    assert any(n["code"] == "out_of_range" for n in answer(q).to_json()["notes"])
