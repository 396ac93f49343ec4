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
        if s.precision not in ("fp32", "fp16") or s.task != "training":
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


def _decode_cells(cat):
    """(model, gpu, precision, tokens/s) of the measured llama.cpp generation sets (0 = out of memory)."""
    out = []
    for s in cat.benchmarks.sets("throughput"):
        if s.task != "inference":
            continue
        prec = Precision.INT4 if s.precision == "int4" else Precision.FP16
        for mid, gid, v in s.cells():
            if cat.gpu(gid).vendor.lower() == "apple":
                # Metal adds a per-token cost this bandwidth-only formula leaves out; the Apple rows are
                # checked with it by tests/core/test_speed_answers.py (bot.core.throughput.decode)
                continue
            out.append((cat.model(mid), cat.gpu(gid), prec, v))
    return out


def test_decode_model_against_measured_llamacpp_tokens_per_second(cat):
    """Modelled batch-1 tokens/s (bandwidth x measured efficiency / bytes) vs llama.cpp runs."""
    errs, ratio_errs = [], []
    ref = cat.gpu(speed.REFERENCE_GPU)
    for m, g, prec, measured in _decode_cells(cat):
        if not measured:
            continue
        modelled = (
            speed.decode_efficiency(g, prec) * g.memory_bandwidth_gbs * 1e9 / speed._decode_bytes(m, prec)
        )
        errs.append(abs(math.log(modelled / measured)))
        ref_meas = speed._measured(cat, m.id, ref.id, prec, "inference")
        if ref_meas and g.id != ref.id:
            rel_model = speed.modelled_score(g, m, Task.INFERENCE, prec) / speed.modelled_score(
                ref, m, Task.INFERENCE, prec
            )
            ratio_errs.append(abs(math.log(rel_model / (measured / ref_meas))))
    median = math.exp(statistics.median(errs)) - 1
    worst = math.exp(max(errs)) - 1
    rmedian = math.exp(statistics.median(ratio_errs)) - 1
    print(
        f"\ndecode model: {len(errs)} cells, tokens/s median error {median:.0%}, worst {worst:.0%}; "
        f"ratio to the RTX 3090: {len(ratio_errs)} cells, median error {rmedian:.0%}"
    )
    assert len(errs) >= 50
    assert median < 0.15 and worst < 0.6
    assert rmedian < 0.15


def test_llamacpp_out_of_memory_cells_agree_with_the_memory_model(cat):
    """Every cell the runs measured fits in our model; every out-of-memory cell does not.

    The runs used llama.cpp's default 512-token context at batch 1; 4-bit GGUF
    stores 4.5-4.9 bits a weight, close to our int4 (4.25 bits + 16-bit embeddings).
    """
    wrong = []
    for m, g, prec, measured in _decode_cells(cat):
        e = memory.estimate(m, g, task=Task.INFERENCE, precision=prec, seq_len=512, batch_size=1)
        if bool(measured) != bool(e.fits):
            wrong.append(
                f"{m.id} {prec} on {g.id}: measured {'ran' if measured else 'OOM'}, model {e.total / 1e9:.1f} GB"
            )
    print(f"\nllama.cpp fit/OOM cells: {len(_decode_cells(cat))}, disagreements: {len(wrong)}")
    assert not wrong, wrong
