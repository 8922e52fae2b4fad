"""kvplan.deploy: a GPU named by a spec file (a path with a slash, or a bare .yaml / .yml name),
and a float32 checkpoint's cache served in 16 bits by the serving engines (vLLM's, SGLang's and
TensorRT-LLM's --dtype auto), kept in float32 by transformers and the plain arithmetic.

These close the mutants `benchmarks/mutation.py` found alive in kvplan/deploy/__init__.py.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from kvplan.deploy import load_deployment
from kvplan.units import DType

ROOT = Path(__file__).resolve().parents[2]
H100_SPEC = ROOT / "hardware_specs" / "h100-sxm-80gb.yaml"


def write(tmp_path: Path, gpu: str, model: str = "llama-3-8b", engine: str = "ideal") -> Path:
    path = tmp_path / "dep.yaml"
    path.write_text(f"apiVersion: kvplan/v1\nname: t\nmodel: {model}\nhardware:\n  gpu: {gpu}\n"
                    f"traffic:\n  peak_concurrent_users: 4\nengine:\n  name: {engine}\n")
    return path


@pytest.mark.parametrize("name", ["mygpu.yaml", "mygpu.yml", "specs/mygpu.spec"])
def test_a_gpu_spec_file_by_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str):
    # the file is a copy of the catalog's H100 SXM (85,045,477,376 B); a bare name ending in
    # .yaml or .yml, or any name with a slash, is a path (relative to the working directory)
    (tmp_path / "specs").mkdir()
    shutil.copy(H100_SPEC, tmp_path / name)
    monkeypatch.chdir(tmp_path)
    planned = load_deployment(write(tmp_path, name))
    assert planned.request.gpu.memory_bytes == 85_045_477_376
    assert planned.request.gpu.name == "h100-sxm-80gb"


@pytest.mark.parametrize(("engine", "kv"), [
    ("vllm", DType.bf16), ("sglang", DType.bf16), ("trtllm", DType.bf16),
    ("transformers", DType.fp32), ("ideal", DType.fp32)])
def test_a_float32_checkpoints_cache_by_engine(tmp_path: Path, engine: str, kv: DType):
    # Gemma-2-9B is published in float32: kv_cache_dtype auto is its compute dtype, which the
    # serving engines' --dtype auto turns into 16 bits
    planned = load_deployment(write(tmp_path, "h100", "gemma-2-9b", engine))
    assert planned.request.kv_dtype is kv


HEAD = "apiVersion: kvplan/v1\nname: t\nmodel: {model}\nhardware:\n  gpu: h100\n"
PEAK = "traffic:\n  peak_concurrent_users: 4\n"


def refused(tmp_path: Path, body: str, model: str = "llama-3-8b") -> tuple[str, list[object]]:
    from kvplan.deploy.problems import DeploymentError

    path = tmp_path / "dep.yaml"
    path.write_text(HEAD.format(model=model) + body)
    with pytest.raises(DeploymentError) as err:
        load_deployment(path)
    return str(err.value).removeprefix(f"{path}: "), [
        (p.field, p.message, p.line) for p in err.value.items]


def test_a_tp_the_model_cannot_split_is_named_at_the_engine_block(tmp_path: Path):
    # 32 attention heads over tp 3: SizeRequest.check's sentence, at the engine block's line 7
    text, problems = refused(tmp_path, "parallel:\n  tensor: 3\nengine:\n  name: vllm\n" + PEAK)
    assert len(problems) == 1
    field, message, line = problems[0]  # type: ignore[misc]
    assert (field, line) == ("engine", 8)
    assert message.startswith("tensor parallelism 3 does not divide llama-3-8b's 32 attention heads")
    assert text == f"line 8: engine: {message}"


@pytest.mark.parametrize("engine", ["sglang", "trtllm"])
def test_expert_parallelism_beyond_tp_is_vllms_only(tmp_path: Path, engine: str):
    _, problems = refused(tmp_path, f"parallel:\n  tensor: 2\n  expert: 8\nengine:\n  name: {engine}\n"
                          + PEAK, "qwen3-30b-a3b")
    assert problems == [("parallel.expert", f"{engine}'s expert-parallel size divides its "
                         "tensor-parallel size (2); 8 ranks beyond it is vLLM's "
                         "--enable-expert-parallel with data parallelism", 8)]


def test_expert_parallelism_equal_to_tp_is_accepted_by_sglang(tmp_path: Path):
    path = tmp_path / "dep.yaml"
    path.write_text(HEAD.format(model="qwen3-30b-a3b") + "parallel:\n  tensor: 2\n  expert: 2\n"
                    "engine:\n  name: sglang\n" + PEAK)
    assert load_deployment(path).request.ep == 2


def test_too_few_gpus_for_one_replica(tmp_path: Path):
    # tensor 2 x pipeline 2 = 4 GPUs; 3 stated
    _, problems = refused(tmp_path, "  count: 3\nparallel:\n  tensor: 2\n  pipeline: 2\n" + PEAK)
    assert problems == [("hardware.count", "3 GPU(s) cannot hold one replica: tensor 2 x "
                         "pipeline 2 needs 4 GPUs", 6)]


def test_no_load_and_an_unreadable_version_are_both_named(tmp_path: Path):
    _, problems = refused(tmp_path, "engine:\n  name: vllm\n  version: latest\ntraffic:\n"
                          "  peak_to_mean: 2\n")
    # the version's own field and line (8), not engine.name's (7): task h51sweep
    assert problems == [
        ("engine.version", "cannot read engine version 'latest'; write it like 0.10.2", 8),
        ("traffic", "give peak_concurrent_users, or arrival_rate_per_s with mean_duration_s", 9)]


def test_true_is_not_a_whole_number(tmp_path: Path):
    _, problems = refused(tmp_path, "engine:\n  block_size: true\n" + PEAK)
    assert problems == [("engine.block_size", "expected a whole number, not true/false", 7)]


def test_an_unsupported_api_version_is_named_at_its_line(tmp_path: Path):
    from kvplan.deploy.problems import DeploymentError

    path = tmp_path / "dep.yaml"
    path.write_text("name: t\napiVersion: kvplan/v2\nmodel: llama-3-8b\n")
    with pytest.raises(DeploymentError) as err:
        load_deployment(path)
    assert [(p.field, p.message, p.line) for p in err.value.items] == [
        ("apiVersion", "'kvplan/v2' is not supported; use kvplan/v1", 2)]
