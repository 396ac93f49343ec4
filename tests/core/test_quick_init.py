"""bot.core.quick_init: every decorated class builds the same object as its dataclass __init__."""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import pkgutil
from typing import Any

import pytest

import bot
from bot.core.quick_init import quick_init


def _decorated() -> list[type]:
    found: dict[str, type] = {}
    for info in pkgutil.walk_packages(bot.__path__, "bot."):
        if info.name == "bot.__main__" or ".migrations" in info.name or "discord_app" in info.name:
            continue
        for value in vars(importlib.import_module(info.name)).values():
            if isinstance(value, type) and "_dataclass_init" in value.__dict__:
                found[f"{value.__module__}.{value.__qualname__}"] = value
    return [found[k] for k in sorted(found)]


DECORATED = _decorated()


def test_the_hot_classes_are_decorated() -> None:
    names = {c.__qualname__ for c in DECORATED}
    assert {"Candidate", "Query", "Estimate", "Workload", "Answer", "Note"} <= names
    assert len(DECORATED) >= 25


def _sample_kwargs(cls: type) -> dict[str, Any]:
    """A distinct value for every field without a default; fields with one are left out."""
    out: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            out[f.name] = (f.name, object())
    return out


@pytest.mark.parametrize("cls", DECORATED, ids=lambda c: c.__qualname__)
def test_builds_what_the_dataclass_init_builds(cls: type) -> None:
    kwargs = _sample_kwargs(cls)
    quick = cls(**kwargs)
    slow = object.__new__(cls)
    cls._dataclass_init(slow, **kwargs)  # type: ignore[attr-defined]
    for f in dataclasses.fields(cls):
        a, b = getattr(quick, f.name), getattr(slow, f.name)
        if f.default_factory is not dataclasses.MISSING:
            assert a == b and (a is not b or not isinstance(a, list | dict | set))  # a fresh one each
        else:
            assert a is b, f.name
    quick_sig = inspect.signature(cls.__init__).parameters
    slow_sig = inspect.signature(cls._dataclass_init).parameters  # type: ignore[attr-defined]
    assert [(p.name, p.kind, p.annotation) for p in quick_sig.values()] == [
        (p.name, p.kind, p.annotation) for p in slow_sig.values()
    ]
    factories = {f.name for f in dataclasses.fields(cls) if f.default_factory is not dataclasses.MISSING}
    assert [p.default for p in quick_sig.values() if p.name not in factories] == [
        p.default for p in slow_sig.values() if p.name not in factories
    ]
    assert quick == slow and repr(quick) == repr(slow)
    try:
        assert hash(quick) == hash(slow)
    except TypeError:  # a field holds a list: neither is hashable
        pass
    name = dataclasses.fields(cls)[0].name
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(quick, name, 1)  # still frozen


@pytest.mark.parametrize("cls", DECORATED, ids=lambda c: c.__qualname__)
def test_positional_arguments_in_field_order(cls: type) -> None:
    positional = [
        f
        for f in dataclasses.fields(cls)
        if not f.kw_only and f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
    ]
    args = [(f.name, object()) for f in positional]
    quick = cls(*args)
    assert [getattr(quick, f.name) for f in positional] == args


def test_classes_it_cannot_speed_up_are_left_alone() -> None:
    @dataclasses.dataclass(frozen=True)
    class WithPostInit:
        x: int

        def __post_init__(self) -> None:
            if self.x < 0:
                raise ValueError("negative")

    @dataclasses.dataclass(frozen=True)
    class WithDerived:
        x: int
        y: int = dataclasses.field(init=False, default=0)

    for cls in (WithPostInit, WithDerived):
        before = cls.__init__
        assert quick_init(cls) is cls and cls.__init__ is before
    with pytest.raises(ValueError):
        WithPostInit(-1)


def test_defaults_and_factories_and_keyword_only() -> None:
    @quick_init
    @dataclasses.dataclass(frozen=True, slots=True)
    class Slotted:
        a: int
        b: tuple[int, ...] = ()
        c: list[int] = dataclasses.field(default_factory=list)
        _: dataclasses.KW_ONLY
        d: str = "d"

    x, y = Slotted(1), Slotted(1, (2,), [3], d="e")
    assert (x.a, x.b, x.c, x.d) == (1, (), [], "d") and x.c is not Slotted(1).c
    assert (y.a, y.b, y.c, y.d) == (1, (2,), [3], "e")
    assert x == Slotted(1) and x != y
    with pytest.raises(TypeError):
        Slotted(1, (2,), [3], "e")  # type: ignore[misc]  # d is keyword-only
    with pytest.raises(TypeError):
        Slotted()  # type: ignore[call-arg]
