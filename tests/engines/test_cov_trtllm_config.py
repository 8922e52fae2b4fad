"""TensorRT-LLM limits read from a file (kvplan/engines/trtllm_config.py): each key to its
kvplan/v1 field, each refusal word for word."""

from __future__ import annotations

from pathlib import Path

import pytest

from kvplan.engines.trtllm_config import file_name, limits_from, read_limits
from kvplan.errors import InputError


def test_the_llm_api_yaml_keys():
    data = {"max_batch_size": 64, "max_num_tokens": 8192, "max_seq_len": 4096,
            "kv_cache_config": {"tokens_per_block": 32, "free_gpu_memory_fraction": 0.85,
                                "max_tokens": 100000}, "backend": "pytorch"}
    assert limits_from(data, "extra.yaml") == {
        "max_num_seqs": 64, "max_num_batched_tokens": 8192, "max_model_len": 4096,
        "block_size": 32, "gpu_memory_utilization": 0.85, "max_tokens_in_paged_kv_cache": 100000}


def test_an_engine_config_json(tmp_path: Path):
    path = tmp_path / "config.json"
    path.write_text('{"build_config": {"max_batch_size": 8, "max_seq_len": 2048.0, '
                    '"plugin_config": {"tokens_per_block": 64}}}')
    # 2048.0 is a whole number: read as 2,048
    assert read_limits(path) == {"max_num_seqs": 8, "max_model_len": 2048, "block_size": 64}


@pytest.mark.parametrize(("data", "message"), [
    ([1, 2], "engine.trtllm_config: x.yaml: expected a mapping of TensorRT-LLM options"),
    ({"max_batch_size": True}, "x.yaml: max_batch_size: expected a number, got True"),
    ({"max_batch_size": "8"}, "x.yaml: max_batch_size: expected a number, got '8'"),
    ({"max_batch_size": 8.5}, "x.yaml: max_batch_size: expected a positive whole number, got 8.5"),
    ({"max_batch_size": 0}, "x.yaml: max_batch_size: expected a positive whole number, got 0"),
    ({"kv_cache_config": {"free_gpu_memory_fraction": 0}},
     "x.yaml: kv_cache_config.free_gpu_memory_fraction: expected a share in (0, 1], got 0"),
    ({"kv_cache_config": {"free_gpu_memory_fraction": 1.5}},
     "x.yaml: kv_cache_config.free_gpu_memory_fraction: expected a share in (0, 1], got 1.5"),
    ({"backend": "pytorch"},
     "engine.trtllm_config: x.yaml states none of max_batch_size, max_num_tokens, max_seq_len, "
     "kv_cache_config.tokens_per_block, kv_cache_config.free_gpu_memory_fraction, "
     "kv_cache_config.max_tokens; name the --extra_llm_api_options YAML or the engine's "
     "config.json"),
])
def test_refusals(data: object, message: str):
    with pytest.raises(InputError) as err:
        limits_from(data, "x.yaml")
    assert str(err.value) == message


def test_a_share_of_one_is_accepted():
    assert limits_from({"kv_cache_config": {"free_gpu_memory_fraction": 1}}, "x.yaml") == {
        "gpu_memory_utilization": 1.0}


def test_a_missing_file(tmp_path: Path):
    with pytest.raises(InputError) as err:
        read_limits(tmp_path / "nope.yaml")
    assert str(err.value) == f"engine.trtllm_config: {tmp_path / 'nope.yaml'}: no such file"


def test_file_names_of_fields():
    assert file_name("max_num_seqs", False) == "max_batch_size"
    assert file_name("max_num_seqs", True) == "build_config.max_batch_size"
    assert file_name("block_size", True) == "build_config.plugin_config.tokens_per_block"
    assert file_name("gpu_memory_utilization", False) == "kv_cache_config.free_gpu_memory_fraction"
    assert file_name("gpu_memory_utilization", True) == "gpu_memory_utilization"  # not in it
