"""Finding every card and model named in a question (see :mod:`bot.core.matching`, steps 2-5)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rapidfuzz import fuzz, process, utils

from bot.core.matching.index import _FORM_FACTORS, WORD_CUTOFF, Mention, NameIndex, _compact_ok, _Target
from bot.core.matching.text import STOP_WORDS, WEAK_HEADS, Kind, Token, tokenize, tokens

__all__ = ["MentionFinder"]

#: words after a number that make it a count or a size, never a version in a model name
_COUNT_UNITS = frozenset(
    {"x", "gb", "tb", "bit", "bits", "k", "gpu", "gpus", "card", "cards", "way", "times"}
)


#: words joining two variants of one card ("a100 40gb vs 80gb", "h100 pcie or the sxm")
_JOINERS = frozenset({"and", "vs", "versus", "or", "v", "to", "the", "a", "an", "vs."})
#: the same in Chinese text, which the tokenizer drops ("a100 40g和80g", "40g还是80g")
_CJK_JOINERS = frozenset("和与跟或还/、,，")


class MentionFinder(NameIndex):
    """:meth:`mentions`: the names in a text, in order, with where each sits."""

    def _match_at(
        self, toks: Sequence[Token], i: int, kind: Kind, texts: Sequence[str] | None = None
    ) -> tuple[int, _Target] | None:
        """The longest key starting at token ``i`` (``texts``: the tokens' texts, when the caller has them).
        A key is looked up only where its run still begins one (:meth:`_runs_at`): elsewhere it is not
        a key, with spaces or without."""
        if texts is None:
            texts = [t.text for t in toks]
        keys, compact = self._keys, self._compact
        runs = self._runs_at(texts, i)
        for n in range(len(runs), 0, -1):
            spaced, joined = runs[n - 1]
            t = keys.get(spaced) if spaced is not None else None
            if t is None and joined is not None and (n == 1 or _compact_ok(toks[i : i + n])):
                t = compact.get(joined) or None
            if t is not None and (kind == "any" or t.kind == kind):
                return n, t
        return None

    def _correct(self, word: str) -> tuple[str, float] | None:
        if len(word) < 4 or not word.isalpha() or word in STOP_WORDS or word in self._vocab:
            return None
        typed = utils.default_process(word)
        # the best word must have the typed first letter: when none of those is near enough, the best
        # of them all is not either (one search of ~8 words instead of ~180: most words typed)
        same_first = self._vocab_by_first.get(word[0])
        if not same_first or (
            process.extractOne(typed, same_first, scorer=fuzz.ratio, processor=None, score_cutoff=WORD_CUTOFF)
            is None
        ):
            return None
        best = process.extractOne(
            typed,
            self._vocab_processed,  # (processed once per catalog; the same scores, in the same order)
            scorer=fuzz.ratio,
            processor=None,
            score_cutoff=WORD_CUTOFF,
        )
        if best is None:
            return None
        found = self._vocab_list[best[2]]
        if found[0] != word[0]:
            return None
        return found, float(best[1])

    def may_name_gpu(self, norm: str, toks: Sequence[Token]) -> bool:
        """False only when ``mentions(norm, "gpu", toks)`` is empty: no word is a card's key, or starts one
        with the next word (with a space or without), none may be corrected into a card's word (an
        unknown word is taken to), and no Chinese name of a card is in the text. Cheaper than the scan
        (no typo search, no runs of words)."""
        singles, pairs, prefixes = self._gpu_singles, self._gpu_pairs, self._gpu_prefixes
        vocab = self._vocab
        texts = [t.text for t in toks]
        if any(w.isalpha() and len(w) >= 4 and w not in vocab and w not in STOP_WORDS for w in texts):
            return True  # (a typo's correction: its word is not known here)
        for i, w in enumerate(texts):
            if w in singles:
                return True
            if i + 1 < len(texts):
                nxt = texts[i + 1]
                if f"{w} {nxt}" in pairs or w + nxt in prefixes:
                    return True
        return (
            bool(self._gpu_literals) and not norm.isascii() and any(lit in norm for lit in self._gpu_literals)
        )

    def mentions(
        self,
        norm: str,
        kind: Kind = "any",
        toks: list[Token] | None = None,
        corrections: Mapping[str, str] | None = None,
    ) -> list[Mention]:
        """Every card / model named in normalised text ``norm``, in order. ``corrections``: typed word ->
        the catalog word :meth:`_correct` gives it, known from another scan of the same question
        (a mention's ``corrected``): not searched again."""
        if toks is None:
            toks = tokenize(norm)
        out = self._token_mentions(norm, kind, toks, corrections) if toks else []
        if self._literals and not norm.isascii():
            for lit, target in self._literals.items():
                if kind not in ("any", target.kind):
                    continue
                k = norm.find(lit)
                if k >= 0 and not any(m.start < k + len(lit) and k < m.end for m in out):
                    out.append(Mention(target.kind, target.ids, k, k + len(lit), lit, exact=True))
        out.sort(key=lambda m: m.start)
        return out

    def _token_mentions(
        self, norm: str, kind: Kind, toks: list[Token], corrections: Mapping[str, str] | None = None
    ) -> list[Mention]:
        corrected: dict[int, tuple[str, str]] = {}
        texts = [t[0] for t in toks]  # (each token's text)
        work: list[Token] = toks  # the tokens, copied once a word is corrected (never changed in place)
        n_corr = 0
        vocab = self._vocab
        for idx, w in enumerate(texts):
            # the first 12 unknown words of 4+ letters are corrected (the cheap tests first)
            if len(w) >= 4 and w not in vocab and w not in STOP_WORDS and w.isalpha() and n_corr < 12:
                known = corrections.get(w) if corrections else None
                c = (known, 0.0) if known is not None else self._correct(w)
                n_corr += 1
                if c is not None:
                    if work is toks:
                        work = list(toks)
                    t = toks[idx]
                    corrected[idx] = (w, c[0])
                    work[idx] = Token(c[0], t.start, t.end, t.spaced)
                    texts[idx] = c[0]
        out: list[Mention] = []
        used = [False] * len(work)
        starts, singles = self._starts, self._single_starts
        word_prefixes, prefixes = self._heads
        n_work = len(work)
        i = 0
        while i < n_work:
            # most words start no name: a key starting at a word is one of its keys' first words, and
            # a compact key (the one-word lookup) is a prefix of itself
            w = texts[i]
            if w not in starts:
                i += 1
                continue
            if w not in singles:
                # no name of this word alone: one goes on with the next token, with a space or without
                # (what _runs_at reads first; most such words, "b" of "8 b", "a", "3", go on with none)
                nxt = texts[i + 1] if i + 1 < n_work else None
                if nxt is None or not (
                    (w in word_prefixes and f"{w} {nxt}" in word_prefixes)
                    or (w in prefixes and w + nxt in prefixes)
                ):
                    i += 1
                    continue
            hit = self._match_at(work, i, kind, texts)
            if hit is None:
                i += 1
                continue
            n, target = hit
            j = i + n
            if (
                target.kind == "model"
                and not target.family
                and j < len(work)
                and work[j].text in self._model_words
            ):
                # "mistral large": the words after an exact name read other models (Mistral Large 2 / 3),
                # not the one the short name is an alias of (Mistral 7B): a partial name of those
                ext = self._extend_model(work, i, j, target.ids[0], used)
                if ext is not None:
                    ext_ids, j = ext
                    out.append(_partial_model(work, i, j, tuple(ext_ids), norm, corrected, used))
                    i = j
                    continue
            ids = target.ids
            family = target.family
            start, end = work[i].start, work[j - 1].end
            if family:
                # a memory size next to the family name picks the member
                picked = self._pick_by_memory(work, i, j, ids, used)
                if picked is not None:
                    # one member, or the several with that memory ("mac studio 128gb": M4 Max, M1 Ultra)
                    ids, s2, e2, j2 = picked
                    family = len(ids) > 1
                    start, end, j = min(start, s2), max(end, e2), max(j, j2)
            for k in range(i, j):
                used[k] = True
            corr = tuple(corrected[k] for k in range(i, j) if k in corrected) if corrected else ()
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
            fam_key = self._family_of.get(ids[0]) if target.kind == "gpu" and len(ids) == 1 else None
            if fam_key is not None and fam_key in self._families:
                # "a100 40gb vs 80gb", "h100 pcie or sxm", "a100 40g和80g": the other variant, named by
                # its size or form factor alone, is a card named too (compared, never dropped)
                other = self._other_variant(work, j, self._families[fam_key], ids, norm)
                if other is not None:
                    o_ids, s3, e3, j = other
                    for k in range(i, j):
                        used[k] = True
                    out.append(Mention(target.kind, o_ids, s3, e3, norm[s3:e3], exact=True))
            i = j
        if kind in ("model", "any"):
            out.extend(self._partial_models(work, used, corrected, norm))
        return out

    def _other_variant(
        self, work: Sequence[Token], j: int, fam: Sequence[str], picked: Sequence[str], norm: str
    ) -> tuple[tuple[str, ...], int, int, int] | None:
        """After a family member named by its size or form factor ("a100 40gb"), another member
        named by its size or form factor alone, joined by "and" / "vs" / "or" / 和 ("... vs 80gb"):
        (that member, start, end, next token) or None."""
        k = j
        while k < len(work) and k - j < 2 and work[k].text in _JOINERS:
            k += 1
        if k >= len(work) or j == 0:
            return None
        if k == j and not any(c in _CJK_JOINERS for c in norm[work[j - 1].end : work[k].start]):
            return None
        hits: list[str] = []
        end = k + 1
        w = work[k].text
        if w[0].isdigit() and k + 1 < len(work) and work[k + 1].text == "gb":
            try:
                v = float(w)
            except ValueError:
                return None
            hits = [g for g in fam if getattr(self._gpus.get(g), "vram_gb", None) == v]
            end = k + 2
        elif w in _FORM_FACTORS:
            hits = [g for g in fam if w in tokens(str(getattr(self._gpus.get(g), "name", g)))]
            if (
                end < len(work)
                and work[end].text.isdigit()
                and len(work[end].text) == 1
                and not work[end].spaced
            ):
                end += 1  # "sxm5"
        if len(hits) != 1 or hits[0] in picked:
            return None
        return (hits[0],), work[k].start, work[end - 1].end, end

    def _pick_by_memory(
        self, work: Sequence[Token], i: int, j: int, ids: Sequence[str], used: list[bool]
    ) -> tuple[tuple[str, ...], int, int, int] | None:
        def member(num: str) -> tuple[str, ...] | None:
            try:
                v = float(num)
            except ValueError:
                return None
            # a machine sold with that memory counts too when newer than every entry of that size
            # (product lines list newest first): "mac mini 16gb" is the M4 (its entry is the 32 GB
            # build, memory_options_gb holds 16), never the 2020 M1 alone
            exact = [n for n, g in enumerate(ids) if getattr(self._gpus.get(g), "vram_gb", None) == v]
            first = exact[0] if exact else len(ids)
            hits = tuple(
                g
                for n, g in enumerate(ids)
                if n in exact
                or (n < first and v in (getattr(self._gpus.get(g), "memory_options_gb", ()) or ()))
            )
            # several members with that memory: a narrower family, unless that is the whole family
            # (kept for machines sold with it: the size then says which build, see memory_variant)
            by_option = any(getattr(self._gpus.get(g), "vram_gb", None) != v for g in hits)
            return hits if hits and (len(hits) < len(ids) or by_option) else None

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
                return (hits[0],), work[j].start, work[k - 1].end, k
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
            weak = words[0] in STOP_WORDS or words[0] in WEAK_HEADS
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
            out.append(_partial_model(work, i, j, tuple(ids), norm, corrected, used))
            i = j
        return out

    def _extend_model(
        self, work: Sequence[Token], i: int, j: int, mid: str, used: list[bool]
    ) -> tuple[tuple[str, ...], int] | None:
        """(models, end) when the name words after the exact name ``work[i:j]`` narrow it to other models
        ("mistral large" -> Mistral Large 2, 3), or None (they name ``mid`` itself, or nothing).
        A number followed by a count or unit ("mistral 2x 4090", "mistral 4 bit") is no name word."""
        k = j
        while k < len(work) and k - i < 6 and not used[k] and work[k].text in self._model_words:
            w = work[k].text
            if w[0].isdigit() and k + 1 < len(work) and work[k + 1].text in _COUNT_UNITS:
                break
            k += 1
        words = [t.text for t in work[i:k]]
        ids = self._models_with(words)
        while not ids and k > j + 1 and not words[-1][0].isdigit():
            words, k = words[:-1], k - 1
            ids = self._models_with(words)
        if k == j or not ids or mid in ids:
            return None
        return tuple(ids), k

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


def _partial_model(
    work: Sequence[Token],
    i: int,
    j: int,
    ids: tuple[str, ...],
    norm: str,
    corrected: dict[int, tuple[str, str]],
    used: list[bool],
) -> Mention:
    """The mention of tokens ``i:j`` as a partial model name (several ids: a family), marked used."""
    start, end = work[i].start, work[j - 1].end
    corr = tuple(corrected[k] for k in range(i, j) if k in corrected)
    for k in range(i, j):
        used[k] = True
    return Mention(
        "model",
        ids,
        start,
        end,
        norm[start:end],
        exact=not corr,
        family=len(ids) > 1,
        partial=True,
        corrected=corr,
    )
