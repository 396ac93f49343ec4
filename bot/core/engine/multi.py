"""Multi-card setups (issues 10, 12, 17): a mixed machine ("a 3090 + a 3060") answered per card, and
choices between setups ("one 4090 or two used 3090s for 70B", "4x 3090 or 2x 4090") compared.

Inference: every build people run (llama.cpp's GGUF and the release; vLLM's formats when vLLM or
tensor parallel is named) is tried, best quality first; the first that fits is the setup's build.
llama.cpp splits whole layers in proportion to each card's free memory (``-ts``), so mixed cards
work and each card's share is said; vLLM tensor parallel needs identical cards and a count that
divides the attention heads. Speed is one stream's decode with the link's cost
(``bot.core.multigpu``). Training: equal cards as in the fit answers (DDP when a whole copy fits,
else FSDP / ZeRO-3); mixed cards are bounded by the smallest (both keep the same shard or copy on
every card). Prices: the catalog's purchase price, used where the asker says used.
"""

from __future__ import annotations

from bot.core import memory, multigpu, prices, recommend, throughput
from bot.core import speed as _speed
from bot.core.copy_with import copy_with
from bot.core.engine import builds as bld
from bot.core.engine.common import assumptions_for
from bot.core.formats import Build
from bot.core.knowledge import GPU, Catalog, Model
from bot.core.memory import GB
from bot.core.results import BasisCode, MultiDecision, MultiResult, Setup, SetupCard
from bot.core.types import Parallelism, Precision, Query, Task

__all__ = ["multi_result", "LAYER_EFF_SCALE"]

#: llama.cpp decode on a split reaches more of the bandwidth than the single-card efficiency
#: (speed.DECODE_EFFICIENCY, fitted mostly on small models) says: fitted on the 6 published
#: multi-card rows of knowledge/interconnect.yaml (median ratio modelled/measured 0.77 before,
#: ~1.0 after; in-sample, see tests/core/test_multigpu.py); capped at 0.85 of peak bandwidth
LAYER_EFF_SCALE = 1.3
_EFF_CAP = 0.85
_PREC = {"int4": Precision.INT4, "int8": Precision.INT8, "fp8": Precision.FP8}


def decode_eff(g: GPU, precision: Precision) -> float:
    return min(_EFF_CAP, _speed.decode_efficiency(g, precision) * LAYER_EFF_SCALE)


def _prec_of(b: Build) -> Precision:
    p = (b.precision or "").lower()
    for k, v in _PREC.items():
        if k in p:
            return v
    return Precision.INT4 if any(c.isdigit() for c in p) and "16" not in p else Precision.BF16


def _physical(cards: list[tuple[GPU, int, bool]]) -> list[GPU]:
    return [g for g, n, _ in cards for _ in range(n)]


def _price(cat: Catalog, cards: list[tuple[GPU, int, bool]]) -> tuple[float | None, bool, str | None]:
    total, used_any, date = 0.0, False, None
    for g, n, used in cards:
        qt = prices.purchase_price(cat, g.id, "used" if used else None)
        if qt is None and g.price_usd is None:
            return None, False, None
        usd = qt.usd if qt is not None else float(g.price_usd or 0)
        total += usd * n
        used_any = used_any or (qt is not None and str(qt.kind.value) == "used")
        d = qt.date if qt is not None else g.price_date
        date = min(date, d) if date and d else (d or date)
    return total, used_any, date


def _layer_fit(
    m: Model, physical: list[GPU], w: memory.Workload
) -> tuple[bool, list[float], list[float], float, float]:
    """(fits, shares, need per card (bytes), split bytes, fixed bytes per card) for a llama.cpp layer split."""
    e1 = memory.estimate(m, None, workload=copy_with(w, num_gpus=1, parallelism=Parallelism.DATA))
    split = e1.weights + e1.kv_cache
    fixed = max(0.0, e1.total - split)
    caps = [memory.usable_bytes(g) for g in physical]
    free = [c - fixed for c in caps]
    shares = multigpu.layer_shares(free)
    need = [fixed + s * split for s in shares]
    fits = all(n <= c for n, c in zip(need, caps, strict=True)) and split <= sum(max(0.0, f) for f in free)
    return fits, shares, need, split, fixed


def _tp_fit(m: Model, physical: list[GPU], w: memory.Workload, vllm: bool) -> tuple[bool, float]:
    n = len(physical)
    g = physical[0]
    par = Parallelism.TENSOR if n > 1 else Parallelism.DATA
    e = memory.estimate(m, g, workload=copy_with(w, num_gpus=n, parallelism=par))
    cap = memory.usable_bytes(g) * (bld.VLLM_RESERVE if vllm else 1.0)
    return e.total <= cap, e.total


def _inference_setup(
    cat: Catalog, q: Query, m: Model, cards: list[tuple[GPU, int, bool]]
) -> tuple[Setup, int, float | None]:
    """The setup, its build's quality rank, and vLLM tensor parallel's tokens/s for the same bytes
    (None where TP cannot run)."""
    physical = _physical(cards)
    base = recommend.workload_for(m, copy_with(q, num_gpus=1, parallelism=None))
    vllm = q.engine == "vllm" or q.parallelism is Parallelism.TENSOR
    blocker = multigpu.tp_blocker(physical, m)
    link = multigpu.setup_link(physical, cat, bridge="nvlink" in q.text.lower())
    usable = bld.usable_builds(cat, m, q, physical[0]) or []
    if q.precision is not None:  # "in 4bit": the builds of that precision, best first
        asked = [b for b in usable if (b.precision or "").lower() == q.precision.value]
        usable = asked or usable
    chosen: tuple[Build, bool, list[float], list[float], str] | None = None
    smallest: tuple[Build, bool, list[float], list[float], str] | None = None
    for b in usable:
        w = bld.build_workload(m, base, b)
        fam = cat.formats[b.format_id].family if b.format_id in cat.formats else "native"
        if vllm and fam != "gguf" and blocker is None:
            ok, per = _tp_fit(m, physical, w, vllm)
            cand = (b, ok, [1.0 / len(physical)] * len(physical), [per] * len(physical), "tensor")
        elif vllm and fam != "gguf" and blocker not in (None, "one"):
            continue  # vLLM cannot split this build on these cards; llama.cpp's GGUF builds can
        else:
            ok, shares, need, _, _ = _layer_fit(m, physical, w)
            cand = (b, ok, shares, need, "layer" if len(physical) > 1 else "single")
        if smallest is None or b.weights_gb < smallest[0].weights_gb:
            smallest = cand
        if ok:
            chosen = cand
            break
    pick = chosen or smallest
    if pick is None:  # no build at all (not an LLM): judged at the release
        raise ValueError("no build")
    b, ok, shares, need, split = pick
    prec = _prec_of(b)
    ctx = int(base.seq_len or 0)
    bytes_tok = (b.active_weights_gb or b.weights_gb) * GB + throughput.kv_bytes_per_token(m) * ctx
    effs = [decode_eff(g, prec) for g in physical]
    link_cost = 0.0
    if split == "tensor":
        t, comm = multigpu.tensor_parallel_decode_s(bytes_tok, physical, min(effs), m.layers or 1, link, cat)
        link_cost = comm / t if t else 0.0
    else:
        t = multigpu.layer_split_decode_s(bytes_tok, physical, shares, effs)
        hops = sum(1 for s in shares if s > 0) - 1
        link_cost = max(0, hops) * multigpu.HOP_S / t if t else 0.0
    tps = 1.0 / t if t > 0 else None
    tp_tps: float | None = None
    if blocker is None and split != "tensor":
        tt, _ = multigpu.tensor_parallel_decode_s(bytes_tok, physical, min(effs), m.layers or 1, link, cat)
        tp_tps = 1.0 / tt if tt > 0 else None
    lo, hi = throughput.BAND["decode"]
    price, used, date = _price(cat, cards)
    per_card = tuple(
        SetupCard(g, s, nd / GB, memory.usable_bytes(g) / GB)
        for g, s, nd in zip(physical, shares, need, strict=True)
    )
    setup = Setup(
        cards=tuple((g, n) for g, n, _ in cards),
        per_card=per_card,
        fits=ok,
        build_id=b.format_id,
        build_precision=b.precision,
        split=split,
        interconnect=str(link),
        tp_blocked=blocker if blocker not in (None, "one") else None,
        tokens_per_s=tps,
        low=tps * lo if tps else None,
        high=tps * hi if tps else None,
        link_cost=link_cost,
        bridge_possible=multigpu.bridge_possible(physical, cat) and link is not multigpu.Link.NVLINK,
        price_usd=price,
        price_used=used,
        price_date=date,
        used_asked=any(u for _, _, u in cards),
    )
    return setup, b.quality_rank, tp_tps


def _training_setup(
    cat: Catalog, q: Query, m: Model, cards: list[tuple[GPU, int, bool]]
) -> tuple[Setup, int]:
    physical = _physical(cards)
    n = len(physical)
    small = min(physical, key=lambda g: memory.usable_bytes(g))  # mixed: every card keeps the same share
    slow = min(physical, key=lambda g: g.fp16_tensor_tflops or g.fp32_tflops)
    w = recommend.workload_for(m, copy_with(q, num_gpus=n))
    e = memory.estimate(m, small, workload=w)
    split = str(e.workload.parallelism.value) if n > 1 else "single"
    rate = throughput.training_tokens_per_s(
        m, slow, e.workload.precision, e.workload.method, num_gpus=n, parallel=split if n > 1 else "data"
    )
    price, used, date = _price(cat, cards)
    link = multigpu.setup_link(physical, cat, bridge="nvlink" in q.text.lower())
    per_card = tuple(SetupCard(g, 1.0 / n, e.total / GB, memory.usable_bytes(g) / GB) for g in physical)
    fits = all(e.total <= memory.usable_bytes(g) for g in physical)
    alone, alone_gb = None, None
    if not fits and len({g.id for g in physical}) > 1:
        big = max(physical, key=lambda g: memory.usable_bytes(g))
        e1 = memory.estimate(
            m, big, workload=recommend.workload_for(m, copy_with(q, num_gpus=1, parallelism=None))
        )
        if e1.fits:
            alone, alone_gb = big, e1.total / GB
    return (
        Setup(
            cards=tuple((g, k) for g, k, _ in cards),
            per_card=per_card,
            fits=fits,
            build_id=None,
            build_precision=str(e.workload.precision.value),
            split=split,
            interconnect=str(link),
            tp_blocked=None,
            tokens_per_s=rate.value,
            low=rate.low,
            high=rate.high,
            link_cost=0.0,
            bridge_possible=multigpu.bridge_possible(physical, cat) and link is not multigpu.Link.NVLINK,
            price_usd=price,
            price_used=used,
            price_date=date,
            used_asked=any(u for _, _, u in cards),
            unit="tokens/s training",
            alone=alone,
            alone_gb=alone_gb,
        ),
        0,
    )


def _decide(setups: list[Setup], ranks: list[int]) -> tuple[MultiDecision, int | None]:
    if len(setups) == 1:
        return MultiDecision.SINGLE, 0 if setups[0].fits else None
    fit = [i for i, s in enumerate(setups) if s.fits]
    if not fit:
        return MultiDecision.NONE_FIT, None
    if len(fit) == 1:
        return MultiDecision.ONLY_ONE_FITS, fit[0]
    best_rank = min(ranks[i] for i in fit)
    top = [i for i in fit if ranks[i] == best_rank]
    if len(top) == 1:
        return MultiDecision.BETTER_BUILD, top[0]
    fastest = max(top, key=lambda i: setups[i].tokens_per_s or 0.0)
    priced = [i for i in top if setups[i].price_usd is not None]
    cheapest = min(priced, key=lambda i: setups[i].price_usd or 0.0) if priced else fastest
    if cheapest == fastest:
        return MultiDecision.CHEAPER_AND_FASTER, fastest

    # the faster one costs more: pick the better tokens/s per dollar, the line gives both
    def per_usd(i: int) -> float:
        return (setups[i].tokens_per_s or 0.0) / max(setups[i].price_usd or 1.0, 1.0)

    return MultiDecision.FASTER_COSTLIER, max((fastest, cheapest), key=per_usd)


def multi_applies(cat: Catalog, q: Query, m: Model) -> bool:
    """Whether ``multi_result`` can judge ``m``: LLM inference is judged per build, and a knowledge
    folder without formats.yaml (optional) has none; the question is then compared card by card."""
    training = q.task in (Task.TRAINING, Task.FINETUNE)
    return training or m.kind not in bld.LLM_KINDS or bool(bld.builds_of(cat, m))


def multi_result(cat: Catalog, q: Query, m: Model) -> MultiResult:
    setups: list[Setup] = []
    ranks: list[int] = []
    tp_alt: list[float | None] = []
    training = q.task in (Task.TRAINING, Task.FINETUNE)
    for spec in q.setups:
        cards = [(cat.gpus[g], n, used) for g, n, used in spec if g in cat.gpus]
        if not cards:
            continue
        if training or m.kind not in bld.LLM_KINDS:
            s, r = _training_setup(cat, q, m, cards)
            tp: float | None = None
        else:
            s, r, tp = _inference_setup(cat, q, m, cards)
        setups.append(s)
        ranks.append(r)
        tp_alt.append(tp)
    decision, best = _decide(setups, ranks)
    base = recommend.workload_for(m, copy_with(q, num_gpus=1, parallelism=None))
    assumed = assumptions_for(q, base, batch=q.batch_size)
    return MultiResult(
        model=m,
        setups=tuple(setups),
        best=best,
        decision=decision,
        task=str(base.task.value),
        context_tokens=int(base.seq_len or 0),
        assumptions=assumed,
        basis=(BasisCode.MEMORY_MODELLED, BasisCode.PRICES_DATED),
        tp_alt=tuple(tp_alt),
    )
