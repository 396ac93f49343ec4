"""bot.core.matching: names, aliases, typos, junk, variant families, autocomplete."""

from __future__ import annotations

import pytest

from bot.core.knowledge import get_catalog
from bot.core.matching import Match, Matcher, get_matcher, tokens

CAT = get_catalog()
M = get_matcher(CAT)

GPU_NAMES = [(g.id, n) for g in CAT.gpus.values() for n in (g.name, g.id, *g.aliases)]
MODEL_NAMES = [(m.id, n) for m in CAT.models.values() for n in (m.name, m.id, *m.aliases)]


def _family_members(gid: str) -> tuple[str, ...]:
    key = M.family_key(gid)
    return M._families[key] if key else (gid,)


@pytest.mark.parametrize(("gid", "name"), GPU_NAMES, ids=[f"{g}:{n}" for g, n in GPU_NAMES])
def test_every_gpu_name_and_alias_resolves_to_itself(gid: str, name: str) -> None:
    hit = M.resolve(name, "gpu")
    assert hit is not None, name
    if M.family_key(gid) and not any(
        w[0].isdigit() and i + 1 < len(tokens(name)) and tokens(name)[i + 1] == "gb"
        for i, w in enumerate(tokens(name))
    ):
        # a bare family name ("v100 sxm2") may stand for any member; the parser asks back
        assert hit.id in _family_members(gid), (name, hit)
    else:
        assert hit.id == gid, (name, hit)


@pytest.mark.parametrize(("mid", "name"), MODEL_NAMES, ids=[f"{m}:{n}" for m, n in MODEL_NAMES])
def test_every_model_name_and_alias_resolves_to_itself(mid: str, name: str) -> None:
    hit = M.resolve(name, "model")
    assert hit is not None and hit.id == mid, (name, hit)


@pytest.mark.parametrize(
    ("text", "kind", "want"),
    [
        ("bertt", "model", "bert-base"),
        ("lamma 3 8b", "model", "llama-3-8b"),
        ("stable difusion", "model", "stable-diffusion-1.5"),
        ("resnett50", "model", "resnet-50"),
        ("resnet152", "model", "resnet-152"),
        ("mistrall 7b", "model", "mistral-7b"),
        ("rtx2080ti", "gpu", "rtx-2080-ti"),
        ("RTX-2080-Ti", "gpu", "rtx-2080-ti"),
        ("nvidia geforce rtx 4090", "gpu", "rtx-4090"),
        ("rtx_4070_ti_super", "gpu", "rtx-4070-ti-super"),
        ("4070tisuper", "gpu", "rtx-4070-ti-super"),
        ("a100 80gb", "gpu", "a100-80gb"),
        ("A100-80G", "gpu", "a100-80gb"),
        ("80gb a100", "gpu", "a100-80gb"),
        ("b200", "gpu", "b200"),
        ("a100 sxm", "gpu", "a100-80gb"),
        ("a100 pcie", "gpu", "a100-40gb"),
    ],
)
def test_typos_and_spellings_resolve(text: str, kind: str, want: str) -> None:
    hit = M.resolve(text, kind)  # type: ignore[arg-type]
    assert hit is not None and hit.id == want, (text, hit)


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("llama 3 8b", "llama-3-8b"),
        ("llama 3 70b", "llama-3-70b"),
        ("llama 3.1 8b", "llama-3.1-8b"),
        ("3090", "rtx-3090"),
        ("3090 ti", "rtx-3090-ti"),
        ("4070 ti", "rtx-4070-ti"),
        ("4070 ti super", "rtx-4070-ti-super"),
        ("4070 super", "rtx-4070-super"),
        ("l40", "l40"),
        ("l40s", "l40s"),
        ("gpt-2", "gpt-2"),
        ("gpt-2 xl", "gpt-2-xl"),
        ("qwen2.5 7b", "qwen2.5-7b"),
        ("qwen2.5 72b", "qwen2.5-72b"),
    ],
)
def test_numbers_never_cross(text: str, want: str) -> None:
    hit = M.resolve(text)
    assert hit is not None and hit.id == want, (text, hit)


@pytest.mark.parametrize(
    "text",
    ["foobarnet-9000", "asdfghjkl", "qwerty-llm-500b", "3091", "rtx 9090", "", "   ", "llama 9 99b", "🙂"],
)
def test_junk_matches_nothing(text: str) -> None:
    assert M.resolve(text) is None
    assert M.resolve(text, "model") is None


def test_a_bare_number_after_a_single_letter_is_not_a_card() -> None:
    assert M.mentions("a 100 dollar card") == []
    assert M.mentions("an l 4 slot") == []


def test_family_mention_lists_every_variant() -> None:
    (m,) = M.mentions("can a 4060 ti run it")
    assert m.family and set(m.ids) == {"rtx-4060-ti-8gb", "rtx-4060-ti-16gb"}
    default, differs = M.family_default(m.ids)
    assert differs and default in m.ids


def test_suggest_offers_near_misses() -> None:
    got = M.suggest("bertt", "model", limit=3)
    assert 1 <= len(got) <= 3 and got[0].id == "bert-base"
    assert all(isinstance(x, Match) and x.kind == "model" for x in got)
    assert M.suggest("asdfghjkl", "model") == [] or all(
        x.score < 100 for x in M.suggest("asdfghjkl", "model")
    )


@pytest.mark.parametrize("kind", ["gpu", "model", "any"])
@pytest.mark.parametrize("prefix", ["", "rtx", "40", "lla", "bert", "zzzz", "a100", "x" * 300])
def test_autocomplete_shape(kind: str, prefix: str) -> None:
    out = M.autocomplete(prefix, kind, limit=25)  # type: ignore[arg-type]
    assert len(out) <= 25
    ids = (
        set(CAT.gpus)
        if kind == "gpu"
        else set(CAT.models)
        if kind == "model"
        else set(CAT.gpus) | set(CAT.models)
    )
    for value, label in out:
        assert value in ids
        assert 0 < len(label) < 100
    if prefix == "":
        assert len(out) == 25


def test_autocomplete_ranks_prefix_matches_first() -> None:
    out = M.autocomplete("4090", "gpu")
    assert out[0][0] == "rtx-4090"
    out = M.autocomplete("llama 3", "model")
    assert out and all(v.startswith("llama-3") for v, _ in out[:3])


def test_get_matcher_is_cached_per_catalog() -> None:
    assert get_matcher(CAT) is get_matcher(CAT)
    assert isinstance(get_matcher(), Matcher)


def test_pruned_name_search_reads_the_same_names_as_trying_every_span() -> None:
    # _match_at tries only as many tokens as a name starting with that word can span; on these
    # questions (names with and without spaces, typos, Chinese, long noise) it must find exactly
    # what trying every span up to the longest name finds
    from bot.core import matching
    from bot.core.knowledge import get_catalog
    from bot.core.parsing import parse

    cat = get_catalog()
    qs = [
        "can a rtx3090 run llama 3.1 8b instruct",
        "rtx 4060 ti 16gb vs rtx4070 super for stable diffusion xl",
        "nvidia geforce rtx 5090 or a100 sxm4 80gb for qwen2.5 72b instruct awq",
        "4090跑deepseek r1 distill qwen 32b",
        "lamma 3 70b on two 3090s " + "and some unrelated words " * 10,
        "m3 ultra 512gb deepseek-r1 q4_k_m",
    ]
    fast = [parse(q, cat) for q in qs]
    matcher = matching.get_matcher(cat)
    heads, starts = matcher._heads, matcher._starts

    class _Every:
        def __contains__(self, word: object) -> bool:
            return True

    try:  # every run begins a key, at every token: every span is looked up
        matcher._heads = (_Every(), _Every())  # type: ignore[assignment]
        matcher._starts = _Every()  # type: ignore[assignment]
        slow = [parse(q, cat) for q in qs]
    finally:
        matcher._heads, matcher._starts = heads, starts
    assert [(q.models, q.gpus) for q in fast] == [(q.models, q.gpus) for q in slow]
    assert all(q.models or q.gpus for q in fast)
