"""One typed name to a card or model: slash-command options, "did you mean", autocomplete."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

from rapidfuzz import fuzz, process, utils

from bot.core.knowledge import get_catalog
from bot.core.matching.find import MentionFinder
from bot.core.matching.index import NAME_CUTOFF, SUGGEST_CUTOFF, Match, Mention, _numsig
from bot.core.matching.text import Kind, Token, normalize, tokenize, tokens

__all__ = ["Matcher", "get_matcher", "pick_model"]

log = logging.getLogger(__name__)


class Matcher(MentionFinder):
    """Name index over one catalog (see :mod:`bot.core.matching`): the index
    (:class:`~bot.core.matching.index.NameIndex`), names in text
    (:class:`~bot.core.matching.find.MentionFinder`) and one-name lookups here."""

    def _kinds(self, kind: Kind) -> tuple[str, ...]:
        return ("gpu", "model") if kind == "any" else (kind,)

    def resolve(self, name: str, kind: Kind = "any") -> Match | None:
        """Best match for one typed name, or None (junk, or below the cutoff)."""
        try:
            norm = normalize(str(name))[:300]
            return self._resolve(name, norm, tokenize(norm), kind)
        except Exception:  # never let a lookup take a surface down
            log.exception("resolve failed for %r", name)
            return None

    def _resolve(
        self,
        name: str,
        norm: str,
        toks: list[Token],
        kind: Kind,
        corrections: Mapping[str, str] | None = None,
    ) -> Match | None:
        """:meth:`resolve` of ``name`` normalised (``norm``, cut) and tokenized (``toks``)."""
        ms = self.mentions(norm, kind, toks, corrections)
        if not toks:
            lit = [m for m in ms if m.text == norm.strip()]
            return (
                Match(lit[0].kind, lit[0].ids[0], self.display_name(lit[0].kind, lit[0].ids[0]), 100.0, name)
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

    def suggest(
        self, name: str, kind: Kind = "any", limit: int = 3, corrections: Mapping[str, str] | None = None
    ) -> list[Match]:
        """Near misses for "did you mean ...?", best first (may be empty). ``corrections``: typos
        already corrected in the same question (see :meth:`mentions`)."""
        try:
            norm = normalize(str(name))[:300]
            toks = tokenize(norm)
            if not toks or limit <= 0:
                return []
            out: list[Match] = []
            seen: set[str] = set()
            try:  # (resolve's own work, on the text and tokens already made here)
                first = self._resolve(name, norm, toks, kind, corrections)
            except Exception:
                log.exception("resolve failed for %r", name)
                first = None
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


def pick_model(matcher: Matcher, ids: Sequence[str]) -> tuple[str, str]:
    """For a partial model name: (model to use, why) or ("", "") to ask back.

    Same size (within 10% of parameters) -> the plain text model where there is one, else the most
    recent one ("qwen 72b" is Qwen2.5 72B, not the newer Qwen2.5-VL 72B; the note names the other);
    otherwise there is no safe pick. (Conventions such as "BERT" = BERT-Base are catalog
    aliases, matched exactly, with a note from :meth:`Matcher.alternatives`.)
    """
    ents = [(i, matcher.entry("model", i)) for i in ids]
    params = [float(getattr(e, "params", 0) or 0) for _, e in ents]
    if params and min(params) > 0 and max(params) <= 1.1 * min(params):
        best = max(
            ents, key=lambda x: (not _is_variant(x[0], x[1]), str(getattr(x[1], "release", "") or ""))
        )[0]
        return best, "same size"
    return "", ""


def _is_variant(mid: str, entry: Any) -> bool:
    """A vision-language, code or math variant, or a fine-tune / distill (``base_model``) of another model:
    never the default reading of a bare family + size when the plain model has the same size."""
    if getattr(entry, "base_model", None):
        return True
    return any(tag in f"-{mid}-" for tag in ("-vl-", "-vision-", "-coder-", "-math-"))


_CACHE: dict[int, Matcher] = {}


def get_matcher(catalog: Any = None) -> Matcher:
    """The matcher for ``catalog`` (the default catalog when None), cached per catalog object."""
    if catalog is None:
        catalog = get_catalog()
    m = _CACHE.get(id(catalog))
    if m is None or m.catalog is not catalog:
        m = Matcher(catalog)
        if len(_CACHE) > 8:
            _CACHE.clear()
        _CACHE[id(catalog)] = m
    return m
