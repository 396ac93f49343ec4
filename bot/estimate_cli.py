"""``python -m bot estimate``: the memory model as a JSON-lines filter.

One JSON object per line on stdin, one per line on stdout, in one process; one
bad line never stops the rest, and every input line gets exactly one output line.

Input fields (all but ``model`` optional; ids or names for ``model`` and ``gpu``):
``model``, ``gpu``, ``num_gpus``, ``task`` (inference|finetune|training),
``method`` (full|lora|qlora), ``precision`` (fp32|fp16|bf16|mixed-fp16|mixed-bf16|
fp8|int8|int4|nf4; ``bf16``/``fp16`` when training = pure 16-bit weights and
optimizer states, ``mixed-*`` = fp32 master weights with autocast), ``optimizer``
(adamw|adamw-8bit|paged-adamw-8bit|sgd|adafactor), ``batch_size`` (global),
``seq_len``, ``resolution``, ``grad_checkpointing``, ``attention``
(eager|sdpa|flash), ``lora_rank``, ``lora_targets`` (qv|attention|all-linear),
``cpu_offload``, ``parallelism`` (data|fsdp|tensor|pipeline), ``kv_cache`` (f16|q8_0|q4_0|fp8: the
KV cache's data type, inference only) and ``engine`` (llama.cpp|ollama|lm-studio|vllm|sglang|
tensorrt-llm|transformers: how sliding-window layers are cached and the prompt is computed; issue 17).

Output fields: ``required_gb`` (decimal GB per card: the peak a PyTorch process
reserves, CUDA context included), ``breakdown_gb``, ``fits`` (null without a
card), ``max_batch_size`` (global; null without a card), ``low_gb``/``high_gb``
(the band from the calibration error of the workload's category), ``max_context_tokens`` (the
longest context that fits the card at batch 1, capped at the model's maximum; null without a card,
for training or for models without a context),
``assumptions`` (every input field with its default filled in) and ``error``
(null, or one sentence saying what was wrong with the line; the other fields
are then null). ``json.dumps(..., allow_nan=False)``: no NaN or Infinity.
"""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import IO, Any, Literal

from bot.core import memory
from bot.core.matching import get_matcher
from bot.core.types import Method, Optimizer, Parallelism, Precision, Task

__all__ = ["INPUT_FIELDS", "OUTPUT_FIELDS", "PRECISIONS", "EstimateError", "estimate_line", "run", "serve"]

INPUT_FIELDS = (
    "model",
    "gpu",
    "num_gpus",
    "task",
    "method",
    "precision",
    "optimizer",
    "batch_size",
    "seq_len",
    "resolution",
    "grad_checkpointing",
    "attention",
    "lora_rank",
    "lora_targets",
    "cpu_offload",
    "parallelism",
    "kv_cache",
    "engine",
)
OUTPUT_FIELDS = (
    "required_gb",
    "breakdown_gb",
    "fits",
    "max_batch_size",
    "low_gb",
    "high_gb",
    "assumptions",
    "error",
    "max_context_tokens",
)
KV_CACHES = ("f16", "q8_0", "q4_0", "fp8")
ENGINES = ("llama.cpp", "ollama", "lm-studio", "vllm", "sglang", "tensorrt-llm", "transformers")

# contract precision -> (engine precision, pure 16-bit when training, explicit autocast, NF4)
PRECISIONS: dict[str, tuple[Precision, bool, bool, bool]] = {
    "fp32": (Precision.FP32, False, False, False),
    "fp16": (Precision.FP16, True, False, False),
    "bf16": (Precision.BF16, True, False, False),
    "mixed-fp16": (Precision.FP16, False, True, False),
    "mixed-bf16": (Precision.BF16, False, True, False),
    "fp8": (Precision.FP8, False, False, False),
    "int8": (Precision.INT8, False, False, False),
    "int4": (Precision.INT4, False, False, False),
    "nf4": (Precision.INT4, False, False, True),
}
OPTIMIZERS = {
    "adamw": Optimizer.ADAMW,
    "adamw-8bit": Optimizer.ADAM8BIT,
    "adam8bit": Optimizer.ADAM8BIT,  # the engine's own name for it
    "paged-adamw-8bit": Optimizer.PAGED_ADAM8BIT,
    "sgd": Optimizer.SGD,
    "adafactor": Optimizer.ADAFACTOR,
}
_OPTIMIZER_OUT = {
    Optimizer.ADAMW: "adamw",
    Optimizer.ADAM8BIT: "adamw-8bit",
    Optimizer.PAGED_ADAM8BIT: "paged-adamw-8bit",
    Optimizer.SGD: "sgd",
    Optimizer.ADAFACTOR: "adafactor",
}
TASKS = {"inference": Task.INFERENCE, "finetune": Task.FINETUNE, "training": Task.TRAINING}
METHODS = {"full": Method.FULL, "lora": Method.LORA, "qlora": Method.QLORA}
PARALLELISMS = {
    "data": Parallelism.DATA,
    "fsdp": Parallelism.SHARDED,
    "tensor": Parallelism.TENSOR,
    "pipeline": Parallelism.PIPELINE,
}
_PARALLELISM_OUT = {v: k for k, v in PARALLELISMS.items()}
ATTENTIONS = ("eager", "sdpa", "flash")

# sane bounds: far beyond any real workload, small enough that the arithmetic stays finite
_LIMITS = {
    "num_gpus": (1, 4096),
    "batch_size": (1, 10_000_000),
    "seq_len": (1, 10_000_000),
    "resolution": (8, 65_536),
    "lora_rank": (1, 65_536),
}


log = logging.getLogger(__name__)


class EstimateError(ValueError):
    """A line the estimator cannot answer; the message is the sentence the caller sees."""


@dataclass(frozen=True)
class _Inputs:
    model: Any
    gpu: Any
    fields: dict[str, Any]


def _choices(values: Iterable[str]) -> str:
    return ", ".join(values)


def _enum(obj: dict[str, Any], key: str, table: dict[str, Any] | tuple[str, ...]) -> Any:
    v = obj.get(key)
    if v is None:
        return None
    if not isinstance(v, str):
        raise EstimateError(f"{key} must be a string, one of: {_choices(table)}.")
    k = v.strip().lower()
    if k not in table:
        raise EstimateError(f"{key} {v!r} is not one of: {_choices(table)}.")
    return table[k] if isinstance(table, dict) else k


def _int(obj: dict[str, Any], key: str) -> int | None:
    v = obj.get(key)
    if v is None:
        return None
    if (
        isinstance(v, bool)
        or not isinstance(v, (int, float))
        or (isinstance(v, float) and not v.is_integer())
    ):
        raise EstimateError(f"{key} must be a whole number, got {json.dumps(v)}.")
    lo, hi = _LIMITS[key]
    if not lo <= v <= hi:
        raise EstimateError(f"{key} must be between {lo} and {hi:,}, got {int(v):,}.")
    return int(v)


def _bool(obj: dict[str, Any], key: str) -> bool | None:
    v = obj.get(key)
    if v is None:
        return None
    if not isinstance(v, bool):
        raise EstimateError(f"{key} must be true or false, got {json.dumps(v)}.")
    return v


def _lookup(catalog: Any, kind: Literal["gpu", "model"], value: Any) -> Any:
    if not isinstance(value, str) or not value.strip():
        raise EstimateError(f"{kind} must be a catalog id or name (a non-empty string).")
    table = catalog.models if kind == "model" else catalog.gpus
    key = value.strip()
    if key in table:
        return table[key]
    matcher = get_matcher(catalog)
    m = matcher.resolve(key, kind)
    if m is not None:
        return table[m.id]
    near = [x.id for x in matcher.suggest(key, kind, limit=3)]
    hint = f" Did you mean {' or '.join(near)}?" if near else ""
    raise EstimateError(f"unknown {kind} {value!r}.{hint}")


def _parse(catalog: Any, obj: Any) -> _Inputs:
    if not isinstance(obj, dict):
        raise EstimateError(
            'each line must be a JSON object, like {"model": "llama-3-8b", "gpu": "rtx-4090"}.'
        )
    unknown = sorted(str(k) for k in obj if k not in INPUT_FIELDS)
    if unknown:
        raise EstimateError(
            f"unknown field(s) {', '.join(unknown)}; the fields are: {_choices(INPUT_FIELDS)}."
        )
    if obj.get("model") is None:
        raise EstimateError("model is required (a catalog id or name).")
    model = _lookup(catalog, "model", obj["model"])
    gpu = _lookup(catalog, "gpu", obj["gpu"]) if obj.get("gpu") is not None else None
    fields: dict[str, Any] = {
        "task": _enum(obj, "task", TASKS),
        "method": _enum(obj, "method", METHODS),
        "precision": _enum(obj, "precision", PRECISIONS),
        "optimizer": _enum(obj, "optimizer", OPTIMIZERS),
        "parallelism": _enum(obj, "parallelism", PARALLELISMS),
        "attention": _enum(obj, "attention", ATTENTIONS),
        "lora_targets": _enum(obj, "lora_targets", memory.LORA_TARGETS),
        "kv_cache": _enum(obj, "kv_cache", KV_CACHES),
        "engine": _enum(obj, "engine", ENGINES),
        "num_gpus": _int(obj, "num_gpus"),
        "batch_size": _int(obj, "batch_size"),
        "seq_len": _int(obj, "seq_len"),
        "resolution": _int(obj, "resolution"),
        "lora_rank": _int(obj, "lora_rank"),
        "grad_checkpointing": _bool(obj, "grad_checkpointing"),
        "cpu_offload": _bool(obj, "cpu_offload"),
    }
    if fields["task"] is Task.INFERENCE and fields["method"] in (Method.LORA, Method.QLORA):
        raise EstimateError(
            f"method {fields['method']} is a fine-tuning method; task inference has no method."
        )
    if fields["method"] is Method.QLORA and obj.get("precision") not in (None, "nf4", "int4"):
        raise EstimateError("method qlora keeps the base in nf4; leave precision out or say nf4.")
    return _Inputs(model, gpu, fields)


def _assumptions(model: Any, gpu: Any, e: memory.Estimate) -> dict[str, Any]:
    w = e.workload
    if w.precision is Precision.INT4 and w.nf4:
        precision = "nf4"
    elif w.mixed or w.amp:
        precision = f"mixed-{w.precision}"
    else:
        precision = str(w.precision)
    resolution = w.resolution
    if resolution is None and model.kind in ("cnn", "diffusion"):
        res = model.resolution
        resolution = int(math.sqrt(res[0] * res[1])) if isinstance(res, (tuple, list)) else res
    lora = w.method is not Method.FULL
    return {
        "model": model.id,
        "gpu": gpu.id if gpu is not None else None,
        "num_gpus": w.num_gpus,
        "task": str(w.task),
        "method": str(w.method),
        "precision": precision,
        "optimizer": _OPTIMIZER_OUT[w.optimizer] if w.trains else None,
        "batch_size": e.batch_size,
        "seq_len": w.seq_len,
        "resolution": resolution,
        "grad_checkpointing": w.grad_checkpointing if w.trains else None,
        "attention": w.attention or ("sdpa" if w.fused_attention else "eager"),
        "lora_rank": w.lora_rank if lora else None,
        "lora_targets": w.lora_targets if lora else None,
        "cpu_offload": bool(w.cpu_offload or w.offload_text_encoders),
        "parallelism": _PARALLELISM_OUT[w.parallelism],
        "kv_cache": (w.kv_cache or "f16") if not w.trains else None,
        "engine": w.engine or None,
    }


def _finite(x: float) -> float:
    if not math.isfinite(x):
        raise EstimateError("the estimate overflowed for these inputs; use smaller sizes.")
    return x


def estimate_line(catalog: Any, obj: Any) -> dict[str, Any]:
    """One parsed input object -> one output object (never raises for bad input)."""
    out: dict[str, Any] = dict.fromkeys(OUTPUT_FIELDS)
    try:
        inp = _parse(catalog, obj)
        f = inp.fields
        prec = f["precision"]
        engine_prec, pure, amp, nf4 = prec if prec is not None else (None, False, False, False)
        w = memory.resolve_workload(
            inp.model,
            task=f["task"],
            method=f["method"],
            precision=engine_prec,
            batch_size=f["batch_size"],
            seq_len=f["seq_len"],
            optimizer=f["optimizer"],
            grad_checkpointing=f["grad_checkpointing"],
            num_gpus=f["num_gpus"] or 1,
            parallelism=f["parallelism"],
            resolution=f["resolution"],
            pure_16bit=pure,
            amp=amp,
            nf4=nf4,
            lora_rank=f["lora_rank"],
            lora_targets=f["lora_targets"],
            cpu_offload=f["cpu_offload"],
            attention=f["attention"],
            engine=f["engine"],
            kv_cache=f["kv_cache"],
        )
        e = memory.estimate(inp.model, inp.gpu, workload=w)
        out["required_gb"] = round(_finite(e.total) / memory.GB, 2)
        out["breakdown_gb"] = {k: _finite(v) for k, v in e.breakdown_gb().items()}
        out["fits"] = e.fits
        out["max_batch_size"] = e.max_batch_size
        lo, hi = e.band_gb()
        out["low_gb"], out["high_gb"] = _finite(lo), _finite(hi)
        out["assumptions"] = _assumptions(inp.model, inp.gpu, e)
        if inp.gpu is not None:
            mc = memory.max_context(inp.model, e.workload, memory.usable_bytes(inp.gpu))
            out["max_context_tokens"] = mc.tokens if mc is not None else None
    except EstimateError as exc:
        out = dict.fromkeys(OUTPUT_FIELDS)
        out["error"] = str(exc)
    except Exception:  # a bug must cost one line, not the rest of the stream
        log.exception("estimate failed for %r", obj)
        out = dict.fromkeys(OUTPUT_FIELDS)
        out["error"] = (
            "the estimate failed for this line (an internal error, logged); the other lines are unaffected."
        )
    return out


def _decode(raw: bytes, n: int) -> Any:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise EstimateError(f"line {n} is not valid UTF-8.") from None
    text = text.strip().lstrip("\ufeff")
    if not text:
        raise EstimateError(f"line {n} is empty; send one JSON object per line.")
    try:
        return json.loads(text, parse_constant=_no_constant)
    except (ValueError, RecursionError) as exc:
        raise EstimateError(f"line {n} is not valid JSON ({str(exc).split(':')[0]}).") from None


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not allowed")


def serve(catalog: Any, lines: Iterable[bytes]) -> Iterator[str]:
    """Raw input lines -> output JSON lines (without newlines), one for one."""
    for n, raw in enumerate(lines, start=1):
        try:
            obj = _decode(raw, n)
        except EstimateError as exc:
            out: dict[str, Any] = dict.fromkeys(OUTPUT_FIELDS)
            out["error"] = str(exc)
        else:
            out = estimate_line(catalog, obj)
        yield json.dumps(out, allow_nan=False, ensure_ascii=False)


def run(catalog: Any, stdin: IO[bytes], stdout: IO[str]) -> int:
    for line in serve(catalog, stdin):
        stdout.write(line + "\n")
        stdout.flush()
    return 0
