"""copy_with equals dataclasses.replace, and falls back to it where a copy would not be equal."""

from __future__ import annotations

import dataclasses

import pytest

from bot.core.copy_with import copy_with
from bot.core.knowledge import get_catalog
from bot.core.memory import resolve_workload
from bot.core.types import Intent, Query, Task


def test_same_as_replace_for_a_query_and_a_slotted_workload() -> None:
    q = Query(intent=Intent.FIT, text="x", models=("llama-3-8b",))
    assert copy_with(q, text="y", num_gpus=2) == dataclasses.replace(q, text="y", num_gpus=2)
    assert q.text == "x"  # the original is untouched
    w = resolve_workload(get_catalog().model("llama-3-8b"), task=Task.INFERENCE)
    assert copy_with(w, seq_len=1024) == dataclasses.replace(w, seq_len=1024)
    assert w.seq_len != 1024


def test_unknown_field_raises_like_replace() -> None:
    q = Query(intent=Intent.FIT)
    with pytest.raises(TypeError):
        copy_with(q, no_such_field=1)


@dataclasses.dataclass(frozen=True)
class _Derived:
    a: int
    b: int = 0

    def __post_init__(self) -> None:
        object.__setattr__(self, "b", self.a * 2)


def test_post_init_classes_go_through_init() -> None:
    assert copy_with(_Derived(1), a=5).b == 10
