"""Absolute speed: tokens/s, images/s, seconds per image, training tokens/s, serving capacity.

``bot.core.speed`` ranks cards against each other (x an RTX 3090); this
module gives the numbers people ask for, each as a :class:`Figure` with a
band and a basis ("measured" where the exact case is in
``knowledge/benchmarks/``, "modelled" otherwise).

The models (all pure functions of the catalog's card and model facts):

- **decode** (one stream, tokens/s): every generated token reads the active
  weights once plus the KV cache of the context so far, so
  ``tokens/s = efficiency x bandwidth / (weight bytes + KV bytes)``. The
  efficiency per memory kind and weight format is ``speed.DECODE_EFFICIENCY``
  (fitted to the llama.cpp tables). MoE models read their active parameters
  and pay a fixed time per routed expert and layer (``MOE_EXPERT_CALL_S``:
  routing and latency-bound per-expert GEMVs), fitted to the MoE rows of
  ``speed-calibration.yaml``.
- **batched decode** (vLLM-style continuous batching, n streams): one step
  reads the weights once and every stream's KV cache, and does ``2 x N_active``
  FLOPs per stream; the step takes the longer of the two (a roofline).
- **prefill** (tokens/s): compute bound, ``2 x N_active`` FLOPs per token at a
  utilization fitted to llama.cpp's pp512 figures (``PREFILL_MFU``).
- **training** (tokens/s): ``6 x N`` FLOPs per token for full training;
  LoRA skips the weight gradients (``4 x N``); QLoRA also dequantizes the 4-bit
  weights on every pass (``QLORA_SLOWDOWN``). Recomputation under gradient
  checkpointing is not counted as model FLOPs: it lowers the achieved
  utilization ``TRAIN_MFU``, fitted to the carried LLM training throughputs.
- **diffusion** (seconds per image at the model's native resolution and a
  stated step count): UNet models (SD 1.5, SDXL) at batch 1 are bound by
  memory traffic (the carried timings follow bandwidth, not TFLOPS), so a step
  takes a fitted constant over the card's bandwidth; diffusion transformers
  (FLUX) are compute bound (2 x params FLOPs per latent token).
- **speech** (Whisper real-time factor): the encoder is compute bound, the
  decoder bandwidth bound, with an overhead fitted to faster-whisper's timings.
- **CNN training / inference** (images/s): the measured Lambda figures where
  carried; elsewhere a measured card's figure scaled by ``speed``'s modelled
  ratio between the cards.

Bands: ``BAND`` holds, per category, the factor range of measured / modelled
seen by ``bench/calibrate_speed.py`` over the carried measurements (rounded
outwards); ``tests/core/test_speed_calibration.py`` checks the hit rate.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bot.core import speed as _speed
from bot.core.quick_init import quick_init
from bot.core.types import Method, Precision, Task
from bot.core.yaml_io import safe_load

if TYPE_CHECKING:
    from bot.core.knowledge import GPU, Catalog, Model

__all__ = [
    "Figure",
    "Engine",
    "BAND",
    "bits_per_weight",
    "weight_bytes",
    "kv_bytes_per_token",
    "decode",
    "batched_decode",
    "decode_offload",
    "moe_token_overhead_s",
    "MOE_EXPERT_CALL_S",
    "tensor_parallel_decode",
    "prefill",
    "training_tokens_per_s",
    "diffusion_seconds",
    "cnn_images_per_s",
    "speech_rtf",
    "serving",
    "serving_capacity",
    "Serving",
    "calibration_points",
    "CalPoint",
]

# --------------------------------------------------------------------------- constants

# bits per weight actually stored, per precision / format (GGUF Q4_K_M ~4.85 bits with its
# scales; AWQ/GPTQ 4-bit with group-128 scales ~4.25; Q8_0 8.5)
_BITS = {
    Precision.FP32: 32.0,
    Precision.FP16: 16.0,
    Precision.BF16: 16.0,
    Precision.FP8: 8.0,
    Precision.INT8: 8.5,
    Precision.INT4: 4.85,
}
AWQ_BITS = 4.25

# prefill utilization of the catalog's FP16 tensor rate: median of llama.cpp pp512 / that rate
# (knowledge/benchmarks/speed-calibration.yaml, bench/calibrate_speed.py --fit). The catalog's
# rate is the FP32-accumulate one, which GeForce cards halve; llama.cpp accumulates in FP16
# (and int8 MMQ for quantized weights), so the fitted share comes out near 1.
PREFILL_MFU = {"fp16": 1.0, "quant": 0.88}
# training utilization of the FP16 tensor rate (model FLOPs utilization, 6 x N per token for full
# training, 4 x N for LoRA): the median of the carried LLM training throughputs
# (speed-calibration.yaml "training": torchtune 2024-09, vectorlm 2024-05, PaddleNLP's 2023 PyTorch
# baseline; bench/calibrate_speed.py --fit). 2024 stacks (packed data, flash attention, torch.compile)
# sit near it; the 2023 HF PEFT baseline without flash attention and with padded batches reaches a
# quarter of it. The band ("training") spans the 2024 spread.
TRAIN_MFU = 0.55
# QLoRA vs LoRA: torchtune's Llama 3.1 8B on one RTX 4090 (README, 2024-09) runs LoRA at 3,083 and
# QLoRA at 2,413 tokens/s, 1.28x: NF4 dequantization on every forward and backward pass
QLORA_SLOWDOWN = 1.3
# batched serving (vLLM): the share of bandwidth a step of continuous batching reaches (estimate;
# paged attention kernels read HBM better than llama.cpp's single stream)
SERVE_BW_EFF = 0.75
SERVE_COMPUTE_EFF = 0.5
# Apple silicon (Metal): a fixed cost per generated token on top of the bytes read, fitted to the
# carried Apple rows (llm-inference-apple.yaml, the Geerling tables): small models run far below
# bandwidth / bytes there, large ones near it. CUDA cards show no such floor in the same tables.
APPLE_TOKEN_OVERHEAD_S = 0.003

# Mixture-of-experts decode (one stream): on top of the bytes read, every routed expert of every layer costs a
# fixed time MOE_EXPERT_CALL_S (router, top-k, gather and a small latency-bound per-expert GEMV that cannot fill
# the card's bandwidth: a Qwen3-30B-A3B expert is 3 x 2048 x 768 weights, under 1 MB at 4 bits). So
# seconds/token += MOE_EXPERT_CALL_S x layers x experts_per_token (Qwen3-30B-A3B: 48 x 8 = 384 calls, gpt-oss-20b
# 24 x 4 = 96, Mixtral 32 x 2 = 64), which bites on fast cards and hardly at all on slow ones, as measured.
# Fitted (bench/calibrate_speed.py --fit, category "moe_decode") to the 12 rows of speed-calibration.yaml
# "moe_decode" plus the 6 gpt-oss-20b Ollama rows of llm-inference-ollama-geerling.yaml: the clean llama-bench
# RTX 5090 gpt-oss-20b run (362.6 tokens/s vs 452 from bandwidth alone) and vLLM's RTX 4090 Qwen3-30B-A3B TPOT
# (4.94 ms vs 2.8 ms) both put it at 5.7 us per call; the value below is the grid optimum over all 18 rows.
MOE_EXPERT_CALL_S = 6e-6

# system RAM bandwidth a partial CPU offload reads the remaining layers at: estimate for a desktop with
# dual-channel DDR5-5600 (89.6 GB/s peak) at the ~70% that streaming reads reach
DEFAULT_RAM_GBS = 60.0
GPU_MEMORY_UTILIZATION = 0.9  # vLLM's default share of the card it takes
SERVE_RESERVE_GB = (
    1.5  # activations, CUDA graphs and sampler buffers vLLM keeps beside the KV cache (estimate)
)
PAGE_TOKENS = 16  # vLLM's KV block size in tokens

# speech (Whisper): a 30 s window is encoded once (1,500 frames, 2 x encoder params FLOPs each) and
# decoded token by token (bandwidth bound, ~105 tokens per window: ~3.5 tokens per second of speech).
# SPEECH_OVERHEAD (beam search, timestamps, host work) is fitted to faster-whisper's published timings.
SPEECH_TOKENS_PER_WINDOW = 105
SPEECH_OVERHEAD = 3.7
SPEECH_ENCODER_MFU = 0.4

# diffusion, UNet models (SD 1.5, SDXL) at batch 1: bound by memory traffic, not tensor math (the carried
# timings scale with bandwidth, not TFLOPS: an H100 is barely faster than an A100). Time per step =
# UNET_STEP_MS_TBS[model] / bandwidth in TB/s, with both guidance passes; fitted (median) to
# speed-calibration.yaml "diffusion". Another UNet model scales SD 1.5's figure by denoiser
# parameters and latent pixels (an estimate).
UNET_STEP_MS_TBS = {"stable-diffusion-1.5": 59.0, "sdxl": 242.0}
# diffusion transformers (FLUX): compute bound, 2 x params FLOPs per latent token (2x2 patches) per
# pass, at DIT_MFU of the catalog's FP16 tensor rate (an estimate: no DiT timing is carried)
DIT_MFU = 0.6


@dataclass(frozen=True)
class VideoShape:
    """One clip of a video diffusion model, as its reference sampler makes it."""

    frames: int  # frames in a clip
    fps: int
    t_down: int  # the 3D VAE's temporal compression
    s_down: int  # the VAE's spatial compression
    patch: int  # the DiT's spatial patch (1 x patch x patch)
    steps: int  # default sampling steps
    passes: int  # denoiser passes per step (2: classifier-free guidance)


# video diffusion (Wan 2.x): an 81-frame clip (about 5 s at 16 fps) at the model's native resolution;
# Wan-VAE compresses 4x in time and 8x8 in space, the DiT patches 1x2x2, the T2V sampler takes 50 steps
# with classifier-free guidance (Wan-Video/Wan2.1 README and generate.py defaults, 2025-02). A step
# costs 2 x params FLOPs per latent token plus full self-attention over every token of the clip
# (4 x layers x tokens^2 x hidden), which dominates at video lengths; the rate is DIT_MFU as for FLUX.
# Carried check: Wan2.1 T2V-1.3B, 5 s of 480P on an RTX 4090 in "about 4 minutes" (speed-calibration.yaml).
VIDEO_SHAPES = {"wan": VideoShape(frames=81, fps=16, t_down=4, s_down=8, patch=2, steps=50, passes=2)}


def video_shape(model: Model) -> VideoShape | None:
    """The clip a video model makes; None for image models."""
    return VIDEO_SHAPES.get(model.family or "") if model.kind == "diffusion" else None


def video_tokens(model: Model, resolution: int | None = None) -> float:
    """Latent tokens of one clip at the native size (``resolution``: the height, width kept in ratio)."""
    v = video_shape(model)
    if v is None:
        return 0.0
    r = model.resolution
    h, w = (float(r[0]), float(r[1])) if isinstance(r, tuple) else (float(r or 480), float(r or 480))
    if resolution:
        w, h = w * resolution / h, float(resolution)
    lat_t = 1 + (v.frames - 1) // v.t_down
    per = v.s_down * v.patch
    return float(lat_t * (h / per) * (w / per))


def video_seconds(
    model: Model, gpu: GPU, precision: Precision, *, steps: int | None = None, resolution: int | None = None
) -> Figure:
    """Seconds per clip (modelled, an estimate with the diffusion band)."""
    v = video_shape(model)
    assert v is not None
    tokens = video_tokens(model, resolution)
    layers = float(model.denoiser_layers or 30)
    hidden = float(model.denoiser_hidden or 1536)
    per_pass = 2.0 * _denoiser_params(model) * tokens + 4.0 * layers * tokens**2 * hidden
    flops = _tensor_tflops(gpu, Precision.FP16 if precision is Precision.FP32 else precision) * 1e12
    slow = _speed.ROCM_CONSUMER_EFFICIENCY if gpu.software == "rocm" and gpu.segment == "consumer" else 1.0
    seconds = (steps or v.steps) * v.passes * per_pass / (flops * DIT_MFU * slow) if flops else math.inf
    lo, hi = BAND["diffusion"]
    return Figure(seconds, seconds / hi, seconds / lo, "modelled", "s/clip")


# band factors (low, high) per category: value x low .. value x high
BAND: dict[str, tuple[float, float]] = {
    "decode_measured": (0.9, 1.1),
    "speech": (0.6, 1.6),
    "decode": (0.75, 1.3),
    "prefill": (0.6, 1.5),
    "batched": (0.6, 1.5),
    "training": (0.45, 1.8),
    "diffusion": (0.6, 1.7),
    "cnn_measured": (0.95, 1.05),
    "cnn": (0.75, 1.3),
}

_CAL_PATH = Path(__file__).resolve().parents[2] / "knowledge" / "benchmarks" / "speed-calibration.yaml"


class Engine:
    LLAMA_CPP = "llama.cpp"
    VLLM = "vllm"


@quick_init
@dataclass(frozen=True)
class Figure:
    """One speed figure with its band: ``value`` in ``unit``, ``low``..``high``."""

    value: float
    low: float
    high: float
    basis: str  # "measured" | "modelled"
    unit: str
    engine: str | None = None

    @staticmethod
    def banded(value: float, category: str, basis: str, unit: str, engine: str | None = None) -> Figure:
        lo, hi = BAND[category]
        return Figure(value, value * lo, value * hi, basis, unit, engine)

    def scaled(self, k: float) -> Figure:
        return Figure(self.value * k, self.low * k, self.high * k, self.basis, self.unit, self.engine)


# --------------------------------------------------------------------------- sizes


def bits_per_weight(precision: Precision, awq: bool = False) -> float:
    if awq and precision is Precision.INT4:
        return AWQ_BITS
    return _BITS[precision]


def weight_bytes(model: Model, precision: Precision, *, active: bool = True, awq: bool = False) -> float:
    params = (model.active_params or model.params) if active else model.params
    return float(params) * bits_per_weight(precision, awq) / 8.0


def kv_bytes_per_token(
    model: Model, kv_bits: float = 16.0, *, context: int | None = None, engine: str = "vllm"
) -> float:
    """KV cache bytes per token of context (all layers), fp16 cache by default.

    With ``context``, the average over that context for a model with local (sliding-window) layers,
    which cache at most their window in ``engine`` (issue 17; ``memory.kv_token_layers``).
    """
    layers = model.layers or model.decoder_layers or 0
    if not layers:
        return 0.0
    if model.linear_state_values and model.full_attention_layers is not None:
        # hybrid linear attention / state space: only the full-attention layers cache tokens
        layers = model.full_attention_layers
    elif context and model.sliding_window and model.full_attention_layers is not None:
        eng = "llama.cpp" if engine in ("llama.cpp", "ollama", "lm-studio", "") else engine
        if eng not in model.sliding_window_full_in:
            window = model.sliding_window + (512 if eng == "llama.cpp" else 0)
            full = model.full_attention_layers
            share = (full * context + (layers - full) * min(context, window)) / (layers * context)
            return kv_bytes_per_token(model, kv_bits) * share
    if model.kv_cache_dim:
        per_layer = float(model.kv_cache_dim)
    else:
        head_dim = model.head_dim or ((model.hidden or 0) // (model.heads or 1) if model.heads else 0)
        kv_heads = model.kv_heads or model.heads or 0
        per_layer = 2.0 * kv_heads * head_dim
    return layers * per_layer * kv_bits / 8.0


def _tensor_tflops(gpu: GPU, precision: Precision) -> float:
    return _speed._compute_tflops(gpu, precision)


# --------------------------------------------------------------------------- measured lookups


def _bench_prec(precision: Precision) -> str:
    return _speed._BENCH_PRECISION[precision]


def _measured_decode(catalog: Catalog | None, model: Model, gpu: GPU, precision: Precision) -> float | None:
    if catalog is None:
        return None
    mv = catalog.benchmarks.throughput(model.id, gpu.id, _bench_prec(precision), "inference")
    if mv is not None and mv.value > 0:
        return float(mv.value)
    return None


# --------------------------------------------------------------------------- LLM inference


def decode(
    model: Model,
    gpu: GPU,
    precision: Precision,
    *,
    context: int = 0,
    catalog: Catalog | None = None,
    num_gpus: int = 1,
    awq: bool = False,
) -> Figure:
    """Tokens/s of one stream (llama.cpp-style, batch 1) at ``context`` tokens already in the cache."""
    unit = "tokens/s"
    if num_gpus <= 1 and context <= 1024:
        meas = _measured_decode(catalog, model, gpu, precision)
        if meas is not None:
            return Figure.banded(meas, "decode_measured", "measured", unit, Engine.LLAMA_CPP)
    eff = _speed.decode_efficiency(gpu, precision)
    kv = kv_bytes_per_token(model, context=context, engine="llama.cpp")
    bytes_per_token = weight_bytes(model, precision, awq=awq) + kv * max(context, 0)
    if bytes_per_token <= 0:
        return Figure.banded(0.0, "decode", "modelled", unit, Engine.LLAMA_CPP)
    seconds = bytes_per_token / (eff * gpu.memory_bandwidth_gbs * 1e9)
    if (gpu.vendor or "").lower() == "apple":
        seconds += APPLE_TOKEN_OVERHEAD_S
    seconds += moe_token_overhead_s(model)
    value = 1.0 / seconds
    if num_gpus > 1:  # layer split: one stream visits the cards in turn, no speed-up (measured rows agree)
        value *= 0.95
    return Figure.banded(value, "decode", "modelled", unit, Engine.LLAMA_CPP)


def moe_token_overhead_s(model: Model) -> float:
    """Seconds per generated token a mixture-of-experts model spends beyond its bytes (``MOE_EXPERT_CALL_S``)."""
    if model.kind != "moe-decoder" or not model.experts_per_token:
        return 0.0
    layers = model.layers or model.decoder_layers or 0
    return MOE_EXPERT_CALL_S * layers * model.experts_per_token


def decode_offload(
    model: Model, gpu: GPU, precision: Precision, *, context: int = 0, ram_gbs: float = DEFAULT_RAM_GBS
) -> Figure:
    """One stream with the layers that do not fit on the card in system RAM (llama.cpp ``-ngl`` < all).

    Every token reads the card's share of the weights at its bandwidth and the
    rest at the RAM's: the slow part dominates quickly.
    """
    w = weight_bytes(model, precision)
    kv = kv_bytes_per_token(model, context=context, engine="llama.cpp") * max(context, 0)
    room = gpu.vram_gb * 1.073741824e9 * 0.9 - kv - 0.5e9
    on_gpu = max(0.0, min(w, room))
    on_cpu = w - on_gpu
    t = (on_gpu + kv) / (_speed.decode_efficiency(gpu, precision) * gpu.memory_bandwidth_gbs * 1e9)
    t += on_cpu / (ram_gbs * 1e9)
    return Figure.banded(1.0 / t if t > 0 else 0.0, "batched", "modelled", "tokens/s", Engine.LLAMA_CPP)


def tensor_parallel_decode(
    model: Model, gpu: GPU, precision: Precision, n: int, *, context: int = 0, awq: bool = False
) -> Figure:
    """One stream over ``n`` cards in tensor parallel (vLLM): weights read n ways, two all-reduces
    per layer over the cards' link (bot.core.multigpu: NVLink, PCIe with or without P2P)."""
    from bot.core import multigpu  # the link model and its facts (knowledge/interconnect.yaml)

    one = decode(model, gpu, precision, context=context, awq=awq)
    n = max(n, 1)
    if n == 1 or one.value <= 0:
        return Figure.banded(one.value, "batched", "modelled", "tokens/s", Engine.VLLM)
    link = multigpu.setup_link([gpu] * n)
    comm = 2 * max(model.layers or model.decoder_layers or 1, 1) * multigpu.allreduce_s(link, n)
    value = 1.0 / (1.0 / one.value / n + comm)
    return Figure.banded(value, "batched", "modelled", "tokens/s", Engine.VLLM)


def batched_decode(
    model: Model,
    gpu: GPU,
    precision: Precision,
    streams: int,
    context: int,
    *,
    num_gpus: int = 1,
    awq: bool = False,
) -> tuple[Figure, Figure]:
    """(aggregate tokens/s, per-stream tokens/s) of ``streams`` concurrent users (vLLM-style).

    A step reads the weights once plus every stream's KV cache (at half the
    context on average over a reply) and computes 2 x N_active FLOPs per stream.
    """
    n = max(streams, 1)
    bw = gpu.memory_bandwidth_gbs * 1e9 * SERVE_BW_EFF * num_gpus * (0.8 if num_gpus > 1 else 1.0)
    flops = _tensor_tflops(gpu, precision) * 1e12 * SERVE_COMPUTE_EFF * num_gpus
    read = (
        weight_bytes(model, precision, awq=awq) + n * kv_bytes_per_token(model, context=context) * context / 2
    )
    work = 2.0 * float(model.active_params or model.params) * n
    step = max(read / bw, work / flops if flops else 0.0)
    agg = n / step if step > 0 else 0.0
    a = Figure.banded(agg, "batched", "modelled", "tokens/s", Engine.VLLM)
    return a, a.scaled(1.0 / n)


def prefill(
    model: Model, gpu: GPU, precision: Precision, *, catalog: Catalog | None = None, num_gpus: int = 1
) -> Figure:
    """Prompt tokens/s (compute bound)."""
    meas = _measured_prefill(model.id, gpu.id, precision) if num_gpus <= 1 else None
    if meas is not None:
        return Figure.banded(meas, "decode_measured", "measured", "tokens/s", Engine.LLAMA_CPP)
    quant = precision in (Precision.INT8, Precision.INT4)
    mfu = PREFILL_MFU["quant" if quant else "fp16"]
    flops = _tensor_tflops(gpu, Precision.FP16 if quant else precision) * 1e12 * mfu
    value = flops / (2.0 * float(model.active_params or model.params)) * max(1, num_gpus) ** 0.8
    return Figure.banded(value, "prefill", "modelled", "tokens/s", Engine.LLAMA_CPP)


# --------------------------------------------------------------------------- training


def training_flops_per_token(model: Model, method: Method) -> float:
    n = float(model.params)
    if method is Method.FULL:
        return 6.0 * n
    per = 4.0 * n  # LoRA: forward 2N + activation gradients 2N (no weight gradients for the frozen base)
    return per * (QLORA_SLOWDOWN if method is Method.QLORA else 1.0)


def training_tokens_per_s(
    model: Model, gpu: GPU, precision: Precision, method: Method, *, num_gpus: int = 1, parallel: str = "data"
) -> Figure:
    """Training tokens/s of ``num_gpus`` cards (data parallel scaling from speed.MULTI_CARD_EFFICIENCY)."""
    prec = Precision.BF16 if precision in (Precision.INT4, Precision.INT8) else precision
    flops = _tensor_tflops(gpu, prec) * 1e12 * TRAIN_MFU
    if gpu.software == "rocm" and gpu.segment == "consumer":
        flops *= _speed.ROCM_CONSUMER_EFFICIENCY
    one = flops / training_flops_per_token(model, method)
    eff = _speed.MULTI_CARD_EFFICIENCY.get(parallel, 0.9)
    value = one * (1 + (max(num_gpus, 1) - 1) * eff)
    return Figure.banded(value, "training", "modelled", "tokens/s")


# --------------------------------------------------------------------------- images


def _latent_pixels(model: Model, resolution: int | None) -> float:
    res = resolution
    if res is None:
        r = model.resolution
        res = (r[0] if isinstance(r, tuple) else r) or 512
    return (res / 8.0) ** 2


def _denoiser_params(model: Model) -> float:
    for c in model.components:
        if c.role in ("denoiser", "unet", "transformer", "dit"):
            return float(c.params)
    return float(model.params) * 0.7


def default_steps(model: Model) -> int:
    mid = model.id
    v = video_shape(model)
    if v is not None:
        return v.steps
    if "flux" in mid:
        return 28
    if "xl" in mid or "sd3" in mid or "3.5" in mid:
        return 30
    return 50


def diffusion_seconds(
    model: Model,
    gpu: GPU,
    precision: Precision,
    *,
    steps: int | None = None,
    resolution: int | None = None,
) -> Figure:
    """Seconds per image at the model's native resolution (or ``resolution``) and ``steps``; video
    models: seconds per clip (unit "s/clip")."""
    if video_shape(model) is not None:
        return video_seconds(model, gpu, precision, steps=steps, resolution=resolution)
    st = steps or default_steps(model)
    pixels = _latent_pixels(model, resolution)
    native = _latent_pixels(model, None)
    slow = _speed.ROCM_CONSUMER_EFFICIENCY if gpu.software == "rocm" and gpu.segment == "consumer" else 1.0
    if "flux" in model.id or any(
        c.role == "denoiser" and "transformer" in c.name.lower() for c in model.components
    ):
        passes = 1 if "flux" in model.id else 2  # FLUX dev is guidance-distilled: one pass a step
        flops = _tensor_tflops(gpu, Precision.FP16 if precision is Precision.FP32 else precision) * 1e12
        per_pass = 2.0 * _denoiser_params(model) * pixels / 4.0
        step = passes * per_pass / (flops * DIT_MFU * slow) if flops else math.inf
    else:
        k = UNET_STEP_MS_TBS.get(model.id)
        if k is None:
            k = UNET_STEP_MS_TBS["stable-diffusion-1.5"] * _denoiser_params(model) / 859_520_964
        k *= pixels / native  # more pixels, more activations to move
        bw_tbs = gpu.memory_bandwidth_gbs / 1000.0
        step = k / 1000.0 / (bw_tbs * slow) if bw_tbs else math.inf
        if precision is Precision.FP32:
            step *= 2.0  # twice the bytes per activation
    seconds = st * step
    lo, hi = BAND["diffusion"]
    # a shorter time is the "high" end of speed: the band of seconds is inverted
    return Figure(seconds, seconds / hi, seconds / lo, "modelled", "s/image")


def cnn_images_per_s(
    model: Model, gpu: GPU, precision: Precision, catalog: Catalog, *, task: Task = Task.TRAINING
) -> Figure | None:
    """Images/s: measured where Lambda carried it; else a measured card scaled by the modelled ratio."""
    bench_task = "inference" if task is Task.INFERENCE else "training"
    prec = _bench_prec(precision)
    mv = catalog.benchmarks.throughput(model.id, gpu.id, prec, bench_task)
    if mv is not None and mv.value > 0:
        return Figure.banded(float(mv.value), "cnn_measured", "measured", "images/s")
    anchor = _cnn_anchor(catalog, model.id, prec, bench_task, exclude=gpu.id)
    if anchor is None:
        return None
    anchor_gpu, anchor_val = anchor
    ratio = _speed.modelled_score(gpu, model, task, precision) / _speed.modelled_score(
        catalog.gpu(anchor_gpu), model, task, precision
    )
    return Figure.banded(anchor_val * ratio, "cnn", "modelled", "images/s")


_CNN_ANCHORS = ("rtx-3090", "rtx-2080-ti", "titan-rtx", "a100-40gb", "tesla-v100-32gb")


def _cnn_anchor(
    catalog: Catalog, model_id: str, prec: str, task: str, exclude: str
) -> tuple[str, float] | None:
    for gid in _CNN_ANCHORS:
        if gid == exclude or gid not in catalog.gpus:
            continue
        mv = catalog.benchmarks.throughput(model_id, gid, prec, task)
        if mv is not None and mv.value > 0:
            return gid, float(mv.value)
    return None


# --------------------------------------------------------------------------- speech


def speech_rtf(model: Model, gpu: GPU, precision: Precision) -> Figure:
    """Real-time factor (seconds of compute per second of audio; lower is faster) of a Whisper model."""
    enc_l, dec_l = model.encoder_layers or 1, model.decoder_layers or 1
    enc = float(model.params) * enc_l / (enc_l + dec_l)
    dec = float(model.params) - enc
    flops = _tensor_tflops(gpu, Precision.FP16 if precision is Precision.FP32 else precision) * 1e12
    enc_s = 2.0 * enc * 1500 / (flops * SPEECH_ENCODER_MFU) if flops else 0.0
    bw = gpu.memory_bandwidth_gbs * 1e9 * _speed.decode_efficiency(gpu, precision)
    dec_s = SPEECH_TOKENS_PER_WINDOW * dec * bits_per_weight(precision) / 8.0 / bw if bw else 0.0
    rtf = SPEECH_OVERHEAD * (enc_s + dec_s) / 30.0
    lo, hi = BAND["speech"]
    return Figure(rtf, rtf / hi, rtf / lo, "modelled", "rtf")


# --------------------------------------------------------------------------- serving


@dataclass(frozen=True)
class Serving:
    """How many users a card set serves at a context length, and how fast (vLLM-style)."""

    concurrent_users: int
    context_tokens: int
    kv_budget_gb: float
    kv_per_user_gb: float
    weights_gb: float
    per_user: Figure
    aggregate: Figure
    engine: str = Engine.VLLM
    needed_gb: float | None = None  # card memory (all cards) for the users asked, at gpu_memory_utilization

    def to_json(self) -> dict[str, Any]:
        return {
            "concurrent_users": self.concurrent_users,
            "context_tokens": self.context_tokens,
            "per_user_tokens_per_s": round(self.per_user.value, 1),
            "aggregate_tokens_per_s": round(self.aggregate.value, 1),
            "engine": self.engine,
            "kv_budget_gb": round(self.kv_budget_gb, 2),
            "kv_per_user_gb": round(self.kv_per_user_gb, 3),
            "weights_gb": round(self.weights_gb, 2),
            "needed_gb": round(self.needed_gb, 1) if self.needed_gb is not None else None,
        }


def serving_capacity(
    model: Model, gpu: GPU, precision: Precision, context: int, *, num_gpus: int = 1, awq: bool = False
) -> int:
    """Users whose KV cache fits beside the weights (the first half of :func:`serving`, for searches)."""
    cap = gpu.vram_gb * 1.073741824 * num_gpus
    w = weight_bytes(model, precision, active=False, awq=awq) / 1e9
    budget = cap * GPU_MEMORY_UTILIZATION - w - SERVE_RESERVE_GB * num_gpus
    pages = math.ceil(max(context, 1) / PAGE_TOKENS)
    per_user = kv_bytes_per_token(model, context=pages * PAGE_TOKENS) * pages * PAGE_TOKENS / 1e9
    return int(budget // per_user) if per_user > 0 and budget > 0 else 0


def serving(
    model: Model,
    gpu: GPU,
    precision: Precision,
    context: int,
    *,
    num_gpus: int = 1,
    users: int | None = None,
    awq: bool = False,
) -> Serving:
    """Users that fit: (card x 0.9 - weights - reserve) / KV per user (rounded up to 16-token pages).

    GB here are 1e9 bytes; a card's ``vram_gb`` is GiB-ish marketing GB, taken as x 1.073741824.
    """
    cap = gpu.vram_gb * 1.073741824 * num_gpus
    w = weight_bytes(model, precision, active=False, awq=awq) / 1e9
    budget = cap * GPU_MEMORY_UTILIZATION - w - SERVE_RESERVE_GB * num_gpus
    pages = math.ceil(max(context, 1) / PAGE_TOKENS)
    per_user = kv_bytes_per_token(model, context=pages * PAGE_TOKENS) * pages * PAGE_TOKENS / 1e9
    fit = int(budget // per_user) if per_user > 0 and budget > 0 else 0
    n = fit if users is None else min(users, fit) if fit else 0
    agg, each = batched_decode(model, gpu, precision, max(n, 1), context, num_gpus=num_gpus, awq=awq)
    if n == 0:
        agg = agg.scaled(0.0)
        each = each.scaled(0.0)
    needed = None
    if users is not None:
        needed = (w + users * per_user + SERVE_RESERVE_GB * num_gpus) / GPU_MEMORY_UTILIZATION
    return Serving(fit, context, max(budget, 0.0), per_user, w, each, agg, needed_gb=needed)


# --------------------------------------------------------------------------- calibration data


@dataclass(frozen=True)
class CalPoint:
    category: str  # decode | moe_decode | prefill | diffusion | cnn_training
    model: str
    gpu: str
    precision: str
    measured: float
    predicted: float
    source: str

    @property
    def ratio(self) -> float:
        return self.measured / self.predicted if self.predicted else math.inf


@functools.lru_cache(maxsize=1)
def _cal_file() -> dict[str, Any]:
    try:
        raw = safe_load(_CAL_PATH.read_text(encoding="utf-8"))
    except OSError:
        return {}
    return raw if isinstance(raw, dict) else {}


def _measured_prefill(model_id: str, gpu_id: str, precision: Precision) -> float | None:
    for s in _cal_file().get("prefill", []) or []:
        if s.get("precision") == _bench_prec(precision):
            v = (s.get("data") or {}).get(model_id, {}).get(gpu_id)
            if v:
                return float(v)
    return None


def _prec(s: str) -> Precision:
    return Precision(s) if s in {p.value for p in Precision} else Precision.FP16


def calibration_points(catalog: Catalog) -> list[CalPoint]:
    """Every carried measurement beside the model's prediction for it (measured lookups off)."""
    out: list[CalPoint] = []
    for s in catalog.benchmarks.sets("throughput"):
        for mid, gid, v in s.cells():
            if v <= 0 or mid not in catalog.models or gid not in catalog.gpus:
                continue
            m, g = catalog.models[mid], catalog.gpus[gid]
            p = _prec(s.precision if s.precision != "unstated" else "fp32")
            if s.task == "inference" and m.kind in ("decoder", "moe-decoder"):
                pred = decode(m, g, p).value
                out.append(CalPoint("decode", mid, gid, s.precision, v, pred, s.source))
            elif m.kind == "cnn" and s.task == "training":
                anchor = _cnn_anchor(catalog, mid, s.precision, "training", exclude=gid)
                if anchor is None:
                    continue
                ag, av = anchor
                ratio = _speed.modelled_score(g, m, Task.TRAINING, p) / _speed.modelled_score(
                    catalog.gpu(ag), m, Task.TRAINING, p
                )
                out.append(CalPoint("cnn_training", mid, gid, s.precision, v, av * ratio, s.source))
    raw = _cal_file()
    for s in raw.get("prefill", []) or []:
        for mid, row in (s.get("data") or {}).items():
            for gid, v in (row or {}).items():
                if mid in catalog.models and gid in catalog.gpus and v:
                    m, g = catalog.models[mid], catalog.gpus[gid]
                    p = _prec(str(s.get("precision")))
                    quant = p in (Precision.INT8, Precision.INT4)
                    mfu = PREFILL_MFU["quant" if quant else "fp16"]
                    pred = (
                        _tensor_tflops(g, Precision.FP16)
                        * 1e12
                        * mfu
                        / (2.0 * float(m.active_params or m.params))
                    )
                    out.append(
                        CalPoint(
                            "prefill", mid, gid, str(s.get("precision")), float(v), pred, str(s.get("source"))
                        )
                    )
    for row in raw.get("moe_decode", []) or []:
        mid, gid = row.get("model"), row.get("gpu")
        if mid in catalog.models and gid in catalog.gpus and row.get("tokens_per_s"):
            pred = decode(
                catalog.models[mid],
                catalog.gpus[gid],
                _prec(str(row.get("precision", "int4"))),
                context=int(row.get("context") or 0),
                awq=bool(row.get("awq")),
            ).value
            out.append(
                CalPoint(
                    "moe_decode",
                    mid,
                    gid,
                    str(row.get("precision")),
                    float(row["tokens_per_s"]),
                    pred,
                    str(row.get("source")),
                )
            )
    for row in raw.get("diffusion", []) or []:
        mid, gid = row.get("model"), row.get("gpu")
        if mid in catalog.models and gid in catalog.gpus:
            m, g = catalog.models[mid], catalog.gpus[gid]
            pred = diffusion_seconds(
                m,
                g,
                _prec(str(row.get("precision", "fp16"))),
                steps=row.get("steps"),
                resolution=row.get("resolution"),
            ).value
            # images/s = 1 / seconds: compare as throughput so the ratio reads like the others
            out.append(
                CalPoint(
                    "diffusion",
                    mid,
                    gid,
                    str(row.get("precision")),
                    1.0 / float(row["seconds"]),
                    1.0 / pred,
                    str(row.get("source")),
                )
            )
    for row in raw.get("training", []) or []:
        mid, gid = row.get("model"), row.get("gpu")
        if mid in catalog.models and gid in catalog.gpus:
            m, g = catalog.models[mid], catalog.gpus[gid]
            pred = training_tokens_per_s(
                m, g, _prec(str(row.get("precision", "bf16"))), Method(str(row.get("method", "lora")))
            ).value
            out.append(
                CalPoint(
                    "llm_training",
                    mid,
                    gid,
                    str(row.get("precision")),
                    float(row["tokens_per_s"]),
                    pred,
                    str(row.get("source")),
                )
            )
    from bot.core import specs_fallback

    for row in raw.get("speech", []) or []:
        mid = row.get("model")
        card = specs_fallback.find_card(str(row.get("card"))) if row.get("card") else None
        if mid in catalog.models and card is not None:
            pred = speech_rtf(catalog.models[mid], card, _prec(str(row.get("precision", "fp16")))).value
            # compare speeds (audio seconds per second) so ratios read like the others
            meas = float(row["audio_s"]) / float(row["seconds"])
            out.append(
                CalPoint(
                    "speech",
                    mid,
                    card.id,
                    str(row.get("precision")),
                    meas,
                    1.0 / pred,
                    str(row.get("source")),
                )
            )
    return out
