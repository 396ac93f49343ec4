"""Published peak-memory measurements of exact workloads (``knowledge/measured-memory.yaml``).

When a question's workload is one that was measured (same model, task,
method, precision, batch, sequence length and number of cards), the answer
quotes the measurement, labelled measured, next to the modelled figure.
Loaded with the catalog; a malformed entry stops start-up naming file,
entry and field.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bot.core.errors import KnowledgeError

if TYPE_CHECKING:
    from bot.core.memory import Workload

__all__ = ["MeasuredMemory", "load", "find", "FILE"]

FILE = "measured-memory.yaml"
KINDS = ("allocated", "reserved", "nvidia-smi", "torchtune-active", "unknown")
_PRECISION = {"mixed-bf16": "bf16", "mixed-fp16": "fp16", "nf4": "int4"}


@dataclass(frozen=True)
class MeasuredMemory:
    id: str
    source_group: str
    model: str
    gpu: str | None
    task: str
    method: str
    precision: str  # the engine's precision (bf16, fp16, int4, ...)
    pure_16bit: bool  # "bf16" training in the source means bf16 weights and optimizer states
    batch_size: int
    seq_len: int | None
    num_gpus: int
    measured_gb: float
    kind: str
    source: str

    @property
    def key(self) -> tuple[Any, ...]:
        return (self.model, self.task, self.method, self.precision, self.pure_16bit, self.batch_size,
                self.seq_len, self.num_gpus)  # fmt: skip


def _source_text(src: Any) -> str:
    if isinstance(src, Mapping):
        parts = [str(src.get(k)) for k in ("repo", "path", "url") if src.get(k)]
        commit = src.get("commit")
        return " ".join(parts) + (f" @ {str(commit)[:10]}" if commit else "")
    return str(src)


def load(directory: Path, models: Mapping[str, Any], read_yaml: Any) -> tuple[MeasuredMemory, ...]:
    """The measurements in ``directory/measured-memory.yaml`` (none when the file is absent)."""
    path = directory / FILE
    if not path.is_file():
        return ()
    data = read_yaml(path, FILE)
    if not isinstance(data, Mapping) or not isinstance(data.get("cases"), list):
        raise KnowledgeError(FILE, "expected a mapping with a 'cases' list")
    out: list[MeasuredMemory] = []
    for i, raw in enumerate(data["cases"]):
        entry = f"case {raw.get('id', i) if isinstance(raw, Mapping) else i}"
        if not isinstance(raw, Mapping) or not isinstance(raw.get("workload"), Mapping):
            raise KnowledgeError(FILE, "a case needs a workload mapping", entry=entry, field="workload")
        w = raw["workload"]
        if w.get("model") not in models:
            raise KnowledgeError(
                FILE, f"unknown model id {str(w.get('model'))[:60]!r}", entry=entry, field="workload.model"
            )
        gb = raw.get("measured_gb")
        if not isinstance(gb, int | float) or not math.isfinite(gb) or not 0 < gb <= 10_000:
            raise KnowledgeError(FILE, "a number of GB in (0, 10000]", entry=entry, field="measured_gb")
        if raw.get("kind") not in KINDS:
            raise KnowledgeError(FILE, f"one of {', '.join(KINDS)}", entry=entry, field="kind")
        task = str(w.get("task") or "inference")
        method = str(w.get("method") or "full")
        prec_raw = str(w.get("precision") or "")
        precision = _PRECISION.get(prec_raw, prec_raw)
        pure = prec_raw in ("bf16", "fp16") and task != "inference" and method == "full"
        out.append(
            MeasuredMemory(
                id=str(raw.get("id")),
                source_group=str(raw.get("source_group") or "?"),
                model=str(w["model"]),
                gpu=str(w["gpu"]) if w.get("gpu") else None,
                task=task,
                method=method,
                precision=precision,
                pure_16bit=pure,
                batch_size=int(w.get("batch_size") or 1),
                seq_len=int(w["seq_len"]) if w.get("seq_len") else None,
                num_gpus=int(w.get("num_gpus") or 1),
                measured_gb=float(gb),
                kind=str(raw["kind"]),
                source=_source_text(raw.get("source")),
            )
        )
    return tuple(out)


def find(cases: tuple[MeasuredMemory, ...], model_id: str, w: Workload, batch: int) -> MeasuredMemory | None:
    """The measurement of exactly this workload, if one was published."""
    if not cases:
        return None
    key = (
        model_id,
        str(w.task),
        str(w.method),
        str(w.precision),
        bool(w.pure_16bit),
        batch,
        w.seq_len,
        w.num_gpus,
    )
    return next((c for c in cases if c.key == key), None)
