"""The command that makes an inference verdict true (issue 17): what to type to run it as stated.

For every inference fit entry of a build (``bot.core.engine.builds``) this module writes the
command of the engine that loads that build, with the flags the verdict assumed, and one line to
check it:

* GGUF builds -> llama.cpp (``llama-server``), with an Ollama alternative where the model has a
  library tag and the build is the one the tag downloads; the asker's engine first when they
  named Ollama. ``-c`` is the context the answer assumed; ``-ngl`` is every layer (the repeating
  layers plus the output layer, as llama.cpp counts them: "offloaded 33/33 layers" for a 32-layer
  model) when the build fits, the layers the memory model put on the card for a partial-offload
  verdict (``builds.partial_offload``), and ``--n-cpu-moe <layers>`` keeps every layer's routed
  experts in system RAM for a MoE expert-offload verdict (``builds.expert_offload``). Several
  cards: ``-ts 1,1`` (llama.cpp splits layers across the cards; equal cards get equal shares).
* bf16 / fp16 / fp8 / AWQ / GPTQ / MXFP4 / bitsandbytes NF4 -> vLLM (``vllm serve``), with
  ``--max-model-len`` = the assumed context, ``--tensor-parallel-size`` = the card count and
  ``--gpu-memory-utilization``: vLLM's default 0.9 (``builds.VLLM_RESERVE``) when the verdict fits
  inside it, else the share the estimate needs (the verdict was judged against the whole card).
  A quantized build with no published repo quantizes the release repo on load
  (``--quantization fp8`` / ``bitsandbytes``) or names a placeholder (AWQ, GPTQ).
* Apple unified memory -> llama.cpp (Metal), every build as a GGUF file.
* Diffusion pipelines -> diffusers: ``from_pretrained`` with ``pipe.to("cuda")``, or
  ``pipe.enable_model_cpu_offload()`` when the verdict relies on model offload.
* KV-cache quantization (``Query.kv_cache``, when the question sets it: "f16", "q8_0", "q4_0",
  "fp8"): llama.cpp ``-ctk/-ctv`` (a quantized V cache needs flash attention: ``-fa on``),
  vLLM ``--kv-cache-dtype fp8``, Ollama ``OLLAMA_KV_CACHE_TYPE``.

Model repos and tags come from ``knowledge/model-repos.yaml`` (each with its source); where none
is known the command carries a clear placeholder (``<path to the Q4_K_M .gguf of Llama 3.1 8B>``),
never an invented name. Commands are not translated; the one line that introduces them is
(catalog keys ``cmd.``).

Flag sources: llama.cpp ``tools/server/README.md`` and ``common/arg.cpp`` (``-m``, ``-hf
<repo>[:quant]``, ``-c``, ``-ngl``, ``-ts``, ``--n-cpu-moe``, ``-ctk``/``-ctv``, ``-fa``, ``-np``),
``tools/llama-bench``; vLLM docs, engine arguments (``--max-model-len``,
``--gpu-memory-utilization``, ``--tensor-parallel-size``, ``--kv-cache-dtype``, ``--quantization``,
``--max-num-seqs``); Ollama docs (Modelfile ``PARAMETER num_ctx`` / ``num_gpu``, FAQ
``OLLAMA_KV_CACHE_TYPE`` with ``OLLAMA_FLASH_ATTENTION=1``, ``ollama ps``); diffusers docs
(``enable_model_cpu_offload``, ``PipelineQuantizationConfig``). Checked 2026-12.

Pure functions; the repos file is read once per knowledge directory. No Discord.
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from bot.core.knowledge import GPU, KnowledgeError, Model
from bot.core.quick_init import quick_init

__all__ = [
    "Command",
    "Offload",
    "Repos",
    "command_for",
    "load_repos",
    "repos_for",
]

#: vLLM's default ``gpu_memory_utilization`` (the same figure as builds.VLLM_RESERVE; not imported
#: to keep this module free of the engine package)
VLLM_DEFAULT_UTIL = 0.9
#: the highest ``--gpu-memory-utilization`` written (a verdict needing more is already "tight":
#: vLLM's budget then leaves almost nothing beside it)
VLLM_MAX_UTIL = 0.99
#: what each KV-cache setting is called by llama.cpp (``-ctk``) and vLLM (``--kv-cache-dtype``);
#: None = the engine's default (16-bit) or no such type in that engine
_KV_LLAMA = {"q8_0": "q8_0", "q4_0": "q4_0", "fp8": "q8_0"}  # llama.cpp has no fp8 cache: q8_0 is its 8-bit
_KV_VLLM = {"fp8": "fp8", "q8_0": "fp8"}  # vLLM's 8-bit cache is fp8; it has no 4-bit cache
_VLLM_QUANT = {"awq": "awq", "gptq": "gptq", "bnb": "bitsandbytes", "fp8": "fp8"}
_PROMPT = "a photo of an astronaut riding a horse"


@dataclass(frozen=True)
class Repos:
    """Where a model is downloaded (``knowledge/model-repos.yaml``)."""

    model: str
    hf_repo: str | None = None  # the release (safetensors) repo vLLM / diffusers load
    gguf_repo: str | None = None  # a GGUF repo with the usual quant levels (llama.cpp ``-hf``)
    ollama_tag: str | None = None  # Ollama library tag; it downloads ``ollama_format``
    ollama_format: str = "gguf-q4_k_m"
    awq_repo: str | None = None
    source: str = ""


@dataclass(frozen=True)
class Offload:
    """What the verdict put in system RAM: ``layers_gpu`` of the model's layers on the card
    (llama.cpp partial offload), or every routed expert (``cpu_moe``)."""

    layers_gpu: int | None = None
    cpu_moe: bool = False
    sequential: bool = False  # diffusers' enable_sequential_cpu_offload(): one layer at a time


@quick_init
@dataclass(frozen=True)
class Command:
    """One engine's command for one fit entry: the lines to run and one line to check it."""

    engine: str  # "llama.cpp" | "ollama" | "vllm" | "diffusers" | "transformers"
    lines: tuple[str, ...]
    check: str
    format: str = ""  # the build it runs (formats.yaml id)
    cards: int = 1  # the cards it runs on (more than asked when the verdict said "fits on N")
    context_tokens: int | None = None  # the context it sets (LLMs)
    alternatives: tuple[Command, ...] = ()  # the same verdict in another engine (Ollama)

    @property
    def run(self) -> str:
        return "\n".join(self.lines)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "engine": self.engine,
            "run": self.run,
            "check": self.check,
            "format": self.format,
            "cards": self.cards,
            "context_tokens": self.context_tokens,
        }
        if self.alternatives:
            out["alternatives"] = [a.to_json() for a in self.alternatives]
        return out


# --------------------------------------------------------------------------- repos


_REPO_KEYS = {"model", "hf_repo", "gguf_repo", "ollama_tag", "ollama_format", "awq_repo", "source"}


def load_repos(directory: Path, models: Any = None) -> dict[str, Repos]:
    """``model-repos.yaml`` of a knowledge directory, validated; {} when the file is absent.

    Raises KnowledgeError (file, entry, field) for an unknown key, a missing source, a model id
    the catalog lacks (when ``models`` is given) or a duplicate."""
    from bot.core.knowledge import _read_yaml

    path = Path(directory) / "model-repos.yaml"
    if not path.is_file():
        return {}
    disp = f"{Path(directory).name}/model-repos.yaml"
    data = _read_yaml(path, disp)
    if not isinstance(data, dict) or not isinstance(data.get("repos"), list):
        raise KnowledgeError(disp, "expected a mapping with a 'repos' list")
    out: dict[str, Repos] = {}
    for i, raw in enumerate(data["repos"]):
        entry = f"repos[{i}]"
        if not isinstance(raw, dict):
            raise KnowledgeError(disp, "expected a mapping", entry=entry)
        for k, v in raw.items():
            if k not in _REPO_KEYS:
                raise KnowledgeError(disp, "unknown key", entry=entry, field=str(k))
            if not isinstance(v, str) or not v.strip():
                raise KnowledgeError(disp, "expected a non-empty string", entry=entry, field=str(k))
        mid = raw.get("model")
        if mid is None:
            raise KnowledgeError(disp, "missing", entry=entry, field="model")
        if not raw.get("source"):
            raise KnowledgeError(disp, "missing (every repo needs its source)", entry=entry, field="source")
        if models is not None and mid not in models:
            raise KnowledgeError(disp, f"unknown model id {mid!r}", entry=entry, field="model")
        if mid in out:
            raise KnowledgeError(disp, "duplicate model", entry=entry, field="model")
        out[mid] = Repos(**raw)
    return out


@functools.lru_cache(maxsize=8)
def _repos_cached(directory: str) -> dict[str, Repos]:
    return load_repos(Path(directory))


def repos_for(catalog: Any, model_id: str) -> Repos:
    """The model's repos in the catalog's knowledge directory (empty when none are recorded)."""
    directory = getattr(catalog, "directory", None)
    table = _repos_cached(str(directory)) if directory is not None else {}
    return table.get(model_id) or Repos(model=model_id)


# --------------------------------------------------------------------------- helpers


def _quant_label(format_id: str) -> str:
    """``gguf-q4_k_m`` -> ``Q4_K_M`` (the quant tag in GGUF file names and ``-hf repo:quant``)."""
    return format_id.removeprefix("gguf-").upper()


def _gguf_file(m: Model, format_id: str, family: str) -> str:
    if family == "gguf":
        label = _quant_label(format_id)
    elif family == "mxfp4":
        label = "MXFP4"
    else:
        label = format_id.upper()
    return f"<path to the {label} .gguf of {m.name}>"


def _llama_model_arg(m: Model, format_id: str, family: str, repos: Repos) -> tuple[str, str]:
    """(the ``-m``/``-hf`` argument of llama-server, the ``-m`` of llama-bench)."""
    local = _gguf_file(m, format_id, family)
    if repos.gguf_repo and family in ("gguf", "mxfp4"):
        tag = "" if family == "mxfp4" else f":{_quant_label(format_id)}"
        return f"-hf {repos.gguf_repo}{tag}", f'-m "{local}"'
    return f'-m "{local}"', f'-m "{local}"'


def _mem_check(g: GPU) -> str:
    if g.software == "rocm":
        return "rocm-smi --showmeminfo vram"
    if g.unified_memory or g.software == "mps":
        return ""
    if g.software == "oneapi":
        return "xpu-smi stats -d 0"
    return "nvidia-smi --query-gpu=memory.used,memory.total --format=csv"


def _util(required_gb: float, capacity_gb: float | None, vllm_asked: bool) -> float:
    """``--gpu-memory-utilization`` matching the verdict: 0.9 when the estimate fits in it (or the
    verdict was judged against vLLM's 0.9), else the share needed, rounded up, at most VLLM_MAX_UTIL."""
    if vllm_asked or not capacity_gb or capacity_gb <= 0:
        return VLLM_DEFAULT_UTIL
    share = required_gb / capacity_gb
    if share <= VLLM_DEFAULT_UTIL:
        return VLLM_DEFAULT_UTIL
    return min(VLLM_MAX_UTIL, math.ceil(share * 100 + 1) / 100)


def _ollama(
    m: Model,
    g: GPU,
    repos: Repos,
    ctx: int | None,
    offload: Offload | None,
    kv: str | None,
    local: str | None = None,
) -> Command | None:
    """Ollama with the library tag (when it downloads this build), or with ``local``: a GGUF file
    on disk (a Modelfile's FROM takes a path)."""
    source = local or repos.ollama_tag
    if not source:
        return None
    lines: list[str] = []
    kvt = _KV_LLAMA.get(kv or "")
    if kvt:
        lines.append(f"OLLAMA_FLASH_ATTENTION=1 OLLAMA_KV_CACHE_TYPE={kvt} ollama serve &")
    # a Modelfile sets num_ctx (Ollama's own default is far below most answers' context) and, for
    # a partial offload, num_gpu (the layers on the card); every line is plain shell
    params = [f"PARAMETER num_ctx {ctx}"] if ctx else []
    if offload is not None and offload.layers_gpu is not None:
        params.append(f"PARAMETER num_gpu {offload.layers_gpu}")
    if local is not None:
        params = params or [f"PARAMETER num_ctx {ctx or 4096}"]
    if params:
        base = repos.ollama_tag if local is None and repos.ollama_tag else m.id
        name = re.sub(r"[^a-z0-9.]+", "-", base.lower()) + (f"-{ctx // 1024}k" if ctx else "")
        body = "\\n".join([f"FROM {source}", *params])
        lines.append(f"printf '{body}\\n' > Modelfile")
        lines.append(f"ollama create {name} -f Modelfile")
        lines.append(f"ollama run {name}")
    else:
        lines.append(f"ollama run {source}")
    return Command(
        engine="ollama",
        lines=tuple(lines),
        check="ollama ps",  # SIZE, PROCESSOR (the GPU/CPU split) and CONTEXT of the loaded model
        format=repos.ollama_format if local is None else "",
        context_tokens=ctx,
    )


# --------------------------------------------------------------------------- engines


def _llama_cpp(
    m: Model,
    g: GPU,
    format_id: str,
    family: str,
    repos: Repos,
    *,
    ctx: int | None,
    cards: int,
    batch: int,
    offload: Offload | None,
    kv: str | None,
) -> Command:
    model_arg, bench_arg = _llama_model_arg(m, format_id, family, repos)
    layers = m.layers or 0
    if offload is not None and offload.layers_gpu is not None:
        ngl = offload.layers_gpu
    else:
        ngl = layers + 1 if layers else 999  # every repeating layer plus the output layer
    flags = [model_arg, f"-ngl {ngl}"]
    if ctx:
        # llama-server splits -c across its parallel slots: each of -np sequences gets ctx
        flags.append(f"-c {ctx * batch}")
    if batch > 1:
        flags.append(f"-np {batch}")
    if offload is not None and offload.cpu_moe and layers:
        flags.append(f"--n-cpu-moe {layers}")
    if cards > 1:
        flags.append("-ts " + ",".join("1" for _ in range(cards)))
    kvt = _KV_LLAMA.get(kv or "")
    if kvt:
        flags += [f"-ctk {kvt}", f"-ctv {kvt}", "-fa on"]
    run = "llama-server " + " ".join(flags)
    # llama-bench loads the model as the server would; -p at the assumed context fills that much
    # KV cache, so an out-of-memory shows here, with the speed
    bench = ["llama-bench", bench_arg, f"-ngl {ngl}"]
    if ctx:
        bench.append(f"-p {ctx} -n 128")
    if offload is not None and offload.cpu_moe and layers:
        bench.append(f"--n-cpu-moe {layers}")
    if cards > 1:
        bench.append("-ts " + "/".join("1" for _ in range(cards)))
    if kvt:
        bench += [f"-ctk {kvt}", f"-ctv {kvt}", "-fa 1"]
    check = " ".join(bench)
    return Command(
        engine="llama.cpp",
        lines=(run,),
        check=check,
        format=format_id,
        cards=cards,
        context_tokens=ctx,
    )


def _vllm(
    m: Model,
    g: GPU,
    format_id: str,
    family: str,
    repos: Repos,
    *,
    release: bool,
    ctx: int | None,
    cards: int,
    batch: int,
    required_gb: float,
    capacity_gb: float | None,
    vllm_asked: bool,
    kv: str | None,
) -> Command:
    base = repos.hf_repo or f"<Hugging Face repo of {m.name}>"
    quant: str | None = None
    if release or family == "native":
        repo = base
    elif family == "awq":
        repo = repos.awq_repo or f"<AWQ 4-bit repo of {m.name}>"
        quant = "awq" if not repos.awq_repo else None  # vLLM reads a published repo's config
    elif family == "gptq":
        repo = f"<GPTQ 4-bit repo of {m.name}>"
        quant = "gptq"
    elif family in ("fp8", "bnb"):
        repo = base  # quantized on load from the release weights
        quant = _VLLM_QUANT[family]
    else:
        repo = base
    flags = [f"vllm serve {repo}"]
    if family == "native" and not release:
        # a 16-bit precision other than the release's (fp16 of a bf16 model): vLLM's --dtype
        flags.append(
            "--dtype " + {"fp16": "float16", "bf16": "bfloat16", "fp32": "float32"}.get(format_id, "auto")
        )
    if ctx:
        flags.append(f"--max-model-len {ctx}")
    flags.append(f"--gpu-memory-utilization {_util(required_gb, capacity_gb, vllm_asked):.2f}")
    if cards > 1:
        flags.append(f"--tensor-parallel-size {cards}")
    if quant:
        flags.append(f"--quantization {quant}")
    if batch > 1:
        flags.append(f"--max-num-seqs {batch}")
    kvt = _KV_VLLM.get(kv or "")
    if kvt:
        flags.append(f"--kv-cache-dtype {kvt}")
    mem = _mem_check(g) or "nvidia-smi --query-gpu=memory.used,memory.total --format=csv"
    return Command(
        engine="vllm",
        lines=(" ".join(flags),),
        check=mem,
        format=format_id,
        cards=cards,
        context_tokens=ctx,
    )


def _denoiser_name(m: Model) -> str:
    """diffusers' attribute of the denoiser: ``unet`` for the Stable Diffusion 1.x / XL UNets."""
    for c in m.components or ():
        if c.role == "denoiser":
            return "unet" if "unet" in c.name.lower() else "transformer"
    return "transformer"


def _diffusers(
    m: Model,
    g: GPU,
    format_id: str,
    family: str,
    repos: Repos,
    *,
    release: bool,
    model_offload: bool,
    sequential: bool = False,
) -> Command:
    repo = repos.hf_repo or f"<Hugging Face repo of {m.name}>"
    dtype = "torch.float16" if (m.release_precision or "") in ("fp16", "fp32") else "torch.bfloat16"
    device = "mps" if g.software == "mps" else "cuda"  # ROCm PyTorch names its devices "cuda"
    lines = ["import torch", "from diffusers import DiffusionPipeline"]
    quant = ""
    den = _denoiser_name(m)
    if not release and family == "bnb":
        lines[1] = "from diffusers import DiffusionPipeline, PipelineQuantizationConfig"
        lines.append(
            'quant = PipelineQuantizationConfig(quant_backend="bitsandbytes_4bit", '
            'quant_kwargs={"load_in_4bit": True, "bnb_4bit_quant_type": "nf4", '
            f'"bnb_4bit_compute_dtype": {dtype}}}, components_to_quantize=["{den}"])'
        )
        quant = ", quantization_config=quant"
    elif not release and family == "fp8":
        lines[1] = "from diffusers import DiffusionPipeline, PipelineQuantizationConfig"
        lines.append(
            'quant = PipelineQuantizationConfig(quant_backend="torchao", '
            f'quant_kwargs={{"quant_type": "float8wo_e4m3"}}, components_to_quantize=["{den}"])'
        )
        quant = ", quantization_config=quant"
    elif not release and family == "gguf":
        # diffusers loads a GGUF denoiser with from_single_file + GGUFQuantizationConfig where the
        # pipeline supports it; ComfyUI-GGUF loads any
        lines.append(f"# {den}: {_gguf_file(m, format_id, family)} (ComfyUI-GGUF)")
    lines.append(f'pipe = DiffusionPipeline.from_pretrained("{repo}", torch_dtype={dtype}{quant})')
    if sequential:
        lines.append("pipe.enable_sequential_cpu_offload()")  # one layer at a time: slow
    elif model_offload:
        lines.append("pipe.enable_model_cpu_offload()")  # one component on the card at a time
    else:
        lines.append(f'pipe.to("{device}")')
    lines.append(f'image = pipe("{_PROMPT}").images[0]')
    if device == "cuda":
        check = 'print(f"{torch.cuda.max_memory_allocated() / 1e9:.1f} GB peak")'
    else:
        check = 'print(f"{torch.mps.driver_allocated_memory() / 1e9:.1f} GB")'
    return Command(engine="diffusers", lines=tuple(lines), check=check, format=format_id)


# --------------------------------------------------------------------------- the one entry point


def command_for(
    m: Model,
    g: GPU,
    *,
    format_id: str,
    family: str,
    release: bool,
    fits: bool,
    num_gpus: int = 1,
    context_tokens: int | None = None,
    batch_size: int | None = None,
    required_gb: float = 0.0,
    capacity_gb: float | None = None,
    min_cards: int | None = None,
    offload: Offload | None = None,
    model_offload: bool = False,
    engine: str | None = None,
    kv_cache: str | None = None,
    repos: Repos | None = None,
) -> Command | None:
    """The command that runs one inference fit entry as its verdict says, or None when nothing
    runs it (it does not fit, on any count of this card, nor with the offload the answer offered).

    ``format_id`` / ``family`` / ``release``: the build (formats.yaml id, its family, whether it
    is the release format); ``fits``: the verdict; ``num_gpus``: the cards asked; ``min_cards``:
    the fewest cards it fits on when it does not fit the asked ones; ``offload``: the partial or
    expert offload the answer offered for this build; ``model_offload``: a diffusion verdict that
    relies on diffusers' model CPU offload; ``engine``: the engine the asker named (catalog id);
    ``kv_cache``: the KV-cache type the question set."""
    repos = repos or Repos(model=m.id)
    if not fits and offload is None and min_cards is None:
        return None
    cards = num_gpus if (fits or offload is not None) else (min_cards or num_gpus)
    if m.kind == "diffusion":
        seq = offload is not None and offload.sequential
        if not fits and not seq:
            return None  # diffusers does not split one pipeline across cards
        return _diffusers(
            m, g, format_id, family, repos, release=release, model_offload=model_offload, sequential=seq
        )
    if m.kind not in ("decoder", "moe-decoder"):
        return None
    ctx = context_tokens
    batch = max(1, batch_size or 1)
    kv = kv_cache if kv_cache not in (None, "", "f16", "fp16", "bf16") else None
    gguf_engines = ("llama.cpp", "ollama", "lm-studio")
    use_llama = (
        family == "gguf"
        or offload is not None
        or g.unified_memory
        or g.software == "mps"
        or (engine in gguf_engines and family in ("native", "mxfp4"))
    )
    if use_llama:
        main = _llama_cpp(
            m, g, format_id, family, repos, ctx=ctx, cards=cards, batch=batch, offload=offload, kv=kv
        )
        alt = _ollama(m, g, repos, ctx, offload, kv) if format_id == repos.ollama_format else None
        if alt is None and engine == "ollama" and family in ("gguf", "mxfp4", "native"):
            # no library tag downloads this build: Ollama imports the GGUF file itself
            alt = _ollama(m, g, repos, ctx, offload, kv, local=_gguf_file(m, format_id, family))
        if alt is not None and not (offload is not None and offload.cpu_moe):
            # Ollama has no per-expert placement: it is offered for whole-layer splits only
            if engine == "ollama":
                return Command(
                    alt.engine, alt.lines, alt.check, format_id, cards, alt.context_tokens, (main,)
                )
            return Command(main.engine, main.lines, main.check, main.format, cards, ctx, (alt,))
        return main
    served = _vllm(
        m,
        g,
        format_id,
        family,
        repos,
        release=release,
        ctx=ctx,
        cards=cards,
        batch=batch,
        required_gb=required_gb,
        capacity_gb=capacity_gb,
        vllm_asked=engine == "vllm",
        kv=kv,
    )
    if family == "mxfp4" and repos.gguf_repo and engine != "vllm":
        # an MXFP4 release also ships as one GGUF file (gpt-oss): llama.cpp and Ollama load the same
        # weights, so the same verdict holds there
        alts = [
            _llama_cpp(m, g, format_id, family, repos, ctx=ctx, cards=cards, batch=batch, offload=None, kv=kv)
        ]
        olla = _ollama(m, g, repos, ctx, None, kv) if format_id == repos.ollama_format else None
        if olla is not None:
            alts.append(olla)
        return replace(served, alternatives=tuple(alts))
    return served


# --------------------------------------------------------------------------- the question again

#: the characters of ids, numbers and engine / cache names in a button key
_KEY_PART = r"[a-z0-9][a-z0-9._+-]{0,39}|-"
KEY_PATTERN = rf"(?:{_KEY_PART})(?::(?:{_KEY_PART})){{8}}"


def _part(v: Any) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:g}"
    return str(v)


def button_key(q: Any) -> str | None:
    """The question of an inference verdict as a short key (one model, one card): what a
    "Show command" button keeps to compute the same verdict again after a restart. None when the
    question has more than one model or card, or the key would pass ``max_len``."""
    if len(q.models) != 1 or len(q.gpus) != 1:
        return None
    parts = [
        q.models[0],
        q.gpus[0],
        q.num_gpus,
        q.seq_len,
        q.batch_size,
        q.engine,
        getattr(q, "kv_cache", None),
        None if q.system_ram_gb is None else int(q.system_ram_gb),
        q.resolution,
    ]
    key = ":".join(_part(p).lower() for p in parts)
    return key if len(key) <= 88 else None


def query_from_key(key: str) -> Any:
    """The inference question a :func:`button_key` stands for (a ``Query``), or None if malformed."""
    from dataclasses import fields

    from bot.core.types import Intent, Query, Task

    if not re.fullmatch(KEY_PATTERN, key):
        return None
    model, gpu, n, seq, batch, engine, kv, ram, res = key.split(":")

    def num(s: str) -> int | None:
        return None if s == "-" else int(s)

    try:
        q = Query(
            intent=Intent.FIT,
            models=(model,),
            gpus=(gpu,),
            task=Task.INFERENCE,
            num_gpus=num(n) or 1,
            seq_len=num(seq),
            batch_size=num(batch),
            engine=None if engine == "-" else engine,
            system_ram_gb=None if ram == "-" else float(ram),
            resolution=num(res),
        )
    except ValueError:
        return None
    if kv != "-" and "kv_cache" in {f.name for f in fields(Query)}:
        q = replace(q, kv_cache=kv)  # type: ignore[call-arg,unused-ignore]
    return q
