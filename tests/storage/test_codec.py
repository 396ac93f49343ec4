"""bot.storage.codec: Query/Context <-> JSON round-trips, old and damaged rows."""

from __future__ import annotations

import dataclasses
import datetime
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.core.knowledge import get_catalog
from bot.core.parsing import parse
from bot.core.types import (
    Choice,
    Context,
    Intent,
    Lang,
    Method,
    Note,
    NoteCode,
    OutOfRange,
    Precision,
    Query,
    Task,
)
from bot.storage.codec import (
    CODEC_VERSION,
    decode_choices,
    decode_context,
    decode_query,
    dumps,
    encode_choices,
    encode_context,
    encode_query,
    loads,
)

finite = st.floats(allow_nan=False, allow_infinity=False, width=64)
maybe_finite = st.none() | finite
choices = st.builds(
    Choice, label=st.text(max_size=20), text=st.text(max_size=40), id=st.none() | st.text(max_size=10)
)

# Every field of Query is generated from its type hint (so a field added later is
# covered too); floats are kept finite, as the engine's are.
_overrides: dict[str, st.SearchStrategy] = {
    f.name: maybe_finite if f.type == "float | None" else finite
    for f in dataclasses.fields(Query)
    if f.type in ("float | None", "float")
}
_overrides["choices"] = st.lists(choices, max_size=3).map(tuple)
# out-of-range reports carry their range's bounds: finite, like every number stored
_overrides["out_of_range"] = st.lists(
    st.builds(OutOfRange, field=st.text(max_size=10), text=st.text(max_size=24), low=finite, high=finite),
    max_size=2,
).map(tuple)
# A Note's values are typed Any: whatever the parser and the engine put there
# (numbers, text, lists, tuples, dates, enums).
any_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | finite
    | st.text(max_size=10)
    | st.dates()
    | st.sampled_from(Precision),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.lists(inner, max_size=3).map(tuple)
        | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)
notes = st.builds(
    Note, code=st.sampled_from(NoteCode), values=st.dictionaries(st.text(max_size=8), any_values, max_size=4)
)
for _f in dataclasses.fields(Query):
    if "Note" in str(_f.type):
        _overrides[_f.name] = st.lists(notes, max_size=3).map(tuple)
_overrides["price_question"] = st.none()  # transient: not stored (codec.TRANSIENT_FIELDS)
_overrides["card_filter"] = st.none()  # transient too (issue 10 filters)
queries = st.builds(
    Query,
    **{f.name: ... for f in dataclasses.fields(Query) if f.name not in _overrides},
    **_overrides,
)
contexts = st.builds(
    Context,
    **{f.name: ... for f in dataclasses.fields(Context) if f.name not in ("last", "shown_usd")},
    last=st.none() | queries,
    # prices shown (issue 10 conversation): finite, like every number the codec stores
    shown_usd=st.lists(st.floats(min_value=0, max_value=1e7), max_size=3).map(tuple),
)


@settings(max_examples=300, deadline=None)
@given(queries)
def test_query_round_trips_through_json_text(q: Query) -> None:
    data = loads(dumps(encode_query(q)))
    assert data["v"] == CODEC_VERSION
    assert decode_query(data) == q


@settings(max_examples=200, deadline=None)
@given(contexts)
def test_context_round_trips_through_json_text(ctx: Context) -> None:
    assert decode_context(loads(dumps(encode_context(ctx)))) == ctx


@settings(max_examples=100, deadline=None)
@given(st.lists(choices, max_size=5).map(tuple))
def test_choices_round_trip(cs: tuple[Choice, ...]) -> None:
    assert decode_choices(loads(dumps(encode_choices(cs)))) == cs


@pytest.mark.parametrize(
    "question",
    [
        "what about the 4060 ti?",
        "can 4x rtx 4090 full finetune llama 3 70b",
        "预算800美元，训练BERT-large用什么显卡",
    ],
)
def test_real_parsed_queries_round_trip(question: str) -> None:
    q = parse(question, catalog=get_catalog())
    assert decode_query(json.loads(dumps(encode_query(q)))) == q


def test_encoding_is_plain_json() -> None:
    q = Query(
        intent=Intent.FIT,
        models=("llama-3-8b",),
        gpus=("rtx-3090",),
        task=Task.FINETUNE,
        method=Method.QLORA,
        choices=(Choice("RTX 3090", "can a 3090 run llama 3 8b", "rtx-3090"),),
    )
    data = encode_query(q)
    assert data["intent"] == "fit" and data["method"] == "qlora"
    assert data["models"] == ["llama-3-8b"]
    assert data["choices"] == [{"label": "RTX 3090", "text": "can a 3090 run llama 3 8b", "id": "rtx-3090"}]
    text = dumps(encode_context(Context(last=q)))
    assert text.isascii()


def test_old_and_newer_rows_still_load() -> None:
    # an older row: fewer keys, no version; a newer row: unknown keys and an enum value this version lacks
    old = {"intent": "fit", "models": ["llama-3-8b"], "gpus": ["rtx-3090"]}
    assert decode_query(old) == Query(intent=Intent.FIT, models=("llama-3-8b",), gpus=("rtx-3090",))
    newer = {
        "v": CODEC_VERSION + 1,
        "intent": "recommend",
        "budget_usd": 800,
        "method": "dora",  # unknown here: the default
        "brand_new_field": {"x": 1},
        "num_gpus": "two",  # wrong type: the default
    }
    assert decode_query(newer) == Query(intent=Intent.RECOMMEND, budget_usd=800.0)
    assert decode_context({"v": 1, "last": old, "later": True}) == Context(last=decode_query(old))
    # a note code from a newer version: that note is dropped, the others kept
    with_notes = {
        "intent": "fit",
        "notes": [{"code": "from_the_future", "values": {}}, {"code": "follow_up", "values": {}}],
    }
    assert decode_query(with_notes) == Query(intent=Intent.FIT, notes=(Note(NoteCode.FOLLOW_UP),))


def test_note_values_keep_their_types() -> None:
    q = Query(
        intent=Intent.RECOMMEND,
        notes=(
            Note(
                NoteCode.BUDGET_CONVERTED,
                {"amount": 900.0, "code": "EUR", "date": datetime.date(2026, 4, 24)},
            ),
            Note(NoteCode.ASK_GPU_VARIANT, {"family": "RTX 4060 Ti", "sizes": ("8", "16")}),
        ),
    )
    back = decode_query(loads(dumps(encode_query(q))))
    assert back == q
    assert back is not None and isinstance(back.notes[1].values["sizes"], tuple)
    assert isinstance(back.notes[0].values["date"], datetime.date)
    assert decode_context(encode_context(Context(last=q, language=Lang.ZH_HANT))) == Context(q, Lang.ZH_HANT)


@pytest.mark.parametrize(
    "data",
    [None, [], "x", {}, {"intent": "no-such-intent"}, {"intent": 3}],
)
def test_unusable_rows_decode_to_none(data: object) -> None:
    assert decode_query(data) is None


def test_damaged_context_row_is_none_and_damaged_last_is_dropped() -> None:
    assert decode_context("junk") is None
    assert loads("{not json") is None
    assert decode_context({"last": {"intent": "nope"}}) == Context(last=None)


def test_non_finite_numbers_are_refused() -> None:
    with pytest.raises(ValueError):
        encode_query(Query(intent=Intent.RECOMMEND, budget_usd=float("nan")))
