"""Integer KV caches in vLLM and TensorRT-LLM (kvplan.engines.vllm_kv_int, trtllm_kv_int; task
h101kvint): what each release offers, the pools planned where kvplan's bytes equal the engine's
layout (hand-computed from the engines' page-size code), and one-line refusals elsewhere."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from kvplan.cli import app
from kvplan.engines.vllm_kv_dtypes import kv_dtype_values

LLAMA = ["size", "llama-3-8b", "--gpu", "h100"]  # 32 layers, 8 KV heads of 128 (config.json)


def _run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, [*LLAMA, *args])
    assert "Traceback" not in result.output
    return result.exit_code, result.output


def _json(*args: str) -> dict:
    code, out = _run(*args, "--format", "json")
    assert code == 0, out
    return json.loads(out)["results"][0]


def _refused(*args: str) -> str:
    code, out = _run(*args)
    assert code == 2, out
    line = " ".join(out.split())  # the terminal wraps the one line
    assert line.startswith("error: ")
    return line


@pytest.mark.parametrize(("release", "int8", "int4"), [
    ("0.19.1", False, False), ("0.20.0", True, False), ("0.24.0", True, False),
    ("0.25.0", True, True), ("0.27.1", True, True), ("0.34.0", True, True)])
def test_the_releases_read_offer_them_from_0_20_and_0_25(release, int8, int4) -> None:
    named, values, _, own = kv_dtype_values(release)
    assert (named, own) == (release, True)
    assert ("int8_per_token_head" in values, "int4_per_token_head" in values) == (int8, int4)


def test_vllm_int4_is_planned_with_its_per_token_head_layout() -> None:
    d = _json("--engine", "vllm", "--kv-dtype", "int4")
    # vLLM: per token, layer and KV head, K and V of 128 // 2 bytes each and two float32
    # scales: 8 x (64 + 64 + 2 x 4) = 1,088 B a layer, x 32 layers
    assert d["kv_bytes_per_token"] == 32 * 8 * (64 + 64 + 8) == 34_816
    assert d["kv_bytes_per_sequence"] == 8192 * 34_816
    # 16-token blocks of 557,056 B, floored, times 16
    blocks = d["kv_cache_bytes"] // (16 * 34_816)
    assert d["kv_cache_tokens"] == blocks * 16 == 1_843_280
    assert any("vLLM's int4_per_token_head (0.25.0 on)" in a for a in d["assumptions"])


def test_vllm_int4_in_its_first_release_is_planned_and_before_it_refused() -> None:
    assert _json("--engine", "vllm", "--kv-dtype", "int4", "--engine-version",
                 "0.25.0")["kv_bytes_per_token"] == 34_816
    line = _refused("--engine", "vllm", "--kv-dtype", "int4", "--engine-version", "0.24.0")
    assert line.startswith("error: vLLM 0.24.0 has no int4 KV cache: its --kv-cache-dtype "
                           "takes auto, float16, bfloat16, fp8,")
    assert "int8_per_token_head, fp8_per_token_head, nvfp4 (vllm/config/cache.py:19-35" in line
    assert "int4_per_token_head first appears in 0.25.0" in line


def test_vllm_int8_before_0_20_is_refused_with_the_release_values() -> None:
    line = _refused("--engine", "vllm", "--kv-dtype", "int8", "--engine-version", "0.19.1")
    assert line.startswith("error: vLLM 0.19.1 has no int8 KV cache: its --kv-cache-dtype takes "
                           "auto, float16, bfloat16, fp8, fp8_e4m3, fp8_e5m2, fp8_inc, "
                           "fp8_ds_mla (vllm/config/cache.py:14-23")
    # 0.12.0, read in task vllmleft: vllm/config/cache.py:23-31 (CacheDType) in its wheel
    line = _refused("--engine", "vllm", "--kv-dtype", "int8", "--engine-version", "0.12.0")
    assert line.startswith("error: vLLM 0.12.0 has no int8 KV cache: its --kv-cache-dtype takes "
                           "auto, bfloat16, fp8, fp8_e4m3, fp8_e5m2, fp8_inc, fp8_ds_mla "
                           "(vllm/config/cache.py:23-31 ")
    assert "int8_per_token_head first appears in 0.20.0" in line
    # a release past the newest read: its values are not known
    line = _refused("--engine", "vllm", "--kv-dtype", "int8", "--engine-version", "0.40.0")
    assert "kvplan does not model vLLM's int8_per_token_head" in line


@pytest.mark.parametrize("release", [None, "0.20.0", "0.34.0"])
def test_vllm_int8_is_refused_for_its_scales(release) -> None:
    args = ["--engine", "vllm", "--kv-dtype", "int8"]
    line = _refused(*args, *(["--engine-version", release] if release else []))
    # 8 x (128 + 128 + 2 x 4) B against kvplan's 8 x 256
    assert line.startswith("error: kvplan does not model vLLM's int8_per_token_head")
    assert "(2,112 B per token per layer" in line and "no scale (2,048 B)" in line


def test_vllm_int4_at_another_group_size_is_refused_naming_the_one_that_matches() -> None:
    line = _refused("--engine", "vllm", "--kv-dtype", "int4", "--kv-group-size", "32")
    # kvplan: 8 x 2 x (64 + 4 fp16 scales of 2 B) = 1,152 B; vLLM 1,088 B
    assert "--kv-group-size 32 (1,152 B per token per layer" in line
    assert "int4_per_token_head (1,088 B" in line and "--kv-group-size 64 matches it" in line


def test_vllm_int4_with_tensor_parallel_counts_the_rank_heads() -> None:
    d = _json("--engine", "vllm", "--kv-dtype", "int4", "--tp", "2")
    assert d["kv_bytes_per_token"] == 32 * 4 * (64 + 64 + 8)


def test_vllm_int4_is_refused_for_an_mla_cache() -> None:
    result = CliRunner().invoke(app, ["size", "deepseek-v2-lite", "--gpu", "h100", "--engine",
                                      "vllm", "--kv-dtype", "int4"])
    assert result.exit_code == 2
    assert "is not offered for deepseek-v2-lite's MLA cache" in " ".join(result.output.split())


@pytest.mark.parametrize("dtype", ["int8", "int4"])
def test_trtllm_pytorch_backend_refuses_integer_caches(dtype) -> None:
    line = _refused("--engine", "trtllm", "--kv-dtype", dtype)
    assert line.startswith(f"error: TensorRT-LLM's PyTorch backend has no {dtype} KV cache: "
                           "kv_cache_config.dtype takes fp8, nvfp4, auto")


def test_trtllm_has_no_int4_cache_on_a_tensorrt_engine_either() -> None:
    line = _refused("--engine", "trtllm", "--kv-dtype", "int4", "--trtllm-backend", "tensorrt")
    assert line.startswith("error: TensorRT-LLM has no int4 KV cache: its QuantMode offers "
                           "INT8_KV_CACHE")


def test_trtllm_int8_on_a_tensorrt_engine_is_one_byte_a_value() -> None:
    args = ("--engine", "trtllm", "--trtllm-backend", "tensorrt")
    d = _json(*args, "--kv-dtype", "int8")
    # kINT8: 32 layers x 8 heads x (128 + 128) x 1 B, in 64-token blocks, floored
    assert d["kv_bytes_per_token"] == 32 * 8 * 256 == 65_536
    assert d["kv_cache_tokens"] == d["kv_cache_bytes"] // (64 * 65_536) * 64 == 859_712
    assert any("TensorRT engine's INT8 KV cache" in a for a in d["assumptions"])
    assert _json(*args, "--kv-dtype", "fp8")["kv_cache_tokens"] == d["kv_cache_tokens"]


def test_the_pytorch_values_are_the_options_files_values() -> None:
    """trtllm_kv_int.PYTORCH_VALUES (_VALID_KV_CACHE_DTYPES' order, the refusal's words) and
    trtllm_settings.ACCEPTED_KV (click.Choice's order, the options file's and --kv_cache_dtype's
    check) hold the same three values, model_loader.py's fp8, nvfp4, auto: this fails if either
    list is written out again and they part."""
    from kvplan.engines.trtllm_kv_int import PYTORCH_VALUES
    from kvplan.engines.trtllm_settings import ACCEPTED_KV

    assert PYTORCH_VALUES == ("fp8", "nvfp4", "auto")
    assert ACCEPTED_KV == ("auto", "fp8", "nvfp4")
    assert sorted(PYTORCH_VALUES) == sorted(ACCEPTED_KV)
