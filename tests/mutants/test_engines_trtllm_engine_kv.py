"""Mutation tests of kvplan/engines/trtllm_settings.engine_kv_setting (task mut2; added by task
trtleft): a built engine's config.json states its cache dtype at
pretrained_config.quantization.kv_cache_quant_algo (trtllm-build writes the checkpoint's
`quantization` under `pretrained_config`; the pool's element type follows it,
ModelConfig::getKvDataType, modelConfig.h:658-669 at main be178810: kFP8, kINT8, else the
model's dtype). QuantAlgo's KV cache values are FP8, INT8 and NVFP4
(tensorrt_llm/quantization/mode.py); null states none. Every answer whole."""

from __future__ import annotations

from typing import Any

import pytest

from kvplan.engines.trtllm_settings import Setting, engine_kv_setting
from kvplan.errors import InputError

KEY = "pretrained_config.quantization.kv_cache_quant_algo"


def _file(algo: Any) -> dict[str, Any]:
    return {"version": "0.12.0", "pretrained_config": {"quantization": {
        "quant_algo": None, "kv_cache_quant_algo": algo}}, "build_config": {}}


@pytest.mark.parametrize(("algo", "dtype"), [("FP8", "fp8"), ("INT8", "int8")])
def test_fp8_and_int8_engines_state_their_cache(algo: str, dtype: str) -> None:
    assert engine_kv_setting(_file(algo), "config.json") == [
        Setting("engine.kv_cache_dtype", dtype, KEY)]


@pytest.mark.parametrize("data", [_file(None), {"build_config": {}},
                                  {"pretrained_config": {"quantization": {}}}])
def test_no_cache_dtype_stated_sets_nothing(data: dict[str, Any]) -> None:
    assert engine_kv_setting(data, "config.json") == []


def test_an_nvfp4_engine_is_refused_whole() -> None:
    with pytest.raises(InputError) as err:
        engine_kv_setting(_file("NVFP4"), "engine/config.json")
    assert str(err.value) == (
        f"engine/config.json: {KEY} NVFP4: the engine's cache is NVFP4, and kvplan has no NVFP4 "
        "cache (4-bit floats with one fp8 scale per 16 values)")


@pytest.mark.parametrize("algo", ["INT4", "int8", 8, ["INT8"], {"algo": "FP8"}])
def test_another_value_is_refused_whole(algo: Any) -> None:
    with pytest.raises(InputError) as err:
        engine_kv_setting(_file(algo), "engine/config.json")
    assert str(err.value) == (
        f"engine/config.json: {KEY} {algo!r}: expected FP8, INT8, NVFP4 or null (QuantAlgo's KV "
        "cache values, tensorrt_llm/quantization/mode.py); name the config.json trtllm-build "
        "wrote")
