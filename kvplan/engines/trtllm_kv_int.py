"""TensorRT-LLM's integer KV caches (task h101kvint), read in its source (the code index's
NVIDIA/TensorRT-LLM; the wheels cannot be downloaded here, kvplan.engines.dtype_trtllm):

- The PyTorch backend (the default from 1.0, kvplan.engines.trtllm_pytorch): the cache dtype is
  `kv_cache_config.dtype`, which `validate_and_set_kv_cache_quant` checks against
  `_VALID_KV_CACHE_DTYPES` = ("fp8", "nvfp4", "auto") (tensorrt_llm/_torch/pyexecutor/
  model_loader.py in 1.x, kvplan.engines.trtllm_settings): no int8, no int4. Refused.
- The TensorRT backend (an engine built by trtllm-build): the cache's element type is
  ModelConfig::getKvDataType (cpp/include/tensorrt_llm/runtime/modelConfig.h, NVIDIA/TensorRT-LLM
  at 585c7565): kFP8 for an FP8 KV cache, kINT8 for QuantMode INT8_KV_CACHE, kFP4 for an FP4
  one, else the model's dtype (modelConfig.h:658-669 at main be178810, 0.17.0.dev2024121700,
  aikitoria/TensorRT-LLM: kFP8, kINT8, else the model's dtype, before kFP4 was added).
  QuantMode has INT8_KV_CACHE and FP8_KV_CACHE (and NVFP4_KV_CACHE later) and no 4-bit integer
  cache (tensorrt_llm/quantization/mode.py, "The KV cache is quantized in INT8", d879430b;
  mode.py:73-76 at be178810): int4 is refused; int8 is one byte a value in the pool, with
  no per-token scale beside it, which is kvplan's int8 cache byte for byte: planned, with a
  note.

A checkpoint whose KV quantization is INT8 (hf_quant_config.json's kv_cache_quant_algo, the
model spec's; `kvplan.engines.trtllm_settings.checkpoint_kv` under the cache dtype auto) goes
the same two ways (`checkpoint_int8`): a TensorRT engine built from it has INT8_KV_CACHE and a
kINT8 pool, planned as above; the PyTorch backend keeps the INT8 quant mode under auto
(validate_and_set_kv_cache_quant returns on auto) but chooses its pool's element type from
FP8, NVFP4 or the model's dtype only (`kv_cache_dtype` in KvCacheCreator's manager factory:
has_fp8_kv_cache -> FP8, has_fp4_kv_cache -> NVFP4, else the model's dtype; no INT8 branch in
the 0.20/0.21-era `_util.py`, index id 9841842691, nor the 1.1-era one, id 843526953), so the
pool and the attention layers disagree: refused, naming the two settings that plan it.
"""

from __future__ import annotations

from kvplan.engines.trtllm_settings import ACCEPTED_KV
from kvplan.units import DType

# _VALID_KV_CACHE_DTYPES in its own order, auto last: the same values as ACCEPTED_KV (which the
# options file and trtllm-serve's --kv_cache_dtype are checked against, in click.Choice's order),
# so the two lists cannot disagree
PYTORCH_VALUES = (*(v for v in ACCEPTED_KV if v != "auto"), "auto")


def int_cache_check(kv_dtype: DType, pytorch: bool) -> tuple[str | None, str | None]:
    """(refusal, note) for a stated cache dtype under the backend that sizes the pool (pytorch:
    the PyTorch backend, else a TensorRT engine): both None for a float cache."""
    if kv_dtype not in (DType.int8, DType.int4):
        return None, None
    if pytorch:
        return (f"TensorRT-LLM's PyTorch backend has no {kv_dtype.value} KV cache: "
                f"kv_cache_config.dtype takes {', '.join(PYTORCH_VALUES)} "
                "(_VALID_KV_CACHE_DTYPES, tensorrt_llm/_torch/pyexecutor/model_loader.py)"
                + ("; an INT8 cache is a TensorRT engine's (--trtllm-backend tensorrt)"
                   if kv_dtype is DType.int8 else "; plan --kv-dtype fp8")), None
    if kv_dtype is DType.int4:
        return ("TensorRT-LLM has no int4 KV cache: its QuantMode offers INT8_KV_CACHE, "
                "FP8_KV_CACHE and NVFP4_KV_CACHE (tensorrt_llm/quantization/mode.py) and "
                "ModelConfig::getKvDataType gives kINT8, kFP8, kFP4 or the model's dtype "
                "(cpp/include/tensorrt_llm/runtime/modelConfig.h); plan --kv-dtype int8 or "
                "fp8"), None
    return None, ("int8 planned as a TensorRT engine's INT8 KV cache (QuantMode "
                  "INT8_KV_CACHE): the pool holds kINT8 elements (ModelConfig::getKvDataType, "
                  "cpp/include/tensorrt_llm/runtime/modelConfig.h), one byte a value and no "
                  "per-token scale, as kvplan's int8 cache")


def checkpoint_int8(said: str, pytorch: bool) -> tuple[str | None, str]:
    """(kvplan's kv dtype or None, the note or refusal) for a checkpoint's INT8 KV quantization
    under the cache dtype auto (`said`: what the checkpoint states), by the backend that runs."""
    if not pytorch:
        return "int8", (f"{said}: a TensorRT engine built from it has QuantMode INT8_KV_CACHE, "
                        "whose pool holds kINT8 elements (ModelConfig::getKvDataType, "
                        "cpp/include/tensorrt_llm/runtime/modelConfig.h), one byte a value: "
                        "planned as kvplan's int8; state --kv-dtype to plan another")
    return None, (f"{said}: TensorRT-LLM's PyTorch backend keeps INT8 under auto but allocates "
                  "its pool in fp8, nvfp4 or the model's dtype only (the KV cache manager's "
                  "dtype has no INT8 branch, tensorrt_llm/_torch/pyexecutor/_util.py), so what "
                  "it would run is not one cache kvplan can size; state --kv-dtype fp8 "
                  "(kv_cache_config.dtype fp8 overrides the checkpoint's INT8) or "
                  "--trtllm-backend tensorrt (a TensorRT engine's INT8 cache)")
