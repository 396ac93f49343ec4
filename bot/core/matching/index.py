"""The name index of one catalog: every name, alias and derived key of cards and models, card
variant families, the vocabulary for typo correction (see :mod:`bot.core.matching`)."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from cachetools import LRUCache
from rapidfuzz import utils

from bot.config import BOUNDS
from bot.core import gated_re
from bot.core.matching.text import STOP_WORDS, WEAK_HEADS, Token, normalize, tokenize, tokens
from bot.core.quick_init import quick_init

# what the tokenizer never puts in a token (besides "." in numbers)
_NOT_ALNUM_RE = gated_re.compile(r"[^a-z0-9]+")

__all__ = [
    "AMBIGUOUS_NAMES",
    "DEFAULT_VARIANTS",
    "NAME_CUTOFF",
    "SUGGEST_CUTOFF",
    "WORD_CUTOFF",
    "Match",
    "Mention",
    "NameIndex",
]

log = logging.getLogger(__name__)

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
    # a bare "6000" ("is a 6000 good for llama 70b") is any of the four; "a6000", "6000 ada", "pro 6000",
    # "quadro rtx 6000" stay exact keys. (A bare "8000" has one reading in the catalog: Quadro RTX 8000.)
    "6000": ("quadro-rtx-6000", "rtx-a6000", "rtx-6000-ada", "rtx-pro-6000"),
}

# Words dropped at the start of card names to derive the keys people type.
_GPU_PREFIXES = frozenset(
    {"nvidia", "geforce", "amd", "radeon", "rtx", "gtx", "rx", "quadro", "tesla", "intel", "instinct"}
)
_GPU_FILLER = frozenset({"generation", "graphics", "card", "gpu", "edition"})
_FORM_FACTORS = frozenset({"sxm", "sxm2", "sxm3", "sxm4", "sxm5", "pcie", "pci"})
_MEMORY_UNITS = frozenset({"gb"})


@dataclass(frozen=True)
class Match:
    """One resolved name. ``score`` is 0-100 (100 = exact name or alias)."""

    kind: str  # "gpu" | "model"
    id: str
    name: str
    score: float
    matched_text: str


@quick_init
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


class NameIndex:
    """The keys of one catalog and what each names; lookups that need no text scan."""

    def __init__(self, catalog: Any) -> None:
        self.catalog = catalog
        self._gpus: Mapping[str, Any] = getattr(catalog, "gpus", {}) or {}
        self._models: Mapping[str, Any] = getattr(catalog, "models", {}) or {}
        self._keys: dict[str, _Target] = {}
        self._compact: dict[str, _Target | None] = {}
        self._families: dict[str, tuple[str, ...]] = {}  # family key -> member ids
        # keyed by the numbers a question contains: bounded (LRU), or every new number would add one
        # a model key's other readings (alternatives): at most one entry per key of the catalog
        self._alternatives: dict[str, tuple[str, ...]] = {}
        self._alt_shapes: frozenset[str] | None = None
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
        # every token a name can start at: a key's first word, or a prefix of a key written without
        # spaces (what :meth:`_runs_at` reads); :meth:`MentionFinder._match_at` finds nothing at others
        self._starts = frozenset(w for w in self._heads[0] if " " not in w) | self._heads[1]
        # the starts that are a name alone (a key, or a key written without spaces): at the others a
        # name needs the next token to go on with it ("rtx" "3090"; "b" of "8 b" goes on with nothing)
        self._single_starts = frozenset(
            w for w in self._starts if self._keys.get(w) is not None or self._compact.get(w)
        )
        # what a card's name can start with: a card key alone, or two words a card key starts with (with
        # a space, "rtx 3090", or without, "rtx" "3090" of "rtx3090"); and the Chinese literals of cards
        # (see MentionFinder.may_name_gpu)
        gpu_keys = [key for key, t in self._keys.items() if t.kind == "gpu"]
        gpu_compact = [c for c, t in self._compact.items() if t is not None and t.kind == "gpu"]
        self._gpu_singles = frozenset(gpu_keys) | frozenset(gpu_compact)
        self._gpu_pairs = frozenset(" ".join(key.split(" ")[:2]) for key in gpu_keys if " " in key)
        self._gpu_prefixes = frozenset(c[:k] for c in gpu_compact for k in range(1, len(c) + 1))
        self._gpu_literals = tuple(lit for lit, t in self._literals.items() if t.kind == "gpu")

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
        self._product_members: set[str] = set()
        for prefix, members in self._system_families().items():
            self._product_members.update(members)
            # "mac studio": every machine sold under that name, newest first (asked back or said, never
            # the one whose alias happens to start with it); "mac studio 128gb" picks by memory
            self._keys.pop(prefix, None)
            self._add(prefix.split(), _Target("gpu", members, family=True), "gpu", None)
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
        # rapidfuzz's processed form of each, once: extractOne would process all of them per call
        self._vocab_processed = [utils.default_process(w) for w in self._vocab_list]
        # the same, of the words with each first letter: a correction keeps the first letter
        self._vocab_by_first: dict[str, list[str]] = {}
        for w, p in zip(self._vocab_list, self._vocab_processed, strict=True):
            self._vocab_by_first.setdefault(w[0], []).append(p)
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
            and w not in WEAK_HEADS
        }
        # numbers-only keys of models would read bare numbers as models: drop
        for key in [
            k for k, t in self._keys.items() if t.kind == "model" and all(w[0].isdigit() for w in k.split())
        ]:
            del self._keys[key]

    def _system_families(self) -> dict[str, tuple[str, ...]]:
        """Product names that several catalog entries are sold under, from aliases "<product> <chip>"
        whose "<chip>" (or "apple <chip>") is another alias of the same entry ("mac studio m1 ultra" + "m1 ultra" ->
        "mac studio"): product -> entry ids, newest first. Two-word products only (never a vendor word
        alone: "apple m1 max" names no product "apple"); products with one entry are left alone."""
        found: dict[str, list[str]] = {}
        for gid, g in self._gpus.items():
            names = [tokens(str(a)) for a in getattr(g, "aliases", ()) or ()]
            own = {" ".join(w) for w in names}
            for words in names:
                # ("macbook air m3" + "apple m3": a base chip has no bare alias, "minimax m2" is a model)
                chip = " ".join(words[2:])
                if (
                    len(words) >= 3
                    and (chip in own or f"apple {chip}" in own)
                    and words[0] not in _GPU_PREFIXES
                ):
                    members = found.setdefault(" ".join(words[:2]), [])
                    if gid not in members:
                        members.append(gid)
        return {
            p: tuple(
                sorted(ids, key=lambda i: str(getattr(self._gpus[i], "release", "") or ""), reverse=True)
            )
            for p, ids in found.items()
            if len(ids) > 1
        }

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
        shapes = self._alternative_shapes()
        # (an ASCII text's normal form has the length and the letters and digits of its lower case:
        # NFKC leaves ASCII alone, "llama.cpp" becomes "llamacpp ", control characters spaces)
        low = text.lower() if text.isascii() else normalize(text)
        if shapes is not None and len(low) < 600 and _NOT_ALNUM_RE.sub("", low) not in shapes:
            return ()  # (most names: no key with alternatives has these letters and digits)
        words = [t.text for t in tokenize(normalize(text))]
        return self._alternatives_of(" ".join(words)) if words else ()

    def _alternatives_of(self, key: str) -> tuple[str, ...]:
        t = self._keys.get(key)
        if t is None or t.kind != "model" or t.family:
            return ()
        hit = self._alternatives.get(key)  # one per catalog key, computed on first use
        if hit is None:
            words = key.split(" ")
            need = set(words)
            out: list[str] = []
            for key_words, mid in self._model_tokens.get(words[0], []):
                if mid not in t.ids and mid not in out and need < key_words:
                    out.append(mid)
            hit = self._alternatives[key] = tuple(out)
        return hit

    def _alternative_shapes(self) -> frozenset[str] | None:
        """The letters and digits of each model key that has alternatives (~30), once per catalog: the
        tokens of a text (under 600 characters, so never cut) hold its letters and digits in order, so
        a text whose letters and digits are none of these is no such key. None (no shortcut) when a
        key holds "gb", which the tokenizer writes for a "g" or "gig" after a number."""
        if self._alt_shapes is None:
            keys = [key for key in self._keys if self._alternatives_of(key)]
            if any("gb" in key.split(" ") for key in keys):
                return None
            self._alt_shapes = frozenset(_NOT_ALNUM_RE.sub("", key) for key in keys)
        return self._alt_shapes

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

    def in_product_line(self, ids: Sequence[str]) -> bool:
        """Whether these entries are all machines of product lines ("mac studio": M1 Max ... M3 Ultra)."""
        return bool(ids) and all(g in self._product_members for g in ids)

    def has_default(self, ids: Sequence[str]) -> bool:
        fam = self._family_of.get(ids[0]) if ids else None
        return DEFAULT_VARIANTS.get(fam or "") in ids

    def _name_heads(self) -> tuple[set[str], set[str]]:
        """Every run of first words of a name ("llama", "llama 3", "llama 3 8"), and every prefix of a
        name written without spaces ("r", "rtx", "rtx3"): what :meth:`_runs_at` reads."""
        word_prefixes: set[str] = set()
        for key in self._keys:
            words = key.split(" ")
            word_prefixes.update(" ".join(words[:k]) for k in range(1, len(words) + 1))
        prefixes = {c[:k] for c in self._compact for k in range(1, len(c) + 1)}
        return word_prefixes, prefixes

    def _runs_at(self, texts: Sequence[str], i: int) -> list[tuple[str | None, str | None]]:
        """For n = 1, 2, ... tokens from token ``i``: the tokens joined with spaces when that still
        begins a key ("llama 3 8"), and joined without when that still begins a key written without
        spaces ("rtx3090", "8b"); None where it does not. A run that begins no key does not once a token
        more is added, so the list ends at the first n where neither does: no name spans more tokens.
        Most words begin no name, and most positions try one token instead of thirteen."""
        word_prefixes, prefixes = self._heads
        runs: list[tuple[str | None, str | None]] = []
        with_spaces = joined = ""
        in_words = in_joined = True
        for k in range(i, min(len(texts), i + self._max_len + 1)):
            t = texts[k]
            with_spaces = f"{with_spaces} {t}" if with_spaces else t
            joined += t
            in_words = in_words and with_spaces in word_prefixes
            in_joined = in_joined and joined in prefixes
            if not (in_words or in_joined):
                break
            runs.append((with_spaces if in_words else None, joined if in_joined else None))
        return runs

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
