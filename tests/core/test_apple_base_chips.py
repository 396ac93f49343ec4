"""The base Apple chips people own (issue 10): "macbook air m3 16gb", "m4 mac mini 16gb", "macbook air
m2 8gb" are those machines with that memory, never dropped silently; a chip or tier the catalog lacks
("m2 pro", "macbook air m5") is said back. QwQ-32B is a known model."""

from __future__ import annotations

import pytest

from bot.core.answer import answer
from bot.core.knowledge import get_catalog


@pytest.mark.parametrize(
    ("text", "gid", "size"),
    [
        ("can i run gpt-oss 20b on my macbook air m3 16gb", "apple-m3-24gb", 16),
        ("m4 mac mini 16gb for llama 8b", "apple-m4-32gb", 16),
        ("macbook air m2 8gb run qwen 7b", "apple-m2-24gb", 8),
        ("mac mini m1 for llama 8b", "apple-m1-16gb", 16),
        ("我的macbook air m3 16g能跑qwen 7b吗", "apple-m3-24gb", 16),
        ("m4 mac mini 24gb 能跑 gpt-oss 20b 吗", "apple-m4-32gb", 24),
    ],
)
def test_base_apple_machine_with_its_memory(text: str, gid: str, size: int) -> None:
    a = answer(text)
    assert a.query.gpus == (gid,)
    assert not a.extra_json["unrecognized"]
    assert f"{size} GB" in a.text  # the memory asked about, never the entry's largest build
    g = get_catalog().gpu(gid)
    assert size in g.memory_options_gb or g.vram_gb == size


def test_base_apple_usable_memory_is_the_share_of_the_size_asked() -> None:
    # 16 GB at macOS's default ~2/3 share: about 11.5 GB (decimal) for the GPU, said
    a = answer("can i run llama 8b on my macbook air m3 16gb")
    g = get_catalog().gpu("apple-m3-24gb")
    usable = 16 * 1.073741824 * g.gpu_memory_share
    assert f"{usable:.1f} GB" in a.text


@pytest.mark.parametrize(
    ("text", "unknown"),
    [
        ("can i run llama 8b on my mac mini m2 pro 32gb", "m2 pro"),
        ("can i run llama 8b on my m3 pro macbook pro", "m3 pro"),
        ("can i run llama 8b on my macbook air m5 16gb", "macbook air m5"),
        ("can my m4 run llama 8b", "m4"),  # a chip alone: which machine and memory is unknown
        ("我的m2能跑qwen 7b吗", "m2"),
    ],
)
def test_apple_chip_not_in_the_catalog_is_said_back(text: str, unknown: str) -> None:
    a = answer(text)
    assert unknown in a.extra_json["unrecognized"]
    assert unknown in a.text


def test_a_model_named_like_a_chip_is_no_card() -> None:
    # "minimax m2": the M2 has no bare alias, so the model name is never read as the Apple M2
    a = answer("minimax m2 on 4x h100")
    assert not any(g.startswith("apple-") for g in a.query.gpus)


def test_unified_machine_gets_no_system_ram_offload() -> None:
    # on a Mac the "system RAM" is the memory the GPU already shares: no expert offload offered
    a = answer("can i run gpt-oss 20b on my macbook air m3 16gb")
    assert "system RAM" not in a.text and "--n-cpu-moe" not in a.text


def test_base_chip_entries_carry_sourced_bandwidth() -> None:
    cat = get_catalog()
    bw = {"apple-m1-16gb": 68, "apple-m2-24gb": 100, "apple-m3-24gb": 100, "apple-m4-32gb": 120}
    for gid, gbs in bw.items():
        g = cat.gpu(gid)
        assert g.memory_bandwidth_gbs == gbs and g.unified_memory and g.source
        assert g.gpu_memory_share < 0.75  # machines of 36 GB or less: about 2/3
        assert g.price_usd is None  # owned machines: described, never recommended as a purchase


@pytest.mark.parametrize(
    "text", ["can a 3090 run qwq 32b", "想本地部署qwq 32b", "qwq能在4090上跑吗", "Qwen/QwQ-32B on a 5090"]
)
def test_qwq_32b_is_known(text: str) -> None:
    a = answer(text)
    assert a.query.models == ("qwq-32b",)
    assert not a.extra_json["unrecognized"]
    assert "QwQ-32B" in a.text


def test_qwq_32b_has_qwen2_5_32b_shapes() -> None:
    cat = get_catalog()
    q, base = cat.model("qwq-32b"), cat.model("qwen2.5-32b")
    for f in ("layers", "hidden", "heads", "kv_heads", "ffn", "vocab"):
        assert getattr(q, f) == getattr(base, f)
