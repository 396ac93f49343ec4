"""bot.core.rig: reading a rig from chat, slash options, and when a question means the rig."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.core.knowledge import get_catalog
from bot.core.parsing import parse
from bot.core.rig import (
    MAX_COUNT,
    Rig,
    RigProblem,
    RigProblemCode,
    build_rig,
    parse_rig,
    refers_to_rig,
    with_rig,
)
from bot.core.types import Intent, Query

CAT = get_catalog()

PARSE_TABLE: list[tuple[str, Rig | None]] = [
    ("my rig is 2x 3090 and 64GB RAM", Rig("rtx-3090", 2, 64.0)),
    ("I have a 4090 and 32 gb ram", Rig("rtx-4090", 1, 32.0)),
    ("我的配置是两张3090，64G内存", Rig("rtx-3090", 2, 64.0)),
    ("my setup: two rtx 4090s, 128 GB of RAM", Rig("rtx-4090", 2, 128.0)),
    ("I've got a single 3060 12gb", Rig("rtx-3060-12gb", 1, None)),
    ("my pc has 4 x RTX 3090 and 256gb of system memory", Rig("rtx-3090", 4, 256.0)),
    ("i'm running a 3090 x2", Rig("rtx-3090", 2, None)),
    ("my card is a 4070 ti super", Rig("rtx-4070-ti-super", 1, None)),
    ("I use an A100 80GB", Rig("a100-80gb", 1, None)),
    ("我有一张4090，内存32G", Rig("rtx-4090", 1, 32.0)),
    ("I have a 3090, budget $1500 for an upgrade", Rig("rtx-3090", 1, None, 1500.0)),
    ("my gpus are 8 h100s", None),  # "are" is no rig cue here ("my gpus: ..." is)
    ("my gpus: 8x h100 sxm", Rig("h100-sxm", 8, None)),
    # not a statement of the rig
    ("I have a 4090, can I run llama 3 70b?", None),  # a question naming a model: the parser's
    ("what gpu for bert under $1000", None),
    ("can a 3090 run llama 3 8b", None),
    ("I have $1000", None),  # no card
    ("my rig is great", None),
    ("I have a 3090 and a 4090", None),  # two kinds of card
    ("rtx 3090 vs 4090", None),
    ("", None),
    ("I have a 4090 and 24gb vram", Rig("rtx-4090", 1, None)),  # VRAM is not system RAM
    ("I have 2 3090s", Rig("rtx-3090", 2, None)),
    ("i got a pair of 3090s and 128gb ram", Rig("rtx-3090", 2, 128.0)),
    ("my build: 3090, 64 gigs of ram", Rig("rtx-3090", 1, 64.0)),
    ("I have a 3090 with 24gb and 64gb ddr5 ram", Rig("rtx-3090", 1, 64.0)),
    ("我用的是4090", Rig("rtx-4090", 1, None)),
    ("I have a 3090. What about upgrading?", None),
    ("i have 1000 3090s", None),  # not a believable rig
    ("I have 100x 4090", None),
]


@pytest.mark.parametrize(("text", "want"), PARSE_TABLE, ids=[t for t, _ in PARSE_TABLE])
def test_parse_rig_table(text: str, want: Rig | None) -> None:
    got = parse_rig(text, catalog=CAT)
    if want is not None and want.gpu not in CAT.gpus:
        pytest.fail(f"test table names {want.gpu}, not in the catalog")
    assert got == want


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=80) | st.from_regex(r"(my rig is|I have|我有) .{0,30}", fullmatch=True))
def test_any_text_gives_a_rig_or_none_and_never_raises(text: str) -> None:
    got = parse_rig(text, catalog=CAT)
    assert got is None or (isinstance(got, Rig) and got.gpu in CAT.gpus)
    assert refers_to_rig(text, catalog=CAT) in (True, False)


def test_parse_rig_card_family_takes_the_default_member() -> None:
    got = parse_rig("I have a 4060 ti", catalog=CAT)
    assert got is not None
    assert got.gpu in {"rtx-4060-ti-8gb", "rtx-4060-ti-16gb"}


REFERS_TABLE: list[tuple[str, bool]] = [
    ("will llama 3 8b fit on my rig?", True),
    ("can my card run sdxl", True),
    ("can I run llama 3 8b?", True),
    ("can i fine-tune mistral 7b with qlora", True),
    ("Could I train resnet-50 at batch 64", True),
    ("how fast is my gpu for stable diffusion", True),
    ("我的显卡能跑llama 3 8b吗", True),
    ("我能跑qwen2.5 14b吗", True),
    # a card named: about that card, not the rig
    ("can I run llama 3 8b on a 3090?", False),
    ("can my 4090 run llama 3 70b", False),
    ("can a 3090 run llama 3 8b", False),
    # nothing about the user's machine
    ("what gpu for bert under $1000", False),
    ("how much VRAM does llama 2 70b need in fp16?", False),
    ("rtx 3090 vs 4090", False),
    ("", False),
]


@pytest.mark.parametrize(("text", "want"), REFERS_TABLE, ids=[t or "<empty>" for t, _ in REFERS_TABLE])
def test_refers_to_rig_table(text: str, want: bool) -> None:
    assert refers_to_rig(text, catalog=CAT) is want


BUILD_TABLE: list[tuple[tuple, Rig | RigProblemCode]] = [
    (("rtx-3090", 2, 64.0, None), Rig("rtx-3090", 2, 64.0)),
    (("RTX 4090",), Rig("rtx-4090")),
    (("4090", 1, None, 2000), Rig("rtx-4090", 1, None, 2000.0)),
    (("foobarnet-9000",), RigProblemCode.UNKNOWN_GPU),
    (("",), RigProblemCode.UNKNOWN_GPU),
    (("3090", 0), RigProblemCode.BAD_COUNT),
    (("3090", MAX_COUNT + 1), RigProblemCode.BAD_COUNT),
    (("3090", 1, -8.0), RigProblemCode.BAD_RAM),
    (("3090", 1, math.nan), RigProblemCode.BAD_RAM),
    (("3090", 1, None, 0.0), RigProblemCode.BAD_BUDGET),
    (("3090", 1, None, math.inf), RigProblemCode.BAD_BUDGET),
]


@pytest.mark.parametrize(("args", "want"), BUILD_TABLE, ids=[repr(a) for a, _ in BUILD_TABLE])
def test_build_rig_table(args: tuple, want: Rig | RigProblemCode) -> None:
    got = build_rig(*args, catalog=CAT)
    if isinstance(want, Rig):
        assert got == want
    else:
        assert isinstance(got, RigProblem)
        assert got.code is want


def test_build_rig_unknown_card_suggests_near_names() -> None:
    got = build_rig("rtx 4909", catalog=CAT)
    assert isinstance(got, RigProblem) and got.code is RigProblemCode.UNKNOWN_GPU
    assert all(s in CAT.gpus for s in got.suggestions)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"gpu": ""},
        {"gpu": "rtx-3090", "count": 0},
        {"gpu": "rtx-3090", "count": True},
        {"gpu": "rtx-3090", "ram_gb": math.inf},
        {"gpu": "rtx-3090", "budget_usd": -1.0},
    ],
)
def test_rig_rejects_impossible_values(kwargs: dict) -> None:
    with pytest.raises(ValueError):
        Rig(**kwargs)


def test_with_rig_puts_the_rig_under_a_question_naming_no_card() -> None:
    rig = Rig("rtx-3090", 2, 64.0, 1500.0)
    q = parse("can I run llama 3 8b?", catalog=CAT)
    assert not q.gpus
    got = with_rig(q, rig)
    assert got.gpus == ("rtx-3090",) and got.num_gpus == 2
    assert got.models == q.models
    # a question naming a card keeps it
    named = parse("can I run llama 3 8b on a 4090?", catalog=CAT)
    assert with_rig(named, rig) == named
    # a recommendation takes the rig's budget only when it has none
    rec = Query(intent=Intent.RECOMMEND, models=("bert-base-uncased",))
    assert with_rig(rec, rig).budget_usd == 1500.0
    assert with_rig(Query(intent=Intent.RECOMMEND, budget_usd=700.0), rig).budget_usd == 700.0
