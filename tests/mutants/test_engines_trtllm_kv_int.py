"""Mutation tests of kvplan/engines/trtllm_kv_int.py (task mutnew): every answer of
`int_cache_check`, word for word. The values are TensorRT-LLM's, as the module cites them:
the PyTorch backend's `_VALID_KV_CACHE_DTYPES` = ("fp8", "nvfp4", "auto")
(tensorrt_llm/_torch/pyexecutor/model_loader.py, 1.x), QuantMode's INT8_KV_CACHE /
FP8_KV_CACHE / NVFP4_KV_CACHE (tensorrt_llm/quantization/mode.py) and ModelConfig::getKvDataType
(cpp/include/tensorrt_llm/runtime/modelConfig.h, NVIDIA/TensorRT-LLM at 585c7565)."""

from __future__ import annotations

import pytest

from kvplan.engines.trtllm_kv_int import PYTORCH_VALUES, int_cache_check
from kvplan.units import DType

PYTORCH = ("TensorRT-LLM's PyTorch backend has no {} KV cache: kv_cache_config.dtype takes fp8, "
           "nvfp4, auto (_VALID_KV_CACHE_DTYPES, tensorrt_llm/_torch/pyexecutor/model_loader.py)")


def test_the_pytorch_backend_values_are_model_loaders() -> None:
    assert PYTORCH_VALUES == ("fp8", "nvfp4", "auto")


@pytest.mark.parametrize("dtype", [d for d in DType if d not in (DType.int8, DType.int4)])
@pytest.mark.parametrize("pytorch", [True, False])
def test_a_float_cache_is_neither_refused_nor_noted(dtype: DType, pytorch: bool) -> None:
    assert int_cache_check(dtype, pytorch) == (None, None)


def test_the_pytorch_backend_refuses_int8_pointing_at_a_tensorrt_engine() -> None:
    assert int_cache_check(DType.int8, True) == (
        PYTORCH.format("int8") + "; an INT8 cache is a TensorRT engine's (--trtllm-backend "
        "tensorrt)", None)


def test_the_pytorch_backend_refuses_int4_pointing_at_fp8() -> None:
    assert int_cache_check(DType.int4, True) == (PYTORCH.format("int4") + "; plan --kv-dtype fp8",
                                                 None)


def test_a_tensorrt_engine_refuses_int4() -> None:
    assert int_cache_check(DType.int4, False) == (
        "TensorRT-LLM has no int4 KV cache: its QuantMode offers INT8_KV_CACHE, FP8_KV_CACHE and "
        "NVFP4_KV_CACHE (tensorrt_llm/quantization/mode.py) and ModelConfig::getKvDataType gives "
        "kINT8, kFP8, kFP4 or the model's dtype (cpp/include/tensorrt_llm/runtime/modelConfig.h); "
        "plan --kv-dtype int8 or fp8", None)


def test_a_tensorrt_engine_plans_int8_with_a_note() -> None:
    assert int_cache_check(DType.int8, False) == (
        None, "int8 planned as a TensorRT engine's INT8 KV cache (QuantMode INT8_KV_CACHE): the "
        "pool holds kINT8 elements (ModelConfig::getKvDataType, "
        "cpp/include/tensorrt_llm/runtime/modelConfig.h), one byte a value and no per-token "
        "scale, as kvplan's int8 cache")
