"""TensorRT-LLM's cache dtype `auto` (its default) resolved from the checkpoint (task h42trt):
`kvplan import` records a checkpoint's own KV quantization as the spec's kv_cache_quant_algo
(hf_quant_config.json's kv_cache_quant_algo, ModelConfig.load_modelopt_quant_config; config.json's
quantization_config.kv_cache_scheme, update_quant_config_from_compressed_tensors), and a
TensorRT-LLM plan with no cache dtype stated takes it (validate_and_set_kv_cache_quant returns on
auto and keeps it). A stated dtype wins; vLLM's auto is the model's dtype and ignores it.

nvidia/Llama-3.1-70B-Instruct-FP8 (tests/assets/hf_configs/quantization/, hf_quant_config.json:
kv_cache_quant_algo FP8), TP 2 on H100s: 80 layers x 8 KV heads / 2 x 128 x 2 (K, V) = 163,840
values a token per GPU: 81,920 B in fp8, 163,840 B in 16 bits.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from kvplan.cli import app
from kvplan.engines.trtllm_settings import checkpoint_kv
from kvplan.specs.hf_layers import ImportRefused
from kvplan.specs.hf_quant import checkpoint_kv_quant

MODELOPT = (Path(__file__).resolve().parents[1] / "assets" / "hf_configs" / "quantization"
            / "nvidia--llama-3.1-70b-instruct-fp8")
TRTLLM_CKPT = (Path(__file__).resolve().parents[1] / "assets" / "hf_configs" / "trtllm_checkpoint"
               / "config.json")


def _spec(tmp_path: Path) -> Path:
    out = tmp_path / "l70-fp8.yaml"
    res = CliRunner().invoke(app, ["import", str(MODELOPT), "--weight-dtype", "fp8", "-o",
                                   str(out)])
    assert res.exit_code == 0, res.output
    return out


def _size(spec: Path, *argv: str) -> tuple[dict[str, Any], str]:
    res = CliRunner().invoke(app, ["size", str(spec), "--gpu", "h100", "--tp", "2", "--context",
                                   "8192", "-f", "json", *argv])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)["results"][0], " ".join(res.output.split())


def test_import_records_the_checkpoints_kv_quantization(tmp_path: Path) -> None:
    text = _spec(tmp_path).read_text()
    assert "kv_cache_quant_algo: FP8" in text
    assert "the checkpoint quantizes its KV cache: kv_cache_quant_algo FP8" in " ".join(text.split())


def test_trtllm_auto_plans_the_checkpoints_fp8_cache(tmp_path: Path) -> None:
    """No --kv-dtype on TensorRT-LLM: the spec's FP8, 81,920 B a token, with a note; --kv-dtype
    fp16 stated: 163,840 B; vLLM (auto = the model's 16-bit dtype): 163,840 B, no note."""
    spec = _spec(tmp_path)
    row, out = _size(spec, "--engine", "trtllm")
    assert (row["kv_dtype"], row["kv_bytes_per_token"]) == ("fp8", 80 * 4 * 128 * 2 * 1)
    assert "engine.kv_cache_dtype auto: TensorRT-LLM's cache dtype auto (its default) keeps " \
           "the checkpoint's KV quantization: l70-fp8's kv_cache_quant_algo FP8" in out
    row, out = _size(spec, "--engine", "trtllm", "--kv-dtype", "fp16")
    assert (row["kv_dtype"], row["kv_bytes_per_token"]) == ("fp16", 80 * 4 * 128 * 2 * 2)
    assert "kv_cache_quant_algo FP8" not in out
    row, out = _size(spec, "--engine", "vllm")
    assert row["kv_bytes_per_token"] == 80 * 4 * 128 * 2 * 2
    assert "kv_cache_quant_algo FP8" not in out


def test_a_quantization_kvplan_cannot_plan_is_refused(tmp_path: Path) -> None:
    """NVFP4 from the checkpoint under auto: exit 2, saying what to state instead."""
    spec = _spec(tmp_path)
    spec.write_text(spec.read_text().replace("kv_cache_quant_algo: FP8",
                                             "kv_cache_quant_algo: NVFP4"))
    res = CliRunner().invoke(app, ["size", str(spec), "--gpu", "h100", "--tp", "2", "--engine",
                                   "trtllm"])
    assert res.exit_code == 2
    assert "kvplan has no NVFP4 cache" in " ".join(res.output.split())
    kv, why = checkpoint_kv(type("M", (), {"kv_cache_quant_algo": "INT8", "name": "m"})())
    assert kv is None and "state --kv-dtype fp8" in why  # 1.3.0: the PyTorch backend


def _int8_spec(tmp_path: Path) -> Path:
    """The ModelOpt export above with its KV quantization set to INT8, the value ModelOpt's
    get_quant_config writes for an INT8 KV cache (NVIDIA/TensorRT-Model-Optimizer's
    test_get_quant_config: {"quant_algo": "FP8", "kv_cache_quant_algo": "INT8"}); no public
    export with it was found, so the FP8 one is edited, as the NVFP4 case above is."""
    spec = _spec(tmp_path)
    spec.write_text(spec.read_text().replace("kv_cache_quant_algo: FP8",
                                             "kv_cache_quant_algo: INT8"))
    return spec


@pytest.mark.parametrize("release", [[], ["--engine-version", "1.0.0"],
                                     ["--engine-version", "0.20.0", "--trtllm-backend",
                                      "pytorch"]])
def test_an_int8_checkpoint_on_the_pytorch_backend_is_refused(tmp_path: Path,
                                                              release: list[str]) -> None:
    """The PyTorch backend (1.3.0 and 1.0.0 by default, 0.20.0 stated) keeps INT8 under auto but
    allocates fp8, nvfp4 or the model's dtype: exit 2, one line naming the two ways out."""
    res = CliRunner().invoke(app, ["size", str(_int8_spec(tmp_path)), "--gpu", "h100", "--tp",
                                   "2", "--engine", "trtllm", *release])
    line = " ".join(res.output.split())
    assert res.exit_code == 2 and "Traceback" not in res.output
    assert "l70-fp8's kv_cache_quant_algo INT8" in line
    assert "TensorRT-LLM's PyTorch backend keeps INT8 under auto but allocates its pool in " \
           "fp8, nvfp4 or the model's dtype only" in line
    assert "state --kv-dtype fp8 (kv_cache_config.dtype fp8 overrides the checkpoint's INT8) " \
           "or --trtllm-backend tensorrt" in line


@pytest.mark.parametrize("release", [["--trtllm-backend", "tensorrt"],
                                     ["--engine-version", "0.21.0"]])
def test_an_int8_checkpoint_in_a_tensorrt_engine_is_one_byte_a_value(tmp_path: Path,
                                                                     release: list[str]) -> None:
    """A TensorRT engine (stated, or 0.21.0's default) built from it: kINT8, 80 layers x 4 KV
    heads at TP 2 x 128 x 2 x 1 B = 81,920 B a token, what --kv-dtype int8 plans, with the note;
    --kv-dtype fp16 stated wins (163,840 B)."""
    spec = _int8_spec(tmp_path)
    row, out = _size(spec, "--engine", "trtllm", *release)
    assert (row["kv_dtype"], row["kv_bytes_per_token"]) == ("int8", 80 * 4 * 128 * 2 * 1)
    assert "a TensorRT engine built from it has QuantMode INT8_KV_CACHE, whose pool holds " \
           "kINT8 elements" in out
    stated, _ = _size(spec, "--engine", "trtllm", *release, "--kv-dtype", "int8")
    assert stated["kv_cache_tokens"] == row["kv_cache_tokens"]
    row, out = _size(spec, "--engine", "trtllm", *release, "--kv-dtype", "fp16")
    assert (row["kv_dtype"], row["kv_bytes_per_token"]) == ("fp16", 80 * 4 * 128 * 2 * 2)
    assert "INT8_KV_CACHE" not in out


def test_compressed_tensors_kv_cache_scheme() -> None:
    """update_quant_config_from_compressed_tensors: an 8-bit float kv_cache_scheme is FP8, null
    is none, anything else is refused (TensorRT-LLM raises ValueError on it)."""
    fp8 = {"quantization_config": {"kv_cache_scheme": {"num_bits": 8, "type": "float"}}}
    assert checkpoint_kv_quant(fp8, None) == "FP8"
    assert checkpoint_kv_quant({"quantization_config": {"kv_cache_scheme": None}}, None) is None
    with pytest.raises(ImportRefused, match="only 8-bit floats"):
        checkpoint_kv_quant({"quantization_config": {"kv_cache_scheme": {"num_bits": 4}}}, None)


def test_stated_auto_without_a_recorded_quantization_says_so() -> None:
    """llama-3.1-8b (meta-llama's bf16 checkpoint; no kv_cache_quant_algo in its spec) with
    --kv-dtype auto on TensorRT-LLM: the model's 16-bit cache, 32 x 8 x 128 x 2 x 2 = 131,072 B a
    token, and a note that the spec records no checkpoint KV quantization."""
    res = CliRunner().invoke(app, ["size", "llama-3.1-8b", "--gpu", "h100", "--context", "8192",
                                   "--engine", "trtllm", "--kv-dtype", "auto", "-f", "json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["results"][0]["kv_bytes_per_token"] == 32 * 8 * 128 * 2 * 2
    assert "llama-3.1-8b's spec records none (kv_cache_quant_algo unset" in \
        " ".join(res.output.split())


def test_a_trtllm_checkpoint_config_is_refused_naming_its_kv_quantization(tmp_path: Path) -> None:
    """A TensorRT-LLM checkpoint's config.json (tests/assets/hf_configs/SOURCES.md): exit 2 in one
    line, not a Hugging Face config; with kv_cache_quant_algo INT8 (what convert_checkpoint.py
    --int8_kv_cache writes) the line names the TensorRT engine plan."""
    res = CliRunner().invoke(app, ["import", str(TRTLLM_CKPT)])
    line = " ".join(res.output.split())
    assert res.exit_code == 2 and "Traceback" not in res.output
    assert "config.json is a TensorRT-LLM checkpoint's (convert_checkpoint.py output: " \
           "architecture LlamaForCausalLM, no model_type), not a Hugging Face config: import " \
           "the Hugging Face checkpoint it was converted from" in line
    assert "kv_cache_quant_algo" not in line  # null in this checkpoint
    data = json.loads(TRTLLM_CKPT.read_text())
    data["quantization"]["kv_cache_quant_algo"] = "INT8"
    (tmp_path / "config.json").write_text(json.dumps(data))
    res = CliRunner().invoke(app, ["size", str(tmp_path / "config.json"), "--gpu", "h100",
                                   "--engine", "trtllm"])
    assert res.exit_code == 2
    assert "its kv_cache_quant_algo INT8 is a TensorRT engine's INT8 cache: plan --engine " \
           "trtllm --trtllm-backend tensorrt --kv-dtype int8" in " ".join(res.output.split())
