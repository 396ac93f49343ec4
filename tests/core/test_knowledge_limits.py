"""Hostile knowledge files fail fast, with one short line naming file, entry and field:
upper bounds on every number, a size limit per file, a limit on YAML alias expansion
("billion laughs"), and error messages that never print a huge value."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest

from bot.core.knowledge import MAX_FILE_BYTES, UPPER_BOUNDS, KnowledgeError, load_catalog

SHIPPED = Path(__file__).resolve().parents[2] / "knowledge"


def copy_with(tmp_path: Path, rel: str, edit) -> Path:  # type: ignore[no-untyped-def]
    target = tmp_path / "knowledge"
    shutil.copytree(SHIPPED, target)
    path = target / rel
    path.write_text(edit(path.read_text(encoding="utf-8")), encoding="utf-8")
    return target


def load_error(directory: Path) -> KnowledgeError:
    with pytest.raises(KnowledgeError) as info:
        load_catalog(directory)
    message = str(info.value)
    assert "\n" not in message and len(message) < 400, message
    return info.value


def _entry_line(lines: list[str], entry_id: str) -> int:
    ids = (f"- id: {entry_id}", f'- id: "{entry_id}"')
    return next(i for i, line in enumerate(lines) if line.strip() in ids)


def replace_field(text: str, entry_id: str, field: str, value: str) -> str:
    """Set ``field`` of the entry ``entry_id`` in a YAML list file (text edit: keeps the rest)."""
    lines = text.splitlines()
    start = _entry_line(lines, entry_id)
    for i in range(start, len(lines)):
        if lines[i].strip().startswith(f"{field}:"):
            indent = lines[i][: len(lines[i]) - len(lines[i].lstrip())]
            lines[i] = f"{indent}{field}: {value}"
            return "\n".join(lines) + "\n"
    raise AssertionError(f"{entry_id}.{field} not found")


@pytest.mark.parametrize(
    ("rel", "entry_id", "field", "value"),
    [
        ("gpus.yaml", "rtx-4090", "vram_gb", "1.0e+300"),
        ("gpus.yaml", "rtx-4090", "tdp_w", "450000"),
        ("gpus.yaml", "rtx-4090", "memory_bandwidth_gbs", "1.0e+9"),
        ("gpus.yaml", "rtx-4090", "price_usd", "99999999999"),
        ("models.yaml", "llama-3-8b", "params", "8000000000000000000000"),
        ("models.yaml", "llama-3-8b", "layers", "10000000"),
    ],
)
def test_numbers_past_their_upper_bound_fail_with_file_entry_field(
    tmp_path: Path, rel: str, entry_id: str, field: str, value: str
) -> None:
    err = load_error(copy_with(tmp_path, rel, lambda t: replace_field(t, entry_id, field, value)))
    assert err.file.endswith(rel)
    assert err.entry is not None and entry_id in err.entry
    assert err.field == field
    assert f"at most {UPPER_BOUNDS[field]:,g}" in err.problem


def test_shipped_values_are_within_the_bounds() -> None:
    load_catalog(SHIPPED)  # no bound is tighter than a real card or model


def test_billion_laughs_fails_fast_naming_the_entry_and_field(tmp_path: Path) -> None:
    def bomb(text: str) -> str:
        # nine levels of ten aliases each: 10^9 strings once expanded
        anchors = ['&a0 ["lol"]'] + [f"&a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 10)]
        lines = text.splitlines()
        start = _entry_line(lines, "rtx-4090")
        indent = lines[start + 1][: len(lines[start + 1]) - len(lines[start + 1].lstrip())]
        lines.insert(start + 1, f"{indent}estimated_bomb: [{', '.join(anchors)}]")
        return "\n".join(lines) + "\n"

    t0 = time.monotonic()
    err = load_error(copy_with(tmp_path, "gpus.yaml", bomb))
    took = time.monotonic() - t0
    assert took < 5, took
    assert err.entry == "gpu 'rtx-4090'"
    assert err.field == "estimated_bomb"
    assert "aliases" in err.problem


def test_a_huge_value_is_shown_clipped(tmp_path: Path) -> None:
    huge = "x" * 200_000
    err = load_error(
        copy_with(tmp_path, "gpus.yaml", lambda t: replace_field(t, "rtx-4090", "vram_gb", huge))
    )
    assert err.field == "vram_gb" and "..." in str(err) and len(str(err)) < 300


def test_a_file_past_the_size_limit_is_refused_before_parsing(tmp_path: Path) -> None:
    err = load_error(copy_with(tmp_path, "models.yaml", lambda t: t + "#" * (MAX_FILE_BYTES + 1) + "\n"))
    assert err.file.endswith("models.yaml") and "limit" in err.problem


def test_deeply_nested_yaml_is_a_clean_error(tmp_path: Path) -> None:
    err = load_error(
        copy_with(tmp_path, "gpus.yaml", lambda t: t + "extra: " + "[" * 50_000 + "]" * 50_000 + "\n")
    )
    assert err.file.endswith("gpus.yaml")
