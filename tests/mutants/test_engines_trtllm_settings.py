"""Mutation tests of kvplan/engines/trtllm_settings.py (task h80mut). TensorRT-LLM's options
YAML (llm_args.py BaseLlmArgs fields; KvCacheConfig.dtype "auto" keeps the checkpoint's KV
quantization, model_loader.py validate_and_set_kv_cache_quant), trtllm-serve's --backend, and
the PyTorch backend kvplan sizes from 0.17 (kvplan.engines.trtllm_pytorch FIRST_READ) and by
default from 1.0: the expected texts below are written out whole."""

from __future__ import annotations

from types import SimpleNamespace

from kvplan.engines.trtllm_settings import (
    Setting,
    backend_refusal,
    block_refusals,
    checkpoint_kv,
    settings_from,
)

SAID = ("TensorRT-LLM's cache dtype auto (its default) keeps the checkpoint's KV quantization: "
        "{name}'s kv_cache_quant_algo {algo} (its spec, from the checkpoint the spec's source "
        "cites)")


def test_block_refusals_name_both_fields() -> None:
    """0.16.0 with the pytorch backend stated and a TensorRT activation size: the PyTorch
    backend has no engine activation, and 0.16 predates the PyTorch sizing read (0.17)."""
    e = SimpleNamespace(version="0.16.0", trt_activation_bytes=1_000_000,
                        trtllm_backend="pytorch")
    assert block_refusals(e) == [
        ("engine.trt_activation_bytes",
         "TensorRT-LLM 0.16.0 is modelled as the PyTorch backend (stated), which profiles its "
         "activations; the setting is a TensorRT engine's execution-context memory "
         "(trtllm-build's Total Activation Memory): state the tensorrt backend (or an engine "
         "version below 1.0) for an engine, or drop it"),
        ("engine.trtllm_backend",
         "TensorRT-LLM 0.16.0 predates the PyTorch backend sizing kvplan has read (0.17 on, "
         "tensorrt_llm/_torch/pyexecutor); state 0.17 or later, or drop it"),
    ]
    assert block_refusals(SimpleNamespace(version="0.16.0", trt_activation_bytes=None,
                                          trtllm_backend=None)) == []


def test_a_backend_that_is_no_text_is_the_release_default() -> None:
    """At 1.0.0 the PyTorch backend is the default, and it reads the cache dtype: no refusal."""
    kv = [Setting("engine.kv_cache_dtype", "fp8", "kv_cache_config.dtype")]
    assert backend_refusal("f.yaml", kv, "1.0.0", 5) is None


def test_checkpoint_kv_texts_whole() -> None:
    bare = checkpoint_kv(object())
    assert bare == (None, SAID.format(name="the model", algo=None)
                    + ": not one of FP8, NVFP4, INT8 (the values kvplan import records); "
                    "state --kv-dtype")
    fp8 = checkpoint_kv(SimpleNamespace(kv_cache_quant_algo="FP8", name="m"))
    assert fp8 == ("fp8", SAID.format(name="m", algo="FP8")
                   + ": an fp8 cache; state --kv-dtype to plan another")


def test_checkpoint_int8_follows_the_backend_that_runs() -> None:
    """INT8: a TensorRT engine (stated, or the default before 1.0) plans int8; the PyTorch
    backend (stated, or the default from 1.0, kvplan's default release 1.3.0 included) refuses."""
    int8 = SimpleNamespace(kv_cache_quant_algo="INT8", name="m")
    said = SAID.format(name="m", algo="INT8")
    engine = ("int8", said + ": a TensorRT engine built from it has QuantMode INT8_KV_CACHE, "
              "whose pool holds kINT8 elements (ModelConfig::getKvDataType, "
              "cpp/include/tensorrt_llm/runtime/modelConfig.h), one byte a value: planned as "
              "kvplan's int8; state --kv-dtype to plan another")
    assert checkpoint_kv(int8, "1.2.0", "tensorrt") == engine
    assert checkpoint_kv(int8, "0.21.0", None) == engine
    refused = (None, said + ": TensorRT-LLM's PyTorch backend keeps INT8 under auto but "
               "allocates its pool in fp8, nvfp4 or the model's dtype only (the KV cache "
               "manager's dtype has no INT8 branch, tensorrt_llm/_torch/pyexecutor/_util.py), "
               "so what it would run is not one cache kvplan can size; state --kv-dtype fp8 "
               "(kv_cache_config.dtype fp8 overrides the checkpoint's INT8) or --trtllm-backend "
               "tensorrt (a TensorRT engine's INT8 cache)")
    assert checkpoint_kv(int8) == refused
    assert checkpoint_kv(int8, "1.0.0", None) == refused
    assert checkpoint_kv(int8, "0.20.0", "pytorch") == refused


def test_a_value_left_as_it_is_does_not_stop_the_keys_after_it() -> None:
    """auto and an expert size of -1 leave the record as it is, and the keys after them still
    apply; one way of parallelism is a positive whole number too."""
    out, notes = settings_from({"kv_cache_config": {"dtype": "auto"}, "tensor_parallel_size": 1},
                               "f.yaml")
    assert out == [Setting("parallel.tensor", 1, "tensor_parallel_size")] and len(notes) == 1
    out, notes = settings_from({"moe_expert_parallel_size": -1, "backend": "pytorch"}, "f.yaml")
    assert out == [Setting("engine.trtllm_backend", "pytorch", "backend")]
    assert notes == ["f.yaml: moe_expert_parallel_size -1: TensorRT-LLM derives it (not stated)"]


def test_a_compute_dtype_kvplan_does_not_plan_is_refused_in_full() -> None:
    """The whole line: the file, the key, the value, the dtypes kvplan plans, and where a
    quantized checkpoint and the cache's precision are stated instead."""
    import pytest

    from kvplan.errors import InputError

    with pytest.raises(InputError) as caught:
        settings_from({"dtype": "fp8"}, "opts.yaml")
    assert str(caught.value) == (
        "opts.yaml: dtype 'fp8': kvplan plans TensorRT-LLM's compute dtype auto, float16, "
        "bfloat16, float32; state one of them (a quantized checkpoint is named by the model, "
        "the cache's precision by kv_cache_config.dtype)")


def test_dtype_is_the_last_key_read() -> None:
    """equivalent_mutants.md's note on settings_from's `continue` after dtype auto holds only
    while dtype is SETTING_KEYS' last entry: a key added after it must revisit that note."""
    from kvplan.engines.trtllm_settings import SETTING_KEYS

    assert SETTING_KEYS[-1] == (("dtype",), "engine.weight_dtype", "dtype")
