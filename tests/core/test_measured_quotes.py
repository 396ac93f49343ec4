"""A question whose workload was measured exactly gets the published figure, labelled measured (issue #13)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bot.core.answer import answer
from bot.core.errors import KnowledgeError
from bot.core.knowledge import get_catalog, load_catalog

CAT = get_catalog()
KNOWLEDGE = Path(__file__).resolve().parents[2] / "knowledge"


def test_every_published_figure_is_loaded() -> None:
    assert len(CAT.measured_memory) == 70  # the calibration set's records with a figure


def test_exact_workload_quotes_the_measurement() -> None:
    # LitGPT's resource table: Llama 2 7B, bf16, 1 prompt of 56 tokens on an A100 40GB: 13.52 GB allocated
    a = answer("can an a100 40gb run llama 2 7b in bf16 with seq 56", catalog=CAT)
    e = a.fit[0]
    assert e.measured_gb == pytest.approx(13.52) and "litgpt" in (e.measured_source or "").lower()
    assert "Measured by LitGPT for exactly this setup: 13.5 GB" in a.text
    assert "memory_measured" in a.to_json()["basis"]
    zh = answer("a100 40gb能跑bf16的llama 2 7b吗，序列长度56", catalog=CAT)
    assert zh.fit[0].measured_gb == e.measured_gb and "实测" in zh.text


def test_a_different_workload_quotes_nothing() -> None:
    a = answer("can an a100 40gb run llama 2 7b in bf16 with seq 2048", catalog=CAT)
    assert a.fit[0].measured_gb is None and "Measured by" not in a.text


def test_a_malformed_measurement_stops_loading_naming_it(tmp_path: Path) -> None:
    copy = tmp_path / "knowledge"
    shutil.copytree(KNOWLEDGE, copy)
    path = copy / "measured-memory.yaml"
    path.write_text(
        path.read_text(encoding="utf-8").replace("measured_gb: 13.52", "measured_gb: -1", 1), encoding="utf-8"
    )
    with pytest.raises(KnowledgeError) as err:
        load_catalog(copy)
    assert "measured-memory.yaml" in str(err.value) and "measured_gb" in str(err.value)
