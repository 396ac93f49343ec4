"""Calibration report: modelled max batch against measured tables.

usage: python bench/calibrate.py [--fit [--write]] | --speed

For every cell of the 2020 guide's max-batch table: the modelled max batch
(training, fp32, the model's own resolution) and the ratio to the measured
figure. For every known-to-run batch of Lambda's TensorFlow benchmark: the
ratio prediction / known (must not be below 0.75). ``--fit`` prints, per CNN,
the activation_mb_per_sample that best fits these constraints (the method
recorded in each model's activation_basis).
"""

from __future__ import annotations

import math
import statistics
import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.core import memory  # noqa: E402
from bot.core.knowledge import Catalog, Model, load_catalog  # noqa: E402
from bot.core.types import Precision, Task  # noqa: E402


def predict(model: Model, gpu_vram_gb: float, precision: Precision, act_mb: float | None = None) -> int:
    m = replace(model, activation_mb_per_sample=act_mb) if act_mb is not None else model
    w = memory.resolve_workload(m, task=Task.TRAINING, precision=precision)
    t = memory.profile(m, w)
    return memory._max_batch(t, gpu_vram_gb * memory.GIB)


def guide_cells(cat: Catalog) -> list[tuple[str, str, float, float]]:
    """(model, gpu, vram, measured) of the 2020 guide's max-batch table."""
    out = []
    for s in cat.benchmarks.sets("max_batch"):
        for mid, gid, v in s.cells():
            out.append((mid, gid, cat.gpu(gid).vram_gb, v))
    return out


def known_cells(cat: Catalog) -> list[tuple[str, str, float, float, Precision]]:
    """(model, label, vram, known batch, precision) of the TF benchmark's known-to-run batches."""
    out = []
    for s in cat.benchmarks.sets("known_batch"):
        prec = Precision.FP16 if s.precision == "fp16" else Precision.FP32
        for mid, row in s.by_vram.items():
            for vram, b in row.items():
                out.append((mid, f"{vram:g} GB tier", float(vram), b, prec))
        for mid, gid, b in s.cells():
            if b > 0:
                out.append((mid, gid, cat.gpu(gid).vram_gb, b, prec))
    return out


def report(cat: Catalog, act: dict[str, float] | None = None) -> dict[str, float]:
    act = act or {}
    ratios = []
    bad_zero = 0
    lines = []
    for mid, gid, vram, meas in guide_cells(cat):
        m = cat.model(mid)
        pred = predict(m, vram, Precision.FP32, act.get(mid))
        if meas == 0:
            ok = pred == 0
            bad_zero += not ok
            lines.append(
                f"  {mid:13} {gid:16} measured 0 (does not fit) predicted {pred} {'ok' if ok else 'WRONG'}"
            )
            continue
        r = pred / meas
        ratios.append(r)
        flag = "" if 0.75 <= r <= 2.5 else (" OUT" if not 0.5 <= r <= 4 else " wide")
        lines.append(f"  {mid:13} {gid:16} measured {meas:5g} predicted {pred:5d} ratio {r:5.2f}{flag}")
    known_low = []
    for mid, label, vram, b, prec in known_cells(cat):
        pred = predict(cat.model(mid), vram, prec, act.get(mid))
        r = pred / b
        if r < 0.75:
            known_low.append(f"  {mid:13} {label:18} {prec} known {b:g} predicted {pred} ratio {r:.2f}")
    within = sum(0.75 <= r <= 2.5 for r in ratios) / len(ratios)
    outside = sum(not 0.5 <= r <= 4 for r in ratios)
    med = statistics.median(ratios)
    geo_err = math.exp(statistics.mean(abs(math.log(r)) for r in ratios))
    return {
        "cells": len(ratios),
        "within": within,
        "outside": outside,
        "bad_zero": bad_zero,
        "median_ratio": med,
        "geo_abs_err": geo_err,
        "known_low": len(known_low),
        "_lines": lines,  # type: ignore[dict-item]
        "_known": known_low,  # type: ignore[dict-item]
    }


def fit(cat: Catalog) -> dict[str, float]:
    """Per CNN: the activation figure maximising cells in band, then closeness to ratio ~1.4.

    The guide's figures are the largest power of two tried, so the true limit
    lies in [x, 2x): the target ratio is the middle, ~1.4.
    """
    out = {}
    cnns = {c[0] for c in guide_cells(cat)} | {c[0] for c in known_cells(cat)}
    for mid in sorted(cnns):
        m = cat.model(mid)
        best = None
        for i in range(400):
            a = 2.0 * (1.03**i)  # 2 MB .. ~270 GB
            score_in = 0
            err = 0.0
            feasible = True
            for gm, _, vram, meas in guide_cells(cat):
                if gm != mid:
                    continue
                p = predict(m, vram, Precision.FP32, a)
                if meas == 0:
                    feasible &= p == 0
                    continue
                r = p / meas
                feasible &= 0.5 <= r <= 4
                score_in += 0.75 <= r <= 2.5
                err += abs(math.log(max(r, 1e-3) / 1.4))
            for km, _, vram, b, prec in known_cells(cat):
                if km != mid:
                    continue
                p = predict(m, vram, prec, a)
                feasible &= p >= 0.75 * b
                err += 0.2 * abs(math.log(max(p, 1) / (1.2 * b)))
            key = (feasible, score_in, -err)
            if best is None or key > best[0]:
                best = (key, a)
        assert best is not None
        out[mid] = round(best[1], 1)
    return out


def write_fitted(fitted: dict[str, float], path: Path) -> None:
    """Rewrite the activation_mb_per_sample lines of the fitted models in models.yaml."""
    import re

    blocks = re.split(r"(?m)^(?=  - id: )", path.read_text(encoding="utf-8"))
    for i, b in enumerate(blocks):
        m = re.match(r"  - id: (\S+)", b)
        if m and m.group(1) in fitted:
            blocks[i] = re.sub(
                r"(?m)^    activation_mb_per_sample: .*$",
                f"    activation_mb_per_sample: {fitted[m.group(1)]}",
                b,
            )
    path.write_text("".join(blocks), encoding="utf-8")


def main() -> int:
    cat = load_catalog()
    act = None
    if "--fit" in sys.argv:
        act = fit(cat)
        print("fitted activation_mb_per_sample:")
        for k, v in act.items():
            print(f"  {k}: {v} (was {cat.model(k).activation_mb_per_sample})")
        if "--write" in sys.argv:
            write_fitted(act, Path(__file__).resolve().parents[1] / "knowledge" / "models.yaml")
            print("written to knowledge/models.yaml")
    r = report(cat, act)
    print("\n".join(r["_lines"]))  # type: ignore[arg-type]
    print("known-to-run batches predicted below 0.75x:")
    print("\n".join(r["_known"]) or "  none")  # type: ignore[arg-type]
    print(
        f"cells {r['cells']}, within 0.75-2.5x: {r['within']:.0%}, outside 0.5-4x: {r['outside']}, "
        f"zero cells wrong: {r['bad_zero']}, median ratio {r['median_ratio']:.2f}, "
        f"geometric mean |error| x{r['geo_abs_err']:.2f}, known-to-run too low: {r['known_low']}"
    )
    return 0


if __name__ == "__main__" and "--speed" not in sys.argv:
    sys.exit(main())


def speed_report(cat: Catalog, alpha: float | None = None, tf32: float | None = None) -> dict[str, float]:
    """Modelled vs measured training throughput ratios to the reference card (log error)."""
    from bot.core import speed

    old_alpha, old_tf32 = dict(speed.ALPHA), speed.TF32_SHARE
    try:
        if alpha is not None:
            speed.ALPHA["train_mixed"] = speed.ALPHA["train_fp32"] = alpha  # one alpha for both in this grid
        if tf32 is not None:
            speed.TF32_SHARE = tf32
        ref = cat.gpu(speed.REFERENCE_GPU)
        errs = []
        for s in cat.benchmarks.sets("throughput"):
            if s.precision not in ("fp32", "fp16") or s.task != "training":
                continue
            prec = Precision.FP16 if s.precision == "fp16" else Precision.FP32
            for mid, row in s.data.items():
                if ref.id not in row or not row[ref.id]:
                    continue
                m = cat.model(mid)
                for gid, v in row.items():
                    if gid == ref.id or not v:
                        continue
                    g = cat.gpu(gid)
                    measured = v / row[ref.id]
                    modelled = speed.modelled_score(g, m, Task.TRAINING, prec) / speed.modelled_score(
                        ref, m, Task.TRAINING, prec
                    )
                    errs.append(abs(math.log(modelled / measured)))
        return {
            "cells": len(errs),
            "median_err": math.exp(statistics.median(errs)) - 1,
            "p90_err": math.exp(sorted(errs)[int(0.9 * len(errs))]) - 1,
        }
    finally:
        speed.ALPHA.clear()
        speed.ALPHA.update(old_alpha)
        speed.TF32_SHARE = old_tf32


if __name__ == "__main__" and "--speed" in sys.argv:
    c = load_catalog()
    print("current:", speed_report(c))
    best = min(
        ((a / 20, t / 20) for a in range(0, 21) for t in range(0, 21)),
        key=lambda at: speed_report(c, at[0], at[1])["median_err"],
    )
    print("best alpha, tf32 share:", best, speed_report(c, *best))
