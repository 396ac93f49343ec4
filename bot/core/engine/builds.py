"""Builds people run (issue 11): which downloadable build of a model fits a card, and what else helps.

An inference question that names no precision is judged at the model's release build and at the
quantized builds people download (``bot.core.formats.builds_for``), each with its own memory
(weights from the build's file size, KV cache and overhead from the memory model). The best build
that fits is the answer's headline; the release, Q8_0 and Q4_K_M are always shown so the asker
sees the trade-off.

Also here, as typed data for the phrasing layer:

* MoE expert offload (llama.cpp ``--n-cpu-moe`` / ``-ot``): the dense part on the card, the
  routed experts in system RAM, with the RAM it needs;
* llama.cpp partial offload (``-ngl``): how many layers fit on the card and a rough slowdown;
* diffusers' model CPU offload (one pipeline component on the card at a time);
* vLLM's reserved memory fraction (``gpu_memory_utilization`` 0.9);
* unified memory, precision fallbacks (``support.precision_for``) and software limits
  (``support.supports``).

Pure functions over the catalog; no I/O, no Discord.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

from bot.core import formats, memory, support
from bot.core.copy_with import copy_with
from bot.core.formats import Build
from bot.core.knowledge import GPU, Catalog, Model
from bot.core.memory import GB, Estimate, Workload
from bot.core.quick_init import quick_init
from bot.core.types import Note, NoteCode, Parallelism, Precision, Query, Task, note

__all__ = [
    "BuildVerdict",
    "CPU_RAM_BANDWIDTH_GBS",
    "VLLM_RESERVE",
    "build_workload",
    "builds_apply",
    "builds_of",
    "card_notes",
    "expert_offload",
    "judge_builds",
    "partial_offload",
    "usable_builds",
]

#: vLLM preallocates this share of the card (``gpu_memory_utilization``, default 0.9; vLLM docs,
#: EngineArgs) and fits weights, activations and KV cache inside it
VLLM_RESERVE = 0.9
#: system RAM bandwidth assumed for CPU-offloaded layers / experts: dual-channel DDR5-5600 is
#: 89.6 GB/s peak, ~60 GB/s achieved in practice (an estimate; it decides the rough slowdown)
CPU_RAM_BANDWIDTH_GBS = 60.0
#: RAM the OS and llama.cpp's own buffers keep beside the offloaded weights (estimate)
RAM_MARGIN_GB = 4.0

LLM_KINDS = ("decoder", "moe-decoder")
#: a tight headline build gets a smaller one beside it that leaves this share of the card for
#: longer context and the allocator (an estimate of comfortable headroom)
ROOMY_SHARE = 0.88
_LLM_ENGINES_DEFAULT = frozenset({"native", "mxfp4", "gguf"})  # what llama.cpp / Ollama / LM Studio load
_DIFFUSION_DEFAULT = frozenset({"native", "fp8", "gguf", "bnb"})  # diffusers / ComfyUI
#: builds always shown beside the headline (when the model has them)
SHOWN = ("gguf-q8_0", "gguf-q4_k_m")

_PREC = {
    "fp32": Precision.FP32,
    "bf16": Precision.BF16,
    "fp16": Precision.FP16,
    "fp8": Precision.FP8,
    "int8": Precision.INT8,
}
# enum members the per-build paths read, as module globals (on Python 3.11 ``Task.INFERENCE`` goes
# through EnumType's slow attribute hook, ~0.1 us a read)
_INFERENCE, _INT4, _TENSOR, _PIPELINE = (
    Task.INFERENCE,
    Precision.INT4,
    Parallelism.TENSOR,
    Parallelism.PIPELINE,
)
_TRAINS_16 = frozenset({Precision.BF16, Precision.FP8})
_LEVEL_NO, _LEVEL_YES, _NO_FALLBACK = support.Level.NO, support.Level.YES, support.FallbackReason.NONE


@quick_init
@dataclass(frozen=True)
class BuildVerdict:
    """One build judged on the asked card(s)."""

    build: Build
    estimate: Estimate
    fits: bool
    min_cards: int | None = None  # does not fit: fewest of this card it fits on (2, 4, 8)
    headline: bool = False  # the best build that fits (the answer's verdict)
    model_offload: bool = False  # diffusion: fits with diffusers' model CPU offload (estimate is that peak)
    resident_gb: float | None = None  # with model_offload: the memory without offload
    roomy: bool = False  # the headline is tight: this is the best smaller build that fits with room


class _LaterVerdict(BuildVerdict):
    """A build that does not fit, judged without its estimate (its weights alone pass the card): the
    estimate is worked out when something reads it. The same verdict otherwise (not a dataclass of
    its own: BuildVerdict's fields, ``estimate`` read through the property). This leans on
    ``quick_init``'s ``__init__`` writing the fields into ``__dict__`` (BuildVerdict has no slots),
    which the property then reads; ``tests/core/test_engine_lazy.py`` checks the estimate read later
    is the one the build would have had."""

    @staticmethod
    def of(b: Build, m: Model, g: GPU, w: Workload) -> BuildVerdict:
        v = _LaterVerdict(b, None, False, None, False, False, None)  # type: ignore[arg-type]
        v.__dict__["later"] = (m, g, w)
        return v

    @property  # type: ignore[misc]
    def estimate(self) -> Estimate:  # type: ignore[override]
        d = self.__dict__
        e = d["estimate"]
        if e is None:
            m, g, w = d["later"]
            e = d["estimate"] = memory.estimate(m, g, workload=w)
        return e


def builds_apply(m: Model, q: Query) -> bool:
    """Answer at several builds: inference, no precision named, an LLM or a diffusion pipeline."""
    if q.precision is not None or q.method is not None:
        return False
    if m.kind not in (*LLM_KINDS, "diffusion"):
        return False
    task = q.task or memory.default_task(m)
    return task is _INFERENCE


def _families(cat: Catalog, m: Model, q: Query) -> frozenset[str]:
    eng = cat.engines.get(q.engine) if q.engine else None
    if eng is not None:
        return frozenset(eng.formats) | {"native"}
    return _DIFFUSION_DEFAULT if m.kind == "diffusion" else _LLM_ENGINES_DEFAULT


def _runs_on(b: Build, fam: str, g: GPU | None) -> bool:
    if g is None:
        return True
    if fam == "bnb":
        return support.supports(g, "bitsandbytes").level is not _LEVEL_NO
    if fam in ("awq", "gptq"):
        return g.software in ("cuda", "rocm")
    if fam == "gguf":
        return support.supports(g, "llama.cpp").level is not _LEVEL_NO
    return True


@functools.lru_cache(maxsize=8)
def _catalog_builds(cat: Catalog) -> dict[str, tuple[Build, ...]]:
    """Every catalog model's builds (``formats.builds_for``), computed once per catalog."""
    return {mid: tuple(formats.builds_for(m, cat)) for mid, m in cat.models.items()}


def builds_of(cat: Catalog, m: Model) -> list[Build]:
    """``formats.builds_for(m, cat)`` from the catalog's table (a model not in it is computed)."""
    if cat.models.get(m.id) is m:
        return list(_catalog_builds(cat)[m.id])
    return formats.builds_for(m, cat)


def usable_builds(cat: Catalog, m: Model, q: Query, g: GPU | None) -> list[Build]:
    """The builds of ``m`` the asker's engine loads and the card runs, highest quality first."""
    fams = _families(cat, m, q)
    runs: dict[str, bool] = {}  # per format family: whether ``g`` runs it (the same for its builds)
    out = []
    for b in builds_of(cat, m):
        fam = cat.formats[b.format_id].family
        if not b.is_release and fam in fams and fam not in runs:
            runs[fam] = _runs_on(b, fam, g)  # (``_runs_on`` reads the family and the card only)
        if b.is_release or (fam in fams and runs[fam]):
            out.append(b)
    return out


def build_workload(m: Model, w: Workload, b: Build) -> Workload:
    """``w`` (an inference workload) with the build's weights.

    LLMs take the build's file size (measured GGUF files where published); diffusion pipelines
    keep the memory model's precision path (it is calibrated on diffusers' measured fp8 / int8 /
    NF4 pipelines, which quantize the big text encoder too, as ComfyUI users do)."""
    fmt_prec = b.precision
    prec = _PREC.get(fmt_prec, _INT4)
    if m.kind == "diffusion":
        if b.is_release:
            return copy_with(w, format_id=b.format_id)
        nf4 = fmt_prec == "nf4"
        return copy_with(w, precision=prec, nf4=nf4, format_id=b.format_id)
    par = w.parallelism
    if b.format_id.startswith("gguf") and w.num_gpus > 1 and par is _TENSOR and not w.parallelism_stated:
        # llama.cpp, which runs GGUF files, splits the layers across the cards by default
        # (--split-mode layer): the same memory per card as tensor parallel, said as what it is
        par = _PIPELINE
    return copy_with(
        w, precision=prec, nf4=False, format_id=b.format_id, weights_bytes=b.weights_gb * GB, parallelism=par
    )


def _fits(e: Estimate, vllm: bool) -> bool:
    if e.capacity is None:
        return False
    return e.total <= e.capacity * (VLLM_RESERVE if vllm else 1.0)


def _weights_pass(w: Workload, k: int, room: float) -> bool:
    """A build's weights alone, split over ``k`` cards, pass ``room`` bytes per card: it cannot fit
    there, no estimate needed (an estimate's per-card total is those weights plus non-negative
    parts, so ``_fits`` would say no)."""
    return w.weights_bytes is not None and float(w.weights_bytes) / k > room


def _on(m: Model, g: GPU, w: Workload, n: int) -> Estimate:
    par = w.parallelism if n == w.num_gpus else _TENSOR
    return memory.estimate(m, g, workload=copy_with(w, num_gpus=n, parallelism=par))


def judge_builds(cat: Catalog, m: Model, g: GPU, q: Query, base: Workload) -> list[BuildVerdict]:
    """Every usable build on ``g`` (x ``base.num_gpus``), highest quality first; the first that
    fits is marked ``headline``. A build that does not fit gets the fewest cards it fits on."""
    vllm = q.engine == "vllm"
    diffusion = m.kind == "diffusion"
    out: list[BuildVerdict] = []
    headline_set = False
    room = memory.usable_bytes(g) * (VLLM_RESERVE if vllm else 1.0)
    for b in usable_builds(cat, m, q, g):
        w = build_workload(m, base, b)
        if (
            not diffusion
            and not (b.is_release or b.format_id in SHOWN)
            and _weights_pass(w, w.num_gpus, room)
        ):
            # a build no answer lists whose weights alone pass the card: it does not fit, and its
            # estimate is worked out only if something reads it (the lowest builds' offload offers)
            if not headline_set or q.max_context:
                out.append(_LaterVerdict.of(b, m, g, w))
            continue
        e = memory.estimate(m, g, workload=w)
        ok = _fits(e, vllm)
        need: int | None = None
        offload = False
        resident: float | None = None
        if not ok and diffusion and m.components and not headline_set:
            # diffusers' enable_model_cpu_offload(): one component on the card at a time
            ow = copy_with(w, model_offload=True, offload_text_encoders=False)
            oe = memory.estimate(m, g, workload=ow)
            if oe.fits:
                resident, e, ok, offload = e.total / GB, oe, True, True
        shown_id = b.is_release or b.format_id in SHOWN
        if not ok and not diffusion and shown_id:  # diffusers does not split one pipeline across cards
            for k in (2, 4, 8):
                if k > w.num_gpus and not _weights_pass(w, k, room) and _fits(_on(m, g, w, k), vllm):
                    need = k
                    break
        head = ok and not headline_set
        if headline_set and not diffusion and not q.max_context:
            # the headline is tight (it may or may not fit): the best smaller build that fits with room
            if ok and e.total <= ROOMY_SHARE * (e.capacity or 0.0):
                out.append(BuildVerdict(b, e, ok, need, False, offload, resident, roomy=True))
                break
            continue
        headline_set = headline_set or ok
        out.append(BuildVerdict(b, e, ok, need, head, offload, resident))
        if head and not diffusion and not q.max_context and not e.tight:
            break  # lower builds are neither shown nor needed once the best that fits is found
            # (a "longest context" question shows the context of each build people run)
    return out


def shown(verdicts: list[BuildVerdict], m: Model) -> list[BuildVerdict]:
    """The builds an answer lists: the release, Q8_0 and Q4_K_M, the headline, and the smallest
    when nothing fits; diffusion pipelines (few builds) list every one."""
    if m.kind == "diffusion":
        return list(verdicts)
    keep = [v for v in verdicts if v.build.is_release or v.headline or v.roomy or v.build.format_id in SHOWN]
    if not any(v.headline for v in verdicts) and verdicts:
        small = min(verdicts, key=lambda v: v.build.weights_gb)
        if small not in keep:
            keep.append(small)
    return keep


# --------------------------------------------------------------------------- offload


@dataclass(frozen=True)
class ExpertOffload:
    """MoE experts in system RAM (llama.cpp ``--n-cpu-moe``), the rest on the card."""

    format_id: str
    gpu_gb: float  # the card: attention, shared experts, embeddings, KV cache, overhead
    ram_gb: float  # system RAM for the routed experts (+ margin)
    fits_gpu: bool


def _expert_fraction(m: Model) -> float:
    if not (m.experts and m.layers and m.hidden and m.ffn):
        return 0.0
    experts = m.layers * m.experts * 3 * m.hidden * m.ffn
    return min(0.97, experts / m.params)


def expert_offload(m: Model, g: GPU, v: BuildVerdict) -> ExpertOffload | None:
    """Routed experts to CPU RAM for the build of ``v``; None for dense models."""
    frac = _expert_fraction(m)
    if m.kind != "moe-decoder" or frac <= 0:
        return None
    e = v.estimate
    expert_b = v.build.weights_gb * GB * frac
    # e.total is per card: on n cards each one held 1/n of the experts (it was the whole set,
    # which made "2x 3090" answers say a negative amount on the card)
    gpu = e.total - expert_b / max(1, e.workload.num_gpus)
    cap = e.capacity or 0.0
    return ExpertOffload(
        format_id=v.build.format_id,
        gpu_gb=round(gpu / GB, 1),
        ram_gb=round(expert_b / GB + RAM_MARGIN_GB, 0),
        fits_gpu=gpu <= cap,
    )


#: system RAM bandwidth of a server board (8-channel DDR5-4800 is 307 GB/s peak; ~60% streamed, an
#: estimate): what KTransformers' README setups (Xeon, 1-2 sockets) run the experts at
SERVER_RAM_GBS = 180.0


def expert_offload_tps(m: Model, g: GPU, xo: ExpertOffload, build: Build, ram_gbs: float) -> float | None:
    """One stream's tokens/s with the routed experts in RAM: each token reads the active routed experts
    (experts_per_token of them per layer) from RAM and the rest of the active weights from the card
    (an estimate; llama.cpp runs the experts on the CPU, bound by RAM bandwidth)."""
    if not (m.experts_per_token and m.layers and m.hidden and m.ffn and m.active_params):
        return None
    bytes_per_param = build.weights_gb * GB / m.params
    routed = m.experts_per_token * m.layers * 3 * m.hidden * m.ffn
    ram_b = routed * bytes_per_param
    gpu_b = max(0.0, m.active_params - routed) * bytes_per_param
    from bot.core import speed as _speed

    eff = _speed.decode_efficiency(g, Precision.INT4)
    t = ram_b / (ram_gbs * GB) + gpu_b / (eff * g.memory_bandwidth_gbs * GB)
    return round(1.0 / t, 1) if t > 0 else None


@dataclass(frozen=True)
class PartialOffload:
    """llama.cpp ``-ngl N``: N of the model's layers on the card, the rest in system RAM."""

    format_id: str
    layers_gpu: int
    layers: int
    ram_gb: float
    slowdown: float  # token generation vs all layers on a card this fast (rough; an estimate)


def partial_offload(m: Model, g: GPU, v: BuildVerdict) -> PartialOffload | None:
    """How many layers of ``v``'s build fit on ``g`` with the rest in RAM; None when the card
    takes all of them, none of them, or the model has no layer structure."""
    if m.kind not in LLM_KINDS or not m.layers or g.unified_memory:
        return None
    e = v.estimate
    cap = e.capacity or 0.0
    per_layer = e.weights / m.layers
    rest = e.total - e.weights  # KV cache, working set, overhead stay on the card
    room = cap - rest
    n = int(room // per_layer) if per_layer > 0 else 0
    if n >= m.layers or n < 1:
        return None
    cpu_b = (m.layers - n) * per_layer
    gpu_b = n * per_layer
    t_all = e.weights / (g.memory_bandwidth_gbs * GB)
    t_split = gpu_b / (g.memory_bandwidth_gbs * GB) + cpu_b / (CPU_RAM_BANDWIDTH_GBS * GB)
    return PartialOffload(
        format_id=v.build.format_id,
        layers_gpu=n,
        layers=m.layers,
        ram_gb=round(cpu_b / GB + RAM_MARGIN_GB, 0),
        slowdown=round(t_split / t_all, 0) if t_all > 0 else 1.0,
    )


def offload_notes(m: Model, g: GPU, q: Query, verdicts: list[BuildVerdict]) -> list[Note]:
    """Expert / layer offload offers when no build of usual quality (Q4_K_M or better) fits."""
    if not verdicts or m.kind not in LLM_KINDS:
        return []
    if g.unified_memory:
        return []  # a Mac / unified machine: "system RAM" is the same memory the GPU already shares
    q4 = next((v for v in verdicts if v.build.format_id == "gguf-q4_k_m"), None)
    head = next((v for v in verdicts if v.headline), None)
    good_fits = head is not None and (q4 is None or head.build.quality_rank <= q4.build.quality_rank)
    if good_fits:
        return []
    target = q4 or verdicts[-1]
    out: list[Note] = []
    ram = q.system_ram_gb
    xo = expert_offload(m, g, target)
    if xo is not None and ram is not None and ram < xo.ram_gb:
        # the RAM said is short for Q4_K_M's experts: the best smaller build whose experts fit it
        start = verdicts.index(target)
        for v in verdicts[start + 1 :]:
            x = expert_offload(m, g, v)
            if x is not None and x.fits_gpu and ram >= x.ram_gb:
                xo = x
                break
    if xo is not None:
        if xo.fits_gpu:
            out.append(
                note(
                    NoteCode.MOE_CPU_OFFLOAD,
                    fmt=xo.format_id,
                    gpu_gb=xo.gpu_gb,
                    ram_gb=xo.ram_gb,
                    have_ram_gb=ram,
                    enough=None if ram is None else ram >= xo.ram_gb,
                )
            )
            out += offload_speed_notes(m, g, xo, verdicts)
            out.append(note(NoteCode.KTRANSFORMERS))
            if ram is None:
                out.append(note(NoteCode.ASK_SYSTEM_RAM, ram_gb=xo.ram_gb))
        return out
    po = partial_offload(m, g, target)
    if po is not None and (q.engine in (None, "llama.cpp", "ollama", "lm-studio")):
        out.append(
            note(
                NoteCode.PARTIAL_OFFLOAD,
                fmt=po.format_id,
                layers_gpu=po.layers_gpu,
                layers=po.layers,
                ram_gb=po.ram_gb,
                slowdown=po.slowdown,
                have_ram_gb=ram,
                enough=None if ram is None else ram >= po.ram_gb,
            )
        )
        if ram is None:
            out.append(note(NoteCode.ASK_SYSTEM_RAM, ram_gb=po.ram_gb))
    return out


def offload_speed_notes(m: Model, g: GPU, xo: ExpertOffload, verdicts: list[BuildVerdict]) -> list[Note]:
    """MOE_OFFLOAD_SPEED: the expert offload's tokens/s on desktop and on server RAM."""
    b = next((v.build for v in verdicts if v.build.format_id == xo.format_id), None)
    if b is None:
        return []
    desk = expert_offload_tps(m, g, xo, b, CPU_RAM_BANDWIDTH_GBS)
    server = expert_offload_tps(m, g, xo, b, SERVER_RAM_GBS)
    if desk is None or server is None:
        return []
    return [
        note(
            NoteCode.MOE_OFFLOAD_SPEED,
            tps=desk,
            ram_gbs=CPU_RAM_BANDWIDTH_GBS,
            server_tps=server,
            server_ram_gbs=SERVER_RAM_GBS,
        )
    ]


# --------------------------------------------------------------------------- sequential offload

#: diffusers' enable_sequential_cpu_offload() moves one leaf module (a Linear, an embedding) to the card
#: at a time: the card holds the activations and the largest leaf's weights (an estimate: T5-XXL's
#: token embedding, the largest leaf in SD3 / FLUX pipelines, is 0.26 GB in 16-bit). diffusers' memory
#: guide: sequential offload "can reduce memory consumption to less than 3GB" (SD 1.5, fp16) and is
#: "extremely slow" (huggingface/diffusers docs/source/en/optimization/memory.md, 2023-2025)
SEQ_LEAF_GB = 0.3
#: host-to-card rate of the streamed weights (pageable memory, many small copies; an estimate: PCIe 4.0
#: x16 peaks at 32 GB/s): every denoising step streams the whole denoiser once
SEQ_PCIE_GBS = 10.0


@dataclass(frozen=True)
class SequentialOffload:
    """diffusers' ``enable_sequential_cpu_offload()``: the lowest card memory, many times slower."""

    format_id: str
    gb: float  # card peak
    extra_s: float  # seconds added per image by streaming the denoiser every step (estimate)
    steps: int


def sequential_offload(m: Model, g: GPU, workload: Workload, format_id: str) -> SequentialOffload | None:
    """``workload`` (a diffusion inference, build ``format_id``) with sequential CPU offload on ``g``;
    None when it still does not fit or the model is not a diffusion pipeline with components."""
    if m.kind != "diffusion" or not m.components or workload.trains:
        return None
    from bot.core import throughput

    w = copy_with(workload, model_offload=True, offload_text_encoders=False)
    e = memory.estimate(m, g, workload=w)
    peak = e.total - e.weights + SEQ_LEAF_GB * GB
    if e.capacity is None or peak > e.capacity:
        return None
    steps = throughput.default_steps(m)
    denoiser = memory._phase_weights(m, w)[0]
    return SequentialOffload(
        format_id=format_id,
        gb=round(peak / GB, 1),
        extra_s=round(steps * denoiser / (SEQ_PCIE_GBS * GB), 0),
        steps=steps,
    )


def sequential_notes(m: Model, g: GPU, verdicts: list[BuildVerdict]) -> list[Note]:
    """Diffusion: the release build does not fit, even with model CPU offload: offer it with
    sequential CPU offload (an option after model offload, with its speed cost)."""
    if m.kind != "diffusion" or not verdicts or verdicts[0].fits:
        return []
    v = verdicts[0]
    return sequential_note(
        m, g, v.estimate.workload, v.build.format_id, only=not any(x.fits for x in verdicts)
    )


def sequential_note(m: Model, g: GPU, w: Workload, format_id: str, only: bool = False) -> list[Note]:
    """The SEQUENTIAL_OFFLOAD note (``only``: no other build fits, this is the one way to run it)."""
    so = sequential_offload(m, g, w, format_id)
    if so is None:
        return []
    return [
        note(
            NoteCode.SEQUENTIAL_OFFLOAD,
            fmt=so.format_id,
            gb=so.gb,
            extra_s=so.extra_s,
            steps=so.steps,
            only=only,
        )
    ]


# --------------------------------------------------------------------------- card notes


def card_notes(g: GPU, m: Model, q: Query, w: Workload, release_precision: str | None) -> list[Note]:
    """Unified memory, the precision the card really uses, software that limits it."""
    out: list[Note] = []
    if g.unified_memory:
        out.append(
            note(
                NoteCode.UNIFIED_MEMORY,
                card=g.id,
                usable_gb=round(memory.usable_bytes(g) / GB, 1),
                total_gb=g.vram_gb,
                share=round(100 * (g.gpu_memory_share or 1.0)),
            )
        )
    asked = str(q.precision) if q.precision is not None else None
    if asked is None and w.trains and w.precision in _TRAINS_16:
        asked = str(w.precision)
    if asked is None and release_precision in ("bf16", "fp8") and not w.trains:
        asked = release_precision
    if asked is not None and asked not in ("int8", "int4"):
        ch = support.precision_for(g, asked)
        if ch.reason is not _NO_FALLBACK:
            out.append(
                note(
                    NoteCode.PRECISION_FALLBACK,
                    card=g.id,
                    requested=ch.requested,
                    used=ch.used,
                    reason=str(ch.reason),
                    trains=w.trains,
                )
            )
    tools: list[str] = []
    if w.nf4 or (w.trains and w.method == "qlora"):
        tools.append("bitsandbytes")
    if q.engine == "vllm":
        tools.append("vllm")
    if q.engine in ("llama.cpp", "ollama", "lm-studio"):
        tools.append("llama.cpp")
    if m.kind == "diffusion":
        tools.append("diffusers")
    if w.trains:
        tools.append("pytorch-training")
    for tool in tools:
        s = support.supports(g, tool)
        if s.level is not _LEVEL_YES:
            out.append(note(NoteCode.SOFTWARE_LIMIT, card=g.id, tool=tool, level=str(s.level), stack=s.stack))
    if q.engine == "vllm":
        out.append(
            note(
                NoteCode.VLLM_RESERVE,
                fraction=VLLM_RESERVE,
                usable_gb=round(memory.usable_bytes(g) * VLLM_RESERVE / GB, 1),
            )
        )
    return out


def min_cards(m: Model, g: GPU, e: Estimate) -> int | None:
    """The fewest of ``g`` (2, 4, 8) an estimate's workload fits on, split tensor-parallel."""
    for k in (2, 4, 8):
        if k > e.workload.num_gpus and _on(m, g, e.workload, k).fits:
            return k
    return None


def ceil_gb(x: float) -> int:
    return int(math.ceil(x))


# --------------------------------------------------------------------------- what runs on a card


@dataclass(frozen=True)
class Runs:
    """One model on one card at the best build that fits."""

    model: Model
    build: Build
    total_gb: float
    release: bool  # the best build is the release format (no quantization needed)
    low_quality: bool = False  # only below Q4_K_M (3-bit, 2-bit): quality drops noticeably
    raised: bool = False  # unified memory: fits once the GPU's share is raised (leaving 16 GB)
    tokens_per_s: float | None = None  # one stream's decode at this build (modelled, throughput.decode)


def build_decode_tps(m: Model, g: GPU, b: Build) -> float | None:
    """Modelled tokens/s of one stream for build ``b``: throughput.decode's bandwidth model at 4-bit,
    rescaled by the build's bytes (Apple's fixed per-token cost kept as is)."""
    from bot.core import throughput

    try:
        f = throughput.decode(m, g, Precision.INT4)
        base_bytes = throughput.weight_bytes(m, Precision.INT4, active=False)
    except (ValueError, ZeroDivisionError, KeyError):
        return None
    if f.value <= 0 or base_bytes <= 0:
        return None
    over = throughput.APPLE_TOKEN_OVERHEAD_S if (g.vendor or "").lower() == "apple" else 0.0
    t = (1.0 / f.value - over) * (b.weights_gb * GB / base_bytes) + over
    return round(1.0 / t, 1) if t > 0 else None


#: builds below 4 bits: "fit only at 2-3 bits, where quality drops noticeably"
LOW_BITS = ("int3", "int2", "int1")

#: memory a unified-memory machine keeps for the OS when the GPU limit is raised (estimate;
#: macOS: sudo sysctl iogpu.wired_limit_mb=<MB>)
OS_RESERVE_GB = 16.0

#: how a question asks what a card can run
WHAT_RUNS = (
    "what can i run",
    "what can it run",
    "what runs",
    "what will run",
    "what models",
    "which models",
    "what llm",
    "which llm",
    "能跑什么",
    "能跑哪些",
    "可以跑什么",
    "能跑啥",
    # issue 10: what runs on an amount of memory ("which models fit in 12gb", "16g显存能跑哪些模型")
    "what could i run",
    "能跑哪个",
    "可以跑哪些",
    "跑得动什么",
    "跑得动哪些",
    "能运行什么",
    "能运行哪些",
    "能用什么模型",
    "能跑多大",
)


def asks_what_runs(text: str) -> bool:
    low = text.lower()
    for w in WHAT_RUNS:  # (a loop, not any() over a generator: most questions test every phrase)
        if w in low:
            return True
    return False


def _best(cat: Catalog, m: Model, g: GPU, q: Query) -> tuple[Build, float] | None:
    mq = copy_with(q, models=(m.id,), precision=None, method=None, task=None)
    base = memory.resolve_workload(m, task=Task.INFERENCE)
    for b in usable_builds(cat, m, mq, g):
        e = memory.estimate(m, g, workload=build_workload(m, base, b))
        if e.fits:
            return b, round(e.total / GB, 1)
    return None


def what_runs(cat: Catalog, g: GPU, q: Query, top: int = 5) -> tuple[Runs, ...]:
    """ "What can I run on this card": the largest LLMs at Q4_K_M or better (one per size), the
    largest unquantized, the larger ones that only fit at 2-3 bits, and (unified memory) the
    largest that fits at Q4_K_M once the GPU's share is raised."""
    q4_rank = cat.formats["gguf-q4_k_m"].quality_rank if "gguf-q4_k_m" in cat.formats else 99
    good: list[Runs] = []
    low: list[Runs] = []
    for m in sorted((m for m in cat.models.values() if m.kind in LLM_KINDS), key=lambda m: -m.params):
        found = _best(cat, m, g, q)
        if found is None:
            continue
        b, total = found
        r = Runs(
            m,
            b,
            total,
            b.is_release,
            low_quality=b.quality_rank > q4_rank and b.precision in LOW_BITS,
            tokens_per_s=build_decode_tps(m, g, b),
        )
        (low if r.low_quality else good).append(r)
    out: list[Runs] = []
    sizes: set[int] = set()
    for r in good:  # one model per size (Llama 3 / 3.1 / 3.3 70B are one line)
        size = round(r.model.params / 1e9)
        if size in sizes:
            continue
        sizes.add(size)
        out.append(r)
        if len(out) >= top:
            break
    rel = next((r for r in good if r.release), None)
    if rel is not None and rel not in out:
        out.append(rel)
    biggest = good[0].model.params if good else 0
    seen: set[int] = set()
    for r in low:
        size = round(r.model.params / 1e9)
        if r.model.params > biggest and size not in seen and len(seen) < 2:
            seen.add(size)
            out.append(r)
    if g.unified_memory and g.gpu_memory_share is not None and g.vram_gb > OS_RESERVE_GB * 2:
        share = (g.vram_gb - OS_RESERVE_GB) / g.vram_gb
        if share > g.gpu_memory_share:
            g2 = copy_with(g, gpu_memory_share=share)
            # a bigger model, or a listed one that only fits below Q4_K_M now (R1 as IQ4_XS -> Q5_K_M)
            below_q4 = {r.model.id: r.build.quality_rank for r in good if r.build.quality_rank > q4_rank}
            for m in sorted((m for m in cat.models.values() if m.kind in LLM_KINDS), key=lambda m: -m.params):
                if m.params <= biggest and m.id not in below_q4:
                    continue
                found = _best(cat, m, g2, q)
                if (
                    found is not None
                    and found[0].quality_rank <= q4_rank
                    and found[0].quality_rank < below_q4.get(m.id, 99)
                ):
                    out.append(
                        Runs(
                            m,
                            found[0],
                            found[1],
                            found[0].is_release,
                            raised=True,
                            tokens_per_s=build_decode_tps(m, g, found[0]),
                        )
                    )
                    break
    return tuple(out)
