"""TensorRT-LLM limits read from a file (kvplan/engines/trtllm_config.py): each key to its
kvplan/v1 field, each refusal word for word."""

from __future__ import annotations

from pathlib import Path

import pytest

from kvplan.engines.trtllm_config import file_name, limits_from, read_all
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
    assert read_all(path)[0] == {"max_num_seqs": 8, "max_model_len": 2048, "block_size": 64}


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
    ({"print_iter_log": True},
     "engine.trtllm_config: x.yaml states none of max_batch_size, max_num_tokens, max_seq_len, "
     "kv_cache_config.tokens_per_block, kv_cache_config.free_gpu_memory_fraction, "
     "kv_cache_config.max_tokens, kv_cache_config.dtype, kv_cache_dtype, tensor_parallel_size, "
     "pipeline_parallel_size, moe_expert_parallel_size, backend, dtype; name the "
     "--extra_llm_api_options YAML or the engine's config.json"),
    ({"build_config": {"max_beam_width": 1}, "tensor_parallel_size": 2},
     "engine.trtllm_config: x.yaml states none of build_config.max_batch_size, "
     "build_config.max_num_tokens, build_config.max_seq_len, "
     "build_config.plugin_config.tokens_per_block; name the --extra_llm_api_options YAML or the "
     "engine's config.json"),
])
def test_refusals(data: object, message: str):
    with pytest.raises(InputError) as err:
        limits_from(data, "x.yaml")
    assert str(err.value) == message


def test_a_file_with_only_settings_is_not_refused():
    """A YAML that states a setting (kvplan.engines.trtllm_settings) and no limit is read: the
    backend alone is a value kvplan applies."""
    assert limits_from({"backend": "pytorch"}, "x.yaml") == {}


def test_a_file_of_memory_moving_keys_is_trtllms(tmp_path: Path):
    """NVIDIA's gpt-oss guide (TensorRT-LLM blog9, commit 04a2a261332f) has trtllm-serve read a
    `low_latency.yaml` that states no limit, only LLM-API keys kvplan names as moving memory
    (MOVES_MEMORY) and one it does not know: read with no limit and every key named, where it was
    refused as not TensorRT-LLM's (outcome 102, task h100outcomes). A file of keys kvplan knows
    nothing of is still refused."""
    path = tmp_path / "low_latency.yaml"
    path.write_text("enable_attention_dp: false\nenable_mixed_sampler: true\ncuda_graph_config:\n"
                    "    max_batch_size: 8\n    enable_padding: true\nmoe_config:\n"
                    "    backend: TRTLLM\n")
    limits, settings, _, unread = read_all(path)
    assert limits == {} and settings == []
    assert unread is not None and unread.startswith("low_latency.yaml: keys not read by kvplan: "
                                                    "enable_attention_dp: attention data parallelism")
    assert unread.endswith("; enable_mixed_sampler: not read")
    for key in ("speculative_config", "use_cuda_graph", "cuda_graph_batch_sizes"):
        assert limits_from({key: None}, "x.yaml") == {}, key
    with pytest.raises(InputError, match="states none of"):
        limits_from({"enable_mixed_sampler": True}, "x.yaml")


def test_a_share_of_one_is_accepted():
    assert limits_from({"kv_cache_config": {"free_gpu_memory_fraction": 1}}, "x.yaml") == {
        "gpu_memory_utilization": 1.0}


def test_a_missing_file(tmp_path: Path):
    with pytest.raises(InputError) as err:
        read_all(tmp_path / "nope.yaml")
    assert str(err.value) == f"engine.trtllm_config: {tmp_path / 'nope.yaml'}: no such file"


def test_file_names_of_fields():
    assert file_name("max_num_seqs", False) == "max_batch_size"
    assert file_name("max_num_seqs", True) == "build_config.max_batch_size"
    assert file_name("block_size", True) == "build_config.plugin_config.tokens_per_block"
    assert file_name("gpu_memory_utilization", False) == "kv_cache_config.free_gpu_memory_fraction"
    assert file_name("gpu_memory_utilization", True) == "gpu_memory_utilization"  # not in it


ASSETS = Path(__file__).resolve().parents[1] / "assets" / "trtllm_configs"


def test_public_option_files_name_every_key_not_read():
    """Two of Dynamo's DeepSeek-R1 engine configs (tests/assets/trtllm_configs/SOURCES.md): the
    limits are read, the cache dtype, parallel layout and backend are applied (task h41trtopts),
    and every other key is named, those that move memory with how, never dropped silently (the
    MTP layers and attention DP are not modelled)."""
    from kvplan.engines.trtllm_config import unread, unread_note

    mtp = ASSETS / "dynamo-deepseek-r1-mtp_agg.yaml"
    limits, settings, notes, note = read_all(mtp)
    assert limits == {"max_num_seqs": 256, "max_num_batched_tokens": 8448,
                      "max_model_len": 8448, "gpu_memory_utilization": 0.3}
    assert unread(limits_data(mtp)) == [
        "enable_attention_dp", "speculative_config", "cuda_graph_config", "print_iter_log"]
    assert [(s.path, s.value, s.key) for s in settings] == [
        ("engine.kv_cache_dtype", "fp8", "kv_cache_config.dtype"),
        ("parallel.tensor", 4, "tensor_parallel_size"),
        ("parallel.expert", 4, "moe_expert_parallel_size"),
        ("engine.trtllm_backend", "pytorch", "backend")]
    assert notes == []
    assert note == unread_note(limits_data(mtp), mtp.name)
    assert note is not None and note.startswith("dynamo-deepseek-r1-mtp_agg.yaml: keys not read")
    assert "speculative_config: a draft model or MTP layers" in note
    assert "dtype" not in note and "tensor_parallel_size" not in note and "backend" not in note
    assert note.endswith("print_iter_log: not read")
    wide = ASSETS / "dynamo-deepseek-r1-wide_ep_agg.yaml"
    limits, settings, notes, _ = read_all(wide)
    assert limits["max_num_batched_tokens"] == 256
    keys = unread(limits_data(wide))
    assert "moe_config (backend WideEP)" in keys and "kv_cache_dtype" not in keys
    assert "cuda_graph_padding_enabled" in keys
    assert [(s.path, s.value, s.key) for s in settings] == [
        ("engine.kv_cache_dtype", "fp8", "kv_cache_dtype"),
        ("parallel.tensor", 16, "tensor_parallel_size"),
        ("parallel.expert", 16, "moe_expert_parallel_size"),
        ("engine.trtllm_backend", "pytorch", "backend")]
    assert notes == ["dynamo-deepseek-r1-wide_ep_agg.yaml: kv_cache_dtype: an older spelling "
                     "(TorchLlmArgs.kv_cache_dtype in the 0.20/0.21-era llm_args.py); current "
                     "releases read kv_cache_config.dtype and reject the top-level key "
                     "(TensorRT-LLM PR #18899)"]


def test_an_engine_config_json_lists_no_unread_keys(tmp_path: Path):
    from kvplan.engines.trtllm_config import unread

    assert unread({"build_config": {"max_batch_size": 8}, "pretrained_config": {}}) == []
    p = tmp_path / "config.json"
    p.write_text('{"build_config": {"max_batch_size": 8}}')
    assert read_all(p)[3] is None
    only_limits = tmp_path / "o.yaml"
    only_limits.write_text("max_batch_size: 8\nkv_cache_config:\n  max_tokens: 100\n")
    assert read_all(only_limits)[3] is None


def test_a_check_names_the_moe_backend_it_does_not_model(tmp_path: Path):
    """A compose service running trtllm-serve with an options file beside it that picks the
    DEEPGEMM MoE backend: the gate reads the file's fraction and says the backend's workspace is
    not in the pool (was dropped silently)."""
    from typer.testing import CliRunner

    from kvplan.cli import app

    (tmp_path / "extra.yaml").write_text(
        "moe_config:\n  backend: DEEPGEMM\nkv_cache_config:\n  free_gpu_memory_fraction: 0.7\n")
    (tmp_path / "compose.yaml").write_text(
        "services:\n  trt:\n    image: nvcr.io/nvidia/tensorrt-llm/release:1.2.0rc6.post3\n"
        "    command: [\"trtllm-serve\", \"deepseek-ai/DeepSeek-R1\", \"--tp_size\", \"8\",\n"
        "              \"--extra_llm_api_options\", \"extra.yaml\"]\n"
        "    deploy:\n      resources:\n        reservations:\n"
        "          devices: [{driver: nvidia, count: 8, capabilities: [gpu]}]\n")
    res = CliRunner().invoke(app, ["check", str(tmp_path / "compose.yaml"), "--gpu", "b200"])
    out = " ".join(res.output.split())
    assert "limits read from extra.yaml" in out
    assert "extra.yaml: keys not read by kvplan: moe_config (backend DEEPGEMM): the MoE " in out
    assert "the pool is sized without them" in out


def limits_data(path: Path) -> object:
    from kvplan.inputs import load_yaml

    return load_yaml(path)
