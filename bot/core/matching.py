"""Name matching: card and model names (and aliases) in free text.

One :class:`Matcher` is built per catalog (cheap: a few dicts). It answers

* :meth:`Matcher.resolve` / :meth:`Matcher.suggest` for one typed name
  (slash-command options, "did you mean"),
* :meth:`Matcher.autocomplete` for Discord slash autocomplete,
* :meth:`Matcher.mentions` for the parser: every card / model named in a
  question, in order, with where it sits in the text.

How a name is matched, cheapest and safest first:

1. **Normalisation** (:func:`tokens`): NFKC + lowercase; split on anything
   that is not a letter or digit; split letter runs from digit runs
   (``rtx4090`` -> ``rtx 4090``, ``qwen2.5-14b`` -> ``qwen 2.5 14 b``) except
   a single letter glued to a number stays one token (``a100``, ``l4``,
   ``v3``, ``b16``) so that "a 100 dollar card" never reads as an A100;
   ``10g`` / ``10 gigs`` -> ``10 gb``.
2. **Exact keys**: every name, alias and id of the catalog, plus keys derived
   for cards by dropping vendor words (``nvidia``, ``geforce``, ``rtx``, ...)
   and filler (``generation``). A key is looked up spaced and compact
   (``distil bert`` == ``distilbert``). Longest match wins, so ``4070 ti
   super`` is never ``4070 ti`` and ``3090`` never becomes ``3090 ti``.
3. **Variant families** (cards): cards whose names differ only in memory size
   or form factor (``A100 40GB`` / ``A100 80GB``, ``H100 SXM`` / ``H100 PCIe``)
   form a family, found from the catalog names, not from a list. A bare
   family name ("a100") is reported as a family mention with every member;
   the parser decides (ask back when the members' ``vram_gb`` differ and the
   intent cares). A memory size next to the name ("a100 80gb", "16gb 4060
   ti") picks the member. :data:`DEFAULT_VARIANTS` is the one explicit table:
   families where one member is clearly the card people mean.
4. **Partial model names**: "llama 8b", "bert", "resnet" match every model
   having all those tokens in one of its keys; the parser picks (same size ->
   the most recent, a ``base`` member -> it) or asks back.
5. **Typos**: an unknown word (not a stop word, 4+ letters) is corrected to
   the nearest word of the catalog vocabulary (rapidfuzz ``ratio`` with
   ``default_process``, cutoff :data:`WORD_CUTOFF`, same first letter) and the
   exact/partial steps are run again. Numbers are never fuzzy-matched:
   fuzzy scores on short numeric strings are meaningless, so "3091" matches
   nothing and "llama 3 8b" can never become "llama 3 70b".
"""

from __future__ import annotations

import logging
import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from cachetools import LRUCache
from rapidfuzz import fuzz, process, utils

from bot.config import BOUNDS

__all__ = [
    "Match",
    "Mention",
    "Matcher",
    "get_matcher",
    "tokens",
    "normalize",
    "DEFAULT_VARIANTS",
    "AMBIGUOUS_NAMES",
    "WORD_CUTOFF",
]

log = logging.getLogger(__name__)

Kind = Literal["gpu", "model", "any"]

#: Typo correction of single words against the catalog vocabulary.
WORD_CUTOFF = 80.0
#: Whole-name fuzzy fallback in :meth:`Matcher.resolve` (same numbers only).
NAME_CUTOFF = 82.0
#: "Did you mean" threshold: near misses worth offering, not taking.
SUGGEST_CUTOFF = 60.0

#: Variant families where one member is clearly the card people mean when
#: they give no memory size: family key (the catalog name without memory
#: size, form factor and vendor words, normalised: "3080", "a100") -> default
#: member id. Used only when the
#: id exists in the catalog. Families not listed here whose members differ in
#: VRAM are asked back; families whose members share the VRAM take the first
#: member listed in the catalog (or the one listed here).
DEFAULT_VARIANTS: dict[str, str] = {
    "2060": "rtx-2060",  # the 12 GB card (2021) is a late re-release
    "3060": "rtx-3060-12gb",  # the 8 GB card is a rare cut-down model
    "3080": "rtx-3080-10gb",  # the 12 GB card came later and sold little
    "h100": "h100-sxm",  # SXM and PCIe both have 80 GB; SXM is what clouds rent
}

#: Names people use for different cards of different generations (not memory
#: variants of one card, which are found from the catalog). "RTX 6000" was the
#: Turing Quadro in the 2020 guide; today it as often means the Ada or the
#: Blackwell workstation card. Treated like a family: asked back when it matters.
AMBIGUOUS_NAMES: dict[str, tuple[str, ...]] = {
    "rtx 6000": ("quadro-rtx-6000", "rtx-6000-ada", "rtx-pro-6000"),
}

# Words dropped at the start of card names to derive the keys people type.
_GPU_PREFIXES = frozenset(
    {"nvidia", "geforce", "amd", "radeon", "rtx", "gtx", "rx", "quadro", "tesla", "intel", "instinct"}
)
_GPU_FILLER = frozenset({"generation", "graphics", "card", "gpu", "edition"})
_FORM_FACTORS = frozenset({"sxm", "sxm2", "sxm3", "sxm4", "sxm5", "pcie", "pci"})
_MEMORY_UNITS = frozenset({"gb"})

# Words never corrected to a catalog word and never starting a partial name.
STOP_WORDS = frozenset(
    """
a about above after again against all also am an and any anything are around as ask at available be
because been before being below best better between big biggest both but buy by can cant card cards
cheap cheapest choose could currently cost costs did do does doing dollar dollars down each either
enough even ever every fast faster fastest few fit fits fitting for from full get gets getting give go
good got gpu gpus graphics great had has have having he help her here his how however i if im in
into is it its ive just know large larger less like list lot make many max maximum me memory might
min minimum mine model models more most much must my need needs new no nor not now of off old on
one only or other our out over own per please price prices quick recommend recommended recommendation
run running runs same say see serve serving should show small smaller so some spec specs speed
still such suggest support supports take than thanks that the their them then there these they this
those through to too train training tune tuning under up upto us use used using vram want wants
was way we well were what whats when where which while who whom why will with within without
work works would yes you your budget spend spending dollar bucks usd eur euro euros pounds yen
batch size seq sequence length context tokens token precision half mixed single quant quantized
quantization inference infer deploy deployment generate generation finetune finetuning fine tuned
finetuned pretrain pretraining scratch lora qlora versus compare comparison difference vs better
bit bits int fp bf float gb tb mb ram ti super between machine computer pc rig build setup home
laptop desktop server cloud local locally buying purchase afford worth value performance perf tflops
bandwidth power watts tdp how big large huge parameters params info information tell about image
images video text language llm llms network networks neural deep learning ml ai project task tasks
work job jobs dataset data hours days time times per second throughput latency samples sample
amount two three four five six eight dual pair quad single multi multiple first second
stable gptq awq gguf ggml exl2 nf4 int4 int8 fp16 bf16 fp8 fp32 bnb bitsandbytes vllm ollama tensorrt llamacpp
onnx cuda rocm nvlink pcie sxm flash attention checkpointing optimizer adam adamw sgd fsdp deepspeed
rent renting rented rental rentals lease leasing own owning owned sell selling resale resell deal
deals bargain offer offers electricity kwh bill month months monthly year years yearly week weeks day
daily hour hourly mini pro ultra warranty second-hand secondhand refurbished
reason reasons reasoning robert shell coin coins conventional segment segments segmentation
""".split()
)

# First words of model names that are also plain English: alone they name nothing
# ("a transformer model", "attention mask"); with a second name word they do.
_WEAK_HEADS = frozenset(
    {
        "transformer",
        "mask",
        "style",
        "conv",
        "stable",
        "black",
        "meta",
        "google",
        "microsoft",
        "openai",
        "alex",
        "big",
        "mt",
        "nemo",
        "oss",
        "deep",
        "vaswani",
        "fairseq",
    }
)

_LLAMA_CPP = re.compile(r"llama[.\- ]cpp")  # same length as "llamacpp ", so offsets stay put
_TOKEN_CHUNK_RE = re.compile(r"[a-z0-9]+(?:\.[0-9]+)*")
_PIECE_RE = re.compile(r"[a-z]+|[0-9]+(?:\.[0-9]+)*")
_GB_WORDS = frozenset({"g", "gig", "gigs", "gib", "gigabyte", "gigabytes", "gb"})


@dataclass(frozen=True)
class Match:
    """One resolved name. ``score`` is 0-100 (100 = exact name or alias)."""

    kind: str  # "gpu" | "model"
    id: str
    name: str
    score: float
    matched_text: str


@dataclass(frozen=True)
class Token:
    text: str  # normalised token
    start: int  # char offsets in the normalised text
    end: int
    spaced: bool  # separated from the previous token by whitespace


@dataclass(frozen=True)
class Mention:
    """A card or model named in a question (see :meth:`Matcher.mentions`).

    ``ids`` has one id when the name is specific; several when it names a
    card family ("a100") or a partial model name ("llama 70b"): then
    ``family`` is True and the parser picks or asks back.
    """

    kind: str  # "gpu" | "model"
    ids: tuple[str, ...]
    start: int
    end: int
    text: str  # the words as the user typed them (normalised text)
    exact: bool  # every word was a catalog word (no typo correction)
    family: bool = False
    partial: bool = False  # matched only part of a model name
    corrected: tuple[tuple[str, str], ...] = ()  # (typed word, catalog word)
    preferred: str | None = None  # the alias owner for a family key

    @property
    def id(self) -> str | None:
        return self.ids[0] if len(self.ids) == 1 else None


@dataclass
class _Target:
    kind: str
    ids: tuple[str, ...]
    family: bool = False
    explicit: bool = True
    preferred: str | None = None


def normalize(text: str) -> str:
    """NFKC + lowercase, control characters to spaces; keeps the length when it can."""
    t = _LLAMA_CPP.sub("llamacpp ", unicodedata.normalize("NFKC", text).lower())  # an engine, not a Llama
    return "".join(" " if (c < " " or "\x7f" <= c <= "\x9f") else c for c in t)


def _pieces(chunk: str) -> list[str]:
    parts = _PIECE_RE.findall(chunk)
    out: list[str] = []
    i = 0
    while i < len(parts):
        p = parts[i]
        if len(p) == 1 and p.isalpha() and i + 1 < len(parts) and parts[i + 1][0].isdigit():
            out.append(p + parts[i + 1])  # a100, l4, v3, b16, x7
            i += 2
            continue
        out.append(p)
        i += 1
    return out


def tokenize(norm: str, limit: int = 600) -> list[Token]:
    """Tokens of already :func:`normalize`-d text, with offsets (at most ``limit``)."""
    toks: list[Token] = []
    prev_end = 0
    for m in _TOKEN_CHUNK_RE.finditer(norm):
        gap = norm[prev_end : m.start()]
        spaced = any(c.isspace() for c in gap) or m.start() == 0
        pos = m.start()
        for p in _pieces(m.group()):
            idx = norm.find(p, pos)
            e = idx + len(p)
            text = p
            if text in _GB_WORDS and toks and toks[-1].text[0].isdigit():
                text = "gb"
            toks.append(Token(text, idx, e, spaced))
            spaced = False
            pos = e
        prev_end = m.end()
        if len(toks) >= limit:
            break
    return toks


def tokens(text: str) -> list[str]:
    """The normalised words of ``text`` (what keys are compared on)."""
    return [t.text for t in tokenize(normalize(text))]


def _strip_gpu(words: list[str]) -> list[list[str]]:
    """Derived key word lists for a card name: without vendor prefixes/filler."""
    base = [w for w in words if w not in _GPU_FILLER]
    out = [base]
    cur = base
    while len(cur) > 1 and cur[0] in _GPU_PREFIXES:
        cur = cur[1:]
        out.append(cur)
    return out


def _family_words(words: list[str]) -> list[str]:
    """Card name without memory size and form factor: the variant family."""
    out: list[str] = []
    i = 0
    while i < len(words):
        w = words[i]
        if w[0].isdigit() and i + 1 < len(words) and words[i + 1] in _MEMORY_UNITS:
            i += 2
            continue
        if w in _FORM_FACTORS:
            i += 1
            if w in ("sxm", "pci") and i < len(words) and words[i].isdigit() and len(words[i]) == 1:
                i += 1  # "sxm4" was split into "sxm 4"
            continue
        out.append(w)
        i += 1
    return out


def _numsig(words: Sequence[str]) -> tuple[str, ...]:
    return tuple(sorted(w for w in words if any(c.isdigit() for c in w)))


def _compact_ok(toks: Sequence[Token]) -> bool:
    """Joining these tokens must not glue "a" + " 100" into "a100"."""
    for a, b in zip(toks, toks[1:], strict=False):
        if b.spaced and len(a.text) == 1 and a.text.isalpha() and b.text[0].isdigit():
            return False
    return True


class Matcher:
    """Name index over one catalog (see the module docstring)."""

    def __init__(self, catalog: Any) -> None:
        self.catalog = catalog
        self._gpus: Mapping[str, Any] = getattr(catalog, "gpus", {}) or {}
        self._models: Mapping[str, Any] = getattr(catalog, "models", {}) or {}
        self._keys: dict[str, _Target] = {}
        self._compact: dict[str, _Target | None] = {}
        self._families: dict[str, tuple[str, ...]] = {}  # family key -> member ids
        # keyed by the numbers a question contains: bounded (LRU), or every new number would add one
        self._suggest_cache: LRUCache[
            tuple[tuple[str, ...], tuple[str, ...]], tuple[list[str], list[str]]
        ] = LRUCache(maxsize=BOUNDS.suggest_pools)
        self._family_of: dict[str, str] = {}  # gpu id -> family key
        self._entry_keys: dict[tuple[str, str], list[str]] = {}  # (kind, id) -> keys
        self._vocab: set[str] = set()
        self._model_tokens: dict[
            str, list[tuple[frozenset[str], str]]
        ] = {}  # first word -> [(key words, id)]
        self._model_words: set[str] = set()
        self._max_len = 1
        self._by_sig: dict[tuple[str, ...], list[str]] | None = None
        self._build()
        self._heads = self._name_heads()

    # ------------------------------------------------------------------ build
    def _add(self, key_words: list[str], target: _Target, kind: str, eid: str | None) -> None:
        if not key_words:
            return
        key = " ".join(key_words)
        old = self._keys.get(key)
        if old is None:
            self._keys[key] = target
        elif old.family:
            pass  # a family key stays a family key
        elif target.family:
            target.preferred = target.preferred or (
                old.ids[0] if old.explicit and old.ids[0] in target.ids else None
            )
            self._keys[key] = target
        elif old.ids == target.ids:
            if target.explicit and not old.explicit:
                self._keys[key] = target  # a name the catalog lists beats the same key derived earlier
        elif old.ids != target.ids:
            if old.explicit and not target.explicit:
                return
            if target.explicit and not old.explicit:
                self._keys[key] = target
            elif old.explicit and target.explicit:
                log.warning(
                    "name %r is used by both %s and %s; keeping %s",
                    key,
                    old.ids[0],
                    target.ids[0],
                    old.ids[0],
                )
                return
            else:
                # two derived keys collide: nobody gets it
                self._keys[key] = _Target(kind, (), explicit=False)
        self._max_len = max(self._max_len, len(key_words))
        if eid is not None:
            self._entry_keys.setdefault((kind, eid), []).append(key)

    def _build(self) -> None:
        # models: name, aliases, id
        for mid, m in self._models.items():
            for src in (getattr(m, "name", mid), *getattr(m, "aliases", ()), mid):
                words = tokens(str(src))
                self._add(words, _Target("model", (mid,)), "model", mid)
                if words and "/" not in str(src):  # not "org/repo" ids: "google" names no model
                    self._model_tokens.setdefault(words[0], []).append((frozenset(words), mid))
                    for w in words:
                        self._model_words.add(w)
        # gpus: name, aliases, id, plus derived keys
        family_members: dict[str, list[str]] = {}
        for gid, g in self._gpus.items():
            name_words = tokens(str(getattr(g, "name", gid)))
            fam = " ".join(_strip_gpu(_family_words(name_words))[-1])
            family_members.setdefault(fam, []).append(gid)
        for fam, member_list in family_members.items():
            if len(member_list) > 1:
                self._families[fam] = tuple(member_list)
                for gid in member_list:
                    self._family_of[gid] = fam
        for gid, g in self._gpus.items():
            for src in (getattr(g, "name", gid), *getattr(g, "aliases", ()), gid):
                words = tokens(str(src))
                fam_words = _family_words(words)
                if gid in self._family_of and fam_words == words:
                    # names the family, not this member ("a100", "rtx 3060")
                    for fw in _strip_gpu(words):
                        self._add(
                            fw,
                            _Target("gpu", self._families[self._family_of[gid]], family=True, preferred=gid),
                            "gpu",
                            None,
                        )
                    continue
                self._add(words, _Target("gpu", (gid,)), "gpu", gid)
                derived = _strip_gpu(words)[1:] + [[w for w in words if w not in _GPU_FILLER]]
                if gid not in self._family_of and fam_words != words:
                    derived += _strip_gpu(fam_words)  # "b200 180gb" -> "b200" when no sibling
                for dw in derived:
                    if dw and dw != words:
                        self._add(dw, _Target("gpu", (gid,), explicit=False), "gpu", gid)
        for fam, members in self._families.items():
            fw = fam.split()
            for variant in [fw, *(_strip_gpu(fw)[1:])]:
                self._add(list(variant), _Target("gpu", members, family=True), "gpu", None)
            # "rtx 3060" as well as "3060": put the common prefixes back
            name_words = tokens(str(getattr(self._gpus[members[0]], "name", members[0])))
            for dw in _strip_gpu(_family_words(name_words)):
                self._add(dw, _Target("gpu", members, family=True), "gpu", None)
        for name, members in AMBIGUOUS_NAMES.items():
            ids = tuple(g for g in members if g in self._gpus)
            if len(ids) > 1:
                words = tokens(name)
                self._keys.pop(" ".join(words), None)
                self._add(words, _Target("gpu", ids, family=True), "gpu", None)
        # drop keys nobody owns; build compact index and vocabulary
        self._keys = {k: t for k, t in self._keys.items() if t.ids}
        # names our tokenizer cannot see (Chinese aliases such as "稳定扩散"): literal search
        self._literals: dict[str, _Target] = {}
        for kind, table in (("model", self._models), ("gpu", self._gpus)):
            for eid, e in table.items():
                for src in (getattr(e, "name", eid), *getattr(e, "aliases", ())):
                    lit = normalize(str(src)).strip()
                    if lit and not lit.isascii():
                        self._literals.setdefault(lit, _Target(kind, (eid,)))
        for key, t in self._keys.items():
            c = key.replace(" ", "")
            if c not in self._compact:
                self._compact[c] = t
            else:
                old = self._compact[c]
                if old is not None and old.ids != t.ids:
                    self._compact[c] = None
            for w in key.split():
                if w.isalpha() and len(w) >= 3:
                    self._vocab.add(w)
        self._vocab_list = sorted(self._vocab)
        # inner words of model names that belong to at most 3 models ("diffusion")
        owners: dict[str, set[str]] = {}
        for heads in self._model_tokens.values():
            for key_words, mid in heads:
                for w in key_words:
                    owners.setdefault(w, set()).add(mid)
        order = {m: n for n, m in enumerate(self._models)}
        self._rare_words: dict[str, tuple[str, ...]] = {
            w: tuple(sorted(ms, key=lambda m: order[m]))
            for w, ms in owners.items()
            if len(w) >= 6
            and w.isalpha()
            and w not in STOP_WORDS
            and w not in self._model_tokens
            and len(ms) <= 3
            and w not in _WEAK_HEADS
        }
        # numbers-only keys of models would read bare numbers as models: drop
        for key in [
            k for k, t in self._keys.items() if t.kind == "model" and all(w[0].isdigit() for w in k.split())
        ]:
            del self._keys[key]

    def _sig_index(self) -> dict[tuple[str, ...], list[str]]:
        """Keys grouped by the numbers they contain (fuzzy matching never crosses numbers)."""
        if self._by_sig is None:
            by: dict[tuple[str, ...], list[str]] = {}
            for k in self._keys:
                by.setdefault(_numsig(k.split()), []).append(k)
            self._by_sig = by
        return self._by_sig

    def _suggest_pool(self, sig: tuple[str, ...], kinds: tuple[str, ...]) -> tuple[list[str], list[str]]:
        """Candidate keys for "did you mean" and their rapidfuzz-processed forms, built once
        per (numbers, kinds): processing ~1,000 keys on every question was most of its cost."""
        cache_key = (sig, kinds)
        hit = self._suggest_cache.get(cache_key)
        if hit is None:
            pool = self._sig_index().get(sig, []) if sig else list(self._keys)
            cands = [k for k in pool if self._keys[k].kind in kinds]
            hit = self._suggest_cache[cache_key] = (cands, [utils.default_process(k) for k in cands])
        return hit

    # --------------------------------------------------------------- queries
    def entry(self, kind: str, eid: str) -> Any:
        return (self._gpus if kind == "gpu" else self._models).get(eid)

    def display_name(self, kind: str, eid: str) -> str:
        e = self.entry(kind, eid)
        return str(getattr(e, "name", eid)) if e is not None else eid

    def alternatives(self, text: str) -> tuple[str, ...]:
        """Other models a short exact model name could also mean ("bert" -> BERT-Large)."""
        words = tokens(text)
        t = self._keys.get(" ".join(words))
        if not words or t is None or t.kind != "model" or t.family:
            return ()
        need = set(words)
        out: list[str] = []
        for key_words, mid in self._model_tokens.get(words[0], []):
            if mid not in t.ids and mid not in out and need < key_words:
                out.append(mid)
        return tuple(out)

    def family_key(self, gid: str) -> str | None:
        return self._family_of.get(gid)

    def family_default(self, ids: Sequence[str], preferred: str | None = None) -> tuple[str, bool]:
        """(member to use, whether members differ in VRAM) for a card family."""
        fam = self._family_of.get(ids[0]) if ids else None
        vrams = {getattr(self._gpus.get(i), "vram_gb", None) for i in ids}
        differs = len(vrams) > 1
        table = DEFAULT_VARIANTS.get(fam or "")
        if table is not None and table in ids:
            return table, differs
        if preferred is not None and preferred in ids:
            return preferred, differs
        return ids[0], differs

    def has_default(self, ids: Sequence[str]) -> bool:
        fam = self._family_of.get(ids[0]) if ids else None
        return DEFAULT_VARIANTS.get(fam or "") in ids

    def _name_heads(self) -> tuple[dict[str, int], set[str]]:
        """Per first word, the most words of a name starting with it; and every prefix of a name
        written without spaces ("rtx3090"): what :meth:`_spans_from` reads."""
        longest: dict[str, int] = {}
        for key in self._keys:
            words = key.split(" ")
            longest[words[0]] = max(longest.get(words[0], 1), len(words))
        prefixes = {c[:k] for c in self._compact for k in range(1, len(c) + 1)}
        return longest, prefixes

    def _spans_from(self, head: str) -> int:
        """The most tokens a name starting with the token ``head`` can span: the longest key that
        starts with it, or any length when it begins a key written without spaces ("rtx3090").
        Most words begin no name, so most positions try one token instead of thirteen."""
        longest, prefixes = self._heads
        if head in prefixes:
            return self._max_len + 1
        return longest.get(head, 1)

    def _match_at(self, toks: Sequence[Token], i: int, kind: Kind) -> tuple[int, _Target] | None:
        n_max = min(self._max_len + 1, len(toks) - i, self._spans_from(toks[i].text))
        for n in range(n_max, 0, -1):
            span = toks[i : i + n]
            key = " ".join(t.text for t in span)
            t = self._keys.get(key)
            if t is None and n > 1 and _compact_ok(span):
                t = self._compact.get(key.replace(" ", "")) or None
            if t is None and n == 1:
                t = self._compact.get(key) or None
            if t is not None and (kind == "any" or t.kind == kind):
                return n, t
        return None

    def _correct(self, word: str) -> tuple[str, float] | None:
        if len(word) < 4 or not word.isalpha() or word in STOP_WORDS or word in self._vocab:
            return None
        best = process.extractOne(
            word,
            self._vocab_list,
            scorer=fuzz.ratio,
            processor=utils.default_process,
            score_cutoff=WORD_CUTOFF,
        )
        if best is None or best[0][0] != word[0]:
            return None
        return best[0], float(best[1])

    def mentions(self, norm: str, kind: Kind = "any", toks: list[Token] | None = None) -> list[Mention]:
        """Every card / model named in normalised text ``norm``, in order."""
        if toks is None:
            toks = tokenize(norm)
        out = self._token_mentions(norm, kind, toks) if toks else []
        if self._literals and not norm.isascii():
            for lit, target in self._literals.items():
                if kind not in ("any", target.kind):
                    continue
                k = norm.find(lit)
                if k >= 0 and not any(m.start < k + len(lit) and k < m.end for m in out):
                    out.append(Mention(target.kind, target.ids, k, k + len(lit), lit, exact=True))
        out.sort(key=lambda m: m.start)
        return out

    def _token_mentions(self, norm: str, kind: Kind, toks: list[Token]) -> list[Mention]:
        corrected: dict[int, tuple[str, str]] = {}
        work: list[Token] = []
        n_corr = 0
        for idx, t in enumerate(toks):
            if (
                n_corr < 12
                and t.text.isalpha()
                and len(t.text) >= 4
                and t.text not in self._vocab
                and t.text not in STOP_WORDS
            ):
                c = self._correct(t.text)
                n_corr += 1
                if c is not None:
                    corrected[idx] = (t.text, c[0])
                    t = Token(c[0], t.start, t.end, t.spaced)
            work.append(t)
        out: list[Mention] = []
        used = [False] * len(work)
        i = 0
        while i < len(work):
            hit = self._match_at(work, i, kind)
            if hit is None:
                i += 1
                continue
            n, target = hit
            j = i + n
            ids = target.ids
            family = target.family
            start, end = work[i].start, work[j - 1].end
            if family:
                # a memory size next to the family name picks the member
                picked = self._pick_by_memory(work, i, j, ids, used)
                if picked is not None:
                    gid, s2, e2, j2 = picked
                    ids, family = (gid,), False
                    start, end, j = min(start, s2), max(end, e2), max(j, j2)
            for k in range(i, j):
                used[k] = True
            corr = tuple(corrected[k] for k in range(i, j) if k in corrected)
            out.append(
                Mention(
                    target.kind,
                    ids,
                    start,
                    end,
                    norm[start:end],
                    exact=not corr,
                    family=family,
                    corrected=corr,
                    preferred=target.preferred,
                )
            )
            i = j
        if kind in ("model", "any"):
            out.extend(self._partial_models(work, used, corrected, norm))
        return out

    def _pick_by_memory(
        self, work: Sequence[Token], i: int, j: int, ids: Sequence[str], used: list[bool]
    ) -> tuple[str, int, int, int] | None:
        def member(num: str) -> str | None:
            try:
                v = float(num)
            except ValueError:
                return None
            hits = [g for g in ids if getattr(self._gpus.get(g), "vram_gb", None) == v]
            return hits[0] if len(hits) == 1 else None

        # after: "a100 80gb", "a100 with 80 gb", "4060 ti (16gb)"
        for k in range(j, min(j + 3, len(work) - 1)):
            if work[k].text[0].isdigit() and work[k + 1].text == "gb":
                g = member(work[k].text)
                if g:
                    return g, work[k].start, work[k + 1].end, k + 2
                break
        # form factor after: "a100 sxm", "h100 pcie"
        if j < len(work) and work[j].text in _FORM_FACTORS:
            ff = work[j].text
            hits = [g for g in ids if ff in tokens(str(getattr(self._gpus.get(g), "name", g)))]
            if len(hits) == 1:
                k = j + 1
                if k < len(work) and work[k].text.isdigit() and len(work[k].text) == 1 and not work[k].spaced:
                    k += 1  # "sxm4" -> "sxm" "4"
                return hits[0], work[j].start, work[k - 1].end, k
        # before: "16gb 4060 ti", "80 gb a100"
        for k in range(i - 2, max(i - 5, -1), -1):
            if k >= 0 and not used[k] and work[k].text[0].isdigit() and work[k + 1].text == "gb":
                g = member(work[k].text)
                if g:
                    return g, work[k].start, work[k + 1].end, j
                break
        return None

    def _partial_models(
        self, work: Sequence[Token], used: list[bool], corrected: dict[int, tuple[str, str]], norm: str
    ) -> list[Mention]:
        out: list[Mention] = []
        i = 0
        while i < len(work):
            w = work[i].text
            if not used[i] and w not in self._model_tokens and w in self._rare_words:
                # a distinctive inner word alone ("diffusion"): every model having it
                rare = self._rare_words[w]
                corr: tuple[tuple[str, str], ...] = (corrected[i],) if i in corrected else ()
                t = work[i]
                out.append(
                    Mention(
                        "model",
                        rare,
                        t.start,
                        t.end,
                        norm[t.start : t.end],
                        exact=not corr,
                        family=len(rare) > 1,
                        partial=True,
                        corrected=corr,
                    )
                )
                used[i] = True
                i += 1
                continue
            if used[i] or w not in self._model_tokens or not w[0].isalpha() or len(w) < 2:
                i += 1
                continue
            j = i + 1
            while j < len(work) and not used[j] and work[j].text in self._model_words and j - i < 6:
                j += 1
            words: list[str] = [t.text for t in work[i:j]]
            # a common word alone ("stable", "large") names nothing
            content = [x for x in words if x not in STOP_WORDS]
            weak = words[0] in STOP_WORDS or words[0] in _WEAK_HEADS
            if not content or (weak and len(words) < 2) or all(x[0].isdigit() for x in content):
                i += 1
                continue
            ids: list[str] | tuple[str, ...] = self._models_with(words)
            while not ids and len(words) > 1 and not words[-1][0].isdigit():
                words = words[:-1]  # drop trailing name words, never a number ("llama 9 99b" is no llama)
                j -= 1
                ids = self._models_with(words)
            if not ids or (len(words) == 1 and weak):
                i += 1
                continue
            start, end = work[i].start, work[j - 1].end
            corr = tuple(corrected[k] for k in range(i, j) if k in corrected)
            out.append(
                Mention(
                    "model",
                    tuple(ids),
                    start,
                    end,
                    norm[start:end],
                    exact=not corr,
                    family=len(ids) > 1,
                    partial=True,
                    corrected=corr,
                )
            )
            for k in range(i, j):
                used[k] = True
            i = j
        return out

    def _models_with(self, words: Sequence[str]) -> list[str]:
        need = set(words)
        first = self._model_tokens.get(words[0], [])
        ids: list[str] = []
        for key_words, mid in first:
            if need <= key_words and mid not in ids:
                ids.append(mid)
        # keep catalog order
        order = {m: n for n, m in enumerate(self._models)}
        return sorted(ids, key=lambda m: order.get(m, 0))

    # ------------------------------------------------------------ public API
    def _kinds(self, kind: Kind) -> tuple[str, ...]:
        return ("gpu", "model") if kind == "any" else (kind,)

    def resolve(self, name: str, kind: Kind = "any") -> Match | None:
        """Best match for one typed name, or None (junk, or below the cutoff)."""
        try:
            norm = normalize(str(name))[:300]
            toks = tokenize(norm)
            ms = self.mentions(norm, kind, toks)
            if not toks:
                lit = [m for m in ms if m.text == norm.strip()]
                return (
                    Match(
                        lit[0].kind, lit[0].ids[0], self.display_name(lit[0].kind, lit[0].ids[0]), 100.0, name
                    )
                    if lit
                    else None
                )
            covered = sum(len(m.text.split()) for m in ms)
            if len(ms) == 1:
                m = ms[0]
                mid = m.ids[0] if not m.family else self._pick_default(m)
                if not mid:
                    return None  # "llama": several models, no safe pick
                score = 100.0 if m.exact and not m.partial else (90.0 if m.exact else 85.0)
                if m.text.replace(" ", "") == "".join(t.text for t in toks) or covered:
                    return Match(m.kind, mid, self.display_name(m.kind, mid), score, name)
            best = self._fuzzy(norm, toks, kind, NAME_CUTOFF, 1)
            return best[0] if best else None
        except Exception:  # never let a lookup take a surface down
            log.exception("resolve failed for %r", name)
            return None

    def _pick_default(self, m: Mention) -> str:
        if m.kind == "gpu":
            return self.family_default(m.ids, m.preferred)[0]
        return pick_model(self, m.ids)[0]

    def _fuzzy(self, norm: str, toks: Sequence[Token], kind: Kind, cutoff: float, limit: int) -> list[Match]:
        words = [t.text for t in toks]
        query = " ".join(words)
        sig = _numsig(words)
        kinds = self._kinds(kind)
        cands = [k for k in self._sig_index().get(sig, ()) if self._keys[k].kind in kinds]
        if not cands:
            return []
        res = process.extract(
            query,
            cands,
            scorer=fuzz.WRatio,
            processor=utils.default_process,
            score_cutoff=cutoff,
            limit=limit * 6,
        )
        out: list[Match] = []
        seen: set[str] = set()
        for key, score, _ in res:
            t = self._keys[key]
            eid = self.family_default(t.ids, t.preferred)[0] if t.family else t.ids[0]
            if eid in seen:
                continue
            seen.add(eid)
            out.append(Match(t.kind, eid, self.display_name(t.kind, eid), float(score), norm))
            if len(out) >= limit:
                break
        return out

    def suggest(self, name: str, kind: Kind = "any", limit: int = 3) -> list[Match]:
        """Near misses for "did you mean ...?", best first (may be empty)."""
        try:
            norm = normalize(str(name))[:300]
            toks = tokenize(norm)
            if not toks or limit <= 0:
                return []
            out: list[Match] = []
            seen: set[str] = set()
            first = self.resolve(name, kind)
            if first is not None:
                out.append(first)
                seen.add(first.id)
            words = [t.text for t in toks]
            sig = _numsig(words)
            query = " ".join(words)
            cands, processed = self._suggest_pool(sig, self._kinds(kind))
            res = process.extract(
                utils.default_process(query),
                processed,
                scorer=fuzz.WRatio,
                processor=None,
                score_cutoff=SUGGEST_CUTOFF,
                limit=limit * 8,
            )
            for _, score, index in res:
                key = cands[index]
                t = self._keys[key]
                for eid in t.ids:
                    if eid not in seen:
                        seen.add(eid)
                        out.append(Match(t.kind, eid, self.display_name(t.kind, eid), float(score), name))
                if len(out) >= limit:
                    break
            return out[:limit]
        except Exception:
            log.exception("suggest failed for %r", name)
            return []

    def autocomplete(self, prefix: str, kind: Kind = "any", limit: int = 25) -> list[tuple[str, str]]:
        """(id, display name) pairs for a slash-command option, at most ``limit`` (<= 25)."""
        limit = max(0, min(limit, 25))
        try:
            entries = [
                (k, eid) for k in self._kinds(kind) for eid in (self._gpus if k == "gpu" else self._models)
            ]
            p = " ".join(tokens(str(prefix)[:100]))
            if not p:
                chosen = entries[:limit]
            else:
                pc = p.replace(" ", "")
                ranked: list[tuple[float, int, str, str]] = []
                for n, (k, eid) in enumerate(entries):
                    keys = self._entry_keys.get((k, eid), []) + [" ".join(tokens(self.display_name(k, eid)))]
                    score = 0.0
                    for key in keys:
                        kc = key.replace(" ", "")
                        if key.startswith(p) or kc.startswith(pc):
                            score = max(score, 300 - len(key))
                        elif f" {p}" in f" {key}" or pc in kc:
                            score = max(score, 200 - len(key))
                    if score == 0.0 and len(pc) >= 3:
                        s = max((fuzz.partial_ratio(pc, key.replace(" ", "")) for key in keys), default=0.0)
                        if s >= 75:
                            score = s
                    if score > 0:
                        ranked.append((-score, n, k, eid))
                ranked.sort()
                chosen = [(k, eid) for _, _, k, eid in ranked[:limit]]
            return [(eid, self._label(k, eid)) for k, eid in chosen]
        except Exception:
            log.exception("autocomplete failed for %r", prefix)
            return []

    def _label(self, kind: str, eid: str) -> str:
        e = self.entry(kind, eid)
        name = self.display_name(kind, eid)
        extra = ""
        if kind == "gpu":
            v = getattr(e, "vram_gb", None)
            if v is not None and "gb" not in name.lower():
                extra = f" ({v:g} GB)"
        else:
            p = getattr(e, "params", None)
            if isinstance(p, int | float) and p > 0:
                extra = f" ({_fmt_params(p)} params)"
        return (name + extra)[:99]


def _fmt_params(p: float) -> str:
    if p >= 1e9:
        return f"{p / 1e9:.3g}B"
    if p >= 1e6:
        return f"{p / 1e6:.3g}M"
    return f"{p:g}"


def pick_model(matcher: Matcher, ids: Sequence[str]) -> tuple[str, str]:
    """For a partial model name: (model to use, why) or ("", "") to ask back.

    Same size (within 10% of parameters) -> the most recent one; otherwise
    there is no safe pick. (Conventions such as "BERT" = BERT-Base are catalog
    aliases, matched exactly, with a note from :meth:`Matcher.alternatives`.)
    """
    ents = [(i, matcher.entry("model", i)) for i in ids]
    params = [float(getattr(e, "params", 0) or 0) for _, e in ents]
    if params and min(params) > 0 and max(params) <= 1.1 * min(params):
        best = max(ents, key=lambda x: str(getattr(x[1], "release", "") or ""))[0]
        return best, "same size"
    return "", ""


_CACHE: dict[int, Matcher] = {}


def get_matcher(catalog: Any = None) -> Matcher:
    """The matcher for ``catalog`` (the default catalog when None), cached per catalog object."""
    if catalog is None:
        from bot.core.knowledge import get_catalog

        catalog = get_catalog()
    m = _CACHE.get(id(catalog))
    if m is None or m.catalog is not catalog:
        m = Matcher(catalog)
        if len(_CACHE) > 8:
            _CACHE.clear()
        _CACHE[id(catalog)] = m
    return m
