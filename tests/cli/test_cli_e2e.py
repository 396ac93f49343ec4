"""The terminal surface as a user runs it: `python -m bot ...` in a subprocess."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from bot.core.answer import answer
from bot.core.knowledge import get_catalog

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]


def run(
    *args: str, stdin: str | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess:
    full_env = {k: v for k, v in os.environ.items() if k not in ("DISCORD_TOKEN", "KNOWLEDGE_DIR")}
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "bot", *args],
        cwd=ROOT,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        env=full_env,
    )


def test_ask_prints_the_same_text_as_answer():
    q = "can I fine-tune llama 3 8b with qlora on a 3090?"
    p = run("ask", q)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == answer(q, catalog=get_catalog()).text.strip()


def test_ask_json_is_one_object_with_the_contract():
    p = run("ask", "--json", "3090 vs 4090 for stable diffusion")
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    assert d["intent"] == "compare" and d["gpus"] == ["rtx-3090", "rtx-4090"]
    assert len(d["comparison"]) == 2 and d["text"]


def test_ask_json_stdin_batch_one_line_each_no_shared_context():
    qs = [
        "what gpu for bert under $1000",
        "what about under $500?",
        "asdfghjkl",
        "预算800美元，训练BERT-large用什么显卡",
    ]
    p = run("ask", "--json", "-", stdin="\n".join(qs) + "\n")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.strip().split("\n")
    assert len(lines) == len(qs)
    objs = [json.loads(line) for line in lines]
    assert objs[0]["models"] == ["bert-base"] and objs[0]["budget_usd"] == 1000
    assert objs[1]["models"] == []  # no context carries between lines
    assert objs[3]["models"] == ["bert-large"] and objs[3]["budget_usd"] == 800


def test_chat_keeps_context_across_follow_ups():
    p = run("chat", stdin="can a 3090 run llama 3 8b\nwhat about the 4060 ti 16gb?\nquit\n")
    assert p.returncode == 0, p.stderr
    assert "RTX 3090" in p.stdout and "4060 Ti 16 GB" in p.stdout
    assert p.stdout.count("Llama 3 8B") >= 2


def test_bare_python_m_bot_starts_chat_without_token():
    p = run(stdin="help\n")
    assert p.returncode == 0, p.stderr
    assert "gpu-advisor" in p.stdout and "what GPU for BERT" in p.stdout


def test_run_without_token_is_a_clear_message():
    p = run("run")
    assert p.returncode == 2
    assert "DISCORD_TOKEN" in p.stderr and "Traceback" not in p.stderr


def test_check_passes_on_shipped_knowledge():
    p = run("check")
    assert p.returncode == 0, p.stderr
    assert "cards:" in p.stdout and "models:" in p.stdout


def test_broken_knowledge_fails_at_start_up_naming_file_entry_field(tmp_path):
    k = tmp_path / "knowledge"
    shutil.copytree(ROOT / "knowledge", k)
    data = yaml.safe_load((k / "gpus.yaml").read_text(encoding="utf-8"))
    data["gpus"][0]["vram_gb"] = -11
    (k / "gpus.yaml").write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    for args in (("check",), ("ask", "hi"), ("chat",)):
        p = run(*args, env={"KNOWLEDGE_DIR": str(k)}, stdin="")
        assert p.returncode == 2, args
        assert "gpus.yaml" in p.stderr and "vram_gb" in p.stderr and data["gpus"][0]["id"] in p.stderr
        assert "Traceback" not in p.stderr


def test_knowledge_dir_override_is_used(tmp_path):
    k = tmp_path / "knowledge"
    shutil.copytree(ROOT / "knowledge", k)
    data = yaml.safe_load((k / "gpus.yaml").read_text(encoding="utf-8"))
    for g in data["gpus"]:
        if g["id"] == "rtx-3090":
            g["vram_gb"] = 48
    (k / "gpus.yaml").write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    p = run("ask", "--json", "can a 3090 run llama 3 8b", env={"KNOWLEDGE_DIR": str(k)})
    assert json.loads(p.stdout)["fit"][0]["vram_gb"] == 48
