"""A TensorRT-LLM options YAML's cache dtype, parallel layout and backend
(kvplan/engines/trtllm_settings.py): each key to its kvplan/v1 path, each refusal word for word
(task h41trtopts)."""

from __future__ import annotations

import pytest

from kvplan.engines.trtllm_settings import AUTO_NOTE, backend_refusal, settings_from
from kvplan.errors import InputError


def _applied(data: object) -> list[tuple[str, object, str]]:
    return [(s.path, s.value, s.key) for s in settings_from(data, "x.yaml")[0]]


def test_each_key_to_its_field():
    data = {"backend": "pytorch", "tensor_parallel_size": 8, "pipeline_parallel_size": 2,
            "moe_expert_parallel_size": 4, "kv_cache_config": {"dtype": "fp8"}}
    assert _applied(data) == [
        ("engine.kv_cache_dtype", "fp8", "kv_cache_config.dtype"),
        ("parallel.tensor", 8, "tensor_parallel_size"),
        ("parallel.pipeline", 2, "pipeline_parallel_size"),
        ("parallel.expert", 4, "moe_expert_parallel_size"),
        ("engine.trtllm_backend", "pytorch", "backend")]


def test_the_older_top_level_spelling_is_applied_with_a_note():
    settings, notes = settings_from({"kv_cache_dtype": "fp8"}, "x.yaml")
    assert [(s.path, s.value, s.key) for s in settings] == [
        ("engine.kv_cache_dtype", "fp8", "kv_cache_dtype")]
    assert notes == ["x.yaml: kv_cache_dtype: an older spelling (TorchLlmArgs.kv_cache_dtype in "
                     "the 0.20/0.21-era llm_args.py); current releases read "
                     "kv_cache_config.dtype and reject the top-level key (TensorRT-LLM PR "
                     "#18899)"]


def test_both_spellings_that_agree_apply_once():
    data = {"kv_cache_dtype": "fp8", "kv_cache_config": {"dtype": "fp8"}}
    assert _applied(data) == [("engine.kv_cache_dtype", "fp8", "kv_cache_config.dtype")]


def test_auto_leaves_the_record_and_says_what_auto_is():
    """TensorRT-LLM's "auto" keeps the checkpoint's KV quantization: the file applies nothing
    (the model spec's kv_cache_quant_algo resolves it when the plan is built,
    kvplan.deploy._checkpoint_kv), and the note says where auto comes from and what to state."""
    settings, notes = settings_from({"kv_cache_config": {"dtype": "auto"}}, "x.yaml")
    assert settings == []
    assert notes == [f"x.yaml: kv_cache_config.dtype auto: {AUTO_NOTE}"]
    assert AUTO_NOTE.startswith("TensorRT-LLM keeps the checkpoint's KV quantization")
    assert "kv_cache_quant_algo" in AUTO_NOTE and "state --kv-dtype fp8" in AUTO_NOTE


def test_an_older_releases_derived_expert_size_is_not_stated():
    settings, notes = settings_from({"moe_expert_parallel_size": -1}, "x.yaml")
    assert settings == []
    assert notes == ["x.yaml: moe_expert_parallel_size -1: TensorRT-LLM derives it (not stated)"]


def test_an_engine_config_json_states_no_settings():
    assert settings_from({"build_config": {"max_batch_size": 8}, "backend": "pytorch"},
                         "config.json") == ([], [])
    assert settings_from([1, 2], "x.yaml") == ([], [])


@pytest.mark.parametrize(("data", "message"), [
    ({"kv_cache_config": {"dtype": "nvfp4"}},
     "x.yaml: kv_cache_config.dtype nvfp4: kvplan has no NVFP4 cache (4-bit floats with one fp8 "
     "scale per 16 values; its int4 cache keeps one 16-bit scale per kv_group_size values): set "
     "fp8 to plan an 8-bit cache, or drop the key and state --kv-dtype"),
    ({"kv_cache_config": {"dtype": "int8"}},
     "x.yaml: kv_cache_config.dtype 'int8': TensorRT-LLM accepts auto, fp8, nvfp4 "
     "(_VALID_KV_CACHE_DTYPES, tensorrt_llm/_torch/pyexecutor/model_loader.py) and stops at "
     "start-up on another; use one of them"),
    ({"kv_cache_dtype": "FP8"},  # TensorRT-LLM compares the exact string
     "x.yaml: kv_cache_dtype 'FP8': TensorRT-LLM accepts auto, fp8, nvfp4 "
     "(_VALID_KV_CACHE_DTYPES, tensorrt_llm/_torch/pyexecutor/model_loader.py) and stops at "
     "start-up on another; use one of them"),
    ({"kv_cache_dtype": "fp8", "kv_cache_config": {"dtype": "auto"}},
     "x.yaml: kv_cache_config.dtype auto and kv_cache_dtype fp8 disagree; state one"),
    ({"tensor_parallel_size": 0},
     "x.yaml: tensor_parallel_size: expected a positive whole number, got 0"),
    ({"pipeline_parallel_size": True},
     "x.yaml: pipeline_parallel_size: expected a positive whole number, got True"),
    ({"moe_expert_parallel_size": 2.5},
     "x.yaml: moe_expert_parallel_size: expected a positive whole number, got 2.5"),
    ({"backend": "_autodeploy"},
     "x.yaml: backend _autodeploy: AutoDeploy's memory is not modelled (kvplan sizes the "
     "pytorch and tensorrt backends); set one of them"),
    ({"backend": "trt"},
     "x.yaml: backend 'trt': expected one of pytorch, tensorrt, _autodeploy (trtllm-serve "
     "--backend)"),
    ({"backend": "tensorrt", "kv_cache_config": {"dtype": "fp8"}},
     "x.yaml: kv_cache_config.dtype fp8: only TensorRT-LLM's PyTorch backend reads it "
     "(llm_args.py KvCacheConfig.dtype); a TensorRT engine's cache dtype is fixed when it is "
     "built (its kv_cache_quant_algo): drop the key and state --kv-dtype, or run the pytorch "
     "backend"),
])
def test_refusals(data: object, message: str):
    with pytest.raises(InputError) as err:
        settings_from(data, "x.yaml")
    assert str(err.value) == message


def test_auto_and_fp8_on_both_spellings_disagree_the_other_way_too():
    with pytest.raises(InputError, match="kv_cache_config.dtype fp8 and kv_cache_dtype auto"):
        settings_from({"kv_cache_dtype": "auto", "kv_cache_config": {"dtype": "fp8"}}, "x.yaml")


def test_the_backend_that_runs_decides_whether_the_dtype_applies():
    """PyTorch from 1.0 unless stated (kvplan.engines.trtllm_pytorch.uses_pytorch): the default
    1.3.0 and a stated pytorch read kv_cache_config.dtype; 0.21.0 (TensorRT by default) and a
    stated tensorrt do not."""
    settings, _ = settings_from({"kv_cache_config": {"dtype": "fp8"}}, "x.yaml")
    assert backend_refusal("x.yaml", settings, None, None) is None
    assert backend_refusal("x.yaml", settings, "0.21.0", "pytorch") is None
    refused = backend_refusal("x.yaml", settings, "0.21.0", None)
    assert refused is not None and refused.startswith(
        "x.yaml: kv_cache_config.dtype fp8: only TensorRT-LLM's PyTorch backend reads it")
    assert backend_refusal("x.yaml", settings, "1.2.0", "tensorrt") == refused
    assert backend_refusal("x.yaml", [], "0.21.0", None) is None  # no dtype, nothing to refuse


def test_the_llm_api_dtype_is_the_compute_dtype():
    """`dtype` (task h90dtype): the LLM API's compute dtype, applied as engine.weight_dtype, so
    the compute-capability rule (kvplan.engines.dtype_trtllm) can FAIL a bfloat16 on a V100;
    auto leaves the record's own with a note; a value kvplan does not plan is refused."""
    assert _applied({"dtype": "bfloat16"}) == [("engine.weight_dtype", "bfloat16", "dtype")]
    assert _applied({"dtype": "float16", "tensor_parallel_size": 2}) == [
        ("parallel.tensor", 2, "tensor_parallel_size"), ("engine.weight_dtype", "float16", "dtype")]
    settings, notes = settings_from({"dtype": "auto"}, "x.yaml")
    assert settings == []
    assert notes == ["x.yaml: dtype auto: the LLM API's default, the checkpoint's torch_dtype "
                     "(float16 below compute capability 8.0): planned as the record's weight "
                     "dtype"]
    with pytest.raises(InputError, match=r"^x\.yaml: dtype 'fp8': kvplan plans TensorRT-LLM's "
                       r"compute dtype auto, float16, bfloat16, float32; state one"):
        settings_from({"dtype": "fp8"}, "x.yaml")
