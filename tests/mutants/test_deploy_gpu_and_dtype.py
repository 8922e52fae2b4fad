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
