"""Names that look like a member of a family but are not the default one (issue 10): "mistral large 3"
is Mistral Large 3, never Mistral 7B; "mistral huge 9" is said back; "mac studio 128gb" is a Mac Studio
with 128 GB; a bare "6000" asks which RTX 6000-class card."""

from __future__ import annotations

import pytest

from bot.core.answer import answer
from bot.core.knowledge import get_catalog
from bot.core.parsing import parse
from bot.core.types import NoteCode

# ----------------------------------------------------------------------------- model family members


@pytest.mark.parametrize(
    ("text", "mid"),
    [
        ("can mistral large 3 run on 2x 4090", "mistral-large-3"),
        ("mistral large 3能在两张4090上跑吗", "mistral-large-3"),
        ("mistralai/Mistral-Large-3-675B-Instruct-2512 on 8x h200", "mistral-large-3"),
        ("mistral large 2 on 4x 4090", "mistral-large-2"),
        ("Mistral-Large-Instruct-2407 on 4x a100 80gb", "mistral-large-2"),
        ("can mistral run on 2x 4090", "mistral-7b"),  # "2x" is a count, never "Mistral Large 2"
        ("mistral 7b in 4 bit on a 3060", "mistral-7b"),
        ("mistral small 3 on a 4090", "mistral-small-24b"),
    ],
)
def test_mistral_members_are_read_by_their_names(text: str, mid: str) -> None:
    q = parse(text)
    assert q.models == (mid,), (text, q.models)
    assert not any(n.code is NoteCode.UNKNOWN_NAME for n in q.notes), text


def test_mistral_large_3_is_the_moe_with_its_announced_sizes() -> None:
    m = get_catalog().model("mistral-large-3")
    assert (
        m.kind == "moe-decoder" and round(m.params / 1e9) == 675 and round((m.active_params or 0) / 1e9) == 41
    )
    assert "params" in m.estimated  # the announcement's rounded figure, not a tensor sum
    large2 = get_catalog().model("mistral-large-2")
    # dense: untied embeddings + 88 x (GQA attention + SwiGLU + 2 norms) + final norm = the card's 123B
    h, f, v = 12288, 28672, 32768
    per_layer = 2 * h * 96 * 128 + 2 * h * 8 * 128 + 3 * h * f + 2 * h
    assert large2.params == 2 * v * h + 88 * per_layer + h and round(large2.params / 1e9) == 123


def test_family_word_with_tier_word_asks_which_member() -> None:
    a = answer("mistral large on 8x h100")
    ids = {c.id for c in a.query.choices}
    assert ids == {"mistral-large-2", "mistral-large-3"}, ids
    assert "mistral-7b" not in a.query.models


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("mistral huge 9 on a 4090", "mistral huge 9"),
        ("can mistral large 4 run on 8x h100", "mistral large 4"),
        ("mistral huge 9能在4090上跑吗", "mistral huge 9"),
        ("llama 7 400b on a 4090", "llama 7 400b"),
        ("qwen 9 72b on a 4090", "qwen 9 72b"),
    ],
)
def test_family_word_with_unknown_member_is_said_back(text: str, word: str) -> None:
    a = answer(text)
    assert a.extra_json["unrecognized"] == [word], (text, a.extra_json["unrecognized"])
    assert word in a.text
    assert "mistral-7b" not in a.query.models  # never the family's default read silently


@pytest.mark.parametrize("text", ["mistral on 2 cards", "fine tune llama for 3 hours on a 4090"])
def test_plain_words_and_a_number_after_a_family_are_no_name(text: str) -> None:
    a = answer(text)
    assert a.extra_json["unrecognized"] == [], (text, a.extra_json["unrecognized"])


# ------------------------------------------------------------------------- product lines and memory


@pytest.mark.parametrize(
    "text",
    [
        "what can I run on a mac studio 128gb",
        "mac studio 128gb能跑什么模型",
        "128gb mac studio for llama 70b",
    ],
)
def test_mac_studio_with_a_memory_size_is_a_member_with_that_memory(text: str) -> None:
    a = answer(text)
    g = get_catalog().gpu(a.query.gpus[0])
    assert a.query.gpus == ("apple-m4-max-128gb",) and g.vram_gb == 128  # the newest 128 GB Mac Studio
    took = [n for n in a.query.notes if n.code is NoteCode.TOOK_GPU]
    assert took and took[0].values["also"] == ["Apple M1 Ultra (64-core GPU, 128 GB)"]  # the other one, said
    assert took[0].values["newest"] and ("newest" in a.text or "最新" in a.text)


def test_bare_mac_studio_asks_which_by_memory() -> None:
    a = answer("what can I run on a mac studio")
    assert not a.query.gpus
    ids = [c.id for c in a.query.choices]
    assert "apple-m3-ultra-512gb" in ids and "apple-m1-max-64gb" in ids
    assert "apple-m3-max-128gb" not in ids  # a MacBook Pro chip, never sold in a Mac Studio
    assert "64 GB, 96 GB, 128 GB, 192 GB or 512 GB" in a.text  # each size once, smallest first


def test_mac_studio_size_no_member_has_is_said() -> None:
    a = answer("mac studio 384gb for llama 70b")
    assert a.extra_json["unrecognized"] == ["mac studio 384gb"]
    assert "apple-m3-ultra-512gb" not in a.query.gpus  # never the 512 GB machine read silently


def test_mac_studio_size_a_member_is_sold_with_is_that_build() -> None:
    # the M3 Ultra Mac Studio is sold with 96, 256 or 512 GB (memory_options_gb): 256 GB is that
    # build, named with its size (never the 512 GB entry's memory)
    a = answer("mac studio 256gb for llama 70b")
    assert a.query.gpus == ("apple-m3-ultra-512gb",) and not a.extra_json["unrecognized"]
    assert "256 GB" in a.text and "512 GB" not in a.text


def test_product_line_and_its_member_in_one_question_is_the_member() -> None:
    a = answer("would a mac studio with the m3 ultra hold llama 3.1 405b at 4 bit")
    assert a.query.gpus == ("apple-m3-ultra-512gb",) and not a.query.choices


@pytest.mark.parametrize(
    ("text", "gpu"),
    [
        ("a100 80gb for llama 70b", "a100-80gb"),
        ("m3 ultra for llama 70b", "apple-m3-ultra-512gb"),
        ("mac studio m1 ultra for llama 70b", "apple-m1-ultra-128gb"),
        ("macbook pro m3 max for llama 70b", "apple-m3-max-128gb"),
    ],
)
def test_named_members_are_unchanged(text: str, gpu: str) -> None:
    assert parse(text).gpus == (gpu,)


# ------------------------------------------------------------------------------------ bare "6000"


@pytest.mark.parametrize("text", ["is a 6000 good for llama 70b", "6000能跑llama 70b吗"])
def test_bare_6000_asks_which_card(text: str) -> None:
    a = answer(text)
    assert not a.query.gpus
    assert {c.id for c in a.query.choices} == {"quadro-rtx-6000", "rtx-a6000", "rtx-6000-ada", "rtx-pro-6000"}


@pytest.mark.parametrize(
    ("text", "gpu"),
    [
        ("is an a6000 good for llama 70b", "rtx-a6000"),
        ("rtx a6000 for llama 70b", "rtx-a6000"),
        ("6000 ada for llama 70b", "rtx-6000-ada"),
        ("rtx 6000 ada for llama 70b", "rtx-6000-ada"),
        ("pro 6000 for llama 70b", "rtx-pro-6000"),
        ("quadro rtx 6000 for llama 70b", "quadro-rtx-6000"),
        ("is a 8000 good for llama 70b", "quadro-rtx-8000"),  # one 8000 in the catalog: no ask-back
    ],
)
def test_6000_with_context_keeps_its_card(text: str, gpu: str) -> None:
    assert parse(text).gpus == (gpu,)


def test_a_budget_of_6000_is_no_card() -> None:
    q = parse("best gpu under 6000 dollars for llama 70b")
    assert q.budget_usd == 6000 and not q.choices
