"""Calibration: the memory model reproduces measured max batch sizes; the speed model measured throughput.

The 2020 guide's figures are the largest batch tried (mostly powers of two),
so the true limit lies between the figure and about twice it. Lambda's
TensorFlow benchmark batches are settings known to run: the model may not
predict less than 0.75x of them. Predictions here are always the model's
(never the measured value the answers quote), so this tests the model.
"""

from __future__ import annotations

import math
import statistics

import pytest

from bot.core import memory, speed
from bot.core.knowledge import get_catalog
from bot.core.types import Precision, Task


@pytest.fixture(scope="module")
def cat():
    return get_catalog()


def _predict(model, vram_gb: float, precision: Precision) -> int:
    w = memory.resolve_workload(model, task=Task.TRAINING, precision=precision)
    return memory.max_batch_per_card(memory.profile(model, w), _Card(vram_gb))


class _Card:
    """Only what usable_bytes reads: the VRAM tiers of the TF table are not catalog cards."""

    def __init__(self, vram_gb: float) -> None:
        self.vram_gb = vram_gb


def test_guide_max_batch_table(cat):
    ratios, lines, zero_wrong = [], [], []
    for s in cat.benchmarks.sets("max_batch"):
        for mid, gid, measured in s.cells():
            pred = _predict(cat.model(mid), cat.gpu(gid).vram_gb, Precision.FP32)
            if measured == 0:
                if pred != 0:
                    zero_wrong.append(f"{mid} on {gid}: measured does-not-fit, predicted {pred}")
                continue
            r = pred / measured
            ratios.append(r)
            lines.append(f"{mid} on {gid}: measured {measured:g}, predicted {pred}, ratio {r:.2f}")
    assert len(ratios) >= 40
    within = sum(0.75 <= r <= 2.5 for r in ratios) / len(ratios)
    outside = [line for line, r in zip(lines, ratios, strict=True) if not 0.5 <= r <= 4]
    median = statistics.median(ratios)
    print(
        f"\n2020 guide max batch: {len(ratios)} cells, {within:.0%} within 0.75-2.5x, median ratio {median:.2f}"
    )
    assert not zero_wrong, zero_wrong
    assert within >= 0.80, "\n".join(lines)
    assert not outside, outside


def test_known_to_run_batches_are_not_underpredicted(cat):
    low, n = [], 0
    for s in cat.benchmarks.sets("known_batch"):
        prec = Precision.FP16 if s.precision == "fp16" else Precision.FP32
        cells = [
            (mid, f"{v:g} GB tier", float(v), b) for mid, row in s.by_vram.items() for v, b in row.items()
        ]
        cells += [(mid, gid, cat.gpu(gid).vram_gb, b) for mid, gid, b in s.cells() if b > 0]
        for mid, label, vram, known in cells:
            n += 1
            pred = _predict(cat.model(mid), vram, prec)
            if pred < 0.75 * known:
                low.append(f"{mid} {label} {prec}: known to run {known:g}, predicted {pred}")
    assert n >= 100
    assert not low, low


def test_speed_model_against_measured_throughput(cat):
    """Modelled speed ratios to the reference card vs Lambda's measured TF training throughput."""
    ref = cat.gpu(speed.REFERENCE_GPU)
    errs = []
    for s in cat.benchmarks.sets("throughput"):
        if s.precision not in ("fp32", "fp16"):
            continue
        prec = Precision.FP16 if s.precision == "fp16" else Precision.FP32
        for mid, row in s.data.items():
            if not row.get(ref.id):
                continue
            m = cat.model(mid)
            for gid, v in row.items():
                if gid == ref.id or not v:
                    continue
                modelled = speed.modelled_score(cat.gpu(gid), m, Task.TRAINING, prec) / speed.modelled_score(
                    ref, m, Task.TRAINING, prec
                )
                errs.append(abs(math.log(modelled / (v / row[ref.id]))))
    median = math.exp(statistics.median(errs)) - 1
    worst = math.exp(max(errs)) - 1
    print(f"\nspeed model: {len(errs)} cells, median error {median:.0%}, worst {worst:.0%}")
    assert len(errs) >= 80
    assert median < 0.15
    assert worst < 0.75


def test_answers_use_measured_speed_where_it_exists(cat):
    sp = speed.relative_speed(
        cat.model("resnet-50"), cat.gpu("rtx-a6000"), Precision.FP16, task=Task.TRAINING, catalog=cat
    )
    assert sp.basis == "measured"
    assert sp.relative == pytest.approx(1404 / 1020)
