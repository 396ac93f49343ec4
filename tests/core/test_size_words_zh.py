"""A model named only by its size, in Chinese ("7b模型全参微调需要多少显存"): a Chinese character after
the "b" is a word character, so the English patterns' \\b never matched and the question fell to help."""

from __future__ import annotations

import pytest

from bot.core.answer import answer
from bot.core.types import Intent, Lang


@pytest.mark.parametrize(
    ("question", "size"),
    [
        ("7b模型全参微调需要多少显存", "7B"),
        ("7B全参微调要多大显存", "7B"),
        ("7b的模型微调需要多少显存", "7B"),
        ("3090能跑7b的模型吗", "7B"),
        ("4090跑13b推理够吗", "13B"),
        ("跑个70b要几张4090", "70B"),
    ],
)
def test_a_size_in_chinese_is_a_model_of_that_size(question: str, size: str) -> None:
    a = answer(question)
    assert a.intent is not Intent.UNKNOWN and a.query.models, a.text
    assert a.language is Lang.ZH_HANS and f"“{size} 模型”" in a.text


def test_a_size_glued_to_other_words_is_not_read() -> None:
    """No stand-in from a number that is not a model size: "b站" (Bilibili), a price, a card."""
    for q in ("3090跑b站视频转码行不行", "4090多少钱", "1080p视频"):
        assert not answer(q).query.models, q


def test_a_unified_memory_box_is_not_called_a_server_module() -> None:
    a = answer("我预算两万，想搞一台能微调7b模型的机器")
    assert "DGX Spark" in a.text and "服务器模组里 DGX" not in a.text and "一体机" in a.text
