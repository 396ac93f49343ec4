"""Memory-fit model: will a model fit a card, what the memory is made of, the largest batch.

Every figure the bot gives comes from these formulas, so a user can check it.
Sizes are bytes; answers show decimal GB (1 GB = 1e9 bytes). A card's VRAM is
what the vendor sells as "24 GB", which is 24 GiB of memory chips, so its
capacity is ``vram_gb * 2**30`` bytes (25.8 GB). The total is the peak a
PyTorch process reserves, CUDA context included (what nvidia-smi shows).

Notation: P parameters, L blocks, h hidden size, a heads, kv key/value heads,
d head dim, f FFN size, V vocabulary, s sequence length, b batch per card.

Weights: fp32 4 bytes, fp16/bf16 2, fp8/int8 1, int4 (GPTQ/AWQ) 4.25 bits,
NF4 4.5 bits (QLoRA's double quant 4.127, Dettmers et al. 2023). Quantizers
keep the embeddings and an untied LM head in 16 bits.

Full training (ZeRO, Rajbhandari et al. 2020): mixed precision with AdamW is
16 bytes per parameter (16-bit weights 2 + gradients 2 + fp32 master 4 + Adam
m, v 8); pure bf16 keeps AdamW states in bf16: 8. 8-bit Adam states 2, SGD
momentum 4 (2 in bf16), Adafactor ~0 (factored, Shazeer & Stern 2018).

LoRA (Hu et al. 2021; PEFT): frozen 16-bit base, fp32 adapters with AdamW;
rank 16 on all linear layers unless q,v or attention only. QLoRA: NF4 base,
bf16 adapters, paged AdamW, gradient checkpointing; bitsandbytes saves each
4-bit layer's input and dequantizes the current weight (16-bit).

Activations per block and sample (Korthikanti et al. 2022, 16-bit): c_h*s*h
+ c_f*s*f, fitted c_h 12-24 and c_f 8-12 by method; + 5*a*s^2 without fused
attention. Checkpointing keeps 2*s*h per block + one block. The loss holds
~16 bytes per token per vocabulary entry (fp32 upcast of the logits).

Inference: one block's working set + KV cache 2*L*kv*d*s*2 bytes per sample;
Whisper adds cross-attention keys/values over 1500 frames. The KV cache follows
the attention design (issue 17, ``kv_token_layers``): latent attention caches
``kv_cache_dim`` values (DeepSeek: 576) instead of 2*kv*d; local layers of a
sliding-window model cache at most their window (vLLM's hybrid KV cache
manager; llama.cpp window + n_ubatch 512) unless the engine is listed in the
model's ``sliding_window_full_in``; the linear-attention / state-space layers of a
hybrid model (Qwen3-Next's Gated DeltaNet, Jamba's Mamba) cache no tokens but hold a
fixed state per sequence (``linear_state_bytes``); a q8_0 / q4_0 / fp8 cache takes 8.5 / 4.5 /
8 bits per value (``bot.core.kv_cache``). llama.cpp (and any engine when none is
named) computes a long prompt 512 tokens at a time, with a logits row each, so
its working set stops growing past 512 tokens. ``max_context`` solves for the
longest context that fits a card (bisection: memory grows with the context). Overhead: CUDA
context 0.6 GB + cuBLAS workspace + allocator slack (1% states, 5% activations).

CNNs and diffusion pipelines: no closed form; each model carries
``activation_mb_per_sample`` (fp32 training for CNNs, fp16 inference for
diffusion denoisers) at its native resolution, calibrated against measured
max batch sizes (the 2020 guide's tables and Lambda's TensorFlow benchmark
batches; see ``activation_basis`` in models.yaml). It scales with pixel
count ((res/native)^2). PyTorch AMP keeps a quarter of the fp32 figure (half
the bytes, in-place ReLU); inference keeps about a tenth; gradient
checkpointing about a third. Diffusion inference peaks at the larger of the
denoiser's activations and the VAE decode (``vae_live_maps`` feature maps of
128 channels at full resolution, in fp32 for fp16 Stable Diffusion pipelines,
which upcast the VAE). T5's ``wo`` projection stays out of quantization.

Multi-GPU (n identical cards; verdicts are per card):
    data parallel: every card holds everything; the batch is split n ways.
    sharded (FSDP / ZeRO-3): weights, gradients and optimizer states / n,
        plus two gathered blocks and the root unit (embeddings, LM head)
        gathered for the whole step; batch split n ways. CPU offload moves
        weights, gradients and optimizer states to CPU RAM.
    tensor / pipeline (inference): weights, KV cache and activations / n.
    Only sharded, tensor and pipeline split the model; data parallel never
    adds cards' VRAM together.

Calibration: the free constants (allocator slack, activation coefficients,
loss bytes, CNN AMP fraction, VAE maps, CUDA context) are fitted by
``bench/calibrate_memory.py`` on 92 published peak-memory measurements
(tests/core/fixtures/measured_memory.yaml) and read from
``knowledge/benchmarks/memory-calibration.yaml``, with the error they leave per
category. Every estimate carries a band (``low``/``high``) from that error;
``tight`` means the card's capacity falls inside the band.

Total memory is affine in batch size (fixed + b * per_sample), so the
largest batch that fits is solved for directly, not searched.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from bot.core.copy_with import copy_with
from bot.core.kv_cache import KV_TYPES, LLAMA_CPP_FAMILY, bytes_per_value
from bot.core.quick_init import quick_init
from bot.core.types import Method, Optimizer, Parallelism, Precision, Task
from bot.core.yaml_io import safe_load

if TYPE_CHECKING:
    from bot.core.knowledge import GPU, Model

__all__ = [
    "Workload",
    "Estimate",
    "resolve_workload",
    "estimate",
    "suggest_changes",
    "candidate_changes",
    "Change",
    "Suggestion",
    "usable_bytes",
    "GB",
    "TRANSFORMER_KINDS",
    "default_batch",
    "default_task",
    "profile",
    "max_batch_per_card",
    "max_batches",
    "total_bytes",
    "lora_params",
    "category",
    "Calibration",
    "calibration",
    "load_calibration",
    "CALIBRATION_PATH",
    "LORA_TARGETS",
    "MaxContext",
    "max_context",
    "kv_token_layers",
    "kv_values_per_token_layer",
    "kv_bytes_per_token",
    "linear_state_bytes",
]

log = logging.getLogger(__name__)

GB = 1e9
GIB = 2**30
# CUDA context of a PyTorch process on recent drivers with lazy module loading (CUDA >= 11.7):
# ~0.3-0.6 GB of device memory that torch.cuda.max_memory_reserved() never sees but nvidia-smi
# does (PyTorch docs, "CUDA semantics: memory management"; NVIDIA CUDA C programming guide,
# "Lazy Loading"). The figure used is the calibrated ``cuda_context_gb`` below.
CUDA_CONTEXT_BYTES = 0.6e9
# cuBLAS workspace PyTorch allocates through its caching allocator: 4096 KiB x 2 + 16 KiB x 8 per
# handle (aten/src/ATen/cuda/CublasHandlePool.cpp, getChosenWorkspaceSize; 32 MiB on Hopper).
CUBLAS_WORKSPACE_BYTES = 8.5e6

TRANSFORMER_KINDS = frozenset({"encoder", "decoder", "encoder-decoder", "speech", "moe-decoder"})
_GATED_KINDS = frozenset({"decoder", "moe-decoder"})
_LM_KINDS = frozenset({"decoder", "moe-decoder", "encoder-decoder", "speech"})

LORA_RANK = 16
QLORA_RANK = 64
QLORA_SEQ_LEN = 512
FINETUNE_DECODER_SEQ_LEN = 512
LORA_TARGETS = ("qv", "attention", "all-linear")
# Whisper's encoder sees 30 s of audio: 3000 mel frames, halved by the stride-2 conv stem
# (Radford et al. 2022, "Robust Speech Recognition via Large-Scale Weak Supervision", section 2.2)
SPEECH_ENCODER_FRAMES = 1500

_WEIGHT_BYTES = {
    Precision.FP32: 4.0,
    Precision.FP16: 2.0,
    Precision.BF16: 2.0,
    Precision.FP8: 1.0,
    Precision.INT8: 1.0,
    Precision.INT4: 4.25 / 8,
}
NF4_DQ_BYTES = 4.127 / 8  # QLoRA section 3: 4 bits + 8-bit absmax per 64 + fp32 per 256 blocks
NF4_BYTES = 4.5 / 8  # bitsandbytes default (no double quant): 4 bits + fp32 absmax per 64 weights
# activation bytes relative to 16-bit
_ACT_FACTOR = {
    Precision.FP32: 2.0,
    Precision.FP16: 1.0,
    Precision.BF16: 1.0,
    Precision.FP8: 1.0,  # fp8 stacks keep activations in bf16 between matmuls
    Precision.INT8: 1.0,
    Precision.INT4: 1.0,
}
# optimizer states in bytes per trainable parameter, for fp32 states (fp32 training, mixed
# precision: torch keeps states in the parameter's dtype, fp32 there) and for pure 16-bit
# training (torch AdamW/SGD keep states in the bf16 parameter's dtype).
#   AdamW: m and v (Loshchilov & Hutter 2019); SGD with momentum: one buffer;
#   8-bit Adam (paged or not): m and v in 8 bits, blockwise (Dettmers et al. 2021, "8-bit
#   Optimizers via Block-wise Quantization"); Adafactor: factored second moment, no momentum
#   (Shazeer & Stern 2018; transformers' Adafactor default beta1=None): rows + columns per
#   matrix, ~0 per parameter (costed by _adafactor_bytes).
_OPT_STATE_FP32 = {
    Optimizer.ADAMW: 8.0,
    Optimizer.SGD: 4.0,
    Optimizer.ADAM8BIT: 2.0,
    Optimizer.PAGED_ADAM8BIT: 2.0,
}
_OPT_STATE_16 = {
    Optimizer.ADAMW: 4.0,
    Optimizer.SGD: 2.0,
    Optimizer.ADAM8BIT: 2.0,
    Optimizer.PAGED_ADAM8BIT: 2.0,
}

# the enum members the hot paths read, as module globals: on Python 3.11 ``Precision.FP16`` goes
# through EnumType's ``__getattr__`` hook (~0.1 us a read, against ~0.02 us for a global), and an
# estimate reads dozens of them
_INFERENCE, _TRAINING, _FINETUNE = Task.INFERENCE, Task.TRAINING, Task.FINETUNE
_FULL, _LORA, _QLORA = Method.FULL, Method.LORA, Method.QLORA
_FP32, _FP16, _BF16, _FP8, _INT8, _INT4 = (
    Precision.FP32,
    Precision.FP16,
    Precision.BF16,
    Precision.FP8,
    Precision.INT8,
    Precision.INT4,
)
_DATA, _SHARDED, _TENSOR, _PIPELINE = (
    Parallelism.DATA,
    Parallelism.SHARDED,
    Parallelism.TENSOR,
    Parallelism.PIPELINE,
)
_ADAMW, _ADAFACTOR = Optimizer.ADAMW, Optimizer.ADAFACTOR
_QUANTIZED = frozenset({_INT8, _INT4, _FP8})
_HALF = frozenset({_FP16, _BF16})
_HALF_OR_FP8 = frozenset({_FP16, _BF16, _FP8})
_ADAPTERS = frozenset({_LORA, _QLORA})
_SPLIT_PARALLEL = frozenset({_SHARDED, _TENSOR, _PIPELINE})
_LAYER_SPLITS = frozenset({_TENSOR, _PIPELINE})
_BATCH_SPLITS = frozenset({_DATA, _SHARDED})

# T5's feed-forward output projection ("wo") is never quantized: transformers lists it in
# T5PreTrainedModel._keep_in_fp32_modules, so bitsandbytes leaves it in fp32 (torchao in the
# pipeline's 16 bits). T5-XXL: 24 blocks x d_model 4096 x d_ff 10240 = 1.007B of 4.762B.
T5_KEEP_FRACTION = 1.007e9 / 4.762e9

CALIBRATION_PATH = (
    Path(__file__).resolve().parents[2] / "knowledge" / "benchmarks" / "memory-calibration.yaml"
)

# The free constants of the model, fitted on the public reference (bench/calibrate_memory.py
# --fit, each on a grid bounded by the physics named here); the values written to
# knowledge/benchmarks/memory-calibration.yaml override these at import. The figures below are the
# fitted ones, so a missing file gives the same answers.
DEFAULT_CONSTANTS: dict[str, float] = {
    # the CUDA context (plus the libraries' kernels loaded into it): nvidia-smi shows it,
    # torch.cuda.max_memory_reserved() does not; searched in 0.4-0.6 GB (recent drivers, lazy loading)
    "cuda_context_gb": CUDA_CONTEXT_BYTES / GB,
    # caching-allocator slack, reserved / allocated - 1: few large long-lived blocks (weights,
    # gradients, optimizer states; PyTorch rounds large blocks to 2 MiB) and many short-lived
    # activation blocks (rounding, freed blocks cached for a later phase); searched >= 1% / >= 5%
    "state_slack": 0.01,
    "act_slack": 0.05,
    # activation bytes saved per transformer block and sample, 16-bit, as multiples of s*h and s*f.
    # Korthikanti et al. 2022 eq. 1 counts 18 s*h + 4 s*f for a GPT block with dropout; without
    # dropout (Llama-style decoders) the masks and dropout outputs go (fitted 12). A gated MLP saves
    # four f-wide tensors: gate, up, act(gate), their product (8 s*f). Frozen torch Linear layers do
    # not save their inputs (autograd needs the input only for the weight's gradient), so LoRA saves
    # what full fine-tuning saves minus those, plus the adapters' dropout copies (_lora_dropout_bytes);
    # bitsandbytes' MatMul4Bit saves its input for every 4-bit layer even when frozen
    # (bitsandbytes/autograd/_functions.py, ctx.tensors = (A, B)), so QLoRA saves more (fitted 24, 12).
    "act_h_full": 12.0,
    "act_f_gated_full": 8.0,
    "act_h_lora": 12.0,
    "act_f_gated_lora": 8.0,
    "act_h_qlora": 24.0,
    "act_f_gated_qlora": 12.0,
    # autocast: residual stream, norms and softmax stay fp32, so mixed-precision activations are
    # larger than pure 16-bit ones (rasbt's bf16-true vs 16-mixed runs: 1.3x)
    "mixed_act_factor": 1.3,
    # the loss: bf16 logits 2 + fp32 upcast 4 + fp32 log-softmax saved 4 + fp32 grad 4 + bf16
    # grad 2 bytes per token per vocabulary entry at the start of backward (HF
    # LlamaForCausalLM.forward: logits.float(); torch cross_entropy)
    "logit_bytes": 16.0,
    # CNN activations in PyTorch AMP relative to the fp32 figure calibrated on the 2020 guide and
    # TensorFlow tables: half the bytes, and in-place ReLU (torchvision, timm) drops one of the
    # three per-conv tensors TensorFlow keeps (conv out, BN out, ReLU out): <= 1/2 x 2/3; timm's
    # ResNet-50 AMP batch 512 on a 24 GB RTX 3090 needs <= 0.3 (fitted 0.25)
    "cnn_amp_fraction": 0.25,
    # VAE decode: live feature maps at full resolution, in units of 128 channels x H x W
    # (SD / SDXL / FLUX VAEs: block_out_channels (128, 256, 512, 512)); HF's SDXL blog: 4 images
    # at 1024^2 take ~16.4 GB above the weights, in fp32 and fp16 pipelines alike (fp32 decode)
    "vae_live_maps": 7.5,
}

# relative error bands per category (low, high): required / truth - 1 on the reference, wide
# defaults until the file is read
DEFAULT_BANDS: dict[str, tuple[float, float]] = {
    "llm-inference": (-0.15, 0.15),
    "lora": (-0.2, 0.2),
    "qlora": (-0.2, 0.2),
    "full-ft": (-0.2, 0.2),
    "encoder": (-0.2, 0.2),
    "cnn": (-0.25, 0.25),
    "diffusion": (-0.25, 0.25),
    "speech": (-0.2, 0.2),
}


@dataclass(frozen=True, slots=True)
class Calibration:
    """What knowledge/benchmarks/memory-calibration.yaml holds, with defaults for anything missing."""

    constants: dict[str, float]
    bands: dict[str, tuple[float, float]]  # category -> (low, high) relative error
    source: str  # where the figures came from, or why the defaults are used


def _finite_number(x: Any) -> float | None:
    if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x):
        return None
    return float(x)


def load_calibration(path: Path = CALIBRATION_PATH) -> Calibration:
    """Read the calibration file; a missing or broken file falls back to the defaults (logged)."""
    consts = dict(DEFAULT_CONSTANTS)
    bands = dict(DEFAULT_BANDS)
    try:
        raw = safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError, UnicodeDecodeError) as exc:
        log.warning("memory calibration not read (%s): using built-in constants", exc)
        return Calibration(consts, bands, f"built-in defaults ({path.name} not read)")
    if not isinstance(raw, dict):
        log.warning("memory calibration %s is not a mapping: using built-in constants", path)
        return Calibration(consts, bands, "built-in defaults (file not a mapping)")
    for k, v in (raw.get("constants") or {}).items():
        val = _finite_number(v.get("value") if isinstance(v, dict) else v)
        if k in consts and val is not None and val >= 0:
            consts[k] = val
    for k, v in (raw.get("categories") or {}).items():
        if not isinstance(v, dict):
            continue
        lo, hi = _finite_number(v.get("band_low")), _finite_number(v.get("band_high"))
        if lo is not None and hi is not None and -0.9 < lo <= 0 <= hi < 5:
            bands[str(k)] = (lo, hi)
    return Calibration(consts, bands, str(raw.get("source") or path.name))


_CAL = load_calibration()
_K = _CAL.constants


def calibration() -> Calibration:
    """The calibration in use (read once at import)."""
    return _CAL


# (no __slots__: the engine copies a workload with ``copy_with`` several times a question, and a
# copy of a ``__dict__`` instance is one dict update against 25 slot stores, ~1 us against ~4.5 us;
# reads are ~15 ns slower each (quick_init materializes the dict): in one process, alternating
# which version runs first, compute is ~1% faster on the mean and ~5% at p99, the median equal)
@quick_init
@dataclass(frozen=True)
class Workload:
    """How the model is run, with every default applied."""

    task: Task
    method: Method
    precision: Precision
    optimizer: Optimizer
    grad_checkpointing: bool
    seq_len: int | None
    batch_size: int | None  # as asked (global); None = not asked
    num_gpus: int
    parallelism: Parallelism
    fused_attention: bool
    lora_rank: int | None
    resolution: int | None = None  # image side in pixels when asked; None = the model's own
    offload_text_encoders: bool = False  # diffusion inference: encoders on CPU after encoding the prompt
    notes: tuple[str, ...] = ()
    # training: 16-bit weights, gradients and optimizer states, no fp32 master copy (LitGPT
    # "bf16-true"); False with a 16-bit precision = mixed precision (fp32 master weights + autocast)
    pure_16bit: bool = False
    # mixed precision asked for explicitly ("mixed-bf16"): LoRA / inference then hold fp32 weights
    amp: bool = False
    nf4: bool = False  # 4-bit weights are bitsandbytes NF4 (QLoRA) rather than GPTQ/AWQ int4
    lora_targets: str = "all-linear"  # "qv" | "attention" | "all-linear"
    cpu_offload: bool = (
        False  # training: parameters, gradients and optimizer states on CPU (ZeRO-3 / FSDP offload)
    )
    attention: str = ""  # "eager" | "sdpa" | "flash" as asked; "" = from fused_attention
    # issue 11: a downloadable build (bot.core.formats): its id and the bytes of all its weights
    # (every expert of a MoE); inference only. None = weights from ``precision`` as before.
    format_id: str = ""
    weights_bytes: float | None = None
    # diffusion inference with diffusers' enable_model_cpu_offload(): one component on the card
    # at a time, so the peak is the largest phase (encode, denoise, decode), not their sum
    model_offload: bool = False
    # issue 17: the inference engine named (a catalog engine id; "" = none named: the builds' default
    # engines, llama.cpp and its family) and the KV cache's data type ("" = the model's 16 bits)
    engine: str = ""
    kv_cache: str = ""
    # the asker named the parallelism ("with ddp"): estimate() keeps it instead of sharding
    parallelism_stated: bool = False

    @property
    def trains(self) -> bool:
        return self.task is not _INFERENCE

    @property
    def mixed(self) -> bool:
        """fp32 master weights with 16-bit autocast (full training in fp16/bf16 unless pure)."""
        sixteen = self.precision in _HALF_OR_FP8
        if not sixteen or self.pure_16bit:
            return False
        return self.amp or (self.trains and self.method is _FULL)


# suggestion labels (the phrasing layer writes what users read from the structured patch)
_PAR_NAMES = {
    Parallelism.DATA: "data parallel (each card holds the model)",
    Parallelism.SHARDED: "sharded (FSDP/ZeRO-3)",
    Parallelism.TENSOR: "tensor parallel (model split across cards)",
    Parallelism.PIPELINE: "pipeline parallel (layers split across cards)",
}


def default_task(model: Model) -> Task:
    """What a bare question about a model most likely means."""
    if model.kind == "cnn":
        return Task.TRAINING
    if model.kind == "encoder":
        return Task.FINETUNE
    return Task.INFERENCE


def default_batch(model: Model, task: Task) -> int:
    """The batch a recommendation must fit when the user named none."""
    if task is Task.INFERENCE:
        return 1
    if model.kind == "cnn":
        side = _res_side(model)
        return 32 if side <= 320 else (8 if side <= 640 else 1)
    if model.kind == "encoder":
        return 32
    if model.kind == "speech":
        return 16
    if model.kind == "encoder-decoder":
        return 8
    return 1


def _res_side(model: Model) -> int:
    res = model.resolution
    if res is None:
        return 224
    if isinstance(res, (tuple, list)):
        return int(math.sqrt(res[0] * res[1]))
    return int(res)


def resolve_workload(
    model: Model,
    *,
    task: Task | None = None,
    method: Method | None = None,
    precision: Precision | None = None,
    batch_size: int | None = None,
    seq_len: int | None = None,
    optimizer: Optimizer | None = None,
    grad_checkpointing: bool | None = None,
    num_gpus: int = 1,
    parallelism: Parallelism | None = None,
    fused_attention: bool | None = None,
    resolution: int | None = None,
    offload_text_encoders: bool | None = None,
    pure_16bit: bool | None = None,
    amp: bool | None = None,
    nf4: bool | None = None,
    lora_rank: int | None = None,
    lora_targets: str | None = None,
    cpu_offload: bool | None = None,
    attention: str | None = None,
    engine: str | None = None,
    kv_cache: str | None = None,
) -> Workload:
    """Apply the defaults a user would expect, recording each one.

    ``pure_16bit`` / ``amp`` say which 16-bit training is meant (see :class:`Workload`);
    ``nf4`` marks 4-bit weights as bitsandbytes NF4 (and makes 4-bit fine-tuning QLoRA).
    """
    notes: list[str] = []
    if nf4:
        precision = _INT4
    if method in _ADAPTERS and task in (None, _TRAINING):
        task = _FINETUNE
    if task is None:
        task = default_task(model)
    if task is _INFERENCE:
        method = _FULL
    elif method is None:
        method = _FULL
    if precision is None:
        precision = _INT4 if method is _QLORA else _FP16
        if model.kind == "decoder" or model.kind == "moe-decoder":
            precision = _INT4 if method is _QLORA else _BF16
    if task is not _INFERENCE and method is _FULL and precision in (_INT8, _INT4):
        # quantized weights cannot be trained directly: the real recipe is LoRA on a quantized base
        method = _QLORA if precision is _INT4 else _LORA
        task = _FINETUNE
        notes.append(f"{precision} weights cannot be fully trained; assumed LoRA on a {precision} base")
    if method is _QLORA:
        precision = _INT4
        nf4 = True
    trains = task is not _INFERENCE
    sixteen = precision in _HALF
    pure = bool(pure_16bit) and sixteen and trains
    mixed_asked = bool(amp) and sixteen and not pure
    if optimizer is None:
        optimizer = _ADAMW
    if grad_checkpointing is None:
        grad_checkpointing = method is _QLORA or (method is _LORA and model.kind in _GATED_KINDS)
    att = attention if attention in ("eager", "sdpa", "flash") else ""
    if att:
        fused_attention = att != "eager"
    if fused_attention is None:
        fused_attention = True
    if seq_len is None and model.kind in TRANSFORMER_KINDS and model.default_seq_len:
        seq_len = model.default_seq_len
        if task is _FINETUNE and model.kind in _GATED_KINDS:
            seq_len = QLORA_SEQ_LEN if method is _QLORA else min(seq_len, FINETUNE_DECODER_SEQ_LEN)
    num_gpus = max(1, int(num_gpus))
    if parallelism is None:
        if num_gpus == 1:
            parallelism = _DATA
        elif task is _INFERENCE:
            parallelism = _TENSOR
        else:
            parallelism = _DATA  # refined in estimate(): sharded when a copy does not fit
    rank: int | None = None
    if method is not _FULL:
        rank = lora_rank if lora_rank and lora_rank > 0 else (QLORA_RANK if method is _QLORA else LORA_RANK)
    targets = lora_targets if lora_targets in LORA_TARGETS else "all-linear"
    return Workload(
        task=task,
        method=method,
        precision=precision,
        optimizer=optimizer,
        grad_checkpointing=bool(grad_checkpointing),
        seq_len=seq_len,
        batch_size=batch_size,
        num_gpus=num_gpus,
        parallelism=parallelism,
        fused_attention=bool(fused_attention),
        lora_rank=rank,
        resolution=resolution if model.kind in ("cnn", "diffusion") else None,
        # inference: the encoders go back to CPU after the prompt; LoRA / QLoRA training: their
        # outputs are cached before training (the encoders are never on the card while it trains)
        offload_text_encoders=bool(offload_text_encoders or (cpu_offload and not trains))
        and model.kind == "diffusion"
        and (task is _INFERENCE or method in _ADAPTERS),
        notes=tuple(notes),
        pure_16bit=pure,
        amp=mixed_asked,
        nf4=bool(nf4) and precision is _INT4,
        lora_targets=targets,
        cpu_offload=bool(cpu_offload) and trains,
        attention=att,
        engine=engine or "",
        kv_cache=(kv_cache or "") if kv_cache in KV_TYPES and not trains and kv_cache != "f16" else "",
    )


# --------------------------------------------------------------------------- terms


@quick_init
@dataclass(frozen=True)
class _Terms:
    """Per-card bytes: fixed parts and per-sample parts (per sample on this card)."""

    weights: float
    gradients: float
    optimizer: float
    act_fixed: float  # activations independent of batch (recompute buffer of one block, etc.)
    act_per_sample: float
    kv_per_sample: float

    @property
    def fixed(self) -> float:
        return self.weights + self.gradients + self.optimizer + self.act_fixed

    @property
    def per_sample(self) -> float:
        return self.act_per_sample + self.kv_per_sample


def _head_dim(m: Model) -> int:
    return int(m.head_dim or ((m.hidden or 0) // (m.heads or 1)))


def _block_params(m: Model) -> tuple[int, int]:
    """(attention, MLP) weight-matrix parameters of one block (all experts for MoE)."""
    h, d, a = int(m.hidden or 0), _head_dim(m), int(m.heads or 1)
    kv = int(m.kv_heads or a)
    f = int(m.ffn or 4 * h)
    attn = 2 * h * a * d + 2 * h * kv * d
    mats = 3 if m.kind in _GATED_KINDS else 2
    mlp = mats * h * f * ((m.experts or 1) if m.kind == "moe-decoder" else 1)
    return attn, mlp


def _embedding_params(m: Model) -> int:
    """Token embedding plus an untied LM head: the 16-bit part of a quantized checkpoint.

    bitsandbytes, GPTQ and AWQ quantize the blocks' linear layers only; nn.Embedding and
    ``lm_head`` stay in 16 bits (transformers' bitsandbytes integration skips ``lm_head``).
    Whether the head is tied is read off the parameter count: blocks + V*h vs blocks + 2*V*h.
    """
    hit = _EMB_CACHE.get(id(m))
    if hit is not None and hit[0] is m:
        return hit[1]
    n = _embedding_params_uncached(m)
    _EMB_CACHE[id(m)] = (m, n)
    return n


_EMB_CACHE: dict[int, tuple[Any, int]] = {}


def _embedding_params_uncached(m: Model) -> int:
    if not (m.vocab and m.hidden):
        return 0
    emb = int(m.vocab * m.hidden)
    if m.kind in _LM_KINDS and m.layers and m.kind != "moe-decoder":
        attn, mlp = _block_params(m)
        blocks = m.layers * (attn + mlp)
        if abs(m.params - (blocks + 2 * emb)) < abs(m.params - (blocks + emb)):
            return 2 * emb
    return emb


def lora_params(m: Model, rank: int, targets: str = "all-linear") -> int:
    """Adapter parameters for rank-r LoRA on the blocks' linear layers.

    Per block: r*(h+a*d) for q and o each, r*(h+kv*d) for k and v each, r*(h+f) per MLP
    matrix (3 for gated MLPs). ``targets``: "qv" (the LoRA paper's choice), "attention"
    (q, k, v, o), "all-linear" (QLoRA's and PEFT's "all-linear").
    """
    if m.kind in TRANSFORMER_KINDS and m.layers and m.hidden:
        h, d, a = m.hidden, _head_dim(m), int(m.heads or 1)
        kv = m.kv_heads or a
        f = m.ffn or 4 * h
        q = rank * (h + a * d)
        v = rank * (h + kv * d)
        if targets == "qv":
            return int(m.layers * (q + v))
        attn = 2 * q + 2 * v
        if targets == "attention":
            return int(m.layers * attn)
        mats = 3 if m.kind in _GATED_KINDS else 2
        experts = (m.experts or 1) if m.kind == "moe-decoder" else 1
        mlp = mats * rank * (h + f) * experts
        return int(m.layers * (attn + mlp))
    # CNNs / diffusion: adapters on the attention and conv projections, ~1% at rank 16
    return int(_trainable_params(m) * 0.01 * rank / LORA_RANK)


def _lora_dropout_bytes(m: Model, targets: str) -> float:
    """Per block and token: PEFT applies ``lora_dropout`` to each adapted module's input
    separately and lora_A saves that copy (2 bytes) plus the dropout mask (1 byte)
    (peft/tuners/lora/layer.py, Linear.forward: ``lora_A(dropout(x))``)."""
    h, d, a = int(m.hidden or 0), _head_dim(m), int(m.heads or 1)
    f = int(m.ffn or 4 * h)
    if targets == "qv":
        widths = 2 * h
    elif targets == "attention":
        widths = 3 * h + a * d
    else:
        widths = 3 * h + a * d + (2 * h + f if m.kind in _GATED_KINDS else h + f)
    return 3.0 * widths


def _trainable_params(m: Model) -> int:
    if m.kind == "diffusion" and m.components:
        return sum(c.params for c in m.components if c.role == "denoiser")
    return int(m.params)


def _quant_bytes(w: Workload) -> float:
    if w.nf4:
        return NF4_DQ_BYTES if w.method is _QLORA else NF4_BYTES
    return _WEIGHT_BYTES[w.precision]


def _weight_bytes(m: Model, w: Workload, precision: Precision | None = None) -> float:
    p = precision or w.precision
    per = _WEIGHT_BYTES[p] if precision is not None else _quant_bytes(w)
    if w.amp and p in _HALF:
        per = 4.0  # fp32 weights, autocast computes in 16 bits
    if per >= 2.0:
        return m.params * per
    if m.kind == "diffusion" and m.components:
        return sum(b for _, b, _ in _component_bytes(m, w, per))
    emb = _embedding_params(m)
    return (m.params - emb) * per + emb * 2.0


def _component_bytes(m: Model, w: Workload, per: float) -> list[tuple[Any, float, bool]]:
    """(component, bytes, quantized) of a diffusion pipeline at ``per`` bytes per quantized weight.

    The denoiser and the text encoders are quantized, the VAE stays 16-bit; T5's feed-forward
    output projection is kept out of quantization (fp32 under bitsandbytes, 16-bit otherwise).
    The small CLIP encoder counts as quantized too (a few hundred MB either way).
    """
    out = []
    for c in m.components:
        if c.role == "vae":
            out.append((c, c.params * 2.0, False))
            continue
        keep = T5_KEEP_FRACTION * c.params if "t5" in c.name.lower() else 0.0
        keep_bytes = 4.0 if (w.nf4 or w.precision is _INT8) else 2.0
        out.append((c, (c.params - keep) * per + keep * keep_bytes, True))
    return out


def _text_encoder_bytes(m: Model, w: Workload) -> float:
    """The bytes of a diffusion pipeline's text encoders as ``_weight_bytes`` counts them."""
    quantized = w.precision in _QUANTIZED
    per = _quant_bytes(w) if quantized else (4.0 if w.amp else _WEIGHT_BYTES[w.precision])
    if per >= 2.0:
        return per * sum(c.params for c in m.components if c.role == "text_encoder")
    return sum(b for c, b, _ in _component_bytes(m, w, per) if c.role == "text_encoder")


def _adafactor_bytes(m: Model) -> float:
    """Adafactor's factored second moment: 4*(rows+cols) bytes per matrix, i.e. 4*(1/h + 1/f)
    per parameter of an h x f matrix (Shazeer & Stern 2018, section 3)."""
    h = m.hidden or m.denoiser_hidden or 1024
    f = m.ffn or 4 * h
    return 4.0 * (1.0 / h + 1.0 / f)


def _opt_bytes(m: Model, w: Workload, states_16: bool) -> float:
    if w.optimizer is _ADAFACTOR:
        return _adafactor_bytes(m)
    return (_OPT_STATE_16 if states_16 else _OPT_STATE_FP32)[w.optimizer]


def _largest_matrix(m: Model) -> float:
    h = int(m.hidden or m.denoiser_hidden or 0)
    f = int(m.ffn or 4 * h)
    return float(h * max(f, h))


def _terms(m: Model, w: Workload) -> _Terms:
    """Per-card bytes for one card of the workload (before framework overhead)."""
    n = w.num_gpus
    par = w.parallelism
    trains = w.trains
    K = _K
    quantized = w.precision in _QUANTIZED
    act_fixed = 0.0

    # --- weights, gradients, optimizer
    if not trains:
        weights = _weight_bytes(m, w) if w.weights_bytes is None else float(w.weights_bytes)
        if w.offload_text_encoders and m.components and w.weights_bytes is None:
            # the prompt is encoded once, then the encoders go back to CPU RAM (diffusers'
            # enable_model_cpu_offload)
            weights -= _text_encoder_bytes(m, w)
        grads = opt = 0.0
    elif w.method is _FULL:
        train_p = _trainable_params(m)
        frozen = m.params - train_p
        if w.precision is _FP32:
            wb, gb, states_16 = 4.0, 4.0, False
        elif w.pure_16bit:
            # pure 16-bit: bf16 weights, bf16 gradients, torch AdamW states in the weights' dtype
            wb, gb, states_16 = 2.0, 2.0, True
        else:
            # mixed precision (ZeRO, Rajbhandari et al. 2020, section 3.1: 16 bytes per parameter
            # with Adam): 16-bit weights 2 + 16-bit gradients 2 + fp32 master weights 4 + fp32
            # states (Adam m, v: 8); the master copy is counted in the optimizer column
            wb, gb, states_16 = 2.0, 2.0, False
        weights = train_p * wb + frozen * (2.0 if w.precision is not _FP32 else 4.0)
        grads = train_p * gb
        opt = train_p * _opt_bytes(m, w, states_16)
        if w.mixed:
            opt += train_p * 4.0  # fp32 master weights
    else:
        rank = w.lora_rank or LORA_RANK
        lp = lora_params(m, rank, w.lora_targets)
        if w.method is _QLORA:
            # QLoRA: NF4 base; bf16 adapters and gradients; paged AdamW with 32-bit states
            weights = _weight_bytes(m, w) + lp * 2.0
            grads = lp * 2.0
            opt = lp * _opt_bytes(m, w, False)
        else:
            weights = _weight_bytes(m, w)
            if w.pure_16bit:
                weights += lp * 2.0
                grads = lp * 2.0
                opt = lp * _opt_bytes(m, w, True)
            else:
                # PEFT keeps adapters in fp32 (autocast_adapter_dtype=True)
                weights += lp * 4.0
                grads = lp * 4.0
                opt = lp * _opt_bytes(m, w, False)
            if w.amp:
                # fp32 base under autocast: each matmul gets a 16-bit copy of its frozen weight,
                # which F.linear saves for the backward (grad of the input needs the weight)
                act_fixed += 2.0 * m.params
        if w.offload_text_encoders and m.components:
            # text-encoder outputs cached before training (diffusers' compute_embeddings.py,
            # kohya's --cache_text_encoder_outputs): the frozen encoders are not on the card
            weights -= _text_encoder_bytes(m, w)
        if quantized:
            # bitsandbytes dequantizes the current layer's weight to 16 bits for each matmul
            # (bitsandbytes/autograd/_functions.py, MatMul4Bit: F.dequantize_4bit(B).to(A.dtype));
            # the same one-matrix transient bounds the load-time peak, since transformers moves
            # each 16-bit tensor to the card and quantizes it there, one layer at a time
            act_fixed += _largest_matrix(m) * 2.0
    if not trains and quantized:
        act_fixed += _largest_matrix(m) * 2.0

    split_model = par in _SPLIT_PARALLEL and n > 1
    if split_model or (w.cpu_offload and trains):
        layers = m.layers or m.denoiser_layers
        block_w = weights / layers if layers else 0.0  # no block structure known: no gather term
        if w.cpu_offload and trains:
            # ZeRO-3 / FSDP offload: parameters, gradients and optimizer states live in CPU RAM
            weights = grads = opt = 0.0
        else:
            weights /= n
            grads /= n
            opt /= n
        if par is _SHARDED or w.cpu_offload:
            # the unit being computed is gathered in full, and FSDP prefetches the next one
            act_fixed += 2 * block_w
            # the root unit (embeddings, final norm, LM head) stays gathered for the whole step
            # (FSDP does not reshard the root after forward) and, when trained, its gradient is
            # materialized unsharded before the reduce-scatter (torch.distributed.fsdp docs)
            root = _embedding_params(m) * 2.0
            act_fixed += root * (2.0 if (w.method is _FULL and trains) else 1.0)

    # --- activations and KV cache, per sample
    kv = 0.0
    act16_base = _ACT_FACTOR[w.precision]
    # autocast keeps part of the activations in fp32 (transformer formula only)
    act16 = K["mixed_act_factor"] if w.mixed else act16_base
    if m.kind in TRANSFORMER_KINDS and m.activation_mb_per_sample is None:
        s = w.seq_len or m.default_seq_len or 512
        h, a, L = int(m.hidden or 0), int(m.heads or 1), int(m.layers or 1)
        f = (m.ffn or 4 * h) * ((m.experts_per_token or 1) if m.kind == "moe-decoder" else 1)
        if trains:
            kh, kf = _ACT_KEYS[w.method]
            c_h = K[kh]
            c_f = K[kf] if m.kind in _GATED_KINDS else 4.0
            block: float = s * h * c_h + s * f * c_f
            if w.method is not _FULL:
                block += s * _lora_dropout_bytes(m, w.lora_targets)
            block *= act16
            if not w.fused_attention:
                # scores, softmax output, dropout mask and output (Korthikanti et al. 2022): 5*a*s^2
                # in 16 bits; autocast runs softmax in fp32 (2 more bytes), fp32 doubles it
                quad = 5 * a * s * s
                block += quad * (2.0 if w.precision is _FP32 else 1.0) + (2 * a * s * s if w.mixed else 0.0)
            if w.grad_checkpointing:
                per = L * 2 * s * h * act16 + block  # each block's input + one block recomputed
            else:
                per = L * block
            if m.kind in _LM_KINDS and m.vocab:
                per += K["logit_bytes"] * s * m.vocab
        else:
            per, kv = _inference_act_kv(m, w, s, act16)
        act = per
    else:
        base = (m.activation_mb_per_sample or 0.0) * 1e6 * _res_factor(m, w.resolution)
        if m.kind == "diffusion":
            # figure is fp16 inference for one image
            act = base * act16_base
            if trains:
                act *= DIFFUSION_TRAIN_FACTOR
                if w.grad_checkpointing:
                    act *= CNN_CHECKPOINT_FRACTION
            elif w.model_offload and m.components:
                # one component on the card at a time: the peak is the larger of the denoising
                # phase (denoiser + its activations) and the decode (VAE + its feature maps);
                # the encoders' phase (largest encoder alone) is smaller than either in practice
                den_w, vae_w, enc_w = _phase_weights(m, w)
                phases = [(den_w, act), (vae_w, _vae_decode_bytes(m, w)), (enc_w, 0.0)]
                weights, act = max(phases, key=lambda p: p[0] + p[1])
            else:
                act = max(act, _vae_decode_bytes(m, w))
        elif m.kind in TRANSFORMER_KINDS:
            # calibrated per-sequence figure (e.g. conv seq2seq), 16-bit training at default seq
            s = w.seq_len or m.default_seq_len or 1
            scale = s / (m.default_seq_len or s)
            act = base * scale * act16_base * (1.0 if trains else CNN_INFERENCE_FRACTION)
        elif not trains:
            # fp32 training figure; inference keeps about a tenth of it live
            act = base * (act16_base / 2.0) * CNN_INFERENCE_FRACTION
        else:
            # fp32 training figure; PyTorch AMP keeps ``cnn_amp_fraction`` of it
            if w.precision is _FP32:
                act = base
            elif w.mixed:
                act = base * K["cnn_amp_fraction"]
            else:
                act = base * 0.5
            if w.grad_checkpointing:
                act *= CNN_CHECKPOINT_FRACTION

    if split_model and par in _LAYER_SPLITS:
        act /= n
        kv /= n
    return _Terms(weights, grads, opt, act_fixed, act, kv)


def _inference_act_kv(m: Model, w: Workload, s: int, act16: float) -> tuple[float, float]:
    """A transformer's inference activations and KV cache per sequence at context ``s`` (the part
    of ``_terms`` that depends on the context; ``max_context`` evaluates it alone).

    ``_act_kv_at(m, w, act16)(s)`` written out for one context (no closure to build): the same
    arithmetic in the same order (tests/core/test_engine_lazy.py compares the two)."""
    h, a, L = int(m.hidden or 0), int(m.heads or 1), int(m.layers or 1)
    f = (m.ffn or 4 * h) * ((m.experts_per_token or 1) if m.kind == "moe-decoder" else 1)
    width = 4 * h + 2 * f
    chunked = m.kind in _GATED_KINDS and w.engine in LLAMA_CPP_FAMILY and s > LLAMA_CPP_UBATCH
    t_run = LLAMA_CPP_UBATCH if chunked else s
    per = (t_run * width + (0 if w.fused_attention else 4 * a * t_run * s)) * 2 * act16
    if m.kind in _LM_KINDS and m.vocab:
        per += 4 * m.vocab * (t_run if chunked else 1)
    kv = 0.0
    if m.kind != "encoder":
        kv_bytes = bytes_per_value(w.kv_cache, 4.0 if w.precision is _FP32 else 2.0)
        kv = kv_token_layers(m, w, s) * kv_values_per_token_layer(m) * kv_bytes
        kv += linear_state_bytes(m, w)
        if m.kind == "speech":
            dec_layers = m.decoder_layers or (L // 2 if m.kind in ("encoder-decoder", "speech") else L)
            kv += dec_layers * 2 * h * SPEECH_ENCODER_FRAMES * kv_bytes
    return per, kv


def _act_kv_at(m: Model, w: Workload, act16: float) -> Callable[[int], tuple[float, float]]:
    """``_inference_act_kv`` as a function of the context alone: what does not depend on the context
    is worked out once (``max_context`` evaluates ~10 contexts), the rest with the same arithmetic
    in the same order."""
    h, a, L = int(m.hidden or 0), int(m.heads or 1), int(m.layers or 1)
    f = (m.ffn or 4 * h) * ((m.experts_per_token or 1) if m.kind == "moe-decoder" else 1)
    width = 4 * h + 2 * f
    # tokens computed at once: llama.cpp runs the prompt in micro-batches of n_ubatch
    # (512 by default, `-ub`) and reserves its graph for that many outputs (a logits row
    # each); otherwise the whole prompt at once and the last token's logits
    ubatched = m.kind in _GATED_KINDS and w.engine in LLAMA_CPP_FAMILY
    fused = w.fused_attention
    vocab = m.vocab if m.kind in _LM_KINDS and m.vocab else 0
    cached = m.kind != "encoder"
    per_token_layer = kv_bytes = fixed_kv = 0.0
    if cached:
        dec_layers = m.decoder_layers or (L // 2 if m.kind in ("encoder-decoder", "speech") else L)
        kv_bytes = bytes_per_value(w.kv_cache, 4.0 if w.precision is _FP32 else 2.0)
        per_token_layer = kv_values_per_token_layer(m)
        fixed_kv = linear_state_bytes(m, w)  # constant per sequence: does not grow with s
    # cross-attention keys and values over the encoder's frames, per decoder layer, held for the
    # whole decode (the encoder's own working set comes earlier and is smaller than this peak)
    speech_kv = (
        dec_layers * 2 * h * SPEECH_ENCODER_FRAMES * kv_bytes if cached and m.kind == "speech" else None
    )

    def at(s: int) -> tuple[float, float]:
        kv = 0.0
        chunked = ubatched and s > LLAMA_CPP_UBATCH
        t_run = LLAMA_CPP_UBATCH if chunked else s
        per = (t_run * width + (0 if fused else 4 * a * t_run * s)) * 2 * act16
        if vocab:
            per += 4 * vocab * (t_run if chunked else 1)
        if cached:
            kv = kv_token_layers(m, w, s) * per_token_layer * kv_bytes
            kv += fixed_kv
            if speech_kv is not None:
                kv += speech_kv
        return per, kv

    return at


_ACT_KEYS = {
    _FULL: ("act_h_full", "act_f_gated_full"),
    _LORA: ("act_h_lora", "act_f_gated_lora"),
    _QLORA: ("act_h_qlora", "act_f_gated_qlora"),
}


def _phase_weights(m: Model, w: Workload) -> tuple[float, float, float]:
    """(denoiser, VAE, largest text encoder) bytes of a diffusion pipeline at the workload's
    precision: what diffusers' model CPU offload holds on the card in each phase."""
    quantized = w.precision in _QUANTIZED
    per = _quant_bytes(w) if quantized else (4.0 if w.amp else _WEIGHT_BYTES[w.precision])
    if per >= 2.0:
        sizes = [(c, c.params * per) for c in m.components]
    else:
        sizes = [(c, b) for c, b, _ in _component_bytes(m, w, per)]
    den = sum(b for c, b in sizes if c.role == "denoiser")
    vae = sum(b for c, b in sizes if c.role == "vae")
    enc = max((b for c, b in sizes if c.role == "text_encoder"), default=0.0)
    return den, vae, enc


def _vae_decode_bytes(m: Model, w: Workload) -> float:
    """VAE decode of one image: ``vae_live_maps`` feature maps of 128 channels at full resolution.

    fp16 pipelines decode in fp32 (fp16 VAEs overflow; diffusers upcasts when the VAE config
    says ``force_upcast``, as SDXL's does); bf16 pipelines decode in bf16.
    """
    if not any(c.role == "vae" for c in m.components):
        return 0.0
    side = w.resolution or _res_side(m)
    # diffusers' Stable Diffusion (XL) pipelines upcast a fp16 VAE whose config says
    # force_upcast (SDXL's does: fp16 overflows in its decoder); FluxPipeline never upcasts
    upcast = w.precision is _FP16 and m.family == "stable-diffusion"
    bytes_ = 4.0 if (upcast or w.precision is _FP32) else 2.0
    return _K["vae_live_maps"] * 128 * side * side * bytes_


CNN_INFERENCE_FRACTION = 0.1
CNN_CHECKPOINT_FRACTION = 0.35
DIFFUSION_TRAIN_FACTOR = 5.0


def _res_factor(m: Model, resolution: int | None) -> float:
    """Activations scale with pixel count: (asked side / native side)^2."""
    if not resolution:
        return 1.0
    return (resolution / _res_side(m)) ** 2


def usable_bytes(gpu: GPU) -> float:
    """Capacity of one card in bytes (VRAM is sold in GiB). Unified-memory machines (Apple,
    DGX Spark, Strix Halo) give the GPU only its default share of the RAM (``usable_memory_gb``)."""
    return float(getattr(gpu, "usable_memory_gb", gpu.vram_gb)) * GIB


def profile(model: Model, workload: Workload) -> _Terms:
    """Per-card fixed and per-sample bytes for a workload: independent of the card,
    so a recommendation computes it once and checks every card with arithmetic."""
    return _terms(model, workload)


def max_batch_per_card(terms: _Terms, gpu: GPU) -> int:
    return _max_batch(terms, usable_bytes(gpu))


def max_batches(terms: _Terms, capacities: list[float]) -> list[int]:
    """``max_batch_per_card`` for many cards at once (a recommendation checks every card)."""
    fixed = terms.fixed + _overhead_fixed(terms)
    per = terms.per_sample * (1 + _K["act_slack"])
    if per <= 0:
        return [1_000_000 if cap >= fixed else 0 for cap in capacities]
    return [int(room // per) if (room := cap - fixed) >= per else 0 for cap in capacities]


def max_batch_per_cards(terms: _Terms, capacities: list[float]) -> list[int]:
    """``max_batch_per_card`` of each capacity, with the same arithmetic (the terms' fixed bytes and
    overhead computed once)."""
    fixed = terms.fixed
    overhead = _overhead_fixed(terms)
    per = terms.per_sample * (1 + _K["act_slack"])
    out: list[int] = []
    for cap in capacities:
        room = cap - fixed - overhead
        out.append((1_000_000 if room >= 0 else 0) if per <= 0 else (0 if room < per else int(room // per)))
    return out


def total_bytes(terms: _Terms, batch_per_card: float) -> float:
    return _total(terms, batch_per_card)


def _overhead_fixed(t: _Terms) -> float:
    """What the process holds beyond the tensors: the CUDA context, cuBLAS's workspace, and the
    caching allocator's slack (rounding and cached free blocks) on top of what is allocated."""
    return (
        _K["cuda_context_gb"] * GB
        + CUBLAS_WORKSPACE_BYTES
        + _K["state_slack"] * (t.weights + t.gradients + t.optimizer)
        + _K["act_slack"] * t.act_fixed
    )


def _total(t: _Terms, b: float) -> float:
    return t.fixed + _overhead_fixed(t) + b * t.per_sample * (1 + _K["act_slack"])


# --------------------------------------------------------------------------- KV cache, context (issue 17)

#: llama.cpp's default micro-batch (``-ub, --ubatch-size``, common/arg.cpp: 512): the prompt is
#: computed that many tokens at a time, and the local layers of a sliding-window model keep
#: ``window + n_ubatch`` cells (src/llama-kv-cache-iswa.cpp: size_swa = min(size_base,
#: pad(n_swa * n_seq_max + n_ubatch)), unless ``--swa-full``)
LLAMA_CPP_UBATCH = 512


def kv_values_per_token_layer(m: Model) -> float:
    """Values cached per token and layer: keys and values of each KV head (grouped-query attention:
    ``num_key_value_heads`` in config.json), or the compressed latent of multi-head latent attention
    (DeepSeek V2/V3/R1: ``kv_lora_rank`` 512 + ``qk_rope_head_dim`` 64 = 576, one vector shared by
    keys and values; vLLM AttentionSpec.page_size_bytes: "For MLA we only store a single latent
    vector")."""
    if m.kv_cache_dim:
        return float(m.kv_cache_dim)
    return float(2 * (m.kv_heads or m.heads or 1) * _head_dim(m))


def kv_token_layers(m: Model, w: Workload, s: int) -> float:
    """Token x layer slots the cache holds at context ``s``.

    Full attention caches every token in every decoder layer. A model with local layers
    (``sliding_window``: Mistral 7B v0.1, Gemma 2/3, gpt-oss, Llama 4's chunked layers) caches at
    most the window there: vLLM's hybrid KV cache manager reserves "only the most recent
    sliding_window_size tokens" for them (docs.vllm.ai, design/hybrid_kv_cache_manager), and
    llama.cpp's iSWA cache keeps window + n_ubatch cells (``LLAMA_CPP_UBATCH``). Engines listed in
    the model's ``sliding_window_full_in`` cache the whole context in every layer (llama.cpp for
    Mistral 7B v0.1: it never implemented that model's sliding window).
    """
    L = int(m.layers or 1)
    layers = m.decoder_layers or (L // 2 if m.kind in ("encoder-decoder", "speech") else L)
    if m.linear_state_values and m.full_attention_layers is not None:
        # hybrid linear attention / state space: only the full-attention layers cache tokens
        return float(m.full_attention_layers * s)
    if not m.sliding_window or m.full_attention_layers is None:
        return float(layers * s)
    llama = w.engine in LLAMA_CPP_FAMILY
    if ("llama.cpp" if llama else w.engine) in m.sliding_window_full_in:
        return float(layers * s)
    window = m.sliding_window + (LLAMA_CPP_UBATCH if llama else 0)
    full = m.full_attention_layers
    return float(full * s + (layers - full) * min(s, window))


def linear_state_bytes(m: Model, w: Workload) -> float:
    """Bytes of the fixed state a hybrid model's linear-attention / state-space layers hold per
    sequence (``linear_state_values``: recurrent + convolution state over those layers), at any
    context. llama.cpp (and its family) keeps recurrent states in f32 (src/llama-model.cpp
    create_memory: recurrent_type_k/v GGML_TYPE_F32); vLLM in the model's dtype unless
    ``--mamba-ssm-cache-dtype`` says otherwise (vllm/model_executor/layers/mamba/mamba_utils.py
    MambaStateDtypeCalculator: "auto" = model dtype; the KV cache's fp8 does not apply to it)."""
    if not m.linear_state_values:
        return 0.0
    f32 = w.engine in LLAMA_CPP_FAMILY or w.precision is _FP32
    return float(m.linear_state_values) * (4.0 if f32 else 2.0)


def kv_bytes_per_token(m: Model, w: Workload, s: int) -> float:
    """Average KV-cache bytes per token of context at context ``s`` (one sequence)."""
    kv_bytes = bytes_per_value(w.kv_cache, 4.0 if w.precision is _FP32 else 2.0)
    return kv_token_layers(m, w, s) * kv_values_per_token_layer(m) * kv_bytes / max(1, s)


@quick_init
@quick_init
@dataclass(frozen=True, slots=True)
class MaxContext:
    """The longest context that fits one card, with the band from the calibration error."""

    tokens: int  # 0 = does not fit even at the shortest context tried
    low: int  # if the model's total is at the top of its band
    high: int  # if at the bottom
    capped: bool  # the model's own max_seq_len limits it, not memory


#: contexts are reported rounded down to this (llama.cpp pads its cache to 256 cells)
CONTEXT_STEP = 256


def max_context(m: Model, w: Workload, capacity: float, fixed: float | None = None) -> MaxContext | None:
    """The longest context (tokens) at which ``w`` (inference, batch as asked or 1) fits
    ``capacity`` bytes per card, capped at the model's ``max_seq_len``; None when the model has no
    context (CNNs, diffusion) or the workload trains.

    Total memory is monotonic in the context, so it is solved by bisection on the memory model
    (KV cache, the working set and overhead all follow ``_terms``). ``fixed``: the workload's
    fixed bytes with their overhead when the caller has its estimate (``Estimate.fixed_bytes +
    Estimate.fixed_overhead``, the same sum of the same terms)."""
    if w.trains or m.kind not in TRANSFORMER_KINDS or m.kind == "encoder" or not m.max_seq_len:
        return None
    if m.activation_mb_per_sample is not None:
        return None
    splits = w.parallelism in _BATCH_SPLITS
    b = w.batch_size or 1
    b_card = math.ceil(b / w.num_gpus) if splits else b
    # only the activations and the KV cache depend on the context: the rest of ``_total`` once, and
    # each context's total once (the three solves below share their first steps); the same
    # arithmetic as ``_total(_terms(m, replace(w, seq_len=s)), b_card)``
    if fixed is None:
        t0 = _terms(m, w)
        fixed = t0.fixed + _overhead_fixed(t0)
    act16 = _K["mixed_act_factor"] if w.mixed else _ACT_FACTOR[w.precision]
    n = w.num_gpus
    split = n > 1 and w.parallelism in _LAYER_SPLITS
    slack = 1 + _K["act_slack"]
    seen: dict[int, float] = {}
    act_kv = _act_kv_at(m, w, act16)

    def need(s: int) -> float:
        v = seen.get(s)
        if v is None:
            act, kv = act_kv(s)
            if split:
                act /= n
                kv /= n
            v = seen[s] = fixed + b_card * (act + kv) * slack
        return v

    lo_rel, hi_rel = _CAL.bands.get(category(m, w), (-0.2, 0.2))
    top = int(m.max_seq_len)

    def solve(cap: float) -> tuple[int, bool]:
        if need(top) <= cap:
            return top, True
        lo, hi = 0, top  # need(lo) fits (lo = 0 means nothing fits yet), need(hi) does not
        if need(CONTEXT_STEP) > cap:
            return 0, False
        lo = CONTEXT_STEP
        while hi - lo > CONTEXT_STEP // 4:
            mid = (lo + hi) // 2
            if need(mid) <= cap:
                lo = mid
            else:
                hi = mid
        return lo // CONTEXT_STEP * CONTEXT_STEP, False

    tokens, capped = solve(capacity)
    # the real total may be up to total / (1 + lo_rel) (lo_rel < 0): the context that fits then
    low, _ = solve(capacity * (1.0 + lo_rel))
    high, _ = solve(capacity * (1.0 + hi_rel))
    return MaxContext(tokens=tokens, low=min(low, tokens), high=max(high, tokens), capped=capped)


def _max_batch(t: _Terms, capacity: float) -> int:
    room = capacity - t.fixed - _overhead_fixed(t)
    per = t.per_sample * (1 + _K["act_slack"])
    if per <= 0:
        return 1_000_000 if room >= 0 else 0
    if room < per:
        return 0
    return int(room // per)


def category(model: Model, w: Workload) -> str:
    """The calibration category an estimate's band comes from."""
    if model.kind == "cnn":
        return "cnn"
    if model.kind == "diffusion":
        return "diffusion"
    if model.kind == "speech":
        return "speech"
    if model.kind == "encoder":
        return "encoder"
    if not w.trains:
        return "llm-inference"
    if w.method is _QLORA:
        return "qlora"
    if w.method is _LORA:
        return "lora"
    return "full-ft"


# --------------------------------------------------------------------------- estimate


@quick_init
@dataclass(frozen=True)  # (no slots: quick_init stores ~20 fields into a __dict__ faster)
class Estimate:
    """The memory of one card running the workload, and the verdict."""

    model_id: str
    gpu_id: str | None
    workload: Workload
    batch_size: int  # global batch the breakdown is for
    weights: float
    gradients: float
    optimizer: float
    activations: float
    kv_cache: float
    overhead: float
    total: float  # per card
    capacity: float | None  # per card
    fits: bool | None
    max_batch_size: int | None  # global; 0 = even batch 1 does not fit
    basis: str  # "measured" | "modelled"
    measured_note: str | None
    fixed_bytes: float
    per_sample_bytes: float
    # the band: what the total may really be, from the calibration error of its category
    low: float = 0.0
    high: float = 0.0
    category: str = ""
    # the fixed bytes' overhead (``_overhead_fixed`` of the terms): ``max_context`` of this estimate's
    # workload adds it to ``fixed_bytes`` instead of working the terms out again (None: not known)
    fixed_overhead: float | None = field(default=None, compare=False, repr=False)

    @property
    def headroom(self) -> float | None:
        return None if self.capacity is None else self.capacity - self.total

    @property
    def tight(self) -> bool:
        """The card's capacity falls inside the band: it may or may not fit in practice."""
        return self.capacity is not None and self.low <= self.capacity <= self.high

    def band_gb(self) -> tuple[float, float]:
        return round(self.low / GB, 2), round(self.high / GB, 2)

    def breakdown_gb(self) -> dict[str, float]:
        w, g, o = round(self.weights / GB, 2), round(self.gradients / GB, 2), round(self.optimizer / GB, 2)
        a, kv, ov = (
            round(self.activations / GB, 2),
            round(self.kv_cache / GB, 2),
            round(self.overhead / GB, 2),
        )
        # keep the rounded parts adding up to the rounded total (summed in the parts' order)
        diff = round(round(self.total / GB, 2) - sum((w, g, o, a, kv, ov)), 2)
        return {
            "weights": w,
            "gradients": g,
            "optimizer": o,
            "activations": a,
            "kv_cache": kv,
            "overhead": round(ov + diff, 2),
        }

    def assumptions(self) -> dict[str, Any]:
        w = self.workload
        out: dict[str, Any] = {
            "task": str(w.task),
            "method": str(w.method),
            "precision": str(w.precision),
            "optimizer": str(w.optimizer) if w.trains else None,
            "seq_len": w.seq_len,
            "batch_size": self.batch_size,
            "grad_checkpointing": w.grad_checkpointing if w.trains else None,
            "fused_attention": w.fused_attention,
            "num_gpus": w.num_gpus,
            "parallelism": str(w.parallelism),
        }
        if w.lora_rank:
            out["lora_rank"] = w.lora_rank
        # issue 13's settings, only when they are not the defaults (older readers see no change)
        if w.pure_16bit:
            out["pure_16bit"] = True
        if w.lora_rank and w.lora_targets != "all-linear":
            out["lora_targets"] = w.lora_targets
        if w.nf4 and w.method is not _QLORA:
            out["nf4"] = True
        if w.cpu_offload:
            out["cpu_offload"] = True
        if w.kv_cache:
            out["kv_cache"] = w.kv_cache
        return out


def _shards_on(w: Workload, t: _Terms, capacity: float) -> bool:
    """Multi-card training with no parallelism named shards when a full copy does not fit.

    LoRA / QLoRA too: FSDP shards the frozen (also 4-bit) base weights (Answer.AI's FSDP+QLoRA,
    https://www.answer.ai/posts/2024-03-06-fsdp-qlora, 2024-03-06: a 70B model trained on two 24 GB
    cards, with gradient checkpointing and CPU offload; in transformers / PEFT / bitsandbytes since)."""
    return (
        w.num_gpus > 1
        and w.trains
        and w.parallelism is _DATA
        and not w.parallelism_stated
        and _max_batch(t, capacity) == 0
    )


def estimate(
    model: Model,
    gpu: GPU | None = None,
    *,
    task: Task | None = None,
    method: Method | None = None,
    precision: Precision | None = None,
    batch_size: int | None = None,
    seq_len: int | None = None,
    optimizer: Optimizer | None = None,
    grad_checkpointing: bool | None = None,
    num_gpus: int = 1,
    parallelism: Parallelism | None = None,
    fused_attention: bool | None = None,
    resolution: int | None = None,
    workload: Workload | None = None,
    measured_max_batch: int | None = None,
    measured_note: str | None = None,
    terms: _Terms | None = None,
) -> Estimate:
    """Estimate per-card memory for ``model`` on ``gpu`` (or on no card).

    ``batch_size`` is the global batch (split across cards for data-parallel
    and sharded training). With no batch given, the breakdown is for the
    workload's default batch, or the largest that fits when that is smaller.
    ``measured_max_batch`` (from benchmark data for exactly this setting)
    replaces the modelled max batch and marks the answer as measured.
    ``terms``: ``profile(model, workload)`` when the caller has it (with ``workload`` only).
    """
    w = workload or resolve_workload(
        model,
        task=task,
        method=method,
        precision=precision,
        batch_size=batch_size,
        seq_len=seq_len,
        optimizer=optimizer,
        grad_checkpointing=grad_checkpointing,
        num_gpus=num_gpus,
        parallelism=parallelism,
        fused_attention=fused_attention,
        resolution=resolution,
    )
    t = terms if terms is not None and workload is not None else _terms(model, w)
    capacity = usable_bytes(gpu) if gpu is not None else None
    n = w.num_gpus
    if capacity is not None and _shards_on(w, t, capacity):
        w = copy_with(w, parallelism=_SHARDED)
        t = _terms(model, w)
    splits_batch = w.parallelism in _BATCH_SPLITS
    # the terms' sums once (``_max_batch`` and ``_total`` with the same arithmetic in the same order)
    fixed = t.weights + t.gradients + t.optimizer + t.act_fixed  # t.fixed
    fixed_overhead = _overhead_fixed(t)
    per_sample = t.act_per_sample + t.kv_per_sample  # t.per_sample
    per = per_sample * (1 + _K["act_slack"])

    max_b: int | None = None
    basis = "modelled"
    if capacity is not None:
        room = capacity - fixed - fixed_overhead  # _max_batch(t, capacity)
        if per <= 0:
            per_card = 1_000_000 if room >= 0 else 0
        else:
            per_card = 0 if room < per else int(room // per)
        max_b = per_card * n if splits_batch else per_card
        if measured_max_batch is not None and n == 1:
            max_b = measured_max_batch
            basis = "measured"
    if w.batch_size is not None:
        b = w.batch_size
    else:
        b = default_batch(model, w.task) * (n if splits_batch else 1)
        if max_b is not None and 0 < max_b < b:
            b = max_b
    b_card = math.ceil(b / n) if splits_batch else b
    total = fixed + fixed_overhead + b_card * per_sample * (1 + _K["act_slack"])  # _total(t, b_card)
    act = t.act_fixed + b_card * t.act_per_sample
    kv = b_card * t.kv_per_sample
    overhead = total - (t.weights + t.gradients + t.optimizer + act + kv)
    fits: bool | None = None
    if capacity is not None:
        need = w.batch_size if w.batch_size is not None else 1
        fits = (max_b or 0) >= need if basis == "measured" else total <= capacity
        if w.batch_size is None and max_b is not None:
            fits = max_b >= 1
    cat = category(model, w)
    lo_rel, hi_rel = _CAL.bands.get(cat, (-0.2, 0.2))
    # the measured figure m relates to the model's r as r = m * (1 + e), so m = r / (1 + e)
    low = total / (1.0 + hi_rel)
    high = total / (1.0 + lo_rel)
    return Estimate(
        model.id,
        gpu.id if gpu is not None else None,
        w,
        b,
        t.weights,
        t.gradients,
        t.optimizer,
        act,
        kv,
        overhead,
        total,
        capacity,
        fits,
        max_b,
        basis,
        measured_note if basis == "measured" else None,
        fixed,
        per_sample,
        low,
        high,
        cat,
        fixed_overhead,
    )


# --------------------------------------------------------------------------- suggestions


@quick_init
@dataclass(frozen=True, slots=True)
class Suggestion:
    """A change that makes the workload fit, with the new per-card total."""

    change: str  # what to say: "with 4-bit weights"
    total_gb: float
    fits: bool
    gpu_id: str | None = None
    num_gpus: int = 1
    query_patch: dict[str, Any] | None = None  # Query fields to set to ask again with this change
    parallelism: Parallelism | None = None


@quick_init
@dataclass(frozen=True, slots=True)
class Change:
    """One change a user can make to need less memory per card."""

    label: str  # "with 4-bit weights"
    patch: dict[str, Any]  # Query fields that ask the question again with this change
    workload: Workload
    batch_size: int | None = None  # the batch to check; None keeps the question's


def candidate_changes(model: Model, w: Workload, *, multi_card: bool = False) -> list[Change]:
    """Every memory-saving change that applies, cheapest to the user's goals first (``iter_changes``)."""
    return list(iter_changes(model, w, multi_card=multi_card))


def iter_changes(model: Model, w: Workload, *, multi_card: bool = False) -> Iterator[Change]:
    """Every memory-saving change that applies, cheapest to the user's goals first, each built only
    when the caller asks for the next (a caller that stops at the first that works builds no more).

    Training: gradient checkpointing (costs ~30% speed), mixed precision,
    8-bit Adam, LoRA, QLoRA. Inference: 8-bit, then 4-bit weights. Then a
    shorter sequence, batch 1 (with gradient accumulation when training),
    and with ``multi_card`` two cards splitting the model.
    """
    if w.weights_bytes is not None:
        # a build's file size holds for that build only: changes are judged from the precision
        w = copy_with(w, weights_bytes=None, format_id="")
    P = Precision
    encoders_first = False  # the first change offloads the text encoders (diffusion inference)
    if w.trains:
        if not w.grad_checkpointing:
            yield Change(
                "with gradient checkpointing",
                {"grad_checkpointing": True},
                copy_with(w, grad_checkpointing=True),
            )
        if w.precision is P.FP32:
            yield Change("in mixed precision (bf16)", {"precision": "bf16"}, copy_with(w, precision=P.BF16))
        if w.method is Method.FULL and w.optimizer is Optimizer.ADAMW:
            yield Change(
                "with 8-bit Adam", {"optimizer": "adam8bit"}, copy_with(w, optimizer=Optimizer.ADAM8BIT)
            )
        if (
            w.task is Task.TRAINING
            and w.method is Method.FULL
            and w.optimizer is Optimizer.ADAMW
            and not w.grad_checkpointing
        ):
            # both at once, before LoRA (a fine-tuning recipe, not training from scratch): what people
            # train a ~1B model from scratch with on one 24 GB card (bf16 + 8-bit Adam + gradient
            # checkpointing), still full training as asked
            yield Change(
                "with gradient checkpointing and 8-bit Adam",
                {"grad_checkpointing": True, "optimizer": "adam8bit"},
                copy_with(w, grad_checkpointing=True, optimizer=Optimizer.ADAM8BIT),
            )
        if w.method is Method.FULL and model.kind in TRANSFORMER_KINDS:
            lora = copy_with(
                w,
                method=Method.LORA,
                task=Task.FINETUNE,
                lora_rank=LORA_RANK,
                grad_checkpointing=True,
                precision=P.BF16,
            )
            yield Change("with LoRA", {"method": "lora"}, lora)
        te_cached = (
            model.kind == "diffusion"
            and w.method in (Method.LORA, Method.QLORA)
            and not w.offload_text_encoders
            and any(c.role == "text_encoder" for c in model.components)
        )
        if te_cached:
            # diffusion LoRA: the text encoders' outputs cached before training, the encoders off the card
            patch: dict[str, Any] = {"offload_text_encoders": True}
            if not w.grad_checkpointing:
                patch["grad_checkpointing"] = True
            both = copy_with(w, offload_text_encoders=True, grad_checkpointing=True)
            yield Change("with the text encoders' outputs cached", patch, both)
        if model.kind == "diffusion" and w.method is Method.LORA:
            # QLoRA of the denoiser (bitsandbytes NF4 base, as in Hugging Face's FLUX QLoRA recipe)
            yield Change(
                "with QLoRA, the text encoders' outputs cached",
                {"method": "qlora", "offload_text_encoders": True},
                copy_with(
                    w,
                    method=Method.QLORA,
                    precision=P.INT4,
                    nf4=True,
                    grad_checkpointing=True,
                    offload_text_encoders=bool(model.components),
                ),
            )
        if w.method is not Method.QLORA and model.kind in TRANSFORMER_KINDS:
            qlora = copy_with(
                w,
                method=Method.QLORA,
                task=Task.FINETUNE,
                lora_rank=QLORA_RANK,
                grad_checkpointing=True,
                precision=P.INT4,
                seq_len=min(w.seq_len or QLORA_SEQ_LEN, QLORA_SEQ_LEN),
            )
            yield Change("with QLoRA", {"method": "qlora"}, qlora)
    else:
        if (
            model.kind == "diffusion"
            and not w.offload_text_encoders
            and any(c.role == "text_encoder" for c in model.components)
        ):
            encoders_first = True
            yield Change(
                "with the text encoders offloaded to CPU",
                {"offload_text_encoders": True},
                copy_with(w, offload_text_encoders=True),
            )
        for p, label in ((P.INT8, "with 8-bit weights"), (P.INT4, "with 4-bit weights")):
            if _WEIGHT_BYTES[p] < _WEIGHT_BYTES[w.precision]:
                yield Change(label, {"precision": p.value}, copy_with(w, precision=p))
        if encoders_first:
            # what people run on 8-12 GB cards: both at once (an fp8 / NF4 transformer, encoders on CPU)
            for p, label in ((P.INT8, "8-bit"), (P.INT4, "4-bit")):
                if _WEIGHT_BYTES[p] < _WEIGHT_BYTES[w.precision]:
                    yield Change(
                        f"with {label} weights and the text encoders on CPU",
                        {"precision": p.value, "offload_text_encoders": True},
                        copy_with(w, precision=p, offload_text_encoders=True),
                    )
    if w.seq_len and w.seq_len > 512 and model.kind in TRANSFORMER_KINDS:
        yield Change("at seq 512", {"seq_len": 512}, copy_with(w, seq_len=512))
    if (w.batch_size or 1) > 1:
        label = "with batch 1 (and gradient accumulation)" if w.trains else "with batch 1"
        yield Change(label, {"batch_size": 1}, copy_with(w, batch_size=1), 1)
    if multi_card and not w.trains and w.num_gpus == 1:
        low = P.INT4 if _WEIGHT_BYTES[P.INT4] < _WEIGHT_BYTES[w.precision] else w.precision
        label = (
            "with 4-bit weights on 2 cards (tensor parallel)"
            if low is not w.precision
            else "on 2 cards (tensor parallel)"
        )
        yield Change(
            label,
            {"precision": low.value, "num_gpus": 2},
            copy_with(w, precision=low, num_gpus=2, parallelism=Parallelism.TENSOR),
        )


def suggest_changes(
    model: Model,
    gpu: GPU,
    est: Estimate,
    gpus: Sequence[GPU] | None = None,
    limit: int = 3,
    capacities: Sequence[float] | None = None,
) -> list[Suggestion]:
    """The cheapest changes that would make ``est`` fit this card, cheapest first.

    A smaller batch (the largest that fits), then ``candidate_changes`` in
    their order, then more identical cards, and the smallest card in ``gpus``
    that fits as asked (``capacities``: each one's ``usable_bytes``, when the caller has them).
    """
    if est.fits:
        return []
    w = est.workload
    capacity = usable_bytes(gpu)
    out: list[Suggestion] = []

    def trial(change: str, patch: dict[str, Any], nw: Workload) -> None:
        if len(out) >= limit:
            return
        e = estimate(model, gpu, workload=nw)
        if e.total <= capacity and (e.max_batch_size or 0) >= 1:
            if nw.num_gpus > 1:
                change += f" ({_PAR_NAMES[e.workload.parallelism].split(' (')[0]} over {nw.num_gpus} cards)"
            out.append(
                Suggestion(
                    change, round(e.total / GB, 1), True, gpu.id, nw.num_gpus, patch, e.workload.parallelism
                )
            )

    if w.batch_size is not None and w.batch_size > 1 and (est.max_batch_size or 0) >= 1:
        b = est.max_batch_size or 1
        trial(f"batch {b}", {"batch_size": b}, copy_with(w, batch_size=b))
    for c in iter_changes(model, w):
        if len(out) >= limit:
            break  # (``trial`` adds nothing more: the rest of the changes are not built)
        if c.batch_size == 1 and out and out[0].query_patch and "batch_size" in out[0].query_patch:
            continue  # "batch N" already said it
        trial(c.label, c.patch, c.workload)
    # more identical cards: as asked, then (inference) with 4-bit weights, fewest cards first
    # training, LoRA / QLoRA included, shards over more cards (FSDP; see ``_shards_on``)
    par = Parallelism.TENSOR if not w.trains else Parallelism.SHARDED
    ladders = [(w, "")]
    if not w.trains and _WEIGHT_BYTES[Precision.INT4] < _WEIGHT_BYTES[w.precision]:
        ladders.append((copy_with(w, precision=Precision.INT4), "with 4-bit weights "))
    if not w.trains and model.kind in ("cnn", "diffusion"):
        ladders = []  # one image is not split across cards in practice: more cards only add throughput
    for base, prefix in ladders:
        if len(out) >= limit:
            break
        for n in (2, 4, 8):
            if n <= w.num_gpus:
                continue
            nw = copy_with(base, num_gpus=n, parallelism=par)
            e = estimate(model, gpu, workload=nw)
            if e.fits and (e.max_batch_size or 0) >= 1:
                label = f"{prefix}on {n} cards, {_PAR_NAMES[par].split(' (')[0]}"
                patch: dict[str, Any] = {"num_gpus": n}
                if prefix:
                    patch["precision"] = Precision.INT4.value
                out.append(Suggestion(label, round(e.total / GB, 1), True, gpu.id, n, patch, par))
                break
    if gpus and len(out) < limit + 1:
        need = 1 if w.batch_size is None else w.batch_size
        # each card's max batch as ``estimate`` finds it, from the workload's terms computed once
        t = _terms(model, w)
        splits = w.parallelism in (Parallelism.DATA, Parallelism.SHARDED)
        caps = capacities if capacities is not None else [usable_bytes(g) for g in gpus]
        per_card = max_batch_per_cards(t, list(caps))  # (``_max_batch`` of each, its terms' sums once)
        # ``_shards_on(w, t, cap)``: these four, and no batch fits the card
        may_shard = (
            w.num_gpus > 1 and w.trains and w.parallelism is Parallelism.DATA and not w.parallelism_stated
        )
        sharded: _Terms | None = None
        best: tuple[float, GPU] | None = None
        for g, cap, mb in zip(gpus, caps, per_card, strict=True):
            if g.vram_gb <= gpu.vram_gb:
                continue
            if may_shard and mb == 0:
                if sharded is None:
                    sharded = _terms(model, copy_with(w, parallelism=Parallelism.SHARDED))
                max_b = _max_batch(sharded, cap) * w.num_gpus  # sharded: the batch splits
            else:
                max_b = mb * (w.num_gpus if splits else 1)
            if max_b >= need:
                key = g.vram_gb
                if best is None or key < best[0]:
                    best = (key, g)
        if best is not None:
            _, g = best
            e = estimate(model, g, workload=w)
            out.append(Suggestion("the smallest card that fits", round(e.total / GB, 1), True, g.id))
    return out
