"""The knowledge loader: shipped data loads, and every kind of broken file fails with one
line naming file, entry and field."""

from __future__ import annotations

import dataclasses
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from bot.core.errors import AdvisorError
from bot.core.knowledge import (
    GPU,
    Catalog,
    KnowledgeError,
    Model,
    default_knowledge_dir,
    get_catalog,
    load_catalog,
    normalise_name,
)

SHIPPED = Path(__file__).resolve().parents[2] / "knowledge"

REQUIRED_GPU_IDS = [
    # the 2020 guide's cards
    "gtx-1080-ti", "rtx-2060", "rtx-2070", "rtx-2080", "rtx-2080-ti", "titan-rtx",
    "quadro-rtx-6000", "quadro-rtx-8000", "tesla-v100-16gb", "tesla-v100-32gb", "titan-v",
    # Ampere
    "rtx-3060-12gb", "rtx-3060-ti", "rtx-3070", "rtx-3080-10gb", "rtx-3080-ti", "rtx-3090",
    "rtx-3090-ti", "rtx-a4000", "rtx-a5000", "rtx-a6000", "a10", "a100-40gb", "a100-80gb",
    # Ada
    "rtx-4060", "rtx-4060-ti-8gb", "rtx-4060-ti-16gb", "rtx-4070", "rtx-4070-super",
    "rtx-4070-ti", "rtx-4070-ti-super", "rtx-4080", "rtx-4080-super", "rtx-4090",
    "rtx-4000-ada", "rtx-6000-ada", "l4", "l40s",
    # Blackwell
    "rtx-5060-ti-16gb", "rtx-5070", "rtx-5070-ti", "rtx-5080", "rtx-5090", "rtx-pro-6000", "b200",
    # Turing / Hopper datacenter
    "t4", "h100-pcie", "h100-sxm", "h200",
    # AMD
    "rx-7900-xtx", "instinct-mi300x",
]  # fmt: skip

BENCHMARK_MODEL_IDS = [
    "alexnet", "vgg-16", "resnet-50", "resnet-152", "inception-v3", "inception-v4", "ssd300",
    "nasnet-large", "deeplabv3", "yolov3", "pix2pix-hd", "stylegan", "mask-rcnn",
]  # fmt: skip

PRICE_2020 = {
    "quadro-rtx-8000": 5500,
    "quadro-rtx-6000": 4000,
    "titan-rtx": 2500,
    "rtx-2080-ti": 1150,
    "gtx-1080-ti": 800,
    "rtx-2080": 720,
    "rtx-2070": 500,
    "rtx-2060": 359,
}


@pytest.fixture(scope="module")
def cat() -> Catalog:
    return load_catalog(SHIPPED)


# --------------------------------------------------------------------------- helpers


def broken_copy(tmp_path: Path, rel: str, mutate: Callable[[Any], Any]) -> Path:
    """Copy the shipped knowledge dir to tmp_path/knowledge and mutate one YAML file."""
    target = tmp_path / "knowledge"
    shutil.copytree(SHIPPED, target)
    path = target / rel
    # libyaml's loader and dumper (the loader the project itself uses): the pure-Python ones made
    # each of these cases take over a second
    data = yaml.load(path.read_text(encoding="utf-8"), Loader=yaml.CSafeLoader)
    result = mutate(data)
    if result is not None:
        data = result
    path.write_text(
        yaml.dump(data, Dumper=yaml.CSafeDumper, allow_unicode=True, sort_keys=False), encoding="utf-8"
    )
    return target


def entry(items: list[dict[str, Any]], entry_id: str) -> dict[str, Any]:
    return next(e for e in items if e["id"] == entry_id)


def load_error(directory: Path) -> KnowledgeError:
    with pytest.raises(KnowledgeError) as info:
        load_catalog(directory)
    err = info.value
    assert "\n" not in str(err)
    return err


def assert_names(err: KnowledgeError, file: str, ent: str | None, field: str | None) -> None:
    msg = str(err)
    assert msg.startswith(file + ":") or msg.startswith(file + ","), msg
    assert err.file == file
    if ent is not None:
        assert ent in msg, msg
        assert err.entry == ent
    if field is not None:
        assert f"field '{field}'" in msg, msg
        assert err.field == field


def gpu_mutation(gpu_id: str, change: Callable[[dict[str, Any]], None]) -> Callable[[Any], None]:
    def mutate(data: Any) -> None:
        change(entry(data["gpus"], gpu_id))

    return mutate


def model_mutation(model_id: str, change: Callable[[dict[str, Any]], None]) -> Callable[[Any], None]:
    def mutate(data: Any) -> None:
        change(entry(data["models"], model_id))

    return mutate


# --------------------------------------------------------------------------- shipped data


def test_shipped_knowledge_loads(cat: Catalog) -> None:
    assert len(cat.gpus) >= 50
    assert len(cat.models) >= len(BENCHMARK_MODEL_IDS)
    assert len(cat.benchmarks) >= 4
    summary = cat.summary()
    assert f"cards: {len(cat.gpus)}" in summary
    assert f"models: {len(cat.models)}" in summary
    assert "oldest price date" in summary
    assert "cards missing a price" in summary


@pytest.mark.parametrize("gpu_id", REQUIRED_GPU_IDS)
def test_required_gpu_ids_load(cat: Catalog, gpu_id: str) -> None:
    g = cat.gpu(gpu_id)
    assert isinstance(g, GPU)
    assert g.id == gpu_id
    assert g.vram_gb > 0 and g.memory_bandwidth_gbs > 0 and g.source


@pytest.mark.parametrize("model_id", BENCHMARK_MODEL_IDS)
def test_benchmark_model_ids_load(cat: Catalog, model_id: str) -> None:
    assert isinstance(cat.model(model_id), Model)


def test_unknown_ids_raise_key_error(cat: Catalog) -> None:
    with pytest.raises(KeyError):
        cat.gpu("rtx-9090")
    with pytest.raises(KeyError):
        cat.model("gpt-9")


def test_catalog_is_read_only(cat: Catalog) -> None:
    with pytest.raises(TypeError):
        cat.gpus["x"] = cat.gpu("rtx-4090")  # type: ignore[index]
    with pytest.raises(dataclasses.FrozenInstanceError):
        cat.gpu("rtx-4090").vram_gb = 48  # type: ignore[misc]


def test_ids_and_aliases_unique_across_catalog(cat: Catalog) -> None:
    seen: dict[str, str] = {}
    for kind, items in (("gpu", cat.gpus.values()), ("model", cat.models.values())):
        for e in items:
            for n in {normalise_name(x) for x in (e.id, *e.aliases)}:
                assert n not in seen, f"{n!r} used by {seen[n]} and {kind} {e.id}"
                seen[n] = f"{kind} {e.id}"
    assert len(cat.names()) == len(seen)


def test_ambiguous_bare_names_are_not_aliases(cat: Catalog) -> None:
    names = cat.names()
    for bare in ("4060 ti", "5060 ti", "a100", "h100", "v100", "rtx 6000"):
        assert bare not in names, bare
    assert names["3080"] == ("gpu", "rtx-3080-10gb")
    assert names["titan"] == ("gpu", "titan-rtx")
    assert names["rtx 8000"] == ("gpu", "quadro-rtx-8000")
    assert names["a100 80gb"] == ("gpu", "a100-80gb")
    assert names["2080ti"] == names["rtx 2080 ti"] == ("gpu", "rtx-2080-ti")


def test_gpu_and_model_fields_match_schema_md() -> None:
    text = (SHIPPED / "SCHEMA.md").read_text(encoding="utf-8")
    gpu_part = text.split("## `gpus.yaml`")[1].split("## `models.yaml`")[0]
    schema_fields = set(re.findall(r"^\| `([a-z0-9_]+)` \|", gpu_part, flags=re.M))
    assert schema_fields == {f.name for f in dataclasses.fields(GPU)}
    model_part = text.split("## `models.yaml`")[1].split("## `benchmarks")[0]
    model_fields = set(re.findall(r"`([a-z0-9_]+)`", model_part))
    for f in dataclasses.fields(Model):
        assert f.name in model_fields, f.name


def test_price_facts(cat: Catalog) -> None:
    for gpu_id, price in PRICE_2020.items():
        assert cat.gpu(gpu_id).price_2020_usd == price
    for gpu_id in ("titan-v", "tesla-v100-16gb", "tesla-v100-32gb"):
        assert cat.gpu(gpu_id).price_2020_usd is None
    for g in cat.gpus.values():
        if g.price_2020_usd is not None:
            assert g.id in PRICE_2020
        if g.price_usd is not None:
            assert g.price_date and g.price_kind and g.price_source
    assert cat.gpu("gtx-1080-ti").fp16_tensor_tflops is None
    assert cat.gpu("rtx-4090").fp16_tensor_tflops == 165.2
    assert cat.gpu("rtx-3090").fp16_tensor_tflops == 71
    assert cat.gpu("rx-7900-xtx").is_rocm and cat.gpu("instinct-mi300x").is_rocm
    assert not cat.gpu("rtx-4090").is_rocm


def test_currencies(cat: Catalog) -> None:
    for code in ("EUR", "GBP", "CNY", "JPY", "CAD", "AUD", "INR", "KRW"):
        rate = cat.currencies[code]
        assert rate.usd_per_unit > 0 and rate.date and rate.source
    assert "¥" in cat.currencies["CNY"].symbols
    assert "元" in cat.currencies["CNY"].symbols
    assert "円" in cat.currencies["JPY"].symbols and "¥" not in cat.currencies["JPY"].symbols


# --------------------------------------------------------------------------- benchmarks


def test_benchmark_lookups(cat: Catalog) -> None:
    b = cat.benchmarks
    mv = b.max_batch("nasnet-large", "quadro-rtx-8000")
    assert mv is not None and mv.value == 64 and mv.semantics == "largest_tried"
    assert mv.set_id == "lambda-2020-max-batch" and "lambdalabs.com" in mv.source
    zero = b.max_batch("pix2pix-hd", "rtx-2080-ti")
    assert zero is not None and zero.value == 0 and zero.does_not_fit
    assert b.max_batch("pix2pix-hd", "rtx-4090") is None
    assert b.throughput("resnet-50", "a100-40gb", "fp16").value == 2075  # type: ignore[union-attr]
    assert b.throughput("resnet-50", "a100-40gb", "fp32").value == 953  # type: ignore[union-attr]
    assert b.throughput("stylegan", "titan-rtx", "unstated") is None  # row has 5 cards only
    assert b.throughput("yolov3", "titan-rtx", "unstated").value == 14.22  # type: ignore[union-attr]
    kb = b.known_batch("resnet-50", 24)
    assert kb is not None and kb.value == 128 and kb.semantics == "known_to_run"
    # 10 GB: the 8 GB tier says 48, the RTX 3080 10 GB ran 56 -> the larger known-to-run batch
    kb10 = b.known_batch("resnet-50", 10)
    assert kb10 is not None and kb10.value == 56 and kb10.basis == "rtx-3080-10gb (10 GB)"
    assert b.known_batch("resnet-50", 4) is None
    assert b.known_batch("resnet-50", 24, precision="fp16").value == 128  # type: ignore[union-attr]
    assert len(b.cells("lambda-2020-max-batch")) == 6 * 8
    with pytest.raises(KeyError):
        b.cells("no-such-set")


def test_benchmark_rows_only_name_catalog_cards(cat: Catalog) -> None:
    for s in cat.benchmarks:
        for model_id, gpu_id, value in s.cells():
            assert model_id in cat.models and gpu_id in cat.gpus and value >= 0
            assert "laptop" not in gpu_id


# --------------------------------------------------------------------------- environment / cache


def test_default_knowledge_dir_override(tmp_path: Path) -> None:
    assert default_knowledge_dir({}) == SHIPPED
    assert default_knowledge_dir({"KNOWLEDGE_DIR": ""}) == SHIPPED
    copy = tmp_path / "kn"
    shutil.copytree(SHIPPED, copy)
    assert default_knowledge_dir({"KNOWLEDGE_DIR": str(copy)}) == copy
    assert len(load_catalog(default_knowledge_dir({"KNOWLEDGE_DIR": str(copy)})).gpus) == len(
        load_catalog(SHIPPED).gpus
    )


def test_load_catalog_default_is_package_dir() -> None:
    assert load_catalog().directory == SHIPPED


def test_get_catalog_is_cached() -> None:
    assert get_catalog() is get_catalog()


# --------------------------------------------------------------------------- error kinds


def test_error_message_format(tmp_path: Path) -> None:
    d = broken_copy(tmp_path, "gpus.yaml", gpu_mutation("rtx-4090", lambda g: g.update(vram_gb=-24)))
    err = load_error(d)
    assert str(err) == (
        "knowledge/gpus.yaml: gpu 'rtx-4090', field 'vram_gb': must be a positive number, got -24"
    )
    assert isinstance(err, AdvisorError)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("vram_gb", 0),
        ("vram_gb", "24"),
        ("memory_bandwidth_gbs", -1008),
        ("tdp_w", 0),
        ("tdp_w", 450.5),
        ("fp32_tflops", True),
        ("bf16", "yes"),
        ("aliases", "4090"),
        ("vendor", "qualcomm"),
        ("software", "opencl"),
        ("segment", "gaming"),
        ("price_kind", "cheap"),
        ("release", "2022-13"),
        ("release", "Oct 2022"),
        ("price_date", "2026"),
        ("source", ""),
        ("estimated", ["not_a_field"]),
        ("id", "RTX 4090"),
    ],
)
def test_bad_gpu_field(tmp_path: Path, field: str, value: Any) -> None:
    d = broken_copy(tmp_path, "gpus.yaml", gpu_mutation("rtx-4090", lambda g: g.update({field: value})))
    err = load_error(d)
    ent = "gpu 'RTX 4090'" if field == "id" else "gpu 'rtx-4090'"
    assert_names(err, "knowledge/gpus.yaml", ent, "estimated[0]" if field == "estimated" else field)


def test_unknown_gpu_key(tmp_path: Path) -> None:
    d = broken_copy(tmp_path, "gpus.yaml", gpu_mutation("rtx-4090", lambda g: g.update(vram=24)))
    err = load_error(d)
    assert_names(err, "knowledge/gpus.yaml", "gpu 'rtx-4090'", "vram")
    assert "unknown key" in str(err)


@pytest.mark.parametrize("field", ["vram_gb", "source", "name", "fp16_tensor_tflops", "price_usd"])
def test_missing_required_gpu_key(tmp_path: Path, field: str) -> None:
    d = broken_copy(tmp_path, "gpus.yaml", gpu_mutation("rtx-4090", lambda g: g.pop(field)))
    err = load_error(d)
    assert_names(err, "knowledge/gpus.yaml", "gpu 'rtx-4090'", field)
    assert "missing" in str(err)


@pytest.mark.parametrize("field", ["price_date", "price_source", "price_kind"])
def test_price_without_date_or_source(tmp_path: Path, field: str) -> None:
    d = broken_copy(tmp_path, "gpus.yaml", gpu_mutation("rtx-5080", lambda g: g.pop(field)))
    err = load_error(d)
    assert_names(err, "knowledge/gpus.yaml", "gpu 'rtx-5080'", field)
    assert "price_usd" in str(err)


def test_estimated_field_without_value(tmp_path: Path) -> None:
    def change(g: dict[str, Any]) -> None:
        g["estimated"] = ["fp16_tensor_tflops"]

    d = broken_copy(tmp_path, "gpus.yaml", gpu_mutation("gtx-1080-ti", change))
    assert_names(load_error(d), "knowledge/gpus.yaml", "gpu 'gtx-1080-ti'", "estimated[0]")


def test_duplicate_gpu_id(tmp_path: Path) -> None:
    def mutate(data: Any) -> None:
        dup = dict(entry(data["gpus"], "rtx-4090"))
        dup["aliases"] = ["some other alias"]
        data["gpus"].append(dup)

    err = load_error(broken_copy(tmp_path, "gpus.yaml", mutate))
    assert_names(err, "knowledge/gpus.yaml", "gpu 'rtx-4090'", "id")
    assert "duplicate" in str(err)


def test_alias_duplicated_across_cards(tmp_path: Path) -> None:
    d = broken_copy(tmp_path, "gpus.yaml", gpu_mutation("rtx-3090", lambda g: g["aliases"].append("4090")))
    err = load_error(d)
    assert_names(err, "knowledge/gpus.yaml", "gpu 'rtx-4090'", None)
    assert "gpu 'rtx-3090'" in str(err) and "aliases[" in str(err)


def test_alias_duplicate_is_normalised(tmp_path: Path) -> None:
    d = broken_copy(
        tmp_path, "gpus.yaml", gpu_mutation("rtx-5090", lambda g: g["aliases"].append("  RTX   4090 "))
    )
    err = load_error(d)
    assert "gpu 'rtx-5090'" in str(err) and "gpu 'rtx-4090'" in str(err)


def test_alias_duplicated_between_card_and_model(tmp_path: Path) -> None:
    d = broken_copy(
        tmp_path, "models.yaml", model_mutation("resnet-50", lambda m: m["aliases"].append("4090"))
    )
    err = load_error(d)
    assert_names(err, "knowledge/models.yaml", "model 'resnet-50'", None)
    assert "gpu 'rtx-4090'" in str(err) and "aliases[" in str(err)


def test_model_id_colliding_with_card_alias(tmp_path: Path) -> None:
    def mutate(data: Any) -> None:
        dup = dict(entry(data["models"], "resnet-50"))
        dup["id"] = "rtx4090"
        dup["aliases"] = []
        data["models"].append(dup)

    err = load_error(broken_copy(tmp_path, "models.yaml", mutate))
    assert_names(err, "knowledge/models.yaml", "model 'rtx4090'", "id")


@pytest.mark.parametrize(
    ("model_id", "field"),
    [
        ("llama-3-8b", "hidden"),
        ("llama-3-8b", "kv_heads"),
        ("llama-3-8b", "max_seq_len"),
        ("mixtral-8x7b", "experts"),
        ("mixtral-8x7b", "active_params"),
        ("resnet-50", "resolution"),
        ("resnet-50", "activation_basis"),
        ("sdxl", "components"),
        ("sdxl", "activation_mb_per_sample"),
    ],
)
def test_model_kind_requirements(tmp_path: Path, model_id: str, field: str) -> None:
    d = broken_copy(tmp_path, "models.yaml", model_mutation(model_id, lambda m: m.pop(field)))
    err = load_error(d)
    assert_names(err, "knowledge/models.yaml", f"model '{model_id}'", field)


@pytest.mark.parametrize(
    ("model_id", "field", "value"),
    [
        ("llama-3-8b", "kind", "llm"),
        ("llama-3-8b", "params", 0),
        ("llama-3-8b", "params", 8.03e9),
        ("llama-3-8b", "layers", -32),
        ("resnet-50", "resolution", [224]),
        ("resnet-50", "source", None),
        ("resnet-50", "release", 2015),
    ],
)
def test_bad_model_field(tmp_path: Path, model_id: str, field: str, value: Any) -> None:
    d = broken_copy(tmp_path, "models.yaml", model_mutation(model_id, lambda m: m.update({field: value})))
    assert_names(load_error(d), "knowledge/models.yaml", f"model '{model_id}'", field)


def test_bad_diffusion_component_role(tmp_path: Path) -> None:
    d = broken_copy(
        tmp_path, "models.yaml", model_mutation("sdxl", lambda m: m["components"][0].update(role="unet"))
    )
    assert_names(load_error(d), "knowledge/models.yaml", "model 'sdxl'", "components[0].role")


def test_unknown_model_key(tmp_path: Path) -> None:
    d = broken_copy(tmp_path, "models.yaml", model_mutation("resnet-50", lambda m: m.update(depth=50)))
    assert_names(load_error(d), "knowledge/models.yaml", "model 'resnet-50'", "depth")


def test_benchmark_unknown_gpu(tmp_path: Path) -> None:
    def mutate(data: Any) -> None:
        data["sets"][0]["data"]["stylegan"]["rtx-9090"] = 4

    err = load_error(broken_copy(tmp_path, "benchmarks/lambda-2020-guide.yaml", mutate))
    assert_names(
        err,
        "knowledge/benchmarks/lambda-2020-guide.yaml",
        "set 'lambda-2020-max-batch'",
        "data.stylegan.rtx-9090",
    )
    assert "unknown gpu id" in str(err)


def test_benchmark_unknown_model(tmp_path: Path) -> None:
    def mutate(data: Any) -> None:
        data["sets"][0]["data"]["resnet50"] = {"rtx-4090": 8}

    err = load_error(broken_copy(tmp_path, "benchmarks/lambda-2020-guide.yaml", mutate))
    assert_names(
        err, "knowledge/benchmarks/lambda-2020-guide.yaml", "set 'lambda-2020-max-batch'", "data.resnet50"
    )
    assert "unknown model id" in str(err)


def test_benchmark_by_vram_unknown_model(tmp_path: Path) -> None:
    def mutate(data: Any) -> None:
        data["sets"][0]["by_vram"]["gpt-9"] = {8: 1}

    err = load_error(broken_copy(tmp_path, "benchmarks/lambda-tf-benchmark.yaml", mutate))
    assert_names(
        err,
        "knowledge/benchmarks/lambda-tf-benchmark.yaml",
        "set 'lambda-tf-2020-batch-by-vram'",
        "by_vram.gpt-9",
    )


@pytest.mark.parametrize(
    ("field", "value"),
    [("kind", "speed"), ("precision", "int3"), ("semantics", "guess"), ("task", "gaming")],
)
def test_benchmark_bad_enum(tmp_path: Path, field: str, value: str) -> None:
    def mutate(data: Any) -> None:
        data["sets"][0][field] = value

    err = load_error(broken_copy(tmp_path, "benchmarks/lambda-2020-guide.yaml", mutate))
    assert_names(err, "knowledge/benchmarks/lambda-2020-guide.yaml", "set 'lambda-2020-max-batch'", field)


def test_benchmark_negative_value(tmp_path: Path) -> None:
    def mutate(data: Any) -> None:
        data["sets"][1]["data"]["yolov3"]["rtx-2060"] = -7.8

    err = load_error(broken_copy(tmp_path, "benchmarks/lambda-2020-guide.yaml", mutate))
    assert_names(
        err,
        "knowledge/benchmarks/lambda-2020-guide.yaml",
        "set 'lambda-2020-throughput'",
        "data.yolov3.rtx-2060",
    )


def test_benchmark_duplicate_set_id(tmp_path: Path) -> None:
    def mutate(data: Any) -> None:
        data["sets"][0]["id"] = "lambda-2020-max-batch"

    err = load_error(broken_copy(tmp_path, "benchmarks/lambda-2080ti-2019.yaml", mutate))
    assert_names(err, "knowledge/benchmarks/lambda-2080ti-2019.yaml", "set 'lambda-2020-max-batch'", "id")


def test_benchmark_missing_source(tmp_path: Path) -> None:
    def mutate(data: Any) -> None:
        del data["source"]

    err = load_error(broken_copy(tmp_path, "benchmarks/lambda-2080ti-2019.yaml", mutate))
    assert_names(err, "knowledge/benchmarks/lambda-2080ti-2019.yaml", None, "source")


@pytest.mark.parametrize(
    ("field", "value"), [("usd_per_unit", 0), ("usd_per_unit", "1.08"), ("code", "euro")]
)
def test_bad_currency(tmp_path: Path, field: str, value: Any) -> None:
    def mutate(data: Any) -> None:
        entry_ = next(r for r in data["rates"] if r["code"] == "EUR")
        entry_[field] = value

    err = load_error(broken_copy(tmp_path, "currencies.yaml", mutate))
    ent = "rate 'euro'" if field == "code" else "rate 'EUR'"
    assert_names(err, "knowledge/currencies.yaml", ent, field)


def test_currency_symbol_in_two_currencies(tmp_path: Path) -> None:
    def mutate(data: Any) -> None:
        next(r for r in data["rates"] if r["code"] == "JPY")["symbols"].append("¥")

    err = load_error(broken_copy(tmp_path, "currencies.yaml", mutate))
    assert "rate 'JPY'" in str(err) and "CNY" in str(err)


def test_yaml_syntax_error_names_file_and_line(tmp_path: Path) -> None:
    target = tmp_path / "knowledge"
    shutil.copytree(SHIPPED, target)
    path = target / "gpus.yaml"
    lines = path.read_text(encoding="utf-8").splitlines()
    idx = next(i for i, line in enumerate(lines) if line.strip().startswith("vram_gb:"))
    lines[idx] = "    vram_gb: [24"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    err = load_error(target)
    assert err.file == "knowledge/gpus.yaml"
    assert err.line is not None and abs(err.line - (idx + 1)) <= 2
    assert str(err).startswith(f"knowledge/gpus.yaml, line {err.line}: YAML syntax error")


def test_duplicate_yaml_key(tmp_path: Path) -> None:
    target = tmp_path / "knowledge"
    shutil.copytree(SHIPPED, target)
    path = target / "gpus.yaml"
    text = path.read_text(encoding="utf-8")
    i = text.index("    vram_gb:")
    path.write_text(text[:i] + "    vram_gb: 99\n" + text[i:], encoding="utf-8")
    err = load_error(target)
    assert err.file == "knowledge/gpus.yaml" and err.line is not None
    assert "duplicate key 'vram_gb'" in str(err)


@pytest.mark.parametrize("name", ["gpus.yaml", "models.yaml", "currencies.yaml"])
def test_missing_file(tmp_path: Path, name: str) -> None:
    target = tmp_path / "knowledge"
    shutil.copytree(SHIPPED, target)
    (target / name).unlink()
    err = load_error(target)
    assert str(err) == f"knowledge/{name}: file is missing"


def test_top_level_must_be_list(tmp_path: Path) -> None:
    err = load_error(broken_copy(tmp_path, "gpus.yaml", lambda data: {"cards": data["gpus"]}))
    assert_names(err, "knowledge/gpus.yaml", None, "cards")


def test_missing_directory(tmp_path: Path) -> None:
    with pytest.raises(KnowledgeError, match="does not exist"):
        load_catalog(tmp_path / "nope")


def test_cards_hash_by_id_and_stay_distinct_by_value(cat: Catalog) -> None:
    # GPU.__hash__ hashes the id only (cards key per-reply caches): equal cards hash alike, and a
    # variant of a card (same id, other memory) is still a different key
    import dataclasses

    g = cat.gpus["rtx-3090"]
    same = dataclasses.replace(g)
    variant = dataclasses.replace(g, vram_gb=g.vram_gb * 2)
    assert same == g and hash(same) == hash(g)
    assert variant != g
    assert len({g: 1, same: 2, variant: 3}) == 2
