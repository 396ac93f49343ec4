"""YAML read with libyaml when it is there: ``yaml.safe_load`` is the pure-Python parser, about ten
times slower (the test corpus alone took 4 s to read with it). Same safe schema either way."""

from __future__ import annotations

from typing import Any

import yaml

_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def safe_load(text: str) -> Any:
    """``safe_load(text)``, through libyaml's parser when PyYAML was built with it."""
    return yaml.load(text, Loader=_LOADER)  # noqa: S506 - a SafeLoader (C or Python)
