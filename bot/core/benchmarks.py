"""Read access to the measured tables of ``knowledge/benchmarks/*.yaml``.

The loader (``bot.core.knowledge``) validates the files and builds these;
the engine asks them for measured max batch sizes, known-to-run batches and
throughput (training images/s, inference tokens/s).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass

__all__ = ["MeasuredValue", "BenchmarkSet", "Benchmarks", "CatalogBenchmarks"]


@dataclass(frozen=True)
class MeasuredValue:
    """One cell of a measured table, with where it comes from."""

    value: float
    unit: str
    set_id: str
    source: str
    semantics: str  # largest_tried | known_to_run | measured
    precision: str = "unstated"
    task: str = "training"
    basis: str | None = None  # e.g. "rtx-3090 (24 GB) batch" or "24 GB tier" for known_batch

    @property
    def does_not_fit(self) -> bool:
        """True for the tables' 0 = did not fit / did not run."""
        return self.value == 0


@dataclass(frozen=True)
class BenchmarkSet:
    id: str
    file: str
    kind: str
    task: str
    precision: str
    unit: str
    semantics: str
    source: str
    data: Mapping[str, Mapping[str, float]]
    by_vram: Mapping[str, Mapping[float, float]]
    notes: str | None = None

    def cells(self) -> list[tuple[str, str, float]]:
        return [(m, g, v) for m, row in self.data.items() for g, v in row.items()]


class Benchmarks:
    """Read access to the measured tables of ``knowledge/benchmarks/*.yaml``.

    A value of 0 means "did not fit / did not run" and is returned as such
    (``MeasuredValue.does_not_fit``); ``None`` means "not measured".
    """

    def __init__(self, sets: list[BenchmarkSet]) -> None:
        self._sets: dict[str, BenchmarkSet] = {s.id: s for s in sets}
        self._rank_cache: dict[tuple[str, str | None, str | None], list[BenchmarkSet]] = {}

    # -- enumeration
    def sets(self, kind: str | None = None) -> list[BenchmarkSet]:
        return [s for s in self._sets.values() if kind is None or s.kind == kind]

    def set(self, set_id: str) -> BenchmarkSet:
        return self._sets[set_id]

    def cells(self, set_id: str) -> list[tuple[str, str, float]]:
        """All (model_id, gpu_id, value) of one set (KeyError on unknown set id)."""
        return self._sets[set_id].cells()

    def cell_count(self) -> int:
        n = 0
        for s in self._sets.values():
            n += sum(len(row) for row in s.data.values())
            n += sum(len(row) for row in s.by_vram.values())
        return n

    def __iter__(self) -> Iterator[BenchmarkSet]:
        return iter(self._sets.values())

    def __len__(self) -> int:
        return len(self._sets)

    # -- lookups
    @staticmethod
    def _mv(s: BenchmarkSet, value: float, basis: str | None = None) -> MeasuredValue:
        return MeasuredValue(
            value=value,
            unit=s.unit,
            set_id=s.id,
            source=s.source,
            semantics=s.semantics,
            precision=s.precision,
            task=s.task,
            basis=basis,
        )

    def _ranked(self, kind: str, precision: str | None = None, task: str | None = None) -> list[BenchmarkSet]:
        # Broadest table first (most cards), then file order: a wide table gives the
        # most consistent relative comparisons. Sets never change: rank once per key.
        key = (kind, precision, task)
        hit = self._rank_cache.get(key)
        if hit is None:
            hit = self._rank_cache[key] = self._rank(kind, precision, task)
        return hit

    def _rank(self, kind: str, precision: str | None, task: str | None) -> list[BenchmarkSet]:
        chosen = [
            s
            for s in self._sets.values()
            if s.kind == kind
            and (precision is None or s.precision == precision)
            and (task is None or s.task == task)
        ]
        order = {s.id: i for i, s in enumerate(self._sets.values())}
        return sorted(chosen, key=lambda s: (-len({g for row in s.data.values() for g in row}), order[s.id]))

    def max_batch(self, model_id: str, gpu_id: str) -> MeasuredValue | None:
        """Largest batch tried before out-of-memory (Lambda 2020 guide); 0 = does not fit."""
        for s in self._ranked("max_batch"):
            v = s.data.get(model_id, {}).get(gpu_id)
            if v is not None:
                return self._mv(s, v)
        return None

    def throughput(
        self, model_id: str, gpu_id: str, precision: str, task: str = "training"
    ) -> MeasuredValue | None:
        """Measured throughput at ``precision`` for ``task``: training images/s, or
        inference tokens/s (batch 1 generation); 0 = did not fit / did not run."""
        for s in self._ranked("throughput", precision, task):
            v = s.data.get(model_id, {}).get(gpu_id)
            if v is not None:
                return self._mv(s, v)
        return None

    def known_batch(
        self,
        model_id: str,
        vram_gb: float,
        precision: str = "fp32",
        gpu_vram: Mapping[str, float] | None = None,
    ) -> MeasuredValue | None:
        """A batch size known to run for ``model_id`` on a card with ``vram_gb`` of memory.

        Candidates: the batch-by-VRAM tiers (tier <= vram_gb) and the per-card
        batch tables (cards whose VRAM <= vram_gb). Returns the largest such
        batch, i.e. the strongest "known to run" lower bound; ``basis`` says
        which tier or card it came from. ``gpu_vram`` (id -> GB) is supplied by
        the catalog.
        """
        best: tuple[float, float, MeasuredValue] | None = None
        for s in self._sets.values():
            if s.kind != "known_batch" or s.precision != precision:
                continue
            for tier, batch in s.by_vram.get(model_id, {}).items():
                if tier <= vram_gb + 1e-9:
                    cand = (batch, tier, self._mv(s, batch, f"{tier:g} GB tier"))
                    if best is None or cand[:2] > best[:2]:
                        best = cand
            if gpu_vram is not None:
                for gpu_id, batch in s.data.get(model_id, {}).items():
                    card_gb = gpu_vram.get(gpu_id)
                    if card_gb is not None and card_gb <= vram_gb + 1e-9 and batch > 0:
                        cand = (batch, card_gb, self._mv(s, batch, f"{gpu_id} ({card_gb:g} GB)"))
                        if best is None or cand[:2] > best[:2]:
                            best = cand
        return best[2] if best else None


class CatalogBenchmarks(Benchmarks):
    """Benchmarks bound to the catalog's card VRAM (for known_batch per-card tables)."""

    def __init__(self, inner: Benchmarks, gpu_vram: Mapping[str, float]) -> None:
        super().__init__(list(inner._sets.values()))
        self._gpu_vram = dict(gpu_vram)

    def known_batch(
        self,
        model_id: str,
        vram_gb: float,
        precision: str = "fp32",
        gpu_vram: Mapping[str, float] | None = None,
    ) -> MeasuredValue | None:
        return super().known_batch(
            model_id, vram_gb, precision, gpu_vram if gpu_vram is not None else self._gpu_vram
        )
