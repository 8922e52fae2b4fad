"""A built engine's config.json states its cache dtype (task trtleft): trtllm-build writes the
checkpoint's config under `pretrained_config` (its `quantization.kv_cache_quant_algo` among it)
beside `build_config` (NVIDIA/TensorRT-LLM's own bindings test parses such a file,
GptJsonConfig.parse({"version", "build_config", "pretrained_config": {..., "quantization"}}),
code index id 5694335411), and the engine's pool element type follows that value
(ModelConfig::getKvDataType, modelConfig.h:658-669 at main be178810). kvplan read only
build_config's limits, so an INT8 engine was planned with the record's 16-bit cache.

The file below is the TensorRT-LLM checkpoint config of tests/assets/hf_configs/trtllm_checkpoint
(SOURCES.md) as `pretrained_config`, with build limits; its kv_cache_quant_algo is set per case.
Llama-3-8B: 32 layers x 8 KV heads x 128 x 2 = 65,536 values a token.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from kvplan.cli import app

CKPT = (Path(__file__).resolve().parents[1] / "assets" / "hf_configs" / "trtllm_checkpoint"
        / "config.json")
KEY = "pretrained_config.quantization.kv_cache_quant_algo"


def _engine(tmp_path: Path, algo: str | None) -> Path:
    pretrained = json.loads(CKPT.read_text())
    pretrained["quantization"]["kv_cache_quant_algo"] = algo
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"version": "0.12.0", "pretrained_config": pretrained,
                                "build_config": {"max_batch_size": 96, "max_seq_len": 2048,
                                                 "max_num_tokens": 8192}}))
    return path


def _run(path: Path, *argv: str) -> tuple[int, str, dict[str, Any] | None]:
    res = CliRunner().invoke(app, ["size", "llama-3-8b", "--gpu", "h100", "--engine", "trtllm",
                                   "--trtllm-config", str(path), *argv])
    assert "Traceback" not in res.output
    row = None
    if res.exit_code == 0 and "-f" in argv:
        row = json.loads(res.stdout)["results"][0]
    return res.exit_code, " ".join(res.output.split()), row


@pytest.mark.parametrize(("algo", "dtype", "per_token"), [
    ("INT8", "int8", 65_536), ("FP8", "fp8", 65_536), (None, "fp16", 131_072)])
def test_the_engines_cache_dtype_is_applied(tmp_path: Path, algo: str | None, dtype: str,
                                            per_token: int) -> None:
    code, out, row = _run(_engine(tmp_path, algo), "--trtllm-backend", "tensorrt", "-f", "json")
    assert code == 0, out
    assert row is not None and (row["kv_dtype"], row["kv_bytes_per_token"]) == (dtype, per_token)
    stated = f"engine.kv_cache_dtype {dtype} from config.json ({KEY})"
    assert (stated in out) == (algo is not None)


def test_an_int8_engine_at_the_pytorch_default_is_refused(tmp_path: Path) -> None:
    """1.3.0 without a backend is the PyTorch backend, which has no int8 cache: exit 2 naming
    --trtllm-backend tensorrt."""
    code, out, _ = _run(_engine(tmp_path, "INT8"))
    assert code == 2
    assert "TensorRT-LLM's PyTorch backend has no int8 KV cache" in out
    assert "an INT8 cache is a TensorRT engine's (--trtllm-backend tensorrt)" in out


def test_a_stated_dtype_that_disagrees_with_the_engine_is_refused(tmp_path: Path) -> None:
    code, out, _ = _run(_engine(tmp_path, "INT8"), "--trtllm-backend", "tensorrt",
                        "--kv-dtype", "fp16")
    assert code == 2 and f"disagrees with config.json's {KEY} int8; state one" in out


@pytest.mark.parametrize(("algo", "words"), [
    ("NVFP4", f"config.json: {KEY} NVFP4: the engine's cache is NVFP4, and kvplan has no NVFP4 "
              "cache"),
    ("INT4", f"config.json: {KEY} 'INT4': expected FP8, INT8, NVFP4 or null")])
def test_a_cache_kvplan_cannot_plan_is_refused(tmp_path: Path, algo: str, words: str) -> None:
    code, out, _ = _run(_engine(tmp_path, algo), "--trtllm-backend", "tensorrt")
    assert code == 2 and words in out
