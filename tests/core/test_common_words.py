"""No common word is a name (issue #10): the 5,000 most frequent English words (wordfreq), alone and
inside sentences, and common Chinese words never match a model or a card."""

from __future__ import annotations

import pytest
from wordfreq import top_n_list

from bot.core.knowledge import get_catalog
from bot.core.parsing import parse

CAT = get_catalog()
WORDS = top_n_list("en", 5000)
# words that are names of what the catalog holds, said on purpose ("llama", "gemma", "titan")
NAMES = {w for w in WORDS if w in {"titan", "llama", "gemma", "phi", "flux", "whisper", "mistral", "stable"}}
ZH_WORDS = (
    "的 是 在 我 有 和 人 这 中 大 为 上 个 国 不 以 会 就 说 时 要 也 出 后 到 能 好 看 天 学 对 多 吗 "
    "什么 怎么 显卡 电脑 游戏 训练 推理 模型 便宜 速度 内存 显存 服务器 笔记本 云 租 买 二手 性价比 最好 推荐 "
    "预算 价格 多少钱 够不够 能不能 深度学习 大模型 本地 部署 微调 量化"
).split()


@pytest.mark.parametrize(
    "template", ["{w}", "what about the {w}", "is {w} good for deep learning", "{w} gpu"]
)
def test_common_english_words_match_nothing(template: str) -> None:
    hits = []
    for w in WORDS:
        if w in NAMES:
            continue
        q = parse(template.format(w=w), CAT)
        if q.models or q.gpus:
            hits.append((w, q.models, q.gpus))
    assert not hits, hits[:20]


def test_common_chinese_words_match_nothing() -> None:
    hits = [(w, parse(w, CAT).models, parse(w, CAT).gpus) for w in ZH_WORDS]
    assert not [h for h in hits if h[1] or h[2]]


def test_the_names_still_match() -> None:
    assert parse("can a 4090 run llama 3 8b", CAT).models == ("llama-3-8b",)
    assert parse("roberta base fine-tuning on a 3090", CAT).models == ("roberta-base",)
    assert parse("flux schnell on a 4090", CAT).models == ("flux-1-schnell",)
