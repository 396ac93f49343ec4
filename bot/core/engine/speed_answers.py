"""Speed, time-to-train and serving answers (issue 12): a Query in, a typed result out.

``speed_result``: tokens/s (LLMs), seconds per image (diffusion), images/s
(CNNs) of a model on the cards named, or, with no card named, the cards (and
counts) that meet a stated target within the budget, cheapest first.
``time_result``: hours to train a stated dataset, with electricity and cloud
cost. ``serve_result``: users a card serves at a context length. All numbers
come from ``bot.core.throughput``; this module only picks cards and counts.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from typing import Any

from bot.core import memory, prices, speed, throughput
from bot.core.knowledge import GPU, Catalog, Model
from bot.core.results import (
    Assumption,
    AssumptionName,
    ServeResult,
    SpeedKind,
    SpeedResult,
    SpeedRow,
    TimeResult,
)
from bot.core.types import Intent, Method, Parallelism, Precision, Query, Task
from bot.core.understand_time import asks_job_cost

__all__ = [
    "speed_result",
    "time_result",
    "serve_result",
    "speed_json",
    "DEFAULT_KWH_USD",
    "KWH_DATE",
    "COUNTS",
]

# Fallback when the price book has no electricity default (knowledge/prices.yaml "defaults" carries
# a dated, sourced one): an estimate of the US average residential price, 2024 (~16.5 cents/kWh).
# The user can state theirs ("0.30 €/kWh").
DEFAULT_KWH_USD = 0.165
KWH_DATE = "2024"
COUNTS = (1, 2, 4)  # card counts a target recommendation tries (one box)
DEFAULT_SERVE_CONTEXT = 8192
DEFAULT_SAMPLE_TOKENS = 512
DEFAULT_EPOCHS = 1.0
AVG_POWER_SHARE = 0.85  # estimate: a training run draws ~85% of the card's TDP on average
# a job-cost question ("how much does it cost to fine-tune X on runpod") that states no data: a typical
# dataset, said in the answer. Fine-tuning: an instruction set the size of Stanford Alpaca's (52K
# examples; github.com/tatsu-lab/stanford_alpaca, 2023-03). Training from scratch: compute-optimal
# pretraining, ~20 tokens per parameter (Chinchilla, Hoffmann et al. 2022).
JOB_FINETUNE_SAMPLES = 52_000
JOB_PRETRAIN_TOKENS_PER_PARAM = 20.0
JOB_RENT_ROWS = 3  # rental options shown, cheapest run first


def _kind(model: Model, task: Task | None) -> SpeedKind:
    if model.kind == "diffusion":
        return SpeedKind.DIFFUSION
    if model.kind == "cnn":
        return SpeedKind.IMAGES
    if model.kind == "speech":
        return SpeedKind.SPEECH
    if task in (Task.TRAINING, Task.FINETUNE):
        return SpeedKind.TRAINING
    return SpeedKind.LLM


def _inference_precision(q: Query, model: Model) -> Precision:
    if q.precision is not None:
        return q.precision
    if model.kind in ("decoder", "moe-decoder"):
        return Precision.INT4  # what people run locally (GGUF Q4_K_M)
    return Precision.FP16


_NEED: dict[tuple[Any, ...], float | None] = {}  # per-card bytes of a workload: independent of the card


def _fits(
    model: Model, gpu: GPU, count: int, task: Task, method: Method, precision: Precision, seq: int | None
) -> bool:
    key = (model.id, model.params, count, task, method, precision, seq)
    if key not in _NEED:
        if len(_NEED) > 4096:
            _NEED.clear()
        try:
            w = memory.resolve_workload(
                model,
                task=task,
                method=method,
                precision=precision,
                batch_size=count,
                seq_len=seq,
                num_gpus=count,
            )
            _NEED[key] = memory.total_bytes(memory.profile(model, w), 1)
        except Exception:  # a model the memory model cannot size: say it fits, the speed still stands
            _NEED[key] = None
    need = _NEED[key]
    return need is None or need <= memory.usable_bytes(gpu)


def _price(gpu: GPU) -> float | None:
    return float(gpu.price_usd) if gpu.price_usd else None


def _offer_price(gpu: GPU) -> float | None:
    """The price of a card a target search may offer: one worth buying today (recommend.buyable: not a
    server module, a modded card or a card past current CUDA), else None."""
    from bot.core.recommend import buyable

    return _price(gpu) if buyable(gpu) else None


def _runs_as_asked(gpu: GPU, precision: Precision) -> bool:
    """The card computes ``precision`` natively (issue 11): a target search for bf16 (or fp8) work offers
    no card that would fall back to fp16 with loss scaling (Turing and older) or to bf16 (fp8 before
    Ada / Hopper). Integer and NF4 weights run everywhere."""
    if precision not in (Precision.BF16, Precision.FP8):
        return True
    from bot.core import support

    return support.precision_for(gpu, str(precision)).reason is support.FallbackReason.NONE


def _assume(q: Query, precision: Precision, ctx: int | None = None) -> tuple[Assumption, ...]:
    out = [Assumption(AssumptionName.PRECISION, precision, q.precision is not None)]
    if ctx is not None:
        out.append(
            Assumption(AssumptionName.SEQ_LEN, ctx, q.context_tokens is not None or q.seq_len is not None)
        )
    return tuple(out)


# --------------------------------------------------------------------------- speed


def _speed_row(
    cat: Catalog,
    q: Query,
    model: Model,
    gpu: GPU,
    count: int,
    kind: SpeedKind,
    precision: Precision,
    ctx: int,
    light: bool = False,
) -> SpeedRow:
    if kind is SpeedKind.DIFFUSION:
        fits = _fits(model, gpu, 1, Task.INFERENCE, Method.FULL, precision, None)
        s = throughput.diffusion_seconds(model, gpu, precision, steps=q.steps, resolution=q.resolution)
        return SpeedRow(
            gpu, count, fits, _price(gpu), seconds_per_image=s.scaled(1.0 / count) if count > 1 else s
        )
    if kind is SpeedKind.SPEECH:
        rtf = throughput.speech_rtf(model, gpu, precision)
        return SpeedRow(gpu, count, True, _price(gpu), rtf=rtf)
    if kind is SpeedKind.IMAGES:
        task = q.task or Task.TRAINING
        f = throughput.cnn_images_per_s(model, gpu, precision, cat, task=task)
        return SpeedRow(gpu, count, True, _price(gpu), images_per_s=f)
    fits = _fits(model, gpu, count, Task.INFERENCE, Method.FULL, precision, ctx)
    if count > 1 and q.parallelism is Parallelism.TENSOR:
        d = throughput.tensor_parallel_decode(model, gpu, precision, count, context=ctx, awq=True)
    else:
        d = throughput.decode(model, gpu, precision, context=ctx, catalog=cat, num_gpus=count)
    if light:  # a candidate of a target search: the lead figure only
        return SpeedRow(gpu, count, fits, _price(gpu), decode=d)
    p = throughput.prefill(model, gpu, precision, catalog=cat, num_gpus=count)
    off = None
    if not fits and count == 1:
        off = throughput.decode_offload(model, gpu, precision, context=ctx)
    return SpeedRow(gpu, count, fits, _price(gpu), decode=d, prefill=p, offload=off)


@functools.lru_cache(maxsize=256)
def _speed_candidates(
    cat: Catalog,
    model_id: str,
    kind: SpeedKind,
    precision: Precision,
    ctx: int,
    steps: int | None,
    resolution: int | None,
) -> tuple[tuple[GPU, int, SpeedRow], ...]:
    """Every priced card (and count) that holds the model, with its lead figure: a pure function of
    the catalog, computed once per question shape (a target search then filters it)."""
    model = cat.models[model_id]
    q = Query(intent=Intent.SPEED, steps=steps, resolution=resolution)
    out: list[tuple[GPU, int, SpeedRow]] = []
    for g in cat.gpus.values():
        if _offer_price(g) is None or not _runs_as_asked(g, precision):
            continue
        for n in (1,) if kind is not SpeedKind.LLM else (1, 2, 4):
            r = _speed_row(cat, q, model, g, n, kind, precision, ctx, light=True)
            if r.fits:
                out.append((g, n, r))
    return tuple(out)


def _lead(row: SpeedRow) -> float:
    """Higher is better: tokens/s, images/s, 1/(s per image)."""
    if row.decode is not None:
        return float(row.decode.value)
    if row.seconds_per_image is not None:
        return 1.0 / row.seconds_per_image.value if row.seconds_per_image.value else 0.0
    if row.images_per_s is not None:
        return float(row.images_per_s.value)
    if row.rtf is not None:
        return 1.0 / row.rtf.value if row.rtf.value else 0.0
    return 0.0


def _clip(model: Model, resolution: int | None) -> dict[str, int] | None:
    """The clip a video model's time is for (frames, fps, width, height); None for image models."""
    v = throughput.video_shape(model)
    if v is None:
        return None
    r = model.resolution
    h, w = (r[0], r[1]) if isinstance(r, tuple) else ((r or 480), (r or 480))
    if resolution:
        w, h = round(w * resolution / h), resolution
    return {"frames": v.frames, "fps": v.fps, "width": int(w), "height": int(h)}


def speed_result(cat: Catalog, q: Query, model: Model, gpus: list[GPU]) -> SpeedResult:
    kind = _kind(model, Task.INFERENCE if q.task is None else q.task)
    if kind is SpeedKind.TRAINING:
        kind = SpeedKind.LLM
    precision = _inference_precision(q, model)
    ctx = q.context_tokens or 0
    steps = q.steps or (throughput.default_steps(model) if kind is SpeedKind.DIFFUSION else None)
    tps, spi = q.target_tokens_per_s, q.target_seconds_per_image
    if gpus:
        rows = tuple(_speed_row(cat, q, model, g, max(q.num_gpus, 1), kind, precision, ctx) for g in gpus)
        return SpeedResult(
            model,
            kind,
            precision,
            rows,
            ctx,
            steps,
            tps,
            spi,
            q.budget_usd,
            assumptions=_assume(q, precision),
            clip=_clip(model, q.resolution),
        )

    def meets(r: SpeedRow) -> bool:
        if tps is not None and r.decode is not None:
            return bool(r.decode.value >= tps)
        if spi is not None and r.seconds_per_image is not None:
            return bool(r.seconds_per_image.value <= spi)
        return True

    met: list[SpeedRow] = []
    within: list[SpeedRow] = []
    candidates = _speed_candidates(cat, model.id, kind, precision, ctx, q.steps, q.resolution)
    for g, n, r in candidates:
        if q.budget_usd is not None and (r.price_usd or 0) * n > q.budget_usd:
            continue
        if met and met[-1].gpu.id == g.id:
            continue  # this card already met the target with fewer copies
        within.append(r)
        if meets(r):
            met.append(r)
    met.sort(key=lambda r: ((r.price_usd or 0) * r.count, -_lead(r)))
    closest = max(within, key=_lead) if within and not met else None
    # the rows shown get every figure
    met = [
        _with(_speed_row(cat, q, model, r.gpu, r.count, kind, precision, ctx), meets=True) for r in met[:5]
    ]
    if closest is not None:
        closest = _with(
            _speed_row(cat, q, model, closest.gpu, closest.count, kind, precision, ctx), meets=False
        )
    return SpeedResult(
        model,
        kind,
        precision,
        tuple(met[:5]),
        ctx,
        steps,
        tps,
        spi,
        q.budget_usd,
        recommend=True,
        closest=closest,
        assumptions=_assume(q, precision),
    )


def _with(row: SpeedRow, **kw: Any) -> SpeedRow:
    from dataclasses import replace

    return replace(row, **kw)


# --------------------------------------------------------------------------- time to train


def _train_amount(q: Query, model: Model) -> tuple[float, str, dict[str, Any]]:
    epochs = q.epochs or DEFAULT_EPOCHS
    assumed: dict[str, Any] = {"epochs": epochs, "epochs_stated": q.epochs is not None}
    if model.kind == "cnn" or q.dataset_name in ("coco", "imagenet", "cifar-10", "cifar10", "mnist"):
        n = float(q.samples or 0)
        assumed.update(samples=q.samples, dataset=q.dataset_name)
        return n * epochs, "images", assumed
    if q.dataset_tokens:
        assumed.update(dataset_tokens=q.dataset_tokens)
        if q.dataset_tokens and "text" in (q.text or "").lower() or "GB" in (q.text or ""):
            assumed["bytes_per_token"] = 4.0
        return float(q.dataset_tokens) * epochs, "tokens", assumed
    per = q.sample_tokens or DEFAULT_SAMPLE_TOKENS
    assumed.update(samples=q.samples, sample_tokens=per, sample_tokens_stated=q.sample_tokens is not None)
    return float(q.samples or 0) * per * epochs, "tokens", assumed


def _job_amount(q: Query, model: Model, method: Method) -> tuple[float, dict[str, Any]]:
    """The assumed dataset of a job-cost question that states none (see ``JOB_FINETUNE_SAMPLES``)."""
    if method is Method.FULL and q.task is not Task.FINETUNE:
        tokens = JOB_PRETRAIN_TOKENS_PER_PARAM * model.params
        return tokens, {
            "epochs": 1.0,
            "epochs_stated": False,
            "dataset_tokens": tokens,
            "job_default": "pretrain",
        }
    epochs = q.epochs or DEFAULT_EPOCHS
    per = q.sample_tokens or DEFAULT_SAMPLE_TOKENS
    assumed: dict[str, Any] = {
        "epochs": epochs,
        "epochs_stated": q.epochs is not None,
        "samples": JOB_FINETUNE_SAMPLES,
        "sample_tokens": per,
        "sample_tokens_stated": q.sample_tokens is not None,
        "job_default": "finetune",
    }
    return float(JOB_FINETUNE_SAMPLES) * per * epochs, assumed


def _train_task(method: Method, q: Query) -> Task:
    """The task of a training-time question: an adapter is fine-tuning; full training is what was said."""
    return (
        Task.FINETUNE if method is not Method.FULL or q.task is Task.FINETUNE else (q.task or Task.TRAINING)
    )


def _rent_rows(
    cat: Catalog,
    q: Query,
    model: Model,
    method: Method,
    precision: Precision,
    amount: float,
    unit: str,
    kwh: tuple[float, str, bool, str],
) -> tuple[SpeedRow, ...]:
    """The cheapest runs on rented cards (each card's fewest count that fits), cheapest first."""
    cands: list[tuple[float, GPU, int]] = []
    for g, cloud, one in _rated_cards(cat, model, method, precision, unit, _cloud_price(cat)):
        for n, hours in _counts_that_hold(q, model, g, method, precision, amount, unit, one):
            # the fewest cards it fits on
            cands.append((cloud * n * hours, g, n))
            break
    cands.sort(key=lambda c: c[0])
    rows = [_time_row(cat, q, model, g, n, method, precision, amount, unit, kwh) for _, g, n in cands]
    shown = [r for r in rows[: JOB_RENT_ROWS * 2] if r is not None and r.cloud_usd is not None]
    return tuple(sorted(shown, key=lambda r: r.cloud_usd or 0.0)[:JOB_RENT_ROWS])


def _cloud_price(cat: Catalog) -> Callable[[GPU], float | None]:
    def price(g: GPU) -> float | None:
        cloud = prices.cloud_price(cat, g.id)
        return cloud.usd if cloud is not None else None

    return price


def _rated_cards(
    cat: Catalog,
    model: Model,
    method: Method,
    precision: Precision,
    unit: str,
    price_of: Callable[[GPU], float | None],
) -> Iterator[tuple[GPU, float, float]]:
    """The cards a training-time search weighs: priced (``price_of``), running ``precision`` as
    asked and with a training rate; each with its price and one card's rate."""
    for g in cat.gpus.values():
        price = price_of(g)
        if price is None or not _runs_as_asked(g, precision):
            continue
        one = _one_card_rate(cat, model, g, method, precision, unit)
        if one is not None and one > 0:
            yield g, price, one


def _counts_that_hold(
    q: Query,
    model: Model,
    g: GPU,
    method: Method,
    precision: Precision,
    amount: float,
    unit: str,
    one: float,
    price: float = 0.0,
    budget: float | None = None,
) -> Iterator[tuple[int, float]]:
    """The counts of ``g`` (COUNTS, fewest first; that ``budget`` buys at ``price`` a card, when given)
    that hold the job, each with its hours: one card's rate scaled, no whole row built."""
    task = _train_task(method, q)
    for n in COUNTS:
        if budget is not None and price * n > budget:
            return
        if unit == "tokens" and not _fits(model, g, n, task, method, precision, q.seq_len or q.sample_tokens):
            continue
        yield n, amount / (one * (1 + (n - 1) * _scaling(unit))) / 3600.0


def _scaling(unit: str) -> float:
    """Share of one more card's throughput that n cards add (data parallel; not perfect)."""
    return 0.9 if unit == "images" else speed.MULTI_CARD_EFFICIENCY["data"]


def _one_card_rate(
    cat: Catalog, model: Model, gpu: GPU, method: Method, precision: Precision, unit: str
) -> float | None:
    if unit == "images":
        f = throughput.cnn_images_per_s(model, gpu, precision, cat, task=Task.TRAINING)
        return f.value if f is not None else None
    return throughput.training_tokens_per_s(model, gpu, precision, method).value


def _with_cloud(cat: Catalog, r: SpeedRow) -> SpeedRow:
    cloud = prices.cloud_price(cat, r.gpu.id)
    if cloud is None or r.hours is None:
        return r
    return _with(
        r,
        cloud_usd_per_hour=round(cloud.usd, 2),
        cloud_usd=round(cloud.usd * r.count * r.hours.value, 2),
        cloud_date=cloud.date,
    )


def _kwh_price(cat: Catalog, q: Query) -> tuple[float, str, bool, str]:
    """(price, currency, stated by the user, date): the user's, else the price book's dated default."""
    if q.kwh_price is not None:
        return float(q.kwh_price), q.kwh_currency or "USD", True, ""
    pb = prices.book(cat)
    if pb.electricity_usd_per_kwh:
        return float(pb.electricity_usd_per_kwh), "USD", False, pb.electricity_date or KWH_DATE
    return DEFAULT_KWH_USD, "USD", False, KWH_DATE


def _time_row(
    cat: Catalog,
    q: Query,
    model: Model,
    gpu: GPU,
    count: int,
    method: Method,
    precision: Precision,
    amount: float,
    unit: str,
    kwh: tuple[float, str, bool, str],
    costs: bool = True,
) -> SpeedRow | None:
    task = _train_task(method, q)
    if unit == "images":
        f = throughput.cnn_images_per_s(model, gpu, precision, cat, task=Task.TRAINING)
        if f is None:
            return None
        eff = 1 + (count - 1) * 0.9
        rate = f.scaled(eff)
        fits = True
    else:
        rate = throughput.training_tokens_per_s(model, gpu, precision, method, num_gpus=count)
        fits = _fits(model, gpu, count, task, method, precision, q.seq_len or q.sample_tokens)
    if rate.value <= 0:
        return None
    hours = amount / rate.value / 3600.0
    h = throughput.Figure(hours, amount / rate.high / 3600.0, amount / rate.low / 3600.0, rate.basis, "hours")
    energy = gpu.tdp_w * AVG_POWER_SHARE * count * hours / 1000.0
    price, cur = kwh[0], kwh[1]
    no_cloud = q.price_question is not None and q.price_question.filters.no_cloud  # issue 14: "no cloud"
    cloud = prices.cloud_price(cat, gpu.id) if costs and not no_cloud else None
    return SpeedRow(
        gpu,
        count,
        fits,
        _price(gpu),
        training=rate if unit == "tokens" else None,
        images_per_s=rate if unit == "images" else None,
        hours=h,
        kwh=round(energy, 2),
        electricity_cost=round(energy * price, 2),
        electricity_currency=cur,
        cloud_usd_per_hour=round(cloud.usd, 2) if cloud is not None else None,
        cloud_usd=round(cloud.usd * count * hours, 2) if cloud is not None else None,
        cloud_date=cloud.date if cloud is not None else None,
    )


def time_result(cat: Catalog, q: Query, model: Model, gpus: list[GPU]) -> TimeResult:
    method = q.method or (Method.LORA if q.task is Task.FINETUNE else Method.FULL)
    if model.kind in ("cnn", "diffusion"):
        method = Method.FULL
    precision = q.precision or (Precision.INT4 if method is Method.QLORA else Precision.BF16)
    if model.kind == "cnn" and q.precision is None:
        precision = Precision.FP16
    amount, unit, assumed = _train_amount(q, model)
    # "no cloud" said: no rental cost to give (the time answer, with electricity, as before)
    job = asks_job_cost(q) and not (q.price_question is not None and q.price_question.filters.no_cloud)
    if job and amount <= 0 and unit == "tokens" and model.kind in ("decoder", "moe-decoder"):
        amount, assumed = _job_amount(q, model, method)
    kwh = _kwh_price(cat, q)
    base = dict(
        model=model,
        method=method,
        precision=precision,
        amount=amount,
        unit=unit,
        assumed=assumed,
        kwh_price=kwh[0],
        kwh_currency=kwh[1],
        kwh_price_stated=kwh[2],
        kwh_price_date=kwh[3],
        target_hours=q.target_hours,
        budget_usd=q.budget_usd,
        assumptions=_assume(q, precision),
    )
    if gpus:
        rows = [
            _time_row(cat, q, model, g, max(q.num_gpus, 1), method, precision, amount, unit, kwh)
            for g in gpus
        ]
        return TimeResult(rows=tuple(r for r in rows if r is not None), job_cost=job, **base)  # type: ignore[arg-type]
    if job and amount > 0:
        # the rental options, cheapest run first (time to train x card-hours x the rental price)
        rented = _rent_rows(cat, q, model, method, precision, amount, unit, kwh)
        return TimeResult(rows=rented, job_cost=True, **base)  # type: ignore[arg-type]
    # candidates from one card's rate (cheap); whole rows only for the ones shown
    met_c: list[tuple[float, float, GPU, int]] = []
    best: tuple[float, GPU, int] | None = None
    for g, price, one in _rated_cards(cat, model, method, precision, unit, _offer_price):
        for n, hours in _counts_that_hold(
            q, model, g, method, precision, amount, unit, one, price, q.budget_usd
        ):
            if best is None or hours < best[0]:
                best = (hours, g, n)
            if q.target_hours is None or hours <= q.target_hours:
                met_c.append((price * n, hours, g, n))
                break
    met_c.sort(key=lambda c: (c[0], c[1]))

    def row(g: GPU, n: int, ok: bool) -> SpeedRow | None:
        r = _time_row(cat, q, model, g, n, method, precision, amount, unit, kwh)
        return _with(r, meets=ok) if r is not None else None

    met = [r for r in (row(g, n, True) for _, _, g, n in met_c[:5]) if r is not None]
    closest = row(best[1], best[2], False) if best is not None and not met else None
    return TimeResult(rows=tuple(met[:5]), recommend=True, closest=closest, **base)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- serving


_NO_VLLM_ARCH = ("pascal", "maxwell", "kepler")  # vLLM needs CUDA compute capability 7.0 (Volta) or newer


def _serves(gpu: GPU) -> bool:
    return not any(a in (gpu.architecture or "").lower() for a in _NO_VLLM_ARCH)


def _serve_row(q: Query, model: Model, gpu: GPU, count: int, precision: Precision, ctx: int) -> SpeedRow:
    s = throughput.serving(model, gpu, precision, ctx, num_gpus=count, users=q.users)
    meets = None if q.users is None else s.concurrent_users >= q.users
    return SpeedRow(gpu, count, s.concurrent_users > 0, _price(gpu), serving=s, meets=meets)


def serve_result(cat: Catalog, q: Query, model: Model, gpus: list[GPU]) -> ServeResult:
    precision = q.precision or Precision.BF16  # vLLM serves the checkpoint's 16-bit weights by default
    ctx = q.context_tokens or q.seq_len or DEFAULT_SERVE_CONTEXT
    stated = q.context_tokens is not None or q.seq_len is not None
    assumptions = _assume(q, precision, ctx)
    if gpus:
        rows = tuple(_serve_row(q, model, g, max(q.num_gpus, 1), precision, ctx) for g in gpus)
        return ServeResult(
            model, precision, ctx, stated, q.users, rows, q.budget_usd, assumptions=assumptions
        )
    # candidates by capacity alone (cheap); the speeds only for the rows shown
    met_c: list[tuple[float, int, GPU, int]] = []
    best: tuple[int, GPU, int] | None = None
    for g in cat.gpus.values():
        price = _offer_price(g)
        if price is None or not _serves(g):
            continue
        for n in COUNTS:
            if q.budget_usd is not None and price * n > q.budget_usd:
                break
            users = throughput.serving_capacity(model, g, precision, ctx, num_gpus=n)
            if users <= 0:
                continue
            if best is None or users > best[0]:
                best = (users, g, n)
            if q.users is None or users >= q.users:
                met_c.append((price * n, -users, g, n))
                break
    met_c.sort(key=lambda c: (c[0], c[1]))
    met = [_serve_row(q, model, g, n, precision, ctx) for _, _, g, n in met_c[:5]]
    closest = _serve_row(q, model, best[1], best[2], precision, ctx) if best is not None and not met else None
    return ServeResult(
        model, precision, ctx, stated, q.users, tuple(met[:5]), q.budget_usd, True, closest, assumptions
    )


# --------------------------------------------------------------------------- JSON for fit / recommend entries


def speed_json(
    cat: Catalog, model: Model, gpu: GPU, count: int, task: Task, precision: Precision
) -> dict[str, Any]:
    """The ``speed`` object of a fit entry or recommendation (issue 12 contract)."""
    kind = _kind(model, task)
    empty: dict[str, Any] = {
        "decode_tokens_per_s": None,
        "prefill_tokens_per_s": None,
        "images_per_s": None,
        "samples_per_s": None,
        "tokens_per_s_training": None,
        "concurrency": 1,
        "basis": "modelled",
        "low": None,
        "high": None,
    }
    try:
        if kind is SpeedKind.LLM and model.kind in ("decoder", "moe-decoder"):
            d = throughput.decode(model, gpu, precision, catalog=cat, num_gpus=count)
            p = throughput.prefill(model, gpu, precision, catalog=cat, num_gpus=count)
            return {
                **empty,
                "decode_tokens_per_s": round(d.value, 1),
                "prefill_tokens_per_s": round(p.value, 1),
                "basis": d.basis,
                "low": round(d.low, 1),
                "high": round(d.high, 1),
            }
        if kind is SpeedKind.DIFFUSION:
            s = throughput.diffusion_seconds(model, gpu, precision)
            if s.unit == "s/clip":  # video: seconds per clip (images_per_s would round to 0)
                return {
                    **empty,
                    "images_per_s": round(1 / s.value, 6),
                    "seconds_per_clip": round(s.value),
                    "basis": s.basis,
                    "low": round(1 / s.high, 6),
                    "high": round(1 / s.low, 6),
                }
            return {
                **empty,
                "images_per_s": round(1 / s.value, 3),
                "basis": s.basis,
                "low": round(1 / s.high, 3),
                "high": round(1 / s.low, 3),
            }
        if model.kind == "cnn":
            f = throughput.cnn_images_per_s(model, gpu, precision, cat, task=task)
            if f is None:
                return empty
            return {
                **empty,
                "images_per_s": round(f.value, 1),
                "samples_per_s": round(f.value, 1),
                "basis": f.basis,
                "low": round(f.low, 1),
                "high": round(f.high, 1),
            }
        if kind is SpeedKind.TRAINING and model.is_transformer:
            t = throughput.training_tokens_per_s(model, gpu, precision, Method.FULL, num_gpus=count)
            return {
                **empty,
                "tokens_per_s_training": round(t.value, 1),
                "basis": t.basis,
                "low": round(t.low, 1),
                "high": round(t.high, 1),
            }
    except (ValueError, ZeroDivisionError, KeyError):
        return empty
    return empty
