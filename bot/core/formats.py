"""The builds people download for a model: release format plus common quantized formats, with sizes.

Pure functions over the catalog (``knowledge/formats.yaml`` + the model's entry in
``knowledge/models.yaml``); no I/O beyond :func:`bot.core.knowledge.get_catalog`, no Discord.

* :func:`builds_for` lists the builds of one model, ordered from highest quality: the release
  build first (bf16 / fp16 / fp32 / fp8 / mxfp4 as the model was published), then the quantized
  builds by the format's ``quality_rank``. A build never has more bits than the release (an FP8
  release has no bf16 "build"; an MXFP4 release has none but itself).
* :func:`weights_bytes` is the size of the weights of one build.

How a size is made (``Build.basis``):

* ``measured``: a published file: the model's ``gguf_sizes`` for GGUF levels, its
  ``release_weights_gb`` for the release build.
* ``modelled``: parameters x bits per weight / 8. Formats that keep the embeddings and output
  head in 16 bit (AWQ, GPTQ, bitsandbytes, FP8, MXFP4: ``embedding_bits``) count
  ``vocab x hidden`` (x2 unless ``tie_word_embeddings``) at those bits. GGUF bits per weight are
  whole-file averages (llama.cpp's quantize table), so they apply to every parameter. MXFP4 (as
  gpt-oss ships it) covers the routed experts only (layers x experts x 3 x hidden x ffn); the rest
  is 16-bit. Diffusion
  pipelines quantize the denoiser only; text encoders and the VAE stay 16-bit (or the native
  build's precision).

MoE models: ``weights_gb`` counts every expert (memory); ``active_weights_gb`` is what one
token reads (speed): the active parameters at the same bits, or, for a measured size, the
measured size scaled by active / total parameters.

Sizes are decimal GB (1e9 bytes), like every other figure in the project.

How memory.py / speed.py use it: for an inference question without a precision, take
``builds_for(model)`` and judge each build's ``weights_gb`` (+ KV cache + overhead) against the
card's usable memory (``GPU.usable_memory_gb``), in list order; the first that fits is the
answer's headline build, the rest are alternatives. Speed of token generation: bandwidth /
(``active_weights_gb`` or ``weights_gb``).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from bot.core.knowledge import Catalog, Format, Model, QualityNote, get_catalog
from bot.core.quick_init import quick_init

__all__ = [
    "Basis",
    "Build",
    "builds_for",
    "quality_note",
    "release_format_id",
    "weights_bytes",
]

GB = 1e9
_NATIVE_BITS = {"fp32": 32.0, "bf16": 16.0, "fp16": 16.0, "fp8": 8.0, "mxfp4": 4.25}
#: release precision -> format id of the release build
_RELEASE_FORMAT = {"fp32": "fp32", "bf16": "bf16", "fp16": "fp16", "fp8": "fp8", "mxfp4": "mxfp4"}
_TRANSFORMER_KINDS = ("encoder", "decoder", "encoder-decoder", "speech", "moe-decoder")


class Basis(StrEnum):
    MEASURED = "measured"  # a published file or checkpoint size
    MODELLED = "modelled"  # parameters x bits per weight


@quick_init
@dataclass(frozen=True)
class Build:
    """One downloadable build of a model (a fit entry's ``format``)."""

    format_id: str  # "bf16", "gguf-q4_k_m", "awq-int4", ...
    precision: str  # weight precision label of the format (formats.yaml `precision`)
    bits_per_weight: float  # effective average for this model: weights bytes x 8 / params
    weights_gb: float  # all weights (every expert for MoE), decimal GB
    basis: Basis
    quality_note_id: str | None  # formats.yaml quality_note.id; None where no sourced note applies
    quality_rank: int  # 0 = reference quality
    is_release: bool  # the format the model was published in
    active_weights_gb: float | None = None  # MoE: weights one token reads; None for dense models
    source: str = ""  # where the size comes from (the published file, or the bits basis)


def release_format_id(model: Model) -> str:
    """Format id of the model's release build; models without a recorded release precision are
    taken as bf16 (transformers and diffusion) or fp32 (CNNs)."""
    if model.release_precision is not None:
        return _RELEASE_FORMAT[model.release_precision]
    return "fp32" if model.kind == "cnn" else "bf16"


def _embedding_params(model: Model) -> int:
    if model.kind not in _TRANSFORMER_KINDS or not model.vocab or not model.hidden:
        return 0
    n = model.vocab * model.hidden * (1 if model.tie_word_embeddings else 2)
    return min(n, model.params)


def _modelled_bytes(model: Model, fmt: Format, params: int, native: bool) -> float:
    bits = fmt.bits_per_weight
    if model.kind == "diffusion" and model.components:
        total = 0.0
        for c in model.components:
            if native or c.role == "denoiser":
                total += c.params * bits / 8
            else:
                total += c.params * 16 / 8
        return total
    if fmt.family == "mxfp4" and model.experts and model.layers and model.hidden and model.ffn:
        # MXFP4 as released (gpt-oss): only the routed experts' matrices, the rest 16-bit
        per_token = params != model.params  # active parameters: only the routed experts used
        n_exp = (model.experts_per_token or 1) if per_token else model.experts
        experts = min(params, model.layers * n_exp * 3 * model.hidden * model.ffn)
        return experts * bits / 8 + (params - experts) * (fmt.embedding_bits or 16) / 8
    emb = _embedding_params(model) if fmt.embedding_bits is not None else 0
    emb = min(emb, params)
    return (params - emb) * bits / 8 + emb * (fmt.embedding_bits or bits) / 8


def _applies(model: Model, fmt: Format, release: str) -> bool:
    if model.kind not in fmt.applies_to:
        return False
    if fmt.min_params is not None and model.params < fmt.min_params:
        return False
    rel_bits = _NATIVE_BITS[release]
    if fmt.id == release:
        return True
    if release == "mxfp4":
        return False  # the release is already the small build; GGUF/AWQ of it save nothing
    if fmt.family == "mxfp4":
        return False  # only models published in MXFP4 come in it
    if fmt.family == "native":
        # one half-precision build for fp32 releases; no duplicate 16-bit build otherwise
        return release == "fp32" and fmt.id == "fp16"
    return fmt.bits_per_weight < rel_bits


def _total_bytes(model: Model, fmt: Format, release: str) -> tuple[float, float | None, str]:
    """(bytes of all weights, the measured bytes if a published size exists, the size's source)."""
    is_release = fmt.id == release
    measured: float | None = None
    source = fmt.bits_basis
    if fmt.family == "gguf" and fmt.id in model.gguf_sizes:
        measured = model.gguf_sizes[fmt.id] * GB
        source = model.gguf_sizes_source or source
    elif is_release and model.release_weights_gb is not None:
        measured = model.release_weights_gb * GB
        source = model.release_weights_source or source
    native = fmt.family == "native" or is_release
    total = measured if measured is not None else _modelled_bytes(model, fmt, model.params, native)
    return total, measured, source


def _build(model: Model, fmt: Format, release: str) -> Build:
    is_release = fmt.id == release
    native = fmt.family == "native" or is_release
    total, measured, source = _total_bytes(model, fmt, release)
    active: float | None = None
    if model.active_params is not None:
        if measured is not None:
            active = measured * model.active_params / model.params
        else:
            active = _modelled_bytes(model, fmt, model.active_params, native)
    note = fmt.quality_note.id if fmt.quality_note is not None else None
    if model.kind == "diffusion" and fmt.family != "native":
        note = None  # the sourced deltas are LLM perplexities; none is published for images here
    return Build(
        format_id=fmt.id,
        precision=fmt.precision,
        bits_per_weight=round(total * 8 / model.params, 3),
        weights_gb=round(total / GB, 3),
        basis=Basis.MEASURED if measured is not None else Basis.MODELLED,
        quality_note_id=note,
        quality_rank=0 if is_release else fmt.quality_rank,
        is_release=is_release,
        active_weights_gb=None if active is None else round(active / GB, 3),
        source=source,
    )


def builds_for(model: Model, catalog: Catalog | None = None) -> list[Build]:
    """The builds of ``model`` people download, ordered from highest quality (release first).

    An empty list only when the catalog has no formats file (then callers fall back to the
    model's release precision).
    """
    cat = catalog if catalog is not None else get_catalog()
    release = release_format_id(model)
    out = [_build(model, f, release) for f in cat.formats.values() if _applies(model, f, release)]
    out.sort(key=lambda b: (not b.is_release, b.quality_rank, -b.bits_per_weight, b.format_id))
    return out


def weights_bytes(model: Model, format_id: str, catalog: Catalog | None = None) -> int:
    """Bytes of weights of ``model`` in ``format_id`` (measured where published, else modelled).

    Works for any format in the catalog, also ones :func:`builds_for` does not list (e.g. bf16
    of an FP8 release: what an upcast copy would take). Raises ``KeyError`` for an unknown format.
    """
    cat = catalog if catalog is not None else get_catalog()
    fmt = cat.formats[format_id]
    return int(round(_total_bytes(model, fmt, release_format_id(model))[0]))


def quality_note(note_id: str, catalog: Catalog | None = None) -> QualityNote:
    """The quality note with this id (``Build.quality_note_id``). Raises ``KeyError`` if unknown."""
    cat = catalog if catalog is not None else get_catalog()
    for f in cat.formats.values():
        if f.quality_note is not None and f.quality_note.id == note_id:
            return f.quality_note
    raise KeyError(note_id)
