"""Phrasing shared by every reply: prices, workloads, assumptions, notes, changes."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bot.core.names import card_label, short_name
from bot.core.phrase import fmt
from bot.core.phrase.catalog import t, word
from bot.core.quick_init import quick_init
from bot.core.results import Assumption, AssumptionName, ChangeKind, FixOption
from bot.core.types import Lang, Method, Note, NoteCode, Optimizer, Precision, Task

if TYPE_CHECKING:
    from bot.core.knowledge import GPU, Model
    from bot.core.memory import Workload

__all__ = [
    "Env",
    "join",
    "join_or",
    "gb",
    "gb_band",
    "price_label",
    "quote_label",
    "budget_phrase",
    "describe",
    "task_phrase",
    "workload_title",
    "assumption_line",
    "change_hint",
    "note_line",
    "fix_phrase",
    "breakdown_line",
    "throughput_phrase",
    "enum_word",
]


@quick_init
@dataclass(frozen=True)
class Env:
    """What phrasing needs besides the result: the language and the money it is shown in."""

    lang: Lang = Lang.EN
    cny_per_usd: float | None = None  # dated rate for showing 元 next to dollars (Chinese replies)
    rate_date: str | None = None
    budget_currency: str | None = None  # the currency the user's budget was given in
    budget_amount: float | None = None
    budget_each: float | None = None  # issue 10: a per-card budget ("800 each"), in USD


def join(env: Env, items: list[str]) -> str:
    return t(env.lang, "sep.list").join(items)


def join_or(env: Env, items: list[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return t(env.lang, "sep.or", a=t(env.lang, "sep.list").join(items[:-1]), b=items[-1])


def gb(env: Env, value_gb: float) -> str:
    return fmt.gb(value_gb, env.lang)


def gb_band(env: Env, value_gb: float, low: float | None, high: float | None) -> str:
    """'21 GB (19-24)': a modelled figure with the band its calibration error gives."""
    if not low or not high or high <= low:
        return gb(env, value_gb)
    digits = 0 if high >= 10 else 1
    return t(
        env.lang,
        "band",
        gb=gb(env, value_gb),
        low=fmt.num(low, env.lang, digits),
        high=fmt.num(high, env.lang, digits),
    )


def enum_word(env: Env, group: str, value: Any) -> str:
    """The word for an enum value ("opt.adamw" -> "AdamW"); the value itself when none is written."""
    return word(env.lang, f"{group}.{value}", value)


def _cny(env: Env, usd: float) -> str:
    if env.lang.is_zh and env.cny_per_usd:
        return t(env.lang, "price.cny", cny=fmt.money(usd * env.cny_per_usd, "CNY", env.lang))
    return ""


def price_label(env: Env, g: GPU, count: int = 1) -> str:
    if not g.price_usd:
        return t(env.lang, "price.none")
    if g.price_cny and env.lang.is_zh:
        # a price observed on the Chinese market: shown in 元 as it was seen, the dollars converted
        return t(
            env.lang,
            "price.label_cny",
            cny=fmt.money(g.price_cny * count, "CNY", env.lang),
            usd=fmt.usd(g.price_usd * count, env.lang),
            kind=t(env.lang, "price.kind_part", kind=enum_word(env, "price.kind", g.price_kind))
            if g.price_kind and g.price_kind not in ("new", "street")
            else "",
            est=t(env.lang, "price.est")
            if g.is_estimated("price_usd") or g.is_estimated("price_cny")
            else "",
            date=fmt.month(g.price_date, env.lang) if g.price_date else "?",
        )
    total = g.price_usd * count
    kind = enum_word(env, "price.kind", g.price_kind) if g.price_kind and g.price_kind != "new" else ""
    return t(
        env.lang,
        "price.label",
        total=fmt.usd(total, env.lang),
        cny=_cny(env, total),
        each=t(env.lang, "price.each", n=count, each=fmt.usd(g.price_usd, env.lang)) if count > 1 else "",
        kind=t(env.lang, "price.kind_part", kind=kind) if kind else "",
        est=t(env.lang, "price.est") if g.is_estimated("price_usd") else "",
        date=fmt.month(g.price_date, env.lang) if g.price_date else "?",
    )


def quote_label(env: Env, q: Any, count: int = 1) -> str:
    """A price from the price book or the user (prices.PriceQuote): '$650 (your price)', '$750 used (May 2026)'."""
    total = q.usd * count
    if q.origin == "quoted":
        return t(env.lang, "price.quoted", price=fmt.usd(total, env.lang))
    kind = enum_word(env, "price.kind", q.kind.value if q.sub is None else q.sub.value)
    return t(
        env.lang,
        "price.label",
        total=fmt.usd(total, env.lang),
        cny=_cny(env, total),
        each=t(env.lang, "price.each", n=count, each=fmt.usd(q.usd, env.lang)) if count > 1 else "",
        kind=t(env.lang, "price.kind_part", kind=kind),
        est=t(env.lang, "price.est") if q.estimated else "",
        date=fmt.month(q.date[:7], env.lang),
    )


def budget_phrase(env: Env, budget_usd: float | None) -> str:
    """' under $1,000' / '预算 ¥6,000 以内': in the currency the user gave it, when that is 元;
    ' under R$8,000 (about $1,600)' for another currency."""
    if budget_usd is None:
        return ""
    if env.lang.is_zh and env.budget_currency == "CNY" and env.budget_amount:
        return t(env.lang, "budget.under", amount=fmt.money(env.budget_amount, "CNY", env.lang))
    if env.budget_currency not in (None, "USD", "CNY") and env.budget_amount and env.budget_each is None:
        return t(
            env.lang,
            "money.budget_in",
            amount=fmt.money(env.budget_amount, str(env.budget_currency), env.lang),
            usd=fmt.usd(budget_usd, env.lang),
        )
    amount = fmt.usd(budget_usd, env.lang)
    if env.lang.is_zh and env.cny_per_usd:
        amount += t(env.lang, "budget.approx", cny=fmt.money(budget_usd * env.cny_per_usd, "CNY", env.lang))
    return t(env.lang, "budget.under", amount=amount)


# Enum members the workload phrasing tests, read once (a member read from its class costs ~0.1 us
# under Python 3.11, and describe / assumption_line run for most replies)
_BATCH_SIZE = AssumptionName.BATCH_SIZE
_SEQ_LEN = AssumptionName.SEQ_LEN
_TASK = AssumptionName.TASK
_FULL = Method.FULL
_LORA = Method.LORA
_QLORA = Method.QLORA
_ADAMW = Optimizer.ADAMW
_BF16 = Precision.BF16
_FP16 = Precision.FP16
_FP32 = Precision.FP32
_INT4 = Precision.INT4
_FINETUNE = Task.FINETUNE
_INFERENCE = Task.INFERENCE


def _precision_phrase(env: Env, w: Workload) -> str:
    p = w.precision
    if w.trains and p in (_FP16, _BF16):
        return t(env.lang, "prec.pure" if w.pure_16bit else "prec.mixed", p=str(p))
    if p is _INT4 and w.nf4:
        return t(env.lang, "prec.int4_nf4")
    return enum_word(env, "prec", p)


def describe(env: Env, w: Workload, *, context: bool = True) -> str:
    """The workload in one line a user can correct in a follow-up (``context``: say the context
    length; a longest-context answer solves for it instead)."""
    L = env.lang
    trains = w.trains  # (a property: read once)
    parts: list[str] = []
    if w.task is _INFERENCE:
        parts.append(t(L, "wl.inference"))
    elif w.method is _QLORA:
        parts.append(t(L, "wl.qlora", rank=w.lora_rank))
    elif w.method is _LORA:
        base = t(L, "wl.base_amp", p=str(w.precision)) if w.amp else str(w.precision)
        parts.append(t(L, "wl.lora", rank=w.lora_rank, base=base))
    else:
        parts.append(t(L, "wl.full_finetune" if w.task is _FINETUNE else "wl.training"))
    if w.method is not _QLORA:
        parts.append(_precision_phrase(env, w))
    if trains and w.method is not _FULL and w.lora_targets != "all-linear":
        parts.append(t(L, "wl.lora_on", targets=enum_word(env, "target", w.lora_targets)))
    if trains and (w.method is _FULL or w.optimizer is not _ADAMW):
        parts.append(enum_word(env, "opt", w.optimizer))
    if w.seq_len and w.task is _INFERENCE:
        if context:
            parts.append(t(L, "ctx.context", seq=fmt.num(w.seq_len, L)))
    elif w.seq_len:
        parts.append(t(L, "wl.seq", seq=w.seq_len))
    if w.kv_cache and w.task is _INFERENCE:
        parts.append(t(L, "ctx.kv", kv=w.kv_cache))
    if w.resolution:
        parts.append(t(L, "wl.px", px=w.resolution))
    if w.offload_text_encoders:
        parts.append(t(L, "wl.cache_te" if trains else "wl.offload"))
    if w.cpu_offload:
        parts.append(t(L, "wl.cpu_offload"))
    if trains and w.grad_checkpointing:
        parts.append(t(L, "wl.ckpt"))
    if w.num_gpus > 1:
        parts.append(t(L, "wl.cards", n=w.num_gpus, par=enum_word(env, "par", w.parallelism)))
    return join(env, parts)


def task_phrase(env: Env, m: Model, w: Workload) -> str:
    """'Llama 3 8B QLoRA fine-tuning', 'BERT-Base full fine-tuning (mixed fp16)'."""
    L = env.lang
    if w.task is _INFERENCE:
        return t(L, "task.inference_in", model=m.name, p=str(w.precision))
    if w.method is _QLORA:
        return t(L, "task.qlora", model=m.name)
    if w.method is _LORA:
        return t(L, "task.lora", model=m.name)
    mixed = "fp32" if w.precision is _FP32 else t(L, "prec.mixed_short", p=str(w.precision))
    key = "task.full_finetune" if w.task is _FINETUNE else "task.training"
    return t(L, key, model=m.name, mixed=mixed)


def workload_title(env: Env, m: Model, w: Workload) -> str:
    L = env.lang
    if w.task is _INFERENCE:
        return t(L, "title.inference", model=m.name)
    if w.method is _QLORA:
        return t(L, "task.qlora", model=m.name)
    if w.method is _LORA:
        return t(L, "task.lora", model=m.name)
    return t(L, "title.finetune" if w.task is _FINETUNE else "title.training", model=m.name)


def assumption_line(env: Env, w: Workload, m: Model | None, assumed: tuple[Assumption, ...]) -> str:
    L = env.lang
    # the batch assumed (the last one listed), and whether the task and the context are among them
    batch: Assumption | None = None
    task = seq_len = False
    for x in assumed:
        name = x.name
        if name == _BATCH_SIZE:
            batch = x
        elif name == _TASK:
            task = True
        elif name == _SEQ_LEN:
            seq_len = True
    extra = ""
    if batch is not None and batch.value:
        key = "assume.batch" if batch.stated else "assume.batch_default"
        extra += t(L, key, batch=batch.value)
    if not w.fused_attention:
        extra += t(L, "assume.eager")
    hint = change_hint(env, w, m) if m is not None else ""
    # the engine leaves the context out of a longest-context answer's assumptions (it is solved for)
    context = not task or seq_len
    return t(L, "assume.line", desc=describe(env, w, context=context), extra=extra, hint=hint).rstrip()


def change_hint(env: Env, w: Workload, m: Model) -> str:
    """Follow-ups that change this answer, in words the parser understands."""
    L = env.lang
    if m.kind in ("cnn", "diffusion"):
        return t(L, "hint.image_inference" if w.task is _INFERENCE else "hint.image_training")
    if w.task is _INFERENCE:
        quantized = w.precision in ("int4", "int8", "fp8")  # (StrEnum members equal their values)
        return t(L, "hint.llm_inference_quantized" if quantized else "hint.llm_inference")
    if w.method in ("lora", "qlora"):
        return t(L, "hint.adapter")
    return t(L, "hint.training")


def breakdown_line(env: Env, parts: list[tuple[str, float]]) -> str:
    L = env.lang
    return t(L, "sep.parts").join([t(L, f"part.{name}", gb=fmt.gb(v, L)) for name, v in parts])


def throughput_phrase(env: Env, value: float | None, unit: str | None) -> str:
    """' (568 images/s, measured)' / ' (~44 tokens/s at batch 1)' or ''."""
    if not value or not unit:
        return ""
    kind = "images" if unit.startswith("images") else "tokens"
    v = fmt.num(round(value), env.lang)
    if "measured" in unit:
        return t(env.lang, f"tp.{kind}_measured", v=v)
    if "batch 1" in unit:
        return t(env.lang, f"tp.{kind}_batch1", v=v)
    return t(env.lang, f"tp.{kind}_modelled", v=v)


def _value(env: Env, kind: ChangeKind, value: Any) -> str:
    if kind is ChangeKind.PRECISION:
        return enum_word(env, "prec", value)
    if kind is ChangeKind.METHOD:
        return enum_word(env, "method", value)
    if kind is ChangeKind.OPTIMIZER:
        return enum_word(env, "opt", value)
    return str(value)


def fix_phrase(env: Env, fix: FixOption, asked: GPU | None) -> str:
    """'with 4-bit weights (about 5.1 GB)', 'RTX 3090 24 GB ($900 used est. (2026-05), about 21 GB)'."""
    L = env.lang
    bits: list[str] = []
    cards: int | None = None
    offload = False
    for c in fix.changes:
        k = c.kind
        if k is ChangeKind.CARD:
            continue
        if k is ChangeKind.BATCH_SIZE:
            key = "chg.batch_accum" if fix.trains and c.after == 1 else "chg.batch"
            bits.append(t(L, key, v=c.after))
        elif k is ChangeKind.NUM_GPUS:
            cards = int(c.after)
        elif k is ChangeKind.OFFLOAD:
            offload = True
        elif k is ChangeKind.GRAD_CHECKPOINTING:
            bits.append(t(L, f"chg.{k}"))
        elif k is ChangeKind.PRECISION:
            bits.append(t(L, "chg.precision", v=enum_word(env, "prec_chg", c.after)))
        else:
            bits.append(t(L, f"chg.{k}", v=_value(env, k, c.after)))
    if offload:  # training: the encoders' outputs are cached; inference: the encoders go back to CPU
        with_, alone = (
            ("chg.cache_with", "chg.cache_text_encoders")
            if fix.trains
            else ("chg.offload_with", "chg.offload_text_encoders")
        )
        bits = [t(L, with_, what=join(env, bits))] if bits else [t(L, alone)]
    if cards is not None:
        par = enum_word(env, "par_short", fix.parallelism)
        if bits:
            bits = [t(L, "chg.num_gpus_with", what=join(env, bits), n=cards, par=par)]
        else:
            bits = [t(L, "chg.num_gpus", n=cards, par=par)]
    per = t(L, "fit.per_card") if fix.num_gpus > 1 else ""
    about = t(L, "chg.about", gb=fmt.gb(fix.total_gb, L), per=per)
    other = fix.gpu is not None and (asked is None or fix.gpu.id != asked.id)
    what = join(env, bits)
    if other and fix.gpu is not None:
        card = card_label(fix.gpu)
        return t(
            L,
            "chg.other_card",
            what=what or t(L, "chg.smallest_card"),
            card=card,
            price=price_label(env, fix.gpu),
            about=about,
        )
    return t(L, "chg.same_card", what=what, about=about)


def legacy_note(lang: Lang, g: GPU) -> str:
    """Why a card below compute capability 7.5 is not a purchase: a Kepler card is past every current
    PyTorch wheel (its last are PyTorch 2.7's CUDA 11.8 builds), the others need the CUDA 12.6 one."""
    key = "note.legacy_cuda_kepler" if g.architecture.startswith("Kepler") else "note.legacy_cuda"
    return t(lang, key, card=card_label(g), arch=g.architecture)


# One note in the reply's language: a phraser per note code (``_NOTE_LINES``), found with one dict
# look-up (a chain of ``c is NoteCode.X`` tests costs an Enum attribute read each, ~0.1 us under
# Python 3.11); a phraser returning None leaves the note to the catalog's ``note.<code>`` message.
_Phraser = Callable[[Env, dict[str, Any], "dict[str, GPU] | None"], "str | None"]


def note_line(env: Env, n: Note, cards: dict[str, GPU] | None = None) -> str:
    """One note in the reply's language."""
    phraser = _NOTE_LINES.get(n.code)
    if phraser is not None:
        line = phraser(env, n.values, cards)
        if line is not None:
            return line
    v = n.values
    return t(env.lang, f"note.{n.code}", **{k: x for k, x in v.items() if isinstance(x, str | int | float)})


def _multi_train(env: Env, v: dict[str, Any], cards: dict[str, GPU] | None) -> str | None:
    L = env.lang
    key = "note.multi_train_" + ("sharded" if v.get("parallelism") == "sharded" else "ddp")
    key += "_stated" if v.get("stated") else ""
    return t(
        L,
        key,
        n=v["n"],
        card=fmt.num(v["card_gb"], L),
        pooled=fmt.num(v["pooled_gb"], L),
        copy=fmt.gb(v["copy_gb"], L),
        sharded=fmt.gb(v["sharded_gb"], L),
    )


def _budget_converted(env: Env, v: dict[str, Any], cards: dict[str, GPU] | None) -> str | None:
    L = env.lang
    line = t(
        L,
        "note.budget_converted",
        text=v["text"],
        amount=fmt.num(v["amount"], L),
        code=v["code"],
        usd=fmt.usd(v["usd"], L),
        date=v["date"],
        rate=f"{v['rate']:g}",
    )
    if v.get("estimated"):
        line += (" " if not L.is_zh else "") + t(L, "money.rate_estimated", code=v["code"])
    return line


def _took_gpu(env: Env, v: dict[str, Any], cards: dict[str, GPU] | None) -> str | None:
    key = "note.took_gpu_same" if v.get("same_memory") else "note.took_gpu_common"
    if v.get("newest"):  # a product line ("mac studio 128gb"): the newest machine, said as such
        key = "names.took_gpu_newest"
    elif v.get("why") == "rental":  # "rent an a100 or buy a 3090": the variant rental prices are for
        key = "note.took_gpu_rental"
    elif v.get("why") == "pending":  # a setting changed instead of picking the variant asked about
        key = "note.took_gpu_pending"
    return t(env.lang, key, typed=v["typed"], chosen=v["chosen"], also=join(env, list(v.get("also") or [])))


def _took_model(env: Env, v: dict[str, Any], cards: dict[str, GPU] | None) -> str | None:
    key = "note.took_model_same" if v.get("same_size") else "note.took_model_usual"
    return t(
        env.lang, key, typed=v["typed"], chosen=v["chosen"], others=join(env, list(v.get("others") or []))
    )


def _took_model_also(env: Env, v: dict[str, Any], cards: dict[str, GPU] | None) -> str | None:
    return t(
        env.lang,
        "note.took_model_also",
        typed=v["typed"],
        chosen=v["chosen"],
        others=join(env, list(v["others"])),
    )


def _size_model(env: Env, v: dict[str, Any], cards: dict[str, GPU] | None) -> str | None:
    return t(env.lang, "note.size_model", size=f"{v['size']:g}", name=v["name"])


def _card_note(code: NoteCode) -> _Phraser:
    """ROCm, legacy CUDA and uncurated cards: about the card named in the note when it is known."""

    def phrase(env: Env, v: dict[str, Any], cards: dict[str, GPU] | None) -> str | None:
        L = env.lang
        if v.get("card") and cards:
            g = cards.get(v["card"])
            if g is not None:
                if code is NoteCode.LEGACY_CUDA:
                    return legacy_note(L, g)
                if code is NoteCode.UNCURATED:
                    return t(L, "note.uncurated", card=short_name(g))
                return t(L, "note.rocm_card", card=card_label(g))
        if code is NoteCode.ROCM:
            return t(L, "note.rocm")
        return None

    return phrase


def _seq_too_long(env: Env, v: dict[str, Any], cards: dict[str, GPU] | None) -> str | None:
    L = env.lang
    return t(L, "note.seq_too_long", model=v["model"], max=fmt.num(v["max"], L), seq=fmt.num(v["seq"], L))


def _ask_gpu_variant(env: Env, v: dict[str, Any], cards: dict[str, GPU] | None) -> str | None:
    sizes = join_or(env, [f"{s} GB" for s in v["sizes"]])
    return t(env.lang, "ask.gpu_variant", family=v["family"], sizes=sizes)


def _ask_model(env: Env, v: dict[str, Any], cards: dict[str, GPU] | None) -> str | None:
    L = env.lang
    if v.get("card"):  # "我的gtx 1650能跑sd吗": the ask-back keeps the card (engine._ask_back_on_card)
        return t(L, "ask.model_on", typed=v["typed"], card=v["card"], names=join(env, list(v["names"])))
    return t(L, "ask.model", typed=v["typed"], names=join(env, list(v["names"])))


def _did_you_mean(env: Env, v: dict[str, Any], cards: dict[str, GPU] | None) -> str | None:
    return t(env.lang, "ask.did_you_mean", names=join_or(env, list(v["names"])))


def _unknown_name(env: Env, v: dict[str, Any], cards: dict[str, GPU] | None) -> str | None:
    if v.get("near"):  # "409": a card number one digit off
        return t(env.lang, "note.unknown_card_near", word=v["word"], names=join_or(env, list(v["near"])))
    return None


def _unknown_model_size(env: Env, v: dict[str, Any], cards: dict[str, GPU] | None) -> str | None:
    return t(env.lang, "names.unknown_model_size", word=v.get("word", ""))


def _no_laptop_part(env: Env, v: dict[str, Any], cards: dict[str, GPU] | None) -> str | None:
    return t(env.lang, "laptop.no_laptop_part", typed=v.get("typed", ""), card=v.get("card", ""))


def _rig_used(env: Env, v: dict[str, Any], cards: dict[str, GPU] | None) -> str | None:
    L = env.lang
    if int(v.get("count") or 1) > 1:
        return t(L, "note.rig_used_many", count=int(v["count"]), name=v.get("name", v.get("gpu", "")))
    return t(L, "note.rig_used", name=v.get("name", v.get("gpu", "")))


def _out_of_range(env: Env, v: dict[str, Any], cards: dict[str, GPU] | None) -> str | None:
    L = env.lang
    return t(
        L,
        "note.out_of_range",
        field=enum_word(env, "field", v.get("field")),
        text=v.get("text", ""),
        low=fmt.num(v.get("low", 0), L),
        high=fmt.num(v.get("high", 0), L),
    )


def _truncated(env: Env, v: dict[str, Any], cards: dict[str, GPU] | None) -> str | None:
    return t(env.lang, "note.truncated", chars=fmt.num(v.get("chars", 0), env.lang))


def _more_questions(env: Env, v: dict[str, Any], cards: dict[str, GPU] | None) -> str | None:
    # "can a 3090 run llama 3 8b? also how much is a 4090"
    return t(env.lang, "note.more_questions", text=str(v.get("text", "")))


def _filter_unknown_field(env: Env, v: dict[str, Any], cards: dict[str, GPU] | None) -> str | None:
    # a filter on a field the catalog lacks (issue 10)
    L = env.lang
    return t(L, "filter.unknown_field", field=t(L, f"filter.field.{v.get('field')}"))


def _budget_follow_up(env: Env, v: dict[str, Any], cards: dict[str, GPU] | None) -> str | None:
    # "cheaper?" (bot.core.conversation)
    key = "conv.cheaper" if v.get("cheaper") else "conv.pricier"
    return t(env.lang, key, usd=fmt.usd(float(v.get("usd") or 0), env.lang))


def format_label(format_id: str | None) -> str:
    """A build as people write it: 'Q4_K_M', 'FP8', 'AWQ int4', 'bf16' (terms, the same in every language)."""
    f = format_id or ""
    if f.startswith("gguf-"):
        return f[5:].upper()
    if f in ("fp8", "mxfp4"):
        return f.upper()
    if f.startswith(("awq-", "gptq-")):
        fam, _, p = f.partition("-")
        return f"{fam.upper()} {p}"
    if f.startswith("bnb-"):
        p = f[4:]
        return f"bitsandbytes {p.upper() if p == 'nf4' else p}"
    return f


def _ram_tail(env: Env, v: dict) -> str:
    have = v.get("have_ram_gb")
    if have is None:
        return ""
    key = "note.ram_enough" if v.get("enough") else "note.ram_short"
    return t(env.lang, key, have=f"{float(have):g}")


def _issue11_note(env: Env, n: Note, cards: dict[str, GPU] | None) -> str | None:
    """Notes of issue 11 (builds, MoE, offload, unified memory, precision and software support)."""
    phraser = _ISSUE11_LINES.get(n.code)
    return phraser(env, n.values, cards) if phraser is not None else None


def _card_of(v: dict[str, Any], cards: dict[str, GPU] | None) -> str:
    g = (cards or {}).get(v.get("card", ""))
    return short_name(g) if g is not None else str(v.get("card", ""))


def _moe_params(env: Env, v: dict[str, Any], cards: dict[str, GPU] | None) -> str | None:
    return t(
        env.lang,
        "note.moe_params",
        model=v["model"],
        total_b=f"{v['total_b']:g}",
        active_b=f"{v['active_b']:g}",
    )


def _moe_cpu_offload(env: Env, v: dict[str, Any], cards: dict[str, GPU] | None) -> str | None:
    L = env.lang
    return t(
        L,
        "note.moe_cpu_offload",
        fmt=format_label(v["fmt"]),
        gpu_gb=fmt.num(v["gpu_gb"], L),
        ram_gb=fmt.num(v["ram_gb"], L),
        ram=_ram_tail(env, v),
    )


def _partial_offload(env: Env, v: dict[str, Any], cards: dict[str, GPU] | None) -> str | None:
    L = env.lang
    return t(
        L,
        "note.partial_offload",
        fmt=format_label(v["fmt"]),
        layers_gpu=v["layers_gpu"],
        layers=v["layers"],
        ram_gb=fmt.num(v["ram_gb"], L),
        slowdown=f"{max(2.0, float(v['slowdown'])):g}",
        ram=_ram_tail(env, v),
    )


def _ask_system_ram(env: Env, v: dict[str, Any], cards: dict[str, GPU] | None) -> str | None:
    return t(env.lang, "note.ask_system_ram", ram_gb=fmt.num(v["ram_gb"], env.lang))


def _diffusers_offload(env: Env, v: dict[str, Any], cards: dict[str, GPU] | None) -> str | None:
    return t(env.lang, "note.diffusers_offload", fmt=format_label(v["fmt"]), gb=fmt.num(v["gb"], env.lang))


def _unified_memory(env: Env, v: dict[str, Any], cards: dict[str, GPU] | None) -> str | None:
    return t(
        env.lang,
        "note.unified_memory",
        card=_card_of(v, cards),
        usable_gb=f"{float(v['usable_gb']):g}",
        total_gb=f"{float(v['total_gb']):g}",
        share=v["share"],
    )


def _precision_fallback(env: Env, v: dict[str, Any], cards: dict[str, GPU] | None) -> str | None:
    reason = str(v["reason"])
    key = f"note.fallback.{reason}" + (".train" if v.get("trains") and reason == "no_bf16_use_fp16" else "")
    return t(env.lang, key, card=_card_of(v, cards), requested=v["requested"], used=v["used"])


def _software_limit(env: Env, v: dict[str, Any], cards: dict[str, GPU] | None) -> str | None:
    key = "note.software_limit.no" if v["level"] == "no" else "note.software_limit.partial"
    return t(env.lang, key, card=_card_of(v, cards), tool=v["tool"], stack=v["stack"])


def _vllm_reserve(env: Env, v: dict[str, Any], cards: dict[str, GPU] | None) -> str | None:
    return t(
        env.lang,
        "note.vllm_reserve",
        pct=round(float(v["fraction"]) * 100),
        fraction=f"{float(v['fraction']):g}",
        usable_gb=fmt.num(v["usable_gb"], env.lang),
    )


def _multi_card_setups(env: Env, v: dict[str, Any], cards: dict[str, GPU] | None) -> str | None:
    L = env.lang
    items = [
        t(L, "note.setup_item", n=s["n"], card=s["name"], gb=fmt.num(s["gb"], L)) for s in v.get("setups", [])
    ]
    key = "note.multi_card_setups" if v.get("fmt") else "note.multi_card_setups_plain"
    return t(L, key, fmt=format_label(v.get("fmt")), items=t(L, "sep.semicolon").join(items))


def _engine_used(env: Env, v: dict[str, Any], cards: dict[str, GPU] | None) -> str | None:
    return t(env.lang, "note.engine_used", engine=v["engine"])


def _kv_cache_cost(env: Env, v: dict[str, Any], cards: dict[str, GPU] | None) -> str | None:
    L = env.lang
    cost = t(L, f"ctx.cost.{v['cost']}", date=fmt.month(v["date"], L)) if v.get("cost") else ""
    return t(
        L, "ctx.kv_cost", kv=v["kv"], gb=gb(env, v["gb"]), f16_gb=gb(env, v["f16_gb"]), cost=cost
    ).rstrip("; ；")


def _kv_cache_engine(env: Env, v: dict[str, Any], cards: dict[str, GPU] | None) -> str | None:
    return t(
        env.lang, "ctx.kv_engine", engine=v.get("engine") or "llama.cpp", asked=v["asked"], used=v["used"]
    )


def _kv_cache_training(env: Env, v: dict[str, Any], cards: dict[str, GPU] | None) -> str | None:
    return t(env.lang, "ctx.kv_training", asked=v["asked"])


def _moe_offload_speed(env: Env, v: dict[str, Any], cards: dict[str, GPU] | None) -> str | None:
    L = env.lang
    return t(
        L,
        "v11.moe_offload_speed",
        tps=fmt.num(v["tps"], L, 1 if v["tps"] < 10 else 0),
        ram_gbs=fmt.num(v["ram_gbs"], L),
        server_tps=fmt.num(v["server_tps"], L, 1 if v["server_tps"] < 10 else 0),
        server_ram_gbs=fmt.num(v["server_ram_gbs"], L),
    )


def _unified_box(env: Env, v: dict[str, Any], cards: dict[str, GPU] | None) -> str | None:
    L = env.lang
    return t(
        L,
        "v11.unified_box_raised" if v.get("raised") else "v11.unified_box",
        card=v["name"],
        fmt=format_label(v["fmt"]),
        gb=fmt.num(v["gb"], L),
        tps=fmt.num(v["tps"], L, 1 if (v.get("tps") or 0) < 10 else 0) if v.get("tps") else "?",
    )


def _ktransformers(env: Env, v: dict[str, Any], cards: dict[str, GPU] | None) -> str | None:
    return t(env.lang, "v11.ktransformers")


def _sequential_offload(env: Env, v: dict[str, Any], cards: dict[str, GPU] | None) -> str | None:
    L = env.lang
    return t(
        L,
        "v11.sequential_offload_only" if v.get("only") else "v11.sequential_offload",
        fmt=format_label(v["fmt"]),
        gb=fmt.num(v["gb"], L),
        extra_s=fmt.num(v["extra_s"], L),
        steps=v["steps"],
    )


def _money_note(env: Env, n: Note) -> str | None:
    """Issue 10/14 notes: a currency not known, a per-card budget, cloud left out."""
    phraser = _MONEY_LINES.get(n.code)
    return phraser(env, n.values, None) if phraser is not None else None


def _unknown_currency(env: Env, v: dict[str, Any], cards: dict[str, GPU] | None) -> str | None:
    return t(
        env.lang,
        "money.unknown_currency",
        currency=str(v.get("currency", "")),
        text=str(v.get("text", "")),
    )


def _per_card(env: Env, v: dict[str, Any], cards: dict[str, GPU] | None) -> str | None:
    L = env.lang
    each = fmt.usd(float(v.get("each_usd") or 0), L)
    if not v.get("count_said"):
        return t(L, "money.per_card_one", each=each)
    return t(
        L,
        "money.per_card",
        each=each,
        count=int(v.get("count") or 1),
        total=fmt.usd(float(v.get("total_usd") or 0), L),
    )


def _no_cloud(env: Env, v: dict[str, Any], cards: dict[str, GPU] | None) -> str | None:
    return t(env.lang, "money.no_cloud")


_ISSUE11_LINES: dict[NoteCode, _Phraser] = {
    NoteCode.MOE_PARAMS: _moe_params,
    NoteCode.MOE_CPU_OFFLOAD: _moe_cpu_offload,
    NoteCode.PARTIAL_OFFLOAD: _partial_offload,
    NoteCode.ASK_SYSTEM_RAM: _ask_system_ram,
    NoteCode.DIFFUSERS_OFFLOAD: _diffusers_offload,
    NoteCode.UNIFIED_MEMORY: _unified_memory,
    NoteCode.PRECISION_FALLBACK: _precision_fallback,
    NoteCode.SOFTWARE_LIMIT: _software_limit,
    NoteCode.VLLM_RESERVE: _vllm_reserve,
    NoteCode.MULTI_CARD_SETUPS: _multi_card_setups,
    NoteCode.ENGINE_USED: _engine_used,
    NoteCode.KV_CACHE_COST: _kv_cache_cost,
    NoteCode.KV_CACHE_ENGINE: _kv_cache_engine,
    NoteCode.KV_CACHE_TRAINING: _kv_cache_training,
    NoteCode.MOE_OFFLOAD_SPEED: _moe_offload_speed,
    NoteCode.UNIFIED_BOX: _unified_box,
    NoteCode.KTRANSFORMERS: _ktransformers,
    NoteCode.SEQUENTIAL_OFFLOAD: _sequential_offload,
}
_MONEY_LINES: dict[NoteCode, _Phraser] = {
    NoteCode.BUDGET_UNKNOWN_CURRENCY: _unknown_currency,
    NoteCode.BUDGET_PER_CARD: _per_card,
    NoteCode.NO_CLOUD: _no_cloud,
}
_NOTE_LINES: dict[NoteCode, _Phraser] = {
    NoteCode.MULTI_TRAIN: _multi_train,
    NoteCode.BUDGET_CONVERTED: _budget_converted,
    **_MONEY_LINES,
    NoteCode.TOOK_GPU: _took_gpu,
    NoteCode.TOOK_MODEL: _took_model,
    NoteCode.TOOK_MODEL_ALSO: _took_model_also,
    NoteCode.SIZE_MODEL: _size_model,
    NoteCode.ROCM: _card_note(NoteCode.ROCM),
    NoteCode.LEGACY_CUDA: _card_note(NoteCode.LEGACY_CUDA),
    NoteCode.UNCURATED: _card_note(NoteCode.UNCURATED),
    NoteCode.SEQ_TOO_LONG: _seq_too_long,
    NoteCode.ASK_GPU_VARIANT: _ask_gpu_variant,
    NoteCode.ASK_MODEL: _ask_model,
    NoteCode.DID_YOU_MEAN: _did_you_mean,
    NoteCode.UNKNOWN_NAME: _unknown_name,
    NoteCode.UNKNOWN_MODEL_SIZE: _unknown_model_size,
    NoteCode.NO_LAPTOP_PART: _no_laptop_part,
    NoteCode.RIG_USED: _rig_used,
    NoteCode.OUT_OF_RANGE: _out_of_range,
    NoteCode.TRUNCATED: _truncated,
    NoteCode.MORE_QUESTIONS: _more_questions,
    NoteCode.FILTER_UNKNOWN_FIELD: _filter_unknown_field,
    NoteCode.BUDGET_FOLLOW_UP: _budget_follow_up,
    **_ISSUE11_LINES,
}
