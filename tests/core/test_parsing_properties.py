"""Property tests: parse never raises and always returns a Query with a valid Intent."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.core.parsing import parse
from bot.core.types import Context, Intent, Query

# words the parser reacts to, mixed at random with noise
KNOWN = [
    "4090",
    "3090 ti",
    "a100",
    "4060 ti",
    "v100",
    "h100",
    "l4",
    "rtx",
    "llama 3 8b",
    "llama",
    "bert",
    "bertt",
    "sdxl",
    "qwen2.5 14b",
    "8x7b",
    "70b",
    "vs",
    "or",
    "$1,200",
    "€900",
    "£",
    "¥",
    "5000元",
    "预算",
    "1.5k",
    "a grand",
    "under",
    "between",
    "and",
    "2x",
    "dual",
    "batch 32",
    "bs=",
    "seq len",
    "8k context",
    "tokens",
    "fp16",
    "int4",
    "4-bit",
    "qlora",
    "lora",
    "full finetune",
    "train",
    "run",
    "what gpu",
    "can i",
    "fit",
    "help",
    "list",
    "cards",
    "models",
    "显卡",
    "能跑",
    "吗",
    "what about",
    "?",
    ",",
    "-",
    "/",
    "\n",
    "\x00",
]

TEXT = st.text(max_size=4000)
MIXED = st.lists(st.sampled_from(KNOWN) | st.text(max_size=8), max_size=60).map(" ".join)


def _ok(q: Query) -> None:
    assert isinstance(q, Query)
    assert isinstance(q.intent, Intent)
    assert q.num_gpus >= 1
    assert q.budget_usd is None or q.budget_usd >= 0
    assert all(isinstance(g, str) and g for g in q.gpus + q.models)


@settings(max_examples=200, deadline=None)
@given(TEXT)
def test_parse_never_raises_on_any_text(text: str) -> None:
    _ok(parse(text))


@settings(max_examples=200, deadline=None)
@given(MIXED)
def test_parse_never_raises_on_mixes_of_known_tokens(text: str) -> None:
    q = parse(text)
    _ok(q)
    _ok(parse(text, context=Context(last=q)))  # and as a follow-up to itself
