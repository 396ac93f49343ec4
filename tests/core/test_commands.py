"""Issue 17, "the command that makes it true": each inference verdict's command carries the flags
the verdict assumed (context, layers on the card, cards, offload), in the engine that loads its build.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

from bot.core import commands, memory, recommend
from bot.core.answer import answer
from bot.core.engine import builds
from bot.core.errors import KnowledgeError
from bot.core.knowledge import get_catalog
from bot.core.phrase.commands import command_text
from bot.core.types import Intent, Lang, Query

CAT = get_catalog()


def _flag(run: str, name: str) -> str | None:
    m = re.search(rf"(?:^|\s){re.escape(name)} (\S+)", run)
    return m.group(1) if m else None


def _by_format(a):
    return {e.format: e for e in a.fit}


def _verdict(model: str, gpu: str, fmt: str, question: str) -> tuple[builds.BuildVerdict, Query]:
    """One build judged on one card, as the engine judges it (not only the ones an answer lists)."""
    m, g = CAT.models[model], CAT.gpus[gpu]
    q = Query(intent=Intent.FIT, models=(model,), gpus=(gpu,), text=question)
    base = recommend.workload_for(m, q)
    b = next(b for b in builds.usable_builds(CAT, m, q, g) if b.format_id == fmt)
    e = memory.estimate(m, g, workload=builds.build_workload(m, base, b))
    return builds.BuildVerdict(b, e, builds._fits(e, False)), q


def test_llama_31_8b_q4_k_m_on_a_3060_puts_every_layer_on_the_card_at_the_assumed_context() -> None:
    v, _ = _verdict("llama-3.1-8b", "rtx-3060-12gb", "gguf-q4_k_m", "llama 3.1 8b on a 3060 12gb")
    assert v.fits  # 4.92 GB file + KV cache at 4k well under 12 GB
    m, g = CAT.models["llama-3.1-8b"], CAT.gpus["rtx-3060-12gb"]
    ctx = v.estimate.workload.seq_len
    c = commands.command_for(
        m,
        g,
        format_id="gguf-q4_k_m",
        family="gguf",
        release=False,
        fits=True,
        context_tokens=ctx,
        repos=commands.repos_for(CAT, m.id),
    )
    assert c is not None and c.engine == "llama.cpp"
    # Llama 3.1 8B: num_hidden_layers 32; llama.cpp counts the output layer too ("33/33 layers")
    assert int(_flag(c.run, "-ngl") or 0) >= m.layers
    assert int(_flag(c.run, "-c") or 0) == ctx == 4096  # the context the answer assumed
    assert "-hf bartowski/Meta-Llama-3.1-8B-Instruct-GGUF:Q4_K_M" in c.run  # the published file
    assert _flag(c.check, "-ngl") == _flag(c.run, "-ngl") and c.check.startswith("llama-bench")
    # and Ollama, whose llama3.1:8b tag is that Q4_K_M build, with num_ctx set to the same context
    (alt,) = c.alternatives
    assert "FROM llama3.1:8b" in alt.run and f"PARAMETER num_ctx {ctx}" in alt.run


def test_the_answer_json_carries_the_headline_command_with_its_context() -> None:
    a = answer("can I run llama 3.1 8b on a 3060 12gb", catalog=CAT)
    head = next(e for e in a.fit if e.fits)
    cmd = a.to_json()["fit"][a.fit.index(head)]["command"]
    assert cmd["engine"] == "llama.cpp" and cmd["format"] == head.format
    assert f"-c {head.assumptions['seq_len']}" in cmd["run"]
    assert cmd["check"].startswith("llama-bench")
    # an asked context is the one the command sets
    long = answer("can I run llama 3.1 8b on a 3060 12gb at 16k context", catalog=CAT)
    run = next(e.command for e in long.fit if e.fits and e.command)["run"]
    assert _flag(run, "-c") == str(long.fit[0].assumptions["seq_len"]) == "16384"


def test_70b_q4_k_m_on_two_3090s_splits_across_both_cards() -> None:
    a = answer("can I run llama 3.1 70b on 2x 3090", catalog=CAT)
    q4 = _by_format(a)["gguf-q4_k_m"]
    assert q4.fits and q4.num_gpus == 2
    run = q4.command["run"]
    assert _flag(run, "-ts") == "1,1" or _flag(run, "--tensor-parallel-size") == "2"
    # the release build does not fit two cards: its command is for the fewest it fits on, tensor parallel
    bf16 = _by_format(a)["bf16"]
    assert bf16.command["engine"] == "vllm"
    assert _flag(bf16.command["run"], "--tensor-parallel-size") == str(bf16.min_cards)
    assert _flag(bf16.command["run"], "--max-model-len") == "4096"


def test_a_partial_offload_verdict_puts_fewer_layers_on_the_card() -> None:
    # Llama 3.3 70B Q4_K_M (42.5 GB file) on a 24 GB card: the answer offers -ngl with the rest in RAM
    a = answer("can I run llama 3.3 70b on a 4090", catalog=CAT)
    offer = next(n for n in a.notes if n.code.value == "partial_offload")
    q4 = _by_format(a)["gguf-q4_k_m"]
    ngl = int(_flag(q4.command["run"], "-ngl") or 0)
    assert ngl == offer.values["layers_gpu"] < CAT.models["llama-3.3-70b"].layers
    assert q4.command["cards"] == 1 and "-ts" not in q4.command["run"]
    alt = q4.command["alternatives"][0]
    assert alt["engine"] == "ollama" and f"num_gpu {ngl}" in alt["run"]
    # the terminal shows the headline and that offer
    text = command_text(a)
    assert text is not None and f"-ngl {ngl}" in text and text.count("```sh") >= 3


def test_moe_expert_offload_keeps_the_experts_in_ram() -> None:
    a = answer("can I run qwen3 235b on a 4090", catalog=CAT)
    assert any(n.code.value == "moe_cpu_offload" for n in a.notes)
    q4 = _by_format(a)["gguf-q4_k_m"]
    run = q4.command["run"]
    layers = CAT.models["qwen3-235b-a22b"].layers  # 94 (config.json num_hidden_layers)
    assert _flag(run, "--n-cpu-moe") == str(layers)
    assert int(_flag(run, "-ngl") or 0) > layers  # everything else on the card
    assert "<path to the Q4_K_M .gguf of Qwen3 235B-A22B>" in run  # no repo recorded: a placeholder
    assert "ollama" not in run and not q4.command.get("alternatives")


def test_sdxl_on_8_gb_relies_on_model_cpu_offload() -> None:
    a = answer("can I run sdxl on an rtx 3070", catalog=CAT)
    head = next(e for e in a.fit if e.fits)
    assert isinstance(a.result, type(a.result)) and a.result.items[a.fit.index(head)].workload.model_offload
    cmd = head.command
    assert cmd["engine"] == "diffusers"
    assert "pipe.enable_model_cpu_offload()" in cmd["run"] and 'pipe.to("cuda")' not in cmd["run"]
    assert '"stabilityai/stable-diffusion-xl-base-1.0"' in cmd["run"]
    # a card that holds the pipeline moves it to the GPU instead
    big = answer("can I run sdxl on an rtx 4090", catalog=CAT)
    run = next(e for e in big.fit if e.fits).command["run"]
    assert 'pipe.to("cuda")' in run and "offload" not in run


def test_vllm_utilization_follows_the_verdict_and_kv_cache_maps_to_flags() -> None:
    m, g = CAT.models["qwen3-32b"], CAT.gpus["rtx-4090"]
    kw = dict(format_id="awq-int4", family="awq", release=False, fits=True, context_tokens=8192)
    c = commands.command_for(m, g, **kw, required_gb=20.0, capacity_gb=25.77, engine="vllm")
    assert c is not None and _flag(c.run, "--gpu-memory-utilization") == "0.90"
    # judged against the whole card (no engine named) and needing 95% of it: the flag says so
    c2 = commands.command_for(m, g, **kw, required_gb=24.5, capacity_gb=25.77)
    util = float(_flag(c2.run, "--gpu-memory-utilization") or 0)
    assert 24.5 / 25.77 < util <= commands.VLLM_MAX_UTIL
    assert "<AWQ 4-bit repo of Qwen3 32B>" in c2.run and "--quantization awq" in c2.run
    fp8 = commands.command_for(m, g, **kw, kv_cache="fp8")
    assert _flag(fp8.run, "--kv-cache-dtype") == "fp8"
    gg = dict(kw, format_id="gguf-q4_k_m", family="gguf")
    q8 = commands.command_for(m, g, **gg, kv_cache="q8_0")
    assert _flag(q8.run, "-ctk") == _flag(q8.run, "-ctv") == "q8_0" and "-fa on" in q8.run
    assert "-ctk" not in commands.command_for(m, g, **gg, kv_cache="f16").run


def test_nothing_runs_it_means_no_command() -> None:
    m, g = CAT.models["llama-3.1-405b"], CAT.gpus["rtx-3060-12gb"]
    assert (
        commands.command_for(
            m, g, format_id="bf16", family="native", release=True, fits=False, min_cards=None
        )
        is None
    )
    # a training answer has none, and says so in the terminal
    a = answer("can I fine-tune llama 3 8b with qlora on a 3090", catalog=CAT)
    assert all(e.command is None for e in a.fit) and command_text(a) is None


def test_apple_unified_memory_runs_llama_cpp() -> None:
    a = answer("can I run llama 3.1 8b on a mac m2 max", catalog=CAT)
    head = next(e for e in a.fit if e.fits)
    assert head.command["engine"] == "llama.cpp" and "nvidia-smi" not in head.command["check"]


def test_the_intro_line_is_translated_and_the_command_is_not() -> None:
    q = "can I run llama 3.1 8b on a 3060 12gb"
    en = command_text(answer(q, catalog=CAT))
    zh = command_text(answer(q, catalog=CAT, lang=Lang.ZH_HANS))
    assert en is not None and zh is not None
    assert "llama-server -hf" in en and "llama-server -hf" in zh
    assert en.splitlines()[0] != zh.splitlines()[0] and "命令" in zh.splitlines()[0]


def test_button_key_round_trips_to_the_same_verdict() -> None:
    a = answer("can I run llama 3.3 70b on a 4090 with 64gb ram", catalog=CAT)
    key = commands.button_key(a.query)
    assert key is not None and len("gpu:cmd:" + key) <= 100
    again = answer(commands.query_from_key(key), catalog=CAT)
    assert [e.command for e in again.fit] == [e.command for e in a.fit]
    assert commands.query_from_key("bad key") is None
    assert commands.button_key(replace(a.query, gpus=("rtx-4090", "rtx-3090"))) is None


def test_repos_file_is_valid_and_sourced(tmp_path: Path) -> None:
    table = commands.load_repos(CAT.directory, CAT.models)
    assert table and all(r.source for r in table.values())
    assert {r.ollama_format for r in table.values()} <= set(CAT.formats)
    bad = tmp_path / "model-repos.yaml"
    bad.write_text("repos:\n  - model: no-such-model\n    hf_repo: x/y\n    source: s\n", encoding="utf-8")
    with pytest.raises(KnowledgeError, match="unknown model id"):
        commands.load_repos(tmp_path, CAT.models)
    bad.write_text("repos:\n  - model: sdxl\n    hf_repo: x/y\n", encoding="utf-8")
    with pytest.raises(KnowledgeError, match="source"):
        commands.load_repos(tmp_path, CAT.models)


def test_a_named_precision_gets_the_engine_of_that_precision() -> None:
    # "in 4-bit" on two cards: vLLM with an AWQ build split tensor-parallel over both
    a = answer("can I run llama 3.1 70b in 4-bit on 2x 3090", catalog=CAT)
    (e,) = a.fit
    assert e.fits and e.command["engine"] == "vllm"
    assert _flag(e.command["run"], "--tensor-parallel-size") == "2"
    assert _flag(e.command["run"], "--max-model-len") == str(e.assumptions["seq_len"])
    # fp16 of a bf16 release: vLLM is told the dtype
    fp16 = answer("llama 3.1 8b in fp16 on a 4090", catalog=CAT).fit[0].command
    assert _flag(fp16["run"], "--dtype") == "float16"


def test_mxfp4_release_runs_in_vllm_with_the_gguf_engines_as_alternatives() -> None:
    # gpt-oss-20b ships in MXFP4 (model card); ggml-org/gpt-oss-20b-GGUF and Ollama's gpt-oss:20b hold it
    cmd = answer("gpt-oss 20b on a 4060 ti 16gb", catalog=CAT).fit[0].command
    assert cmd["engine"] == "vllm" and cmd["run"].startswith("vllm serve openai/gpt-oss-20b")
    alts = {a["engine"]: a["run"] for a in cmd["alternatives"]}
    layers = CAT.models["gpt-oss-20b"].layers  # 24 (config.json num_hidden_layers)
    assert _flag(alts["llama.cpp"], "-ngl") == str(layers + 1)
    assert "FROM gpt-oss:20b" in alts["ollama"] and "PARAMETER num_ctx 4096" in alts["ollama"]


def test_a_length_limit_leaves_out_whole_blocks_never_half_of_one() -> None:
    a = answer("can I run llama 3.3 70b on a 4090", catalog=CAT)
    full = command_text(a)
    assert full is not None and "Ollama" in full
    short = command_text(a, max_chars=len(full) - 1)
    assert short is not None and len(short) < len(full) and "Ollama" not in short
    assert short.count("```") % 2 == 0 and "llama-server" in short
    assert command_text(a, max_chars=10) is None


def test_ollama_named_comes_first_and_imports_a_file_no_tag_downloads() -> None:
    a = answer("llama 3.1 8b on a 4090 with ollama", catalog=CAT)
    head = next(e for e in a.fit if e.fits)
    cmd = head.command
    assert cmd["engine"] == "ollama" and cmd["format"] == head.format
    ctx = head.assumptions["seq_len"]
    assert f"PARAMETER num_ctx {ctx}" in cmd["run"]
    if head.format != "gguf-q4_k_m":  # only Q4_K_M has a library tag (llama3.1:8b)
        assert "FROM <path to the" in cmd["run"]
    assert [x["engine"] for x in cmd["alternatives"]] == ["llama.cpp"]


def test_sequential_offload_verdict_gets_its_call_and_longest_context_sets_the_context() -> None:
    # FLUX.1-dev in bf16 (~33 GB of weights) on a 12 GB card: only diffusers' sequential CPU
    # offload runs the release build (one layer on the card at a time), and its command says so
    a = answer("can I run flux.1-dev on an rtx 3060 12gb")
    bf16 = next(f for f in a.fit if f.format == "bf16")
    assert not bf16.fits and bf16.command is not None
    assert "pipe.enable_sequential_cpu_offload()" in bf16.command["run"]
    # a "longest context" question: -c / --max-model-len is that context, not the 4,096 default
    b = answer("max context for llama 3.1 8b on a 4090")
    for f in b.fit:
        assert f.command is not None and f.max_context_tokens
        flag = "--max-model-len" if f.command["engine"] == "vllm" else "-c"
        assert f"{flag} {f.max_context_tokens}" in f.command["run"]
        assert f.command["context_tokens"] == f.max_context_tokens
