"""One fact about a model or a card, asked as such: "how many attention heads does Mistral 7B have",
"H100 memory bandwidth", "4090 tdp", "llama 3 70b context length", "3090有多少显存" (issue 10).

``asked(text, has_model, has_card)`` -> the fact codes the question asks for (in the order
written); ``values(codes, models, gpus)`` -> :class:`~bot.core.results.Fact` values read from
the catalog (knowledge/models.yaml, knowledge/gpus.yaml), each with the entry's source. The
answer says the fact first, then the rest of the spec sheet.
"""

from __future__ import annotations

import re
from typing import Any

from bot.core import gated_re, support
from bot.core.gated_re import GatedPattern
from bot.core.results import Fact

__all__ = ["MODEL_FACTS", "CARD_FACTS", "JUDGES", "asked", "values", "compute_capability"]

_I = re.I | re.A  # ASCII \b: "支持bf16的" still has word boundaries around "bf16"
# model facts: code -> what asks for it (English, Chinese)
MODEL_FACTS: dict[str, GatedPattern] = {
    "kv_heads": gated_re.compile(r"\bkv[\s-]?heads?\b|\bkey[\s-]value heads?\b|\bgqa\b|kv\s*头|kv\s*頭", _I),
    "heads": gated_re.compile(
        r"\b(?:attention[\s-])?heads?\b|注意力头|注意力頭|头数|頭數|几个头|幾個頭|多少个头", _I
    ),
    "layers": gated_re.compile(r"\blayers?\b|\bblocks\b|\bdepth\b|多少层|几层|層數|层数|多少層|幾層", _I),
    "hidden": gated_re.compile(
        r"\bhidden(?:[\s_-]?(?:size|dim(?:ension)?s?|state))?\b|\bd[\s_]?model\b|\bembedding (?:size|dim\w*)|隐藏|隱藏",
        _I,
    ),
    "context": gated_re.compile(
        r"\bcontext(?:[\s-](?:length|window|size|len))?\b|\bmax(?:imum)?[\s-](?:sequence|seq|position)s?[\s-]?len\w*|"
        r"\bhow (?:long|many tokens) (?:a |of a )?(?:context|prompt|input)|上下文|最长输入|最長輸入",
        _I,
    ),
    "vocab": gated_re.compile(r"\bvocab(?:ulary)?(?:[\s_-]size)?\b|\btokenizer size\b|词表|詞表|词汇表", _I),
    "active_params": gated_re.compile(r"\bactive(?:[\s-]param(?:eter)?s?)?\b|激活参数|激活參數", _I),
    "experts": gated_re.compile(r"\bexperts?\b|专家|專家", _I),
}
# card facts
CARD_FACTS: dict[str, GatedPattern] = {
    "bandwidth": gated_re.compile(r"\bbandwidth\b|\bgb/s\b|\btb/s\b|带宽|帶寬|頻寬", _I),
    "tdp": gated_re.compile(
        r"\btdp\b|\bpower(?:[\s-](?:draw|consumption|usage|rating))?\b|\bwatts?\b|\bwattage\b|功耗|多少瓦|几瓦|幾瓦",
        _I,
    ),
    "vram": gated_re.compile(r"\bvram\b|\bmemory\b|显存|顯存|記憶體|内存", _I),
    "architecture": gated_re.compile(r"\barchitecture\b|\barch\b|\bgeneration\b|架构|架構", _I),
    "bf16": gated_re.compile(r"\bbf16\b|\bbfloat\s?16\b", _I),
    "fp8": gated_re.compile(r"\bfp8\b", _I),
    "compute_capability": gated_re.compile(
        r"\bcompute[\s-]capabilit\w*|\bcuda (?:compute )?capabilit\w*|\bsm[\s_]?version\b|算力版本|计算能力|計算能力",
        _I,
    ),
    "tflops": gated_re.compile(r"\btflops\b|\bflops\b|\bcompute\b(?![\s-]capabilit)|算力(?!版本)", _I),
    "release": gated_re.compile(
        r"\breleased?\b|\brelease date\b|\blaunch(?:ed)?\b|\bcame out\b|发布|發布|上市", _I
    ),
}


# words that ask which card to take, not what a spec is: "tdp of a4000 and a5000" is two facts,
# "a4000 vs a5000, which is better for training" a comparison
JUDGES = gated_re.compile(
    r"\bbetter\b|\bworse\b|\bfaster\b|\bslower\b|\bbuy\b|\bworth\b|\brecommend\w*|\bpick\b|\bchoose\b|"
    r"\bfor (?:training|inference|fine|llm|gaming|stable|deep|ml|ai)\b|\bshould\b|"
    r"哪个好|哪个更|哪張|哪张|更好|更快|值得|划算|推荐|选哪|买哪|怎么选|跑",
    _I,
)


def asked(text: str, has_model: bool, has_card: bool) -> list[str]:
    """The fact codes a question asks for, in the order they are written (model facts when a model
    is named and no card; card facts when a card is named and no model)."""
    table = MODEL_FACTS if has_model and not has_card else CARD_FACTS if has_card and not has_model else {}
    found: list[tuple[int, str]] = []
    for code, rx in table.items():
        m = rx.search(text)
        if m is None:
            continue
        if code == "heads" and "kv_heads" in {c for _, c in found} and not _plain_heads(text):
            continue  # "kv heads" is not also "heads"
        if code == "vram" and re.search(r"bandwidth|带宽|帶寬|頻寬", text, _I):
            continue  # "memory bandwidth" asks for the bandwidth
        found.append((m.start(), code))
    return [c for _, c in sorted(found)][:3]


def _plain_heads(text: str) -> bool:
    return bool(re.search(r"(?<!kv )(?<!kv-)(?<!kv)\b(?:attention[\s-])?heads?\b|注意力头", text, _I))


def values(codes: list[str], models: list[Any], gpus: list[Any]) -> tuple[Fact, ...]:
    out: list[Fact] = []
    for code in codes:
        for m in models[:2]:
            out.append(_model_fact(code, m))
        for g in gpus[:4]:  # "tdp of the 3090, 4090 and 5090": each card named
            out.append(_card_fact(code, g))
    return tuple(out)


def _model_fact(code: str, m: Any) -> Fact:
    value: Any = None
    unit, extra = "", None
    if code == "heads":
        value, extra = m.heads, m.kv_heads
    elif code == "kv_heads":
        value, extra = m.kv_heads, m.heads
    elif code == "layers":
        value = m.layers or (
            (m.encoder_layers or 0) + (m.decoder_layers or 0)
            if (m.encoder_layers or m.decoder_layers)
            else None
        )
    elif code == "hidden":
        value = m.hidden
    elif code == "context":
        value, unit = m.max_seq_len or m.default_seq_len, "tokens"
    elif code == "vocab":
        value = m.vocab
    elif code == "active_params":
        value, extra = m.active_params or m.params, m.params
    elif code == "experts":
        value, extra = m.experts, m.experts_per_token
    return Fact(code, m.id, m.name, value, unit, m.source, extra)


def _card_fact(code: str, g: Any) -> Fact:
    value: Any = None
    unit, extra = "", None
    if code == "bandwidth":
        value, unit, extra = g.memory_bandwidth_gbs, "GB/s", g.memory_type
    elif code == "tdp":
        value, unit = g.tdp_w, "W"
    elif code == "vram":
        value, unit, extra = g.vram_gb, "GB", g.memory_type
    elif code == "architecture":
        value = g.architecture
    elif code in ("bf16", "fp8"):
        value = bool(getattr(g, code))
    elif code == "tflops":
        value, unit, extra = g.fp16_tensor_tflops, "TFLOPS", g.fp32_tflops
    elif code == "release":
        value = g.release
    elif code == "compute_capability":
        value = compute_capability(g)
        return Fact(
            code, g.id, g.name, value, unit, support.CC_SOURCE if value is not None else g.source, extra
        )
    return Fact(code, g.id, g.name, value, unit, g.source, extra)


#: the card's own compute capability (a 3090 is 8.6, an A100 8.0; None for other vendors): one table,
#: support.CC_RULES, serves facts and advice
compute_capability = support.compute_capability
