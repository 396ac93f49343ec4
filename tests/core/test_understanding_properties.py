"""Property tests over understanding (issue 10, "Proof"), through the same answer() every surface
calls: no exception; the JSON holds no NaN/Infinity and no negative number where a question's own
numbers go (budget, counts, batch, sequence, filters, the conversation state); a budget is never
larger than what was typed (in its own currency); every unrecognized name is reported; and a
follow-up ("cheaper?") never raises the budget. Example counts are modest: the suite has a
three-minute bar.
"""

from __future__ import annotations

import json
import math
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.core.answer import answer
from bot.core.types import Context

FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])

WORDS = [
    "can",
    "a",
    "3090",
    "4090",
    "a6000",
    "run",
    "llama 3 8b",
    "qwen2.5 14b",
    "sdxl",
    "bert",
    "what gpu for",
    "under",
    "$",
    "€",
    "元",
    "预算",
    "1.5k",
    "2x",
    "two of them",
    "batch",
    "seq",
    "8k context",
    "fp16",
    "8-bit",
    "qlora",
    "cheaper?",
    "16GB+",
    "cards",
    "under 150W",
    "bf16",
    "laptop",
    "single-slot",
    "tdp",
    "attention heads",
    "那A6000呢",
    "两张呢",
    "same but 70b",
    "-1",
    "1e309",
    "nan",
    "inf",
    "0",
    "99999999999999999999",
]
MIXED = st.lists(st.sampled_from(WORDS) | st.text(max_size=6), min_size=1, max_size=14).map(" ".join)


def _numbers(v: Any, path: str = "") -> list[tuple[str, float]]:
    if isinstance(v, bool) or v is None or isinstance(v, str):
        return []
    if isinstance(v, int | float):
        return [(path, float(v))]
    if isinstance(v, dict):
        return [x for k, x2 in v.items() for x in _numbers(x2, f"{path}.{k}")]
    if isinstance(v, list):
        return [x for i, x2 in enumerate(v) for x in _numbers(x2, f"{path}[{i}]")]
    return []


_QUESTION_FIELDS = (
    "budget_usd",
    "batch_size",
    "seq_len",
    "num_gpus",
    "gpu_counts",
    "filters",
    "conversation",
)


def _check(j: dict[str, Any]) -> None:
    json.dumps(j, allow_nan=False)  # no NaN / Infinity anywhere
    for key in _QUESTION_FIELDS:
        for path, x in _numbers(j.get(key), key):
            assert math.isfinite(x) and x >= 0, (path, x)
    assert j["num_gpus"] >= 1


@FAST
@given(MIXED)
def test_any_question_gives_clean_json(text: str) -> None:
    _check(answer(text).to_json())


@FAST
@given(st.lists(MIXED, min_size=2, max_size=3))
def test_any_conversation_gives_clean_json(turns: list[str]) -> None:
    ctx = Context()
    for text in turns:
        a = answer(text, ctx)
        j = a.to_json()
        _check(j)
        assert j["conversation"]["state"]["num_gpus"] >= 1
        ctx = a.context


AMOUNTS = st.integers(min_value=50, max_value=200_000)
USD_FORMS = [
    "${a}",
    "{a} dollars",
    "under ${a}",
    "{a}usd",
    "budget {a} usd",
    "no more than ${a}",
    "{a} bucks",
]
OTHER_FORMS = ["{a} euros", "€{a}", "{a}元", "预算{a}元", "£{a}"]


@FAST
@given(
    AMOUNTS,
    st.sampled_from(USD_FORMS),
    st.sampled_from(["what gpu for llama 3 8b", "gpu for sdxl", "显卡推荐"]),
)
def test_a_dollar_budget_is_never_larger_than_typed(a: int, form: str, lead: str) -> None:
    j = answer(f"{lead} {form.format(a=a)}").to_json()
    assert j["budget_usd"] is None or j["budget_usd"] <= a + 1e-6, (form, a, j["budget_usd"])


@FAST
@given(AMOUNTS, st.sampled_from(OTHER_FORMS))
def test_a_converted_budget_is_never_larger_than_typed_in_its_currency(a: int, form: str) -> None:
    j = answer(f"what gpu for bert {form.format(a=a)}").to_json()
    for n in j["notes"]:
        if n["code"] == "budget_converted":
            assert n["amount"] <= a + 1e-6, (form, a, n)


@FAST
@given(AMOUNTS, st.sampled_from(["cheaper?", "预算再低一点呢", "something cheaper", "便宜点的呢"]))
def test_cheaper_never_raises_the_budget(a: int, follow: str) -> None:
    first = answer(f"what gpu for llama 3 8b under ${a}", Context())
    before = first.to_json()["budget_usd"]
    after = answer(follow, first.context).to_json()["budget_usd"]
    if before is not None:
        assert after is not None and after <= before


NAME = st.builds(
    lambda head, tail, size: f"zq{head}-{tail} {size}b",
    st.text(alphabet="bcdfghjkvwxz", min_size=2, max_size=5),
    st.text(alphabet="bcdfghjkvwxz", min_size=2, max_size=5),
    st.integers(min_value=1, max_value=900),
)
CARD = st.builds(lambda n: f"rtx {n}", st.integers(min_value=10_000, max_value=99_999))


@FAST
@given(
    NAME, st.sampled_from(["can a 4090 run {x}", "what gpu for {x}", "{x}能在3090上跑吗", "how big is {x}"])
)
def test_every_unrecognized_model_name_is_reported(name: str, template: str) -> None:
    j = answer(template.format(x=name)).to_json()
    said = [u.lower() for u in j["unrecognized"]]
    typed = name.split()[0]
    assert any(typed in u or u in name for u in said) or any(
        n.get("typed", "").lower().startswith(typed) for n in j["notes"]
    ), (name, j["unrecognized"], j["models"])


@FAST
@given(CARD, st.sampled_from(["can an {x} run llama 3 8b", "{x} vs 4090", "is the {x} good for sdxl"]))
def test_every_unrecognized_card_name_is_reported(card: str, template: str) -> None:
    j = answer(template.format(x=card)).to_json()
    assert any(card in u.lower() for u in j["unrecognized"]), (card, j["unrecognized"], j["gpus"])
