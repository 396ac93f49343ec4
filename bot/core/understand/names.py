"""The names found resolved: which card or model each mention means, and what to say about it.

A mention of a family whose members differ in what the answer depends on ("a100": 40 or 80 GB)
is asked back with choices when the question cares (fit, compare, info) and defaults otherwise,
said in a note; a corrected typo is said with alternatives; "a 7b model" stands for a typical
dense decoder of that size; a word that looks like a model name but matches nothing is said back
("I don't know X"), never dropped: a brand with a version the catalog lacks ("kimi k3"), also with tier
words between ("mistral huge 9"), and a card family with a memory size no member has ("mac studio
256gb"). A product line ("mac studio") picks its newest machine, said, when it does not ask back.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from bot.core import gated_re
from bot.core.matching import STOP_WORDS, Matcher, Mention, pick_model
from bot.core.price_parse import asks_price
from bot.core.types import Choice, Intent, Note, NoteCode, note
from bot.core.understand.text import DIGIT_RE
from bot.core.understand.text import rx as _rx
from bot.core.understand_time import asks_time_or_speed

__all__ = ["Names", "model_by_size", "resolve", "short_gpu", "took_gpu"]


@dataclass(slots=True)
class Names:
    """What the mentions resolved to, in the order typed; notes, ask-backs and choices to add."""

    gpus: list[str] = field(default_factory=list)
    gpu_counts: list[int] = field(default_factory=list)  # each card's own count ("2x 3090 vs 4090")
    gpu_spans: list[tuple[int, int, str]] = field(default_factory=list)  # for bot.core.understand_multi
    models: list[str] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)
    suggestions: list[Note] = field(default_factory=list)
    choices: list[Choice] = field(default_factory=list)
    clarify: bool = False
    sized_unknown: bool = False  # an unknown name with a size stands as a typical model of that size


def resolve(
    matcher: Matcher,
    mentions: Sequence[Mention],
    intent: Intent,
    masked: str,
    base_text: str,
    per_card: dict[int, int],
    size_model: tuple[str, float] | None,
) -> Names:
    """Each mention to one id (or an ask-back); ``base_text`` is the text the choices rewrite."""
    r = Names()
    notes, suggestions, choices = r.notes, r.suggestions, r.choices
    gpus, gpu_counts, gpu_spans, models = r.gpus, r.gpu_counts, r.gpu_spans, r.models
    clarify = False

    def rewrite(mn: Mention, replacement: str) -> str:
        return (base_text[: mn.start] + replacement + base_text[mn.end :]).strip()

    # time, speed and serving questions ("time to train resnet-50 with 8x a100") hinge on compute, which
    # memory variants share: the default member, said, rather than asking back
    cares = intent in (Intent.FIT, Intent.COMPARE, Intent.INFO)
    for mn in mentions:
        kind = mn.kind
        chosen: str | None = None
        versioned = _version_unknown(matcher, mn, masked) if kind == "model" else None
        if versioned is not None:
            # "kimi k3", "glm 4.7", "deepseek v4": the brand is known, that version is not; said back
            # with the versions known (never Kimi K2 read silently for "kimi k3")
            notes.append(note(NoteCode.UNKNOWN_NAME, word=versioned))
            known = _family_names(matcher, [*mn.ids, *_family_ids(matcher, mn.text.strip().lower())])
            if known:
                suggestions.append(note(NoteCode.DID_YOU_MEAN, names=known))
            continue
        contradicted = _size_contradicts(matcher, mn, masked) if kind == "model" else None
        if contradicted is not None:
            # "t5 11b": the T5 the catalog has is T5-Base (0.22B); an 11B T5 is another model, said
            # back, with a typical model of that size standing in (never T5-Base read silently)
            word, size = contradicted
            notes.append(note(NoteCode.UNKNOWN_NAME, word=word))
            stand_in = model_by_size(f"{size:g}b model", matcher.catalog)
            if stand_in is not None and stand_in[0] not in models:
                models.append(stand_in[0])
                r.sized_unknown = True
                notes.append(
                    note(NoteCode.SIZE_MODEL, size=size, name=matcher.display_name("model", stand_in[0]))
                )
            continue
        if not mn.family:
            chosen = mn.ids[0]
        elif kind == "gpu":
            if matcher.in_product_line(mn.ids) and any(
                o.kind == "gpu" and o.id is not None and o.id in mn.ids for o in mentions
            ):
                continue  # "a mac studio with the m3 ultra": the member named says which one
            default, differs = matcher.family_default(mn.ids, mn.preferred)
            if differs and _size_every_member_has(matcher, mn):
                differs = False  # "macbook air 16gb": every machine is sold with 16 GB; the newest, said
            odd_chip = _chip_no_member_has(matcher, mn)
            if odd_chip is not None:
                # "macbook air m5 16gb": that chip is not in the catalog; said, then the newest machine
                notes.append(note(NoteCode.UNKNOWN_NAME, word=odd_chip))
            odd_size = _size_no_member_has(matcher, mn, masked)
            if odd_size is not None:
                # "mac studio 256gb": no member has that memory; said, then asked or the pick said as usual
                notes.append(note(NoteCode.UNKNOWN_NAME, word=odd_size))
            if differs and intent is Intent.INFO and len(mn.ids) <= 3 and asks_price(masked):
                # "how much does renting an a100 cost per hour": every variant's price answers it
                # better than asking back which one (each is named in the answer)
                for g in mn.ids:
                    if g not in gpus:
                        gpus.append(g)
                        gpu_counts.append(1)
                continue
            if differs and cares and not matcher.has_default(mn.ids) and not asks_time_or_speed(masked):
                clarify = True
                label = _family_label(matcher, mn.ids) if _one_variant_family(matcher, mn.ids) else ""
                family_name = short_gpu(label or f'"{mn.text.strip()}"')
                # each size once, smallest first ("48 GB" once for the A6000 and the 6000 Ada)
                sizes = sorted(
                    set(_vram(matcher, g) for g in mn.ids), key=lambda x: float(x) if x != "?" else 0.0
                )
                suggestions.append(note(NoteCode.ASK_GPU_VARIANT, family=family_name, sizes=sizes))
                for g in mn.ids:
                    label = short_gpu(matcher.display_name("gpu", g))
                    if f"{_vram(matcher, g)} gb" not in label.lower().replace("gb", " gb").replace("  ", " "):
                        label = f"{label} {_vram(matcher, g)} GB"
                    choices.append(Choice(label=label, text=rewrite(mn, label), id=g))
            else:
                chosen = default
                notes.append(took_gpu(matcher, mn, default, differs, newest=matcher.in_product_line(mn.ids)))
        else:
            of_size = _of_typed_size(matcher, mn)
            pick, why = pick_model(matcher, of_size)
            if pick:
                chosen = pick
                others = [matcher.display_name("model", i) for i in of_size if i != pick]
                if others:
                    notes.append(
                        note(
                            NoteCode.TOOK_MODEL,
                            typed=mn.text.strip(),
                            chosen=matcher.display_name("model", pick),
                            same_size=why == "same size",
                            others=others,
                        )
                    )
                else:  # "qwen 3b": the typed size leaves one member; said as the name taken
                    notes.append(
                        note(
                            NoteCode.CORRECTED,
                            typed=mn.text.strip(),
                            name=matcher.display_name("model", pick),
                        )
                    )
            else:
                clarify = True
                ask_ids = sorted(
                    mn.ids,
                    key=lambda i: str(getattr(matcher.entry("model", i), "release", "") or ""),
                    reverse=True,
                )[:5]
                names = [matcher.display_name("model", i) for i in ask_ids]
                suggestions.append(note(NoteCode.ASK_MODEL, typed=mn.text.strip(), names=names))
                choices.extend(
                    Choice(label=n[:80], text=rewrite(mn, n), id=i)
                    for n, i in zip(names, ask_ids, strict=True)
                )
        if kind == "gpu":
            _say_no_laptop_part(matcher, mn, masked, notes)
        if chosen is None:
            continue
        if kind == "model" and not mn.family and not mn.corrected:
            alts = matcher.alternatives(mn.text)
            if alts:
                others = [matcher.display_name("model", i) for i in alts[:3]]
                notes.append(
                    note(
                        NoteCode.TOOK_MODEL_ALSO,
                        typed=" ".join(mn.text.split()),  # ("r1  distill  8b": 蒸馏 read as a word)
                        chosen=matcher.display_name("model", chosen),
                        others=others,
                    )
                )
        if mn.corrected:
            typed = base_text[mn.start : mn.end].strip()
            name = matcher.display_name(kind, chosen)
            notes.append(note(NoteCode.CORRECTED, typed=typed, name=name))
            # (the typos of this name were corrected in the parser's scan: not searched again)
            near = matcher.suggest(
                typed, "gpu" if kind == "gpu" else "model", limit=3, corrections=dict(mn.corrected)
            )
            alt_ids = [chosen] + [m.id for m in near if m.id != chosen]
            suggestions.append(note(NoteCode.DID_YOU_MEAN, names=[name]))
            for i in alt_ids[:3]:
                n = matcher.display_name(kind, i)
                choices.append(Choice(label=n[:80], text=rewrite(mn, n), id=i))
        target = gpus if kind == "gpu" else models
        if kind == "gpu":
            gpu_spans.append((mn.start, mn.end, chosen))  # several cards: bot.core.understand_multi
        if chosen not in target:
            target.append(chosen)
            if kind == "gpu":
                gpu_counts.append(per_card.get(mn.start, 1))

    # "a 7b model", "70B LLM": a typical dense decoder of that size stands in for it
    if size_model is not None and not models:
        mid, size = size_model
        models.append(mid)
        notes.append(note(NoteCode.SIZE_MODEL, size=size, name=matcher.display_name("model", mid)))

    # a model brand and a version the catalog lacks ("minimax m2", "glm 5"): said, with the versions
    # known or how to ask by size, never dropped (issue 10)
    if not models and not any(n.code is NoteCode.UNKNOWN_NAME for n in notes):
        branded = _brand_version_unknown(matcher, masked)
        if branded is not None:
            word, ids = branded
            notes.append(note(NoteCode.UNKNOWN_NAME, word=word))
            known = _family_names(matcher, ids)
            suggestions.append(
                note(NoteCode.DID_YOU_MEAN, names=known)
                if known
                else note(NoteCode.UNKNOWN_MODEL_SIZE, word=word)
            )
    # unknown names that look like a model ("qwerty-llm-500b", "megatron-zeta 12b", "llama 5 400b"): say so
    if not models and not any(n.code is NoteCode.UNKNOWN_NAME for n in notes):
        for m in _UNKNOWN_MODEL_RE.finditer(masked):
            word = m.group().strip()
            head = word.split()[0].split("-")[0]
            if head in STOP_WORDS or head in ("a", "an", "the", "my", "for", "of", "on", "with", "and"):
                continue
            if any(c.isdigit() for c in word) and not re.fullmatch(
                r"(?:fp|bf|int|q|nf|sm)\d+|\d+[-_.]?bit", word, re.ASCII
            ):
                notes.append(note(NoteCode.UNKNOWN_NAME, word=word))
                # "llama 5 400b": not known, but its size is; a typical model of that size answers
                # the memory question, said ("I don't know X; answering for a 400B model: Y")
                sized = _SIZE_IN_NAME_RE.search(word)
                stand_in = model_by_size(f"{sized.group(1)}b model", matcher.catalog) if sized else None
                if stand_in is not None:
                    models.append(stand_in[0])
                    r.sized_unknown = True
                    notes.append(
                        note(
                            NoteCode.SIZE_MODEL,
                            size=stand_in[1],
                            name=matcher.display_name("model", stand_in[0]),
                        )
                    )
                    break
                near = [x for x in matcher.suggest(word, "any", limit=3) if x.score >= 75]
                if near:
                    suggestions.append(note(NoteCode.DID_YOU_MEAN, names=[x.name for x in near]))
                break
    r.clarify = clarify
    return r


#: "laptop" / "mobile" / "notebook" (笔记本 is normalised to "laptop") right after a card's name, or
#: "m" glued to it ("3090m"); and right before it ("laptop 3090")
_LAPTOP_AFTER_RE = gated_re.compile(r"(?:\s{1,3}(?:laptops?|mobile|notebook)\b|m\b)", re.ASCII)
_LAPTOP_BEFORE_RE = gated_re.compile(r"\b(?:laptops?|notebook)\s{1,3}$", re.ASCII)


def _say_no_laptop_part(matcher: Matcher, mn: Mention, masked: str, notes: list[Note]) -> None:
    """A laptop asked for ("3090 laptop", "笔记本4060 ti") where the card matched has no laptop part in
    the catalog: said, never the desktop card silently (the laptop parts have their own entries, and a
    name with "laptop" in it matches them first). Only the few characters around the name are read."""
    after = _LAPTOP_AFTER_RE.match(masked, mn.end)
    before = None if after else _LAPTOP_BEFORE_RE.search(masked, max(0, mn.start - 12), mn.start)
    if after is None and before is None:
        return  # (most cards: no laptop word next to the name; the entries are not looked at)
    if any(getattr(matcher.entry("gpu", g), "form_factor", None) in ("laptop", "system") for g in mn.ids):
        return
    if after is not None:
        typed = mn.text.strip() + masked[mn.end : after.end()]
    elif before is not None:
        typed = masked[before.start() : mn.start] + mn.text.strip()
    else:
        return
    card = short_gpu(_family_label(matcher, mn.ids) if mn.family else matcher.display_name("gpu", mn.ids[0]))
    notes.append(note(NoteCode.NO_LAPTOP_PART, typed=typed, card=card))


# a size written right after a model's name ("t5 11b", "phi-3 mini 3.8b"), outside the name matched
_SIZE_AFTER_RE = gated_re.compile(r"\s{1,2}(\d{1,4}(?:\.\d{1,2})?)\s?b\b", re.ASCII)


def _of_typed_size(matcher: Matcher, mn: Mention) -> list[str]:
    """The family members within 15% of a size typed in the name ("qwen 3b": Qwen2.5 3B, not Qwen3 8B
    or 32B, which the "3" also matched); all of them when none is that size or no size is typed."""
    m = _SIZE_IN_NAME_RE.search(mn.text)
    if m is None:
        return list(mn.ids)
    size = float(m.group(1))
    near = [
        i
        for i in mn.ids
        if size > 0
        and abs(float(getattr(matcher.entry("model", i), "params", 0) or 0) / 1e9 - size) <= 0.15 * size
    ]
    return near or list(mn.ids)


def _size_contradicts(matcher: Matcher, mn: Mention, masked: str) -> tuple[str, float] | None:
    """(the name as typed with its size, the size in billions) when the size written after a model's
    name is not that model's (within 0.6x-1.6x): "t5 11b" is no T5-Base; "phi-3 mini 3.8b" is Phi-3 mini."""
    m = _SIZE_AFTER_RE.match(masked, mn.end)
    if m is None or _SIZE_IN_NAME_RE.search(mn.text):
        return None  # ("llama 2 7b 13b 70b": sizes listed after a sized name are the family's)
    size = float(m.group(1))
    params = [getattr(matcher.entry("model", i), "params", None) for i in mn.ids]
    known = [p / 1e9 for p in params if isinstance(p, int | float) and p > 0]
    if not known or not 0.05 <= size <= 5000 or any(0.6 <= size / p <= 1.6 for p in known):
        return None
    return f"{mn.text.strip()} {m.group(1)}b", size


#: a version written after a model brand: "k3", "v4", "4.7", "5", "m2" (not a size: "7b", "2x", "80gb");
#: apart from it ("stylegan2", glued, stays the StyleGAN the catalog has, as before)
_VERSION_AFTER_RE = gated_re.compile(
    r"[\s-](v?\d{1,2}(?:\.\d{1,2})?|[a-z]\d{1,2}(?:\.\d{1,2})?)(?![\w.])(?!\s?(?:b|gb|x)\b)", re.ASCII
)
#: a brand, a version and no size after it ("minimax m2", "glm-5"); sized names go to _UNKNOWN_MODEL_RE
_BRAND_VERSION_RE = gated_re.compile(
    r"\b([a-z]{3,12})[\s-]?(v?\d{1,2}(?:\.\d{1,2})?|[a-z]\d{1,2}(?:\.\d{1,2})?)(?![\w.])"
    r"(?!\s?(?:b|gb|x)\b)(?!\s\d{1,4}(?:\.\d)?\s?b\b)",
    re.ASCII,
)
#: open-weight model brands people name that the catalog may not hold (besides the catalog's own
#: families); words that are also common English ("step", "seed", "ring", "command") are left out
MODEL_BRANDS = frozenset(
    {
        "minimax", "glm", "chatglm", "kimi", "ernie", "hunyuan", "baichuan", "internlm", "grok",
        "nemotron", "granite", "olmo", "falcon", "exaone", "mimo", "longcat", "magistral", "devstral",
        "codestral", "ministral", "deepseek", "qwen", "llama", "gemma", "mistral", "mixtral", "phi",
        "claude", "gemini", "jamba", "smollm",
    }
)  # fmt: skip
_TOKEN_SPLIT_RE = gated_re.compile(r"[\s/_:-]+")


def _family_ids(matcher: Matcher, brand: str) -> list[str]:
    """Catalog models of a brand: its family, or an alias that starts with it."""
    out = []
    for mid, m in matcher.catalog.models.items():
        aliases = [a.lower() for a in (getattr(m, "aliases", ()) or ())]
        if str(getattr(m, "family", "")).lower() == brand or any(
            a.startswith(brand) and not a[len(brand) : len(brand) + 1].isalpha() for a in aliases
        ):
            out.append(mid)
    return out


def _version_known(matcher: Matcher, ids: Sequence[str], version: str) -> bool:
    """Whether ``version`` ("k2", "4.5", "v3") is a word of any name, id or alias of these models."""
    want = {version, version.lstrip("v")}
    for mid in ids:
        m = matcher.entry("model", mid)
        texts = [mid, str(getattr(m, "name", "")), *(getattr(m, "aliases", ()) or ())]
        for text in texts:
            words = set(_TOKEN_SPLIT_RE.split(text.lower()))
            # "glm4.5" / "qwen3": a version glued to the brand counts too
            words |= {w.lstrip("abcdefghijklmnopqrstuvwxyz") for w in words}
            # "yolo11n" / "sam2.1": the version with a letter after it ("11" of "11n", not "2" of "2.5")
            if any(
                w == v or (w.startswith(v) and w[len(v) : len(v) + 1].isalpha()) for w in words for v in want
            ):
                return True
    return False


def _version_unknown(matcher: Matcher, mn: Mention, masked: str) -> str | None:
    """ "kimi k3", "mistral huge 9": the name as typed with its version (and the tier words before it),
    when that names no model of that brand in the catalog (None when there is no version, or a known one)."""
    typed = mn.text  # (a size in the name holds a digit too; in ASCII a digit is [0-9])
    if DIGIT_RE.search(typed) if typed.isascii() else any(c.isdigit() for c in typed):
        return None  # ("qwen3 8b", "llama 3 8b": the name already carries its version)
    m = _VERSION_AFTER_RE.match(masked, mn.end)
    words: list[str] = []
    if m is None:
        t = _TIER_VERSION_AFTER_RE.match(masked, mn.end)
        if t is None:
            return None
        words = t.group(1).split()
        if not all(w in _TIER_WORDS or w not in STOP_WORDS for w in words):
            return None  # "mistral on 2 cards", "llama for 3 hours": plain words, not a name
        m = t
        version = t.group(2)
    else:
        version = m.group(1)
    brand = mn.text.strip().lower()
    ids = list(dict.fromkeys([*mn.ids, *_family_ids(matcher, brand)]))
    if words:  # "mistral large 2": only the members named with those words can know the version
        ids = [i for i in ids if set(words) <= _name_words(matcher, i)]
    if ids and _version_known(matcher, ids, version):
        return None
    return " ".join([mn.text.strip(), *words, version])


#: words that sit between a model brand and its version ("mistral large 3", "qwen max 2")
_TIER_WORDS = frozenset(
    {
        "large", "small", "medium", "mini", "nano", "micro", "tiny", "huge", "giant", "big", "pro", "max",
        "ultra", "plus", "lite", "turbo", "flash", "base", "instruct", "chat", "coder", "vision", "next",
    }
)  # fmt: skip
#: one or two words, then a version, after a brand ("mistral huge 9"); same version rules as above
_TIER_VERSION_AFTER_RE = gated_re.compile(
    r"[\s-]([a-z]{2,12}(?:[\s-][a-z]{2,12})?)[\s-](v?\d{1,2}(?:\.\d{1,2})?)(?![\w.])(?!\s?(?:b|gb|x)\b)",
    re.ASCII,
)


def _name_words(matcher: Matcher, mid: str) -> set[str]:
    """The words of a model's name, id and aliases."""
    m = matcher.entry("model", mid)
    out: set[str] = set()
    for text in (mid, str(getattr(m, "name", "")), *(getattr(m, "aliases", ()) or ())):
        out.update(_TOKEN_SPLIT_RE.split(text.lower()))
    return out


def _brand_version_unknown(matcher: Matcher, masked: str) -> tuple[str, list[str]] | None:
    """ "minimax m2", "glm 5" in a question that resolved no model: (the name as typed, the catalog
    models of that brand) when the brand is a model brand and the version names none of them."""
    for m in _BRAND_VERSION_RE.finditer(masked):
        brand, version = m.group(1), m.group(2)
        families = {str(getattr(x, "family", "")).lower() for x in matcher.catalog.models.values()}
        if brand not in MODEL_BRANDS and brand not in families:
            continue
        ids = _family_ids(matcher, brand)
        if not _version_known(matcher, ids, version):
            return f"{brand} {version}", ids
    return None


def _family_names(matcher: Matcher, ids: Sequence[str]) -> list[str]:
    """Up to three display names of these models, newest first."""
    ranked = sorted(
        ids, key=lambda i: str(getattr(matcher.entry("model", i), "release", "") or ""), reverse=True
    )
    return [matcher.display_name("model", i) for i in ranked[:3]]


_UNKNOWN_MODEL_RE = gated_re.compile(
    r"\b[a-z][a-z0-9]{0,30}(?:[-_.][a-z0-9]{1,30}){1,6}\b(?:\s\d{1,4}(?:\.\d)?b\b)?"
    r"|\b[a-z][a-z0-9]{1,30}(?:\s[a-z]?\d{1,3}(?:\.\d)?)?\s\d{1,4}(?:\.\d)?b\b",
    re.ASCII,
)


_SIZE_IN_NAME_RE = _rx(r"(?<![\d.])(\d{1,4}(?:\.\d)?)\s?b\b")
_SIZE_MODEL_RE = _rx(
    r"\b(\d{1,3}(?:\.\d)?)\s?b(?:illion)?(?:[\s-]+(?:param(?:eter)?s?|dense))?[\s-]+(?:model|llm|language model|transformer)s?\b"
    r"|\b(?:model|llm)s?\s+(?:of|with)\s+(\d{1,3}(?:\.\d)?)\s?b(?:illion)?\b"
    # "13B QLoRA", "7b lora", "70b inference" (issue 10: compare verdicts for the workload asked)
    r"|\b(\d{1,3}(?:\.\d)?)\s?b[\s-]+(?:q?lora|fine[\s-]?tun\w*|inference)\b"
    # "fine tuning 70b", "finetune a 13b", "qlora on a 70b" (issue 10: the workload of a "worth it" question)
    r"|\b(?:q?lora|fine[\s-]?tun\w*|finetun\w*)\s+(?:(?:on|of)\s+)?(?:an?\s+)?(\d{1,3}(?:\.\d)?)\s?b\b"
    r"|(?:微调|微調)\s?(\d{1,3}(?:\.\d)?)\s?b\b"
    # Chinese: "7b模型", "7B的大模型", "7b全参微调", "70b推理" (a Chinese character after the "b" is a
    # word character, so no \b there); "跑个7b", "部署70b", "训练一个1b"
    r"|(?<![\d.a-z])(\d{1,3}(?:\.\d)?)\s?b(?:的)?\s?(?:大?模型|参数|全参|全量|微调|微調|推理|训练|訓練|lora|qlora)"
    r"|(?:跑|部署|训练|訓練|推理)(?:一?个|一?個)?\s?(\d{1,3}(?:\.\d)?)\s?b(?![a-z0-9])"
    # "训练一个1b模型", "1B的模型", "7b参数的模型"
    r"|(?<![\w.])(\d{1,3}(?:\.\d)?)\s?b\s?(?:的|参数的?|參數的?)?\s?(?:大)?(?:模型|语言模型|語言模型)"
)


# a vocabulary past this is an outlier for a stand-in: Gemma's 256k-262k entries make its logits
# (fp32 in the loss: ~16 bytes per token per entry) several times a typical model's (32k-152k: Llama
# 128k, Qwen 152k, Mistral 32k-131k), so "a 1B model" trained at seq 4096 read as Gemma 3 1B needed
# ~27 GB of activations where Llama 3.2 1B needs about half
TYPICAL_VOCAB_MAX = 160_000
_NOMINAL_RE = gated_re.compile(r"(?<![\d.])(\d+(?:\.\d+)?)\s*b\b", re.I)


def model_by_size(masked: str, catalog: Any) -> tuple[str, float] | None:
    """ "a 7b model" -> a typical dense decoder of that size: one named that size ("Llama 3.2 1B" for
    "1b", though it has 1.24B parameters) before one only within 15% of it; among those, a typical
    vocabulary before an outlier (``TYPICAL_VOCAB_MAX``), then nearest, newest on ties."""
    m = _SIZE_MODEL_RE.search(masked)
    if m is None:
        return None
    size = float(next(g for g in m.groups() if g))
    if not 0.1 <= size <= 1000:
        return None
    sizes, rows, named = typical_decoders(catalog)
    best: tuple[tuple[int, float, int, int], str] | None = None
    near = rows[bisect.bisect_left(sizes, size * 0.85 - 1e-9) :]
    for params_b, neg_release, idx, mid, outlier, nominal in (*named.get(size, ()), *near):
        if params_b > size * 1.15 + 1e-9 and nominal != size:
            break  # past the window (the rows named this size come first and are all taken)
        gap = abs(params_b - size) / size
        # tiers: named this size before only near it; then a typical vocabulary before an outlier
        tier = (0 if nominal == size else 2) + (1 if outlier else 0)
        key = (tier, round(gap, 2), neg_release, idx)
        if (gap <= 0.15 or nominal == size) and (best is None or key < best[0]):
            best = (key, mid)
    return (best[1], size) if best else None


@functools.lru_cache(maxsize=8)
def typical_decoders(
    catalog: Any,
) -> tuple[
    tuple[float, ...],
    tuple[tuple[float, int, int, str, bool, float | None], ...],
    dict[float, tuple[tuple[float, int, int, str, bool, float | None], ...]],
]:
    """The dense decoders that may stand for a size, by size (billions, -release, catalog order, id,
    outlier vocabulary, size in the name), with their sizes for a bisect, and the same rows by the
    size their name says: built once per catalog, so a sized question costs a few comparisons, not a
    pass over every model. Fine-tunes / distills (base_model set) are left out: they are not a
    typical model of a size."""
    rows: list[tuple[float, int, int, str, bool, float | None]] = []
    for idx, (mid, model) in enumerate(catalog.models.items()):
        if getattr(model, "kind", None) != "decoder" or getattr(model, "base_model", None):
            continue
        release = int((getattr(model, "release", None) or "0").replace("-", "") or 0)
        outlier = (getattr(model, "vocab", None) or 0) > TYPICAL_VOCAB_MAX
        said = _NOMINAL_RE.findall(str(getattr(model, "name", "") or ""))
        nominal = float(said[-1]) if said else None
        rows.append((model.params / 1e9, -release, idx, mid, outlier, nominal))
    rows.sort()
    named: dict[float, list[tuple[float, int, int, str, bool, float | None]]] = {}
    for r in rows:
        if r[5] is not None:
            named.setdefault(r[5], []).append(r)
    return tuple(r[0] for r in rows), tuple(rows), {k: tuple(v) for k, v in named.items()}


def _family_label(matcher: Matcher, ids: Sequence[str]) -> str:
    """What the members' names share ("A100", "Tesla V100"), without form factor."""
    names = [short_gpu(matcher.display_name("gpu", g)) for g in ids]
    common = names[0].split()
    for n in names[1:]:
        w = n.split()
        k = 0
        while k < min(len(common), len(w)) and common[k] == w[k]:
            k += 1
        common = common[:k]
    while len(common) > 1 and common[-1].lower().rstrip("0123456789") in ("sxm", "pcie", "pci"):
        common = common[:-1]
    return " ".join(common)


def _one_variant_family(matcher: Matcher, ids: Sequence[str]) -> bool:
    """Whether these cards are memory / form-factor variants of one card (named by what their names
    share), not a product line ("mac studio") or a name shared across generations ("6000")."""
    fam = matcher.family_key(ids[0]) if ids else None
    return fam is not None and all(matcher.family_key(g) == fam for g in ids)


#: a memory size written right after a card family's name ("mac studio 256gb", "a100 (60 gb)")
_SIZE_GB_AFTER_RE = gated_re.compile(r"\s{0,2}[(\[]?\s?(\d{1,4})\s?(?:gb|g|gig|gigs|gib)\b", re.ASCII)


def _size_no_member_has(matcher: Matcher, mn: Mention, masked: str) -> str | None:
    """ "mac studio 256gb": the family's name with the size typed after it, when no member has that
    memory (a member that has it is picked by the matcher); None otherwise."""
    m = _SIZE_GB_AFTER_RE.match(masked, mn.end)
    if m is None:
        return None
    size = float(m.group(1))
    if any(getattr(matcher.entry("gpu", g), "vram_gb", None) == size for g in mn.ids):
        return None
    return f"{mn.text.strip()} {m.group(1)}gb"


def _size_every_member_has(matcher: Matcher, mn: Mention) -> bool:
    """ "mac mini 16gb" (the size is part of the mention): every member is that size or sold with it
    (``memory_options_gb``), so the members do not differ in memory as asked."""
    sizes = [float(m.group(1)) for m in _SIZE_GB_IN_RE.finditer(mn.text)]
    if not sizes:
        return False
    size = sizes[-1]
    for g in mn.ids:
        e = matcher.entry("gpu", g)
        if getattr(e, "vram_gb", None) != size and size not in (getattr(e, "memory_options_gb", ()) or ()):
            return False
    return True


#: a tier word right after a bare Apple chip ("m2 pro", "m3 max" when the catalog has only the M2)
_TIER_AFTER_RE = gated_re.compile(r"\s(pro|max|ultra)\b", re.ASCII)
_BARE_CHIP_RE = gated_re.compile(r"\bm\d{1,2}$", re.ASCII)


def apple_tier_after(norm: str, mentions: Sequence[Mention]) -> list[str]:
    """ "mac mini m2 pro", "m3 pro macbook": a base Apple chip found (the M2) with a tier word after
    it that names a chip the catalog lacks: said back (answered for the base chip), never the M2 Pro
    read silently as the M2."""
    out: list[str] = []
    for mn in mentions:
        if mn.kind != "gpu" or _BARE_CHIP_RE.search(mn.text.strip()) is None:
            continue
        m = _TIER_AFTER_RE.match(norm, mn.end)
        if m is not None:
            out.append(f"{_BARE_CHIP_RE.search(mn.text.strip()).group()} {m.group(1)}")  # type: ignore[union-attr]
    # "can my m4 run llama 8b": a chip word alone names no machine (the memory is unknown); said back
    if _M_DIGIT_RE.search(norm) is None:
        return out  # (the chip's "m" and digit: re finds a pattern's literal head fast, the chip pattern not)
    for m in _OWNED_CHIP_RE.finditer(norm):
        if not any(mn.start <= m.start(1) < mn.end for mn in mentions):
            out.append(m.group(1))
    return out


#: a bare Apple chip after a word of owning ("my m4", "an m3", "我的m2"); "minimax m2" is a model name
_OWNED_CHIP_RE = gated_re.compile(
    r"(?:\b(?:my|an?|the|apple|on|with|using)\s+|(?:我的|我这台|用|在)\s*)(m[1-9](?:\s(?:pro|max|ultra))?)\b",
    re.ASCII,
)


_M_DIGIT_RE = gated_re.compile(r"m[1-9]")  # what every match of _OWNED_CHIP_RE holds

#: an Apple chip word inside a product line's mention ("macbook air m5 16gb")
_CHIP_RE = gated_re.compile(r"\bm\d{1,2}\b", re.ASCII)


def _chip_no_member_has(matcher: Matcher, mn: Mention) -> str | None:
    """ "macbook air m5 16gb": a chip typed inside a product line's mention that none of its
    machines is (the size after it made the mention span it); None otherwise."""
    if not matcher.in_product_line(mn.ids):
        return None
    m = _CHIP_RE.search(mn.text)
    if m is None:
        return None
    chip = m.group()
    for g in mn.ids:
        if any(chip in str(a).lower().split() for a in getattr(matcher.entry("gpu", g), "aliases", ()) or ()):
            return None
    return mn.text[: m.end()].strip()


#: a memory size inside a mention's text ("mac mini 16gb", "16 gb mac mini")
_SIZE_GB_IN_RE = gated_re.compile(r"(\d{1,4})\s?(?:gb|g|gig|gigs|gib)\b", re.ASCII)


def _vram(matcher: Matcher, gid: str) -> str:
    v = getattr(matcher.entry("gpu", gid), "vram_gb", None)
    return f"{v:g}" if isinstance(v, int | float) else "?"


def took_gpu(matcher: Any, mn: Mention, gid: str, differs: bool, **extra: Any) -> Note:
    """The note that a card family's name was taken as its member ``gid`` (the others said as "also")."""
    return note(
        NoteCode.TOOK_GPU,
        typed=mn.text.strip(),
        chosen=short_gpu(matcher.display_name("gpu", gid)),
        same_memory=not differs,
        also=[short_gpu(matcher.display_name("gpu", g)) for g in mn.ids if g != gid],
        **extra,
    )


def short_gpu(name: str) -> str:
    words = name.split()
    while len(words) > 1 and words[0].lower() in ("nvidia", "geforce", "amd"):
        words = words[1:]
    return " ".join(words)
