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
from bot.core.yaml_io import safe_load

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


def test_show_command_in_ask_and_in_the_chat():
    # issue 17: the command that runs the verdict, after the answer (ask) or when asked (chat)
    from bot.core.phrase.commands import command_text

    q = "can I run llama 3.1 8b on a 3060 12gb"
    expected = command_text(answer(q, catalog=get_catalog()))
    assert expected is not None and "llama-server" in expected
    p = run("ask", "--show-command", q)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip().endswith(expected.strip())
    chat = run("chat", stdin=f"{q}\ncommand\nquit\n")
    assert chat.returncode == 0, chat.stderr
    assert expected.strip() in chat.stdout


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
    data = safe_load((k / "gpus.yaml").read_text(encoding="utf-8"))
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
    data = safe_load((k / "gpus.yaml").read_text(encoding="utf-8"))
    for g in data["gpus"]:
        if g["id"] == "rtx-3090":
            g["vram_gb"] = 48
    (k / "gpus.yaml").write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    p = run("ask", "--json", "can a 3090 run llama 3 8b", env={"KNOWLEDGE_DIR": str(k)})
    assert json.loads(p.stdout)["fit"][0]["vram_gb"] == 48


# --------------------------------------------------------------------------- python -m bot estimate

ESTIMATE_OUT = {
    "required_gb",
    "breakdown_gb",
    "fits",
    "max_batch_size",
    "low_gb",
    "high_gb",
    "assumptions",
    "error",
    "max_context_tokens",  # issue 17
}
ESTIMATE_ASSUMED = {
    "model",
    "gpu",
    "num_gpus",
    "task",
    "method",
    "precision",
    "optimizer",
    "batch_size",
    "seq_len",
    "resolution",
    "grad_checkpointing",
    "attention",
    "lora_rank",
    "lora_targets",
    "cpu_offload",
    "parallelism",
    "kv_cache",  # issue 17
    "engine",
}


def run_bytes(*args: str, stdin: bytes) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("DISCORD_TOKEN", "KNOWLEDGE_DIR")}
    return subprocess.run(
        [sys.executable, "-m", "bot", *args], cwd=ROOT, input=stdin, capture_output=True, timeout=60, env=env
    )


def test_estimate_answers_each_line_and_a_bad_line_never_stops_the_rest():
    lines = [
        b'{"model": "llama-3-8b", "gpu": "rtx-4090", "method": "qlora"}',
        b"this is not json",
        b'{"model": "llama-2-7b", "gpu": "RTX 3090", "task": "finetune", "precision": "bf16", "batch_size": 2}',
        b'{"model": "\xff\xfe broken utf-8"}',
        b'{"gpu": "rtx-4090"}',
        b'{"model": "foobarnet-9000"}',
        b'{"model": "llama-3-8b", "batch_size": -3}',
        b'{"model": "llama-3-8b", "seq_len": NaN}',
        b'{"model": "llama-3-8b", "precision": "fp7"}',
        b'{"model": "llama-3-8b", "batch": 4}',
        b"[1, 2]",
        b"",
        b'{"model": "Llama 3 8B", "task": "inference", "precision": "nf4", "seq_len": 8192}',
    ]
    p = run_bytes("estimate", stdin=b"\n".join(lines) + b"\n")
    assert p.returncode == 0, p.stderr
    out = [json.loads(x) for x in p.stdout.decode("utf-8").splitlines()]
    assert len(out) == len(lines)
    for o in out:
        assert set(o) == ESTIMATE_OUT
    good = [0, 2, 12]
    for i, o in enumerate(out):
        if i in good:
            assert o["error"] is None, (i, o)
            assert set(o["assumptions"]) == ESTIMATE_ASSUMED
            assert o["low_gb"] <= o["required_gb"] <= o["high_gb"]
            assert sum(o["breakdown_gb"].values()) == pytest.approx(o["required_gb"], abs=0.015)
        else:
            assert isinstance(o["error"], str) and o["error"].endswith((".", "?")), (i, o)
            assert o["required_gb"] is None and o["assumptions"] is None
    qlora, bf16, nf4 = out[0], out[2], out[12]
    # issue 17: the longest context only for inference on a card; training and no card have none
    assert qlora["max_context_tokens"] is None and nf4["max_context_tokens"] is None
    assert nf4["assumptions"]["kv_cache"] == "f16" and qlora["assumptions"]["kv_cache"] is None
    assert qlora["fits"] is True and qlora["max_batch_size"] >= 1
    a = qlora["assumptions"]
    assert a["method"] == "qlora" and a["precision"] == "nf4" and a["lora_rank"] == 64
    assert a["optimizer"] == "adamw" and a["grad_checkpointing"] is True and a["gpu"] == "rtx-4090"
    # "bf16" in the contract is pure bf16: 8 bytes a parameter, so 7B does not fit 24 GB
    assert bf16["assumptions"]["gpu"] == "rtx-3090" and bf16["assumptions"]["precision"] == "bf16"
    assert bf16["breakdown_gb"]["optimizer"] == pytest.approx(2 * 2 * 6.738, abs=0.1)
    assert bf16["fits"] is False
    assert (
        nf4["fits"] is None and nf4["max_batch_size"] is None and nf4["assumptions"]["model"] == "llama-3-8b"
    )
    assert "UTF-8" in out[3]["error"] and "JSON" in out[1]["error"]
    assert "model is required" in out[4]["error"] and "unknown model" in out[5]["error"]
    assert "batch_size" in out[6]["error"] and "precision" in out[8]["error"] and "batch" in out[9]["error"]
    assert "JSON" in out[7]["error"]  # NaN is not JSON


def test_estimate_matches_a_published_measurement():
    # LitGPT resource tables: Llama 2 7B bf16 inference on an A100 40GB, 13.52 GB allocated
    line = json.dumps(
        {"model": "llama-2-7b", "gpu": "a100-40gb", "task": "inference", "precision": "bf16", "seq_len": 56}
    )
    p = run("estimate", stdin=line + "\n")
    o = json.loads(p.stdout)
    assert 0.85 * 13.52 <= o["required_gb"] <= 1.25 * 13.52
    assert o["fits"] is True and o["assumptions"]["batch_size"] == 1


def test_estimate_reads_its_calibration_from_the_package(tmp_path):
    # the calibration belongs to the code (bot/core/memory.py), not to a KNOWLEDGE_DIR: another
    # knowledge dir without the file gives the same figures and band
    k = tmp_path / "knowledge"
    shutil.copytree(ROOT / "knowledge", k)
    (k / "benchmarks" / "memory-calibration.yaml").unlink()
    line = '{"model": "bert-base", "gpu": "rtx-3090"}\n'
    here = json.loads(run("estimate", stdin=line).stdout)
    p = run("estimate", stdin=line, env={"KNOWLEDGE_DIR": str(k)})
    assert p.returncode == 0, p.stderr
    there = json.loads(p.stdout)
    assert there == here and there["error"] is None
