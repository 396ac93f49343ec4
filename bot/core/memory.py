"""Memory-fit model: will a model fit a card, what the memory is made of, the largest batch.

Every figure the bot gives comes from these formulas, so a user can check it.
Sizes are bytes; answers show decimal GB (1 GB = 1e9 bytes). A card's VRAM is
what the vendor sells as "24 GB", which is 24 GiB of memory chips, so its
capacity is ``vram_gb * 2**30`` bytes (25.8 GB): answers say "about 20.1 of
25.8 GB used" so both figures are in one unit.

Notation: P parameters, L transformer blocks, h hidden size, a attention
heads, kv key/value heads (grouped-query attention), d head dimension, f FFN
(intermediate) size, V vocabulary, s sequence length, b batch size per card,
n cards.

Weights (bytes per parameter)
    fp32 4; fp16/bf16 2; fp8 and int8 1; int4 (GPTQ/AWQ, group size 128, fp16
    scale + zero per group) 4.25 bits; QLoRA's NF4 with double quantization
    4.127 bits (Dettmers et al. 2023, "QLoRA", section 3). Quantized formats
    keep the token embedding (V*h) in 16 bits, as bitsandbytes, GPTQ and AWQ
    do. A mixture-of-experts model holds all experts' weights (P = total).

Full training / full fine-tuning (Rajbhandari et al. 2020, "ZeRO", section 3.1)
    mixed precision with Adam/AdamW: 16 bytes per parameter = fp16/bf16
    weights 2 + gradients 2 + fp32 master weights 4 + Adam m 4 + v 4.
    Optimizer column = master weights + states: AdamW 12, SGD with momentum 8,
    8-bit Adam 6 (Dettmers et al. 2021, "8-bit Optimizers": states 2 bytes).
    fp32 training: weights 4 + gradients 4 + AdamW 8 (SGD 4, 8-bit Adam 2).

LoRA (Hu et al. 2021) as people run it (PEFT): rank 16 on every linear layer
    of the blocks (q, k, v, o and the MLP); base weights frozen in bf16; the
    adapters trained in fp32 with AdamW (16 bytes per adapter parameter).
    Adapter parameters per block: r*(h+a*d) for q and o each, r*(h+kv*d) for
    k and v each, r*(h+f) per MLP matrix (3 matrices for gated MLPs).
QLoRA (Dettmers et al. 2023): base in NF4 with double quantization, rank 64
    on all linear layers, bf16 adapters (weights 2 + gradients 2 bytes),
    paged AdamW with 32-bit states (8 bytes; paged: spills to CPU RAM under
    pressure, counted here as if resident), gradient checkpointing on,
    sequence length 512.

Activations stored for the backward pass, per sample, per transformer block
(Korthikanti et al. 2022, "Reducing Activation Recomputation in Large
Transformer Models", eq. 1, 16-bit activations, no tensor parallelism):
    s*h*34 + 5*a*s^2 bytes for a GPT block with f = 4h. Written out so other
    FFN sizes work: 18*s*h (attention inputs, Q, K, V, projections, layer
    norms, dropout masks) + 4*s*f (MLP; 6*s*f for gated MLPs, three f-wide
    tensors) + 5*a*s^2 (attention scores, softmax, dropout: the quadratic
    term). A fused attention kernel (FlashAttention, PyTorch SDPA) never
    stores the s^2 scores: the default here, since PyTorch >= 2.0 uses one;
    say "without flash attention" for the quadratic term.
    MoE blocks route each token through k experts: the f term times k.
    Output logits for language-model training: 6*s*V bytes (bf16 logits
    plus an fp32 copy for the loss). fp32 training doubles activations.
    Gradient checkpointing (Chen et al. 2016) keeps each block's input,
    2*s*h bytes per block, plus one block's activations during recompute.
Inference activations are transient: one block's working set,
    s*(4h + 2f) * 2 bytes (+ 2*a*s^2 * 2 bytes without fused attention).
KV cache (inference): 2 * L_dec * kv * d * s * bytes per sample (K and V,
    every decoder block; 2 bytes in fp16/bf16, the usual cache precision also
    for int8/int4 weights). Grouped-query attention shrinks it by a/kv.
    DeepSeek's multi-head latent attention caches ``kv_cache_dim`` values per
    token per layer instead (576; DeepSeek-V2 paper, section 2.1).
CNNs and diffusion pipelines: no closed form; each model carries
    ``activation_mb_per_sample`` (fp32 training for CNNs, fp16 inference for
    diffusion denoisers) at its native resolution, calibrated against
    measured max batch sizes (the 2020 guide's tables and Lambda's
    TensorFlow benchmark batches; see ``activation_basis`` in models.yaml).
    It scales with pixel count ((res/native)^2). Mixed precision halves it;
    inference keeps about a tenth of it live; gradient checkpointing keeps
    about a third.
Framework overhead: CUDA context and library workspaces (0.6 GB), plus 8% of
    activations and KV cache (many short-lived blocks fragment PyTorch's
    caching allocator; measured overheads are 5-10%) and 2% of weights,
    gradients and optimizer states (few large long-lived blocks). The CNN
    activation figures were calibrated with these constants in place.

Multi-GPU (n identical cards; verdicts are per card):
    data parallel: every card holds everything; the batch is split n ways.
    sharded (FSDP / ZeRO-3): weights, gradients and optimizer states / n,
        plus one gathered block at a time; batch split n ways.
    tensor / pipeline (inference): weights, KV cache and activations / n.
    Only sharded, tensor and pipeline split the model; data parallel never
    adds cards' VRAM together.

Total memory is affine in batch size (fixed + b * per_sample), so the
largest batch that fits is solved for directly, not searched.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from bot.core.types import Method, Optimizer, Parallelism, Precision, Task

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
]

GB = 1e9
GIB = 2**30
CUDA_CONTEXT_BYTES = 0.6e9
ALLOC_FRACTION = 0.08  # on activations and KV cache: many short-lived blocks fragment the caching allocator
STATE_FRACTION = 0.02  # on weights, gradients, optimizer states: few large long-lived blocks

TRANSFORMER_KINDS = frozenset({"encoder", "decoder", "encoder-decoder", "speech", "moe-decoder"})
_GATED_KINDS = frozenset({"decoder", "moe-decoder"})
_LM_KINDS = frozenset({"decoder", "moe-decoder", "encoder-decoder", "speech"})

LORA_RANK = 16
QLORA_RANK = 64
QLORA_SEQ_LEN = 512
FINETUNE_DECODER_SEQ_LEN = 512

_WEIGHT_BYTES = {
    Precision.FP32: 4.0,
    Precision.FP16: 2.0,
    Precision.BF16: 2.0,
    Precision.FP8: 1.0,
    Precision.INT8: 1.0,
    Precision.INT4: 4.25 / 8,
}
NF4_DQ_BYTES = 4.127 / 8
# activation bytes relative to 16-bit
_ACT_FACTOR = {
    Precision.FP32: 2.0,
    Precision.FP16: 1.0,
    Precision.BF16: 1.0,
    Precision.FP8: 1.0,  # fp8 stacks keep activations in bf16 between matmuls
    Precision.INT8: 1.0,
    Precision.INT4: 1.0,
}
# optimizer column (master weights + states), bytes per trainable parameter
_OPT_MIXED = {Optimizer.ADAMW: 12.0, Optimizer.SGD: 8.0, Optimizer.ADAM8BIT: 6.0}
_OPT_FP32 = {Optimizer.ADAMW: 8.0, Optimizer.SGD: 4.0, Optimizer.ADAM8BIT: 2.0}

CNN_INFERENCE_FRACTION = 0.1
CNN_CHECKPOINT_FRACTION = 0.35
DIFFUSION_TRAIN_FACTOR = 5.0


@dataclass(frozen=True, slots=True)
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

    @property
    def trains(self) -> bool:
        return self.task is not Task.INFERENCE

    def describe(self) -> str:
        """One line a user can correct in a follow-up."""
        parts: list[str] = []
        if self.task is Task.INFERENCE:
            parts.append("inference")
        elif self.method is Method.QLORA:
            parts.append("QLoRA fine-tuning (NF4 + double quant, paged AdamW, rank 64)")
        elif self.method is Method.LORA:
            parts.append(f"LoRA fine-tuning (rank {self.lora_rank}, bf16 base)")
        else:
            parts.append("full fine-tuning" if self.task is Task.FINETUNE else "training")
        if self.method not in (Method.QLORA,):
            parts.append(_precision_phrase(self))
        if self.trains and self.method is Method.FULL:
            parts.append(_OPT_NAMES[self.optimizer])
        if self.seq_len:
            parts.append(f"seq {self.seq_len}")
        if self.resolution:
            parts.append(f"{self.resolution}px")
        if self.offload_text_encoders:
            parts.append("text encoders offloaded to CPU")
        if self.trains and self.grad_checkpointing:
            parts.append("gradient checkpointing")
        if self.num_gpus > 1:
            parts.append(f"{self.num_gpus} cards, {_PAR_NAMES[self.parallelism]}")
        return ", ".join(parts)


_OPT_NAMES = {Optimizer.ADAMW: "AdamW", Optimizer.SGD: "SGD with momentum", Optimizer.ADAM8BIT: "8-bit Adam"}
_PAR_NAMES = {
    Parallelism.DATA: "data parallel (each card holds the model)",
    Parallelism.SHARDED: "sharded (FSDP/ZeRO-3)",
    Parallelism.TENSOR: "tensor parallel (model split across cards)",
    Parallelism.PIPELINE: "pipeline parallel (layers split across cards)",
}


def _precision_phrase(w: Workload) -> str:
    p = w.precision
    if w.trains and p in (Precision.FP16, Precision.BF16):
        return f"mixed precision ({p})"
    if p is Precision.INT4:
        return "4-bit weights (int4)"
    if p is Precision.INT8:
        return "8-bit weights (int8)"
    return str(p)


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
) -> Workload:
    """Apply the defaults a user would expect, recording each one."""
    notes: list[str] = []
    if method in (Method.LORA, Method.QLORA) and task in (None, Task.TRAINING):
        task = Task.FINETUNE
    if task is None:
        task = default_task(model)
    if task is Task.INFERENCE:
        method = Method.FULL
    elif method is None:
        method = Method.FULL
    if precision is None:
        precision = Precision.INT4 if method is Method.QLORA else Precision.FP16
        if model.kind == "decoder" or model.kind == "moe-decoder":
            precision = Precision.INT4 if method is Method.QLORA else Precision.BF16
    if task is not Task.INFERENCE and method is Method.FULL and precision in (Precision.INT8, Precision.INT4):
        # quantized weights cannot be trained directly: the real recipe is LoRA on a quantized base
        method = Method.QLORA if precision is Precision.INT4 else Method.LORA
        task = Task.FINETUNE
        notes.append(f"{precision} weights cannot be fully trained; assumed LoRA on a {precision} base")
    if method is Method.QLORA:
        precision = Precision.INT4
    if optimizer is None:
        optimizer = Optimizer.ADAMW
    if grad_checkpointing is None:
        grad_checkpointing = method is Method.QLORA or (method is Method.LORA and model.kind in _GATED_KINDS)
    if fused_attention is None:
        fused_attention = True
    if seq_len is None and model.kind in TRANSFORMER_KINDS and model.default_seq_len:
        seq_len = model.default_seq_len
        if task is Task.FINETUNE and model.kind in _GATED_KINDS:
            seq_len = QLORA_SEQ_LEN if method is Method.QLORA else min(seq_len, FINETUNE_DECODER_SEQ_LEN)
    num_gpus = max(1, int(num_gpus))
    if parallelism is None:
        if num_gpus == 1:
            parallelism = Parallelism.DATA
        elif task is Task.INFERENCE:
            parallelism = Parallelism.TENSOR
        else:
            parallelism = Parallelism.DATA  # refined in estimate(): sharded when a copy does not fit
    lora_rank = QLORA_RANK if method is Method.QLORA else (LORA_RANK if method is Method.LORA else None)
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
        lora_rank=lora_rank,
        resolution=resolution if model.kind in ("cnn", "diffusion") else None,
        offload_text_encoders=bool(offload_text_encoders)
        and model.kind == "diffusion"
        and task is Task.INFERENCE,
        notes=tuple(notes),
    )


# --------------------------------------------------------------------------- terms


@dataclass(frozen=True, slots=True)
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


def _embedding_params(m: Model) -> int:
    if m.vocab and m.hidden:
        return int(m.vocab * m.hidden)
    return 0


def lora_params(m: Model, rank: int) -> int:
    """Adapter parameters for rank-r LoRA on every linear layer of the blocks."""
    if m.kind in TRANSFORMER_KINDS and m.layers and m.hidden:
        h, d, a = m.hidden, _head_dim(m), int(m.heads or 1)
        kv = m.kv_heads or a
        f = m.ffn or 4 * h
        attn = rank * (h + a * d) * 2 + rank * (h + kv * d) * 2
        mats = 3 if m.kind in _GATED_KINDS else 2
        experts = (m.experts or 1) if m.kind == "moe-decoder" else 1
        mlp = mats * rank * (h + f) * experts
        return int(m.layers * (attn + mlp))
    # CNNs / diffusion: adapters on the attention and conv projections, ~1% at rank 16
    return int(_trainable_params(m) * 0.01 * rank / LORA_RANK)


def _trainable_params(m: Model) -> int:
    if m.kind == "diffusion" and m.components:
        return sum(c.params for c in m.components if c.role == "denoiser")
    return int(m.params)


def _weight_bytes(m: Model, precision: Precision, *, nf4: bool = False) -> float:
    per = NF4_DQ_BYTES if nf4 else _WEIGHT_BYTES[precision]
    if per >= 2.0:
        return m.params * per
    emb = _embedding_params(m)
    return (m.params - emb) * per + emb * 2.0


def _terms(m: Model, w: Workload) -> _Terms:
    """Per-card bytes for one card of the workload (before framework overhead)."""
    n = w.num_gpus
    par = w.parallelism
    act16 = _ACT_FACTOR[w.precision]
    trains = w.trains

    # --- weights, gradients, optimizer
    if not trains:
        weights = _weight_bytes(m, w.precision)
        if w.offload_text_encoders and m.components:
            # the prompt is encoded once, then the encoders go back to CPU RAM (diffusers'
            # enable_model_cpu_offload): the peak holds denoiser + VAE, not the encoders
            per = weights / m.params
            weights -= per * sum(c.params for c in m.components if c.role == "text_encoder")
        grads = opt = 0.0
    elif w.method is Method.FULL:
        mixed = w.precision is not Precision.FP32
        if m.kind == "diffusion" and m.components:
            train_p = _trainable_params(m)
            frozen = m.params - train_p
            weights = train_p * (2.0 if mixed else 4.0) + frozen * (2.0 if mixed else 4.0)
        else:
            train_p = int(m.params)
            weights = train_p * (2.0 if mixed else 4.0)
        grads = train_p * (2.0 if mixed else 4.0)
        opt = train_p * (_OPT_MIXED if mixed else _OPT_FP32)[w.optimizer]
    else:
        rank = w.lora_rank or LORA_RANK
        lp = lora_params(m, rank)
        if w.method is Method.QLORA:
            weights = _weight_bytes(m, Precision.INT4, nf4=True) + lp * 2.0
            grads = lp * 2.0
            opt = lp * 8.0
        else:
            if w.precision in (Precision.FP16, Precision.BF16):
                weights = m.params * 2.0
            else:
                weights = _weight_bytes(m, w.precision)
            weights += lp * 4.0
            grads = lp * 4.0
            opt = lp * _OPT_FP32[w.optimizer]

    split_model = par in (Parallelism.SHARDED, Parallelism.TENSOR, Parallelism.PIPELINE) and n > 1
    act_fixed = 0.0
    if split_model:
        weights /= n
        grads /= n
        opt /= n
        if par is Parallelism.SHARDED and m.layers:
            # one block's full weights gathered (and its gradient before reduce-scatter)
            act_fixed += 2 * (m.params / m.layers) * 2.0

    # --- activations and KV cache, per sample
    kv = 0.0
    if m.kind in TRANSFORMER_KINDS and m.activation_mb_per_sample is None:
        s = w.seq_len or m.default_seq_len or 512
        h, a, L = int(m.hidden or 0), int(m.heads or 1), int(m.layers or 1)
        f = (m.ffn or 4 * h) * ((m.experts_per_token or 1) if m.kind == "moe-decoder" else 1)
        f_coef = 6 if m.kind in _GATED_KINDS else 4
        if trains:
            block: float = s * h * 18 + s * f * f_coef
            if not w.fused_attention:
                block += 5 * a * s * s
            block *= act16
            if w.grad_checkpointing:
                per = L * 2 * s * h * act16 + block
            else:
                per = L * block
            if m.kind in _LM_KINDS and m.vocab:
                per += 6 * s * m.vocab
        else:
            per = (s * (4 * h + 2 * f) + (0 if w.fused_attention else 2 * a * s * s)) * 2 * act16
            if m.kind in _LM_KINDS and m.vocab:
                per += 4 * m.vocab
            if m.kind != "encoder":
                dec_layers = m.decoder_layers or (L // 2 if m.kind in ("encoder-decoder", "speech") else L)
                kv_bytes = 4.0 if w.precision is Precision.FP32 else 2.0
                per_token = m.kv_cache_dim or 2 * (m.kv_heads or a) * _head_dim(m)
                kv = dec_layers * per_token * s * kv_bytes
        act = per
    else:
        base = (m.activation_mb_per_sample or 0.0) * 1e6 * _res_factor(m, w.resolution)
        if m.kind == "diffusion":
            # figure is fp16 inference for one image
            act = base * act16
            if trains:
                act *= DIFFUSION_TRAIN_FACTOR
                if w.grad_checkpointing:
                    act *= CNN_CHECKPOINT_FRACTION
        elif m.kind in TRANSFORMER_KINDS:
            # calibrated per-sequence figure (e.g. conv seq2seq), 16-bit training at default seq
            s = w.seq_len or m.default_seq_len or 1
            scale = s / (m.default_seq_len or s)
            act = base * scale * act16 * (1.0 if trains else CNN_INFERENCE_FRACTION)
        else:
            # fp32 training figure
            act = base * (act16 / 2.0)
            if not trains:
                act *= CNN_INFERENCE_FRACTION
            elif w.grad_checkpointing:
                act *= CNN_CHECKPOINT_FRACTION

    if split_model and par in (Parallelism.TENSOR, Parallelism.PIPELINE):
        act /= n
        kv /= n
    return _Terms(weights, grads, opt, act_fixed, act, kv)


def _res_factor(m: Model, resolution: int | None) -> float:
    """Activations scale with pixel count: (asked side / native side)^2."""
    if not resolution:
        return 1.0
    return (resolution / _res_side(m)) ** 2


def usable_bytes(gpu: GPU) -> float:
    """Capacity of one card in bytes (VRAM is sold in GiB)."""
    return float(gpu.vram_gb) * GIB


def profile(model: Model, workload: Workload) -> _Terms:
    """Per-card fixed and per-sample bytes for a workload: independent of the card,
    so a recommendation computes it once and checks every card with arithmetic."""
    return _terms(model, workload)


def max_batch_per_card(terms: _Terms, gpu: GPU) -> int:
    return _max_batch(terms, usable_bytes(gpu))


def max_batches(terms: _Terms, capacities: list[float]) -> list[int]:
    """``max_batch_per_card`` for many cards at once (a recommendation checks every card)."""
    fixed = terms.fixed + _overhead_fixed(terms)
    per = terms.per_sample * (1 + ALLOC_FRACTION)
    if per <= 0:
        return [1_000_000 if cap >= fixed else 0 for cap in capacities]
    return [int((cap - fixed) // per) if cap - fixed >= per else 0 for cap in capacities]


def total_bytes(terms: _Terms, batch_per_card: float) -> float:
    return _total(terms, batch_per_card)


def _overhead_fixed(t: _Terms) -> float:
    return (
        CUDA_CONTEXT_BYTES
        + STATE_FRACTION * (t.weights + t.gradients + t.optimizer)
        + ALLOC_FRACTION * t.act_fixed
    )


def _total(t: _Terms, b: float) -> float:
    return t.fixed + _overhead_fixed(t) + b * t.per_sample * (1 + ALLOC_FRACTION)


def _max_batch(t: _Terms, capacity: float) -> int:
    room = capacity - t.fixed - _overhead_fixed(t)
    per = t.per_sample * (1 + ALLOC_FRACTION)
    if per <= 0:
        return 1_000_000 if room >= 0 else 0
    if room < per:
        return 0
    return int(room // per)


# --------------------------------------------------------------------------- estimate


@dataclass(frozen=True, slots=True)
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

    @property
    def headroom(self) -> float | None:
        return None if self.capacity is None else self.capacity - self.total

    def breakdown_gb(self) -> dict[str, float]:
        parts = {
            "weights": self.weights,
            "gradients": self.gradients,
            "optimizer": self.optimizer,
            "activations": self.activations,
            "kv_cache": self.kv_cache,
            "overhead": self.overhead,
        }
        out = {k: round(v / GB, 2) for k, v in parts.items()}
        # keep the rounded parts adding up to the rounded total
        diff = round(round(self.total / GB, 2) - sum(out.values()), 2)
        out["overhead"] = round(out["overhead"] + diff, 2)
        return out

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
        return out


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
) -> Estimate:
    """Estimate per-card memory for ``model`` on ``gpu`` (or on no card).

    ``batch_size`` is the global batch (split across cards for data-parallel
    and sharded training). With no batch given, the breakdown is for the
    workload's default batch, or the largest that fits when that is smaller.
    ``measured_max_batch`` (from benchmark data for exactly this setting)
    replaces the modelled max batch and marks the answer as measured.
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
    t = _terms(model, w)
    capacity = usable_bytes(gpu) if gpu is not None else None
    n = w.num_gpus
    # multi-card training with no parallelism named: shard when a full copy does not fit
    if (
        capacity is not None
        and n > 1
        and w.trains
        and w.parallelism is Parallelism.DATA
        and w.method is Method.FULL
        and _max_batch(t, capacity) == 0
    ):
        w = replace(w, parallelism=Parallelism.SHARDED)
        t = _terms(model, w)
    splits_batch = w.parallelism in (Parallelism.DATA, Parallelism.SHARDED)

    max_b: int | None = None
    basis = "modelled"
    if capacity is not None:
        per_card = _max_batch(t, capacity)
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
    total = _total(t, b_card)
    act = t.act_fixed + b_card * t.act_per_sample
    kv = b_card * t.kv_per_sample
    overhead = total - (t.weights + t.gradients + t.optimizer + act + kv)
    fits: bool | None = None
    if capacity is not None:
        need = w.batch_size if w.batch_size is not None else 1
        fits = (max_b or 0) >= need if basis == "measured" else total <= capacity
        if w.batch_size is None and max_b is not None:
            fits = max_b >= 1
    return Estimate(
        model_id=model.id,
        gpu_id=gpu.id if gpu is not None else None,
        workload=w,
        batch_size=b,
        weights=t.weights,
        gradients=t.gradients,
        optimizer=t.optimizer,
        activations=act,
        kv_cache=kv,
        overhead=overhead,
        total=total,
        capacity=capacity,
        fits=fits,
        max_batch_size=max_b,
        basis=basis,
        measured_note=measured_note if basis == "measured" else None,
        fixed_bytes=t.fixed,
        per_sample_bytes=t.per_sample,
    )


# --------------------------------------------------------------------------- suggestions


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


@dataclass(frozen=True, slots=True)
class Change:
    """One change a user can make to need less memory per card."""

    label: str  # "with 4-bit weights"
    patch: dict[str, Any]  # Query fields that ask the question again with this change
    workload: Workload
    batch_size: int | None = None  # the batch to check; None keeps the question's


def candidate_changes(model: Model, w: Workload, *, multi_card: bool = False) -> list[Change]:
    """Every memory-saving change that applies, cheapest to the user's goals first.

    Training: gradient checkpointing (costs ~30% speed), mixed precision,
    8-bit Adam, LoRA, QLoRA. Inference: 8-bit, then 4-bit weights. Then a
    shorter sequence, batch 1 (with gradient accumulation when training),
    and with ``multi_card`` two cards splitting the model.
    """
    P = Precision
    out: list[Change] = []
    if w.trains:
        if not w.grad_checkpointing:
            out.append(
                Change(
                    "with gradient checkpointing",
                    {"grad_checkpointing": True},
                    replace(w, grad_checkpointing=True),
                )
            )
        if w.precision is P.FP32:
            out.append(
                Change("in mixed precision (bf16)", {"precision": "bf16"}, replace(w, precision=P.BF16))
            )
        if w.method is Method.FULL and w.optimizer is Optimizer.ADAMW:
            out.append(
                Change("with 8-bit Adam", {"optimizer": "adam8bit"}, replace(w, optimizer=Optimizer.ADAM8BIT))
            )
        if w.method is Method.FULL and model.kind in TRANSFORMER_KINDS:
            lora = replace(
                w,
                method=Method.LORA,
                task=Task.FINETUNE,
                lora_rank=LORA_RANK,
                grad_checkpointing=True,
                precision=P.BF16,
            )
            out.append(Change("with LoRA", {"method": "lora"}, lora))
        if w.method is not Method.QLORA and model.kind in TRANSFORMER_KINDS:
            qlora = replace(
                w,
                method=Method.QLORA,
                task=Task.FINETUNE,
                lora_rank=QLORA_RANK,
                grad_checkpointing=True,
                precision=P.INT4,
                seq_len=min(w.seq_len or QLORA_SEQ_LEN, QLORA_SEQ_LEN),
            )
            out.append(Change("with QLoRA", {"method": "qlora"}, qlora))
    else:
        if (
            model.kind == "diffusion"
            and not w.offload_text_encoders
            and any(c.role == "text_encoder" for c in model.components)
        ):
            out.append(
                Change(
                    "with the text encoders offloaded to CPU",
                    {"offload_text_encoders": True},
                    replace(w, offload_text_encoders=True),
                )
            )
        for p, label in ((P.INT8, "with 8-bit weights"), (P.INT4, "with 4-bit weights")):
            if _WEIGHT_BYTES[p] < _WEIGHT_BYTES[w.precision]:
                out.append(Change(label, {"precision": p.value}, replace(w, precision=p)))
        if out and out[0].patch.get("offload_text_encoders"):
            # what people run on 8-12 GB cards: both at once (an fp8 / NF4 transformer, encoders on CPU)
            for p, label in ((P.INT8, "8-bit"), (P.INT4, "4-bit")):
                if _WEIGHT_BYTES[p] < _WEIGHT_BYTES[w.precision]:
                    out.append(
                        Change(
                            f"with {label} weights and the text encoders on CPU",
                            {"precision": p.value, "offload_text_encoders": True},
                            replace(w, precision=p, offload_text_encoders=True),
                        )
                    )
    if w.seq_len and w.seq_len > 512 and model.kind in TRANSFORMER_KINDS:
        out.append(Change("at seq 512", {"seq_len": 512}, replace(w, seq_len=512)))
    if (w.batch_size or 1) > 1:
        label = "with batch 1 (and gradient accumulation)" if w.trains else "with batch 1"
        out.append(Change(label, {"batch_size": 1}, replace(w, batch_size=1), 1))
    if multi_card and not w.trains and w.num_gpus == 1:
        low = P.INT4 if _WEIGHT_BYTES[P.INT4] < _WEIGHT_BYTES[w.precision] else w.precision
        label = (
            "with 4-bit weights on 2 cards (tensor parallel)"
            if low is not w.precision
            else "on 2 cards (tensor parallel)"
        )
        out.append(
            Change(
                label,
                {"precision": low.value, "num_gpus": 2},
                replace(w, precision=low, num_gpus=2, parallelism=Parallelism.TENSOR),
            )
        )
    return out


def suggest_changes(
    model: Model,
    gpu: GPU,
    est: Estimate,
    gpus: list[GPU] | None = None,
    limit: int = 3,
) -> list[Suggestion]:
    """The cheapest changes that would make ``est`` fit this card, cheapest first.

    A smaller batch (the largest that fits), then ``candidate_changes`` in
    their order, then more identical cards, and the smallest card in ``gpus``
    that fits as asked.
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
        trial(f"batch {b}", {"batch_size": b}, replace(w, batch_size=b))
    for c in candidate_changes(model, w):
        if c.batch_size == 1 and out and out[0].query_patch and "batch_size" in out[0].query_patch:
            continue  # "batch N" already said it
        trial(c.label, c.patch, c.workload)
    # more identical cards: as asked, then (inference) with 4-bit weights, fewest cards first
    par = Parallelism.TENSOR if not w.trains else Parallelism.SHARDED
    if w.trains and w.method is not Method.FULL:
        par = Parallelism.DATA
    ladders = [(w, "")]
    if not w.trains and _WEIGHT_BYTES[Precision.INT4] < _WEIGHT_BYTES[w.precision]:
        ladders.append((replace(w, precision=Precision.INT4), "with 4-bit weights "))
    if not w.trains and model.kind in ("cnn", "diffusion"):
        ladders = []  # one image is not split across cards in practice: more cards only add throughput
    for base, prefix in ladders:
        if len(out) >= limit:
            break
        for n in (2, 4, 8):
            if n <= w.num_gpus:
                continue
            nw = replace(base, num_gpus=n, parallelism=par)
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
        best: tuple[float, GPU, Estimate] | None = None
        for g in gpus:
            if g.vram_gb <= gpu.vram_gb:
                continue
            e = estimate(model, g, workload=w)
            if (e.max_batch_size or 0) >= need:
                key = g.vram_gb
                if best is None or key < best[0]:
                    best = (key, g, e)
        if best is not None:
            _, g, e = best
            out.append(Suggestion("the smallest card that fits", round(e.total / GB, 1), True, g.id))
    return out
