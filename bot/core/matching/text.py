"""Normalising and tokenising question text for name matching (see :mod:`bot.core.matching`)."""

from __future__ import annotations

import unicodedata
from typing import Literal, NamedTuple

from bot.core import gated_re

__all__ = ["STOP_WORDS", "WEAK_HEADS", "Kind", "Token", "normalize", "tokenize", "tokens"]

Kind = Literal["gpu", "model", "any"]

# Words never corrected to a catalog word and never starting a partial name.
STOP_WORDS = frozenset(
    """
a about above after again against all also am an and any anything are around as ask at available be
because been before being below best better between big biggest both but buy by can cant card cards
cheap cheapest choose could currently cost costs did do does doing dollar dollars down each either
enough even ever every fast faster fastest few fit fits fitting for from full get gets getting give go
good got gpu gpus graphics great had has have having he help her here his how however i if im in
into is it its ive just know large larger less like list lot make many max maximum me memory might
min minimum mine model models more most much must my need needs new no nor not now of off old on
one only or other our out over own per please price prices quick recommend recommended recommendation
run running runs same say see serve serving should show small smaller so some spec specs speed
still such suggest support supports take than thanks that the their them then there these they this
those through to too train training tune tuning under up upto us use used using vram want wants
was way we well were what whats when where which while who whom why will with within without
work works would yes you your budget spend spending dollar bucks usd eur euro euros pounds yen
batch size seq sequence length context tokens token precision half mixed single quant quantized
quantization inference infer deploy deployment generate generation finetune finetuning fine tuned
finetuned pretrain pretraining scratch lora qlora versus compare comparison difference vs better
bit bits int fp bf float gb tb mb ram ti super between machine computer pc rig build setup home
laptop desktop server cloud local locally buying purchase afford worth value performance perf tflops
bandwidth power watts tdp how big large huge parameters params info information tell about image
images video text language llm llms network networks neural deep learning ml ai project task tasks
work job jobs dataset data hours days time times per second throughput latency samples sample
amount two three four five six eight dual pair quad single multi multiple first second
stable gptq awq gguf ggml exl2 nf4 int4 int8 fp16 bf16 fp8 fp32 bnb bitsandbytes vllm ollama tensorrt llamacpp
onnx cuda rocm nvlink pcie sxm flash attention checkpointing optimizer adam adamw sgd fsdp deepspeed
rent renting rented rental rentals lease leasing own owning owned sell selling resale resell deal
deals bargain offer offers electricity kwh bill month months monthly year years yearly week weeks day
daily hour hourly mini pro ultra warranty second-hand secondhand refurbished
reason reasons reasoning robert shell coin coins conventional segment segments segmentation
""".split()
)

# First words of model names that are also plain English: alone they name nothing
# ("a transformer model", "attention mask"); with a second name word they do.
WEAK_HEADS = frozenset(
    {
        "transformer",
        "mask",
        "style",
        "conv",
        "stable",
        "black",
        "meta",
        "google",
        "microsoft",
        "openai",
        "alex",
        "big",
        "mt",
        "nemo",
        "oss",
        "deep",
        "vaswani",
        "fairseq",
    }
)

_LLAMA_CPP = gated_re.compile(r"llama[.\- ]cpp")  # same length as "llamacpp ", so offsets stay put
_TOKEN_CHUNK = r"[a-z0-9]+(?:\.[0-9]+)*"
# the gap before each chunk and the chunk; the last alternative takes the gap after the last chunk in
# one match (else findall would try it again from every position of a long gap: quadratic)
_GAP_CHUNK_RE = gated_re.compile(r"([^a-z0-9]*+)(" + _TOKEN_CHUNK + r")|[^a-z0-9]+$")
_PIECE_RE = gated_re.compile(r"[a-z]+|[0-9]+(?:\.[0-9]+)*")
_GB_WORDS = frozenset({"g", "gig", "gigs", "gib", "gigabyte", "gigabytes", "gb"})


class Token(NamedTuple):
    """One word of the question (a tuple: built for every word of every question)."""

    text: str  # normalised token
    start: int  # char offsets in the normalised text
    end: int
    spaced: bool  # separated from the previous token by whitespace


# a Token built straight from its tuple (C), not through the NamedTuple's generated __new__ (Python):
# ~40% less per token, and tokenize builds one per word of every question
_token = tuple.__new__


def normalize(text: str) -> str:
    """NFKC + lowercase, control characters to spaces; keeps the length when it can."""
    t = _LLAMA_CPP.sub("llamacpp ", unicodedata.normalize("NFKC", text).lower())  # an engine, not a Llama
    if not t.isascii():  # Chinese names of models and form factors: "通义千问2.5" is qwen2.5
        t = _CN_NAMES_RE.sub(lambda m: _CN_NAMES[m.group()], t)
    # (a printable text holds no control character: the table's translate, ~2 us, would keep it as it is)
    return t if t.isprintable() else t.translate(_CONTROL_TO_SPACE)


# Chinese names people use for models and form factors, read as the English words the catalog's
# names use (Alibaba's brand names: 通义千问 = Qwen, 通义万相 = Wan; 笔记本 / 筆電 = laptop)
_CN_NAMES = {
    "通义千问": "qwen",
    "通義千問": "qwen",
    "千问": "qwen",
    "千問": "qwen",
    "通义万相": "wan",
    "通義萬相": "wan",
    "万相": "wan",
    "萬相": "wan",
    "笔记本": " laptop ",
    "筆記本": " laptop ",
    "筆電": " laptop ",
    "笔电": " laptop ",
    "移动版": " laptop ",
    "移動版": " laptop ",
    "蒸馏版": " distill ",  # "deepseek r1 8b蒸馏版", "r1 蒸馏 14b": the R1 distills
    "蒸餾版": " distill ",
    "蒸馏": " distill ",
    "蒸餾": " distill ",
}
_CN_NAMES_RE = gated_re.compile("|".join(sorted(_CN_NAMES, key=len, reverse=True)))


_SPACE_RE = gated_re.compile(r"\s")  # what str.isspace() says is space (re uses the same test)
_CONTROL_TO_SPACE = {c: " " for c in (*range(0x20), *range(0x7F, 0xA0))}


def _pieces(chunk: str) -> list[str]:
    if chunk.isalpha() or chunk.isdigit():
        return [chunk]  # most words: one piece
    parts = _PIECE_RE.findall(chunk)
    out: list[str] = []
    i = 0
    while i < len(parts):
        p = parts[i]
        if len(p) == 1 and p.isalpha() and i + 1 < len(parts) and parts[i + 1][0].isdigit():
            out.append(p + parts[i + 1])  # a100, l4, v3, b16, x7
            i += 2
            continue
        out.append(p)
        i += 1
    return out


def tokenize(norm: str, limit: int = 600) -> list[Token]:
    """Tokens of already :func:`normalize`-d text, with offsets (at most ``limit``)."""
    toks: list[Token] = []
    pos = 0
    # one findall gives every (gap, chunk) in order: the text is gaps and chunks end to end (a gap is
    # what no chunk starts in), so offsets add up; ~20% faster than a match object per chunk
    for gap, chunk in _GAP_CHUNK_RE.findall(norm):
        if not chunk:
            break  # the gap after the last chunk
        start = pos + len(gap)
        end = pos = start + len(chunk)
        spaced = gap == " " or start == 0 or _SPACE_RE.search(gap) is not None
        if chunk.isalpha() or chunk.isdigit():  # most words: one piece, where the chunk is
            text = chunk
            if text in _GB_WORDS and toks and toks[-1].text[0].isdigit():
                text = "gb"
            toks.append(_token(Token, (text, start, end, spaced)))
            if len(toks) >= limit:
                break
            continue
        at = start
        for p in _pieces(chunk):
            idx = norm.find(p, at)
            e = idx + len(p)
            text = p
            if text in _GB_WORDS and toks and toks[-1].text[0].isdigit():
                text = "gb"
            toks.append(_token(Token, (text, idx, e, spaced)))
            spaced = False
            at = e
        if len(toks) >= limit:
            break
    return toks


def tokens(text: str) -> list[str]:
    """The normalised words of ``text`` (what keys are compared on)."""
    return [t.text for t in tokenize(normalize(text))]
