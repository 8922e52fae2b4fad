"""`kvplan size` / `explain` with a TensorRT-LLM options file whose cache dtype, parallel layout
and backend are applied, not only named (task h41trtopts): Dynamo's own DeepSeek-R1 engine
configs ask for an fp8 cache, which kvplan used to plan in 16 bits."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from typer.testing import CliRunner

from kvplan.cli import app
from tests.conftest import ok_results

ASSETS = Path(__file__).resolve().parents[1] / "assets" / "trtllm_configs"
MTP = ASSETS / "dynamo-deepseek-r1-mtp_agg.yaml"
WIDE = ASSETS / "dynamo-deepseek-r1-wide_ep_agg.yaml"
# DeepSeek-R1's MLA cache (kvplan/specs catalog, deepseek-ai/DeepSeek-R1 config.json):
# 61 layers x (kv_lora_rank 512 + qk_rope_head_dim 64) values a token
SIXTEEN_BIT = 61 * (512 + 64) * 2  # 70,272 B
FP8 = 61 * (512 + 64) * 1  # 35,136 B: half


def _size(*argv: str) -> Any:
    return CliRunner().invoke(app, ["size", *argv])


def test_dynamo_mtp_config_plans_its_fp8_cache_on_its_four_gpus() -> None:
    """mtp_agg.yaml: kv_cache_config.dtype fp8, tensor_parallel_size 4, moe_expert_parallel_size
    4, backend pytorch. KV per token 61 x 576 x 1 B = 35,136 B, half of the 16-bit 70,272 B the
    same file without its dtype key plans; TP 4 and EP 4 from the file."""
    assert FP8 * 2 == SIXTEEN_BIT == 70_272
    res = _size("deepseek-r1", "--engine", "trtllm", "--gpu", "b200", "--trtllm-config", str(MTP))
    assert res.exit_code == 0, res.output
    assert "fp8 cache · paged (32-token blocks) · TP 4" in res.output
    assert "KV per token per GPU     34.31 KiB (35,136 B)" in res.output
    assert "engine.kv_cache_dtype fp8 from dynamo-deepseek-r1-mtp_agg.yaml " \
           "(kv_cache_config.dtype)" in res.output
    assert "parallel.tensor 4 from dynamo-deepseek-r1-mtp_agg.yaml (tensor_parallel_size)" \
        in res.output
    [row] = ok_results(_size("deepseek-r1", "--engine", "trtllm", "--gpu", "b200",
                        "--trtllm-config", str(MTP), "-f", "json"))
    assert (row["kv_dtype"], row["kv_bytes_per_token"], row["tp"]) == ("fp8", FP8, 4)


def test_the_same_file_without_its_dtype_plans_sixteen_bits(tmp_path: Path) -> None:
    data = yaml.safe_load(MTP.read_text())
    del data["kv_cache_config"]["dtype"]
    cfg = tmp_path / "no-dtype.yaml"
    cfg.write_text(yaml.safe_dump(data))
    [row] = ok_results(_size("deepseek-r1", "--engine", "trtllm", "--gpu", "b200",
                        "--trtllm-config", str(cfg), "-f", "json"))
    assert (row["kv_bytes_per_token"], row["tp"]) == (SIXTEEN_BIT, 4)


def test_dynamo_wide_ep_config_plans_its_top_level_fp8_cache() -> None:
    """wide_ep_agg.yaml states the older top-level `kv_cache_dtype: fp8` and TP/EP 16 (two
    8-GPU H200 servers: --nodes 2). KV per token 35,136 B; the note names the older spelling.
    Blocks of 64 tokens: the PyTorch backend runs FlashMLA for DeepSeek-R1 (kv_lora_rank 512 +
    qk_rope_head_dim 64 = 576) on an H200 (compute capability 9.0) and sets tokens_per_block to
    64 (kvplan.engines.trtllm_mla.flash_mla_block, task trtleft; 32 before it)."""
    res = _size("deepseek-r1", "--engine", "trtllm", "--gpu", "h200", "--nodes", "2",
                "--trtllm-config", str(WIDE))
    assert res.exit_code == 0, res.output
    assert "fp8 cache · paged (64-token blocks) · TP 16" in res.output
    assert "KV per token per GPU     34.31 KiB (35,136 B)" in res.output
    out = " ".join(res.output.split())
    assert "engine.kv_cache_dtype fp8 from dynamo-deepseek-r1-wide_ep_agg.yaml (kv_cache_dtype)" \
        in out
    assert "kv_cache_dtype: an older spelling" in out


def test_explain_names_the_file_as_the_origin_of_the_dtype_and_layout() -> None:
    res = CliRunner().invoke(app, ["explain", "deepseek-r1", "--engine", "trtllm", "--gpu",
                                   "b200", "--trtllm-config", str(MTP), "-f", "json"])
    [row] = ok_results(res)
    record = {f["field"]: (f["value"], f["from"]) for f in row["record"]}
    assert record["engine.kv_cache_dtype"] == ("fp8", MTP.name)
    assert record["parallel.tensor"] == (4, MTP.name)
    assert record["parallel.expert"] == (4, MTP.name)
    assert record["engine.trtllm_backend"] == ("pytorch", MTP.name)


def test_a_kv_dtype_that_disagrees_with_the_file_is_refused_in_one_line() -> None:
    res = _size("deepseek-r1", "--engine", "trtllm", "--gpu", "b200", "--trtllm-config",
                str(MTP), "--kv-dtype", "fp16")
    assert res.exit_code == 2
    assert res.output.strip().splitlines() == [
        "error: command line: engine.kv_cache_dtype (--kv-dtype): fp16 disagrees with "
        "dynamo-deepseek-r1-mtp_agg.yaml's kv_cache_config.dtype fp8; state one"]


def test_a_kv_dtype_that_agrees_is_fine() -> None:
    """fp8_e4m3 is kvplan's fp8: the same precision as the file's fp8."""
    [row] = ok_results(_size("deepseek-r1", "--engine", "trtllm", "--gpu", "b200", "--trtllm-config",
                        str(MTP), "--kv-dtype", "fp8_e4m3", "--tp", "4", "-f", "json"))
    assert (row["kv_bytes_per_token"], row["tp"]) == (FP8, 4)


def test_a_tp_that_disagrees_with_the_file_is_refused() -> None:
    res = _size("deepseek-r1", "--engine", "trtllm", "--gpu", "b200", "--trtllm-config",
                str(MTP), "--tp", "8")
    assert res.exit_code == 2
    assert res.output.strip().splitlines() == [
        "error: command line: parallel.tensor (--tp): 8 disagrees with "
        "dynamo-deepseek-r1-mtp_agg.yaml's tensor_parallel_size 4; state one"]


def test_a_dtype_tensorrt_llm_refuses_is_refused(tmp_path: Path) -> None:
    cfg = tmp_path / "int8.yaml"
    cfg.write_text("kv_cache_config:\n  dtype: int8\n")
    res = _size("llama-3.1-8b", "--engine", "trtllm", "--trtllm-config", str(cfg))
    assert res.exit_code == 2
    assert res.output.strip().splitlines() == [
        "error: command line: engine.trtllm_config (--trtllm-config): int8.yaml: "
        "kv_cache_config.dtype 'int8': TensorRT-LLM accepts auto, fp8, nvfp4 "
        "(_VALID_KV_CACHE_DTYPES, tensorrt_llm/_torch/pyexecutor/model_loader.py) and stops at "
        "start-up on another; use one of them"]
    cfg.write_text("kv_cache_config:\n  dtype: nvfp4\n")
    res = _size("llama-3.1-8b", "--engine", "trtllm", "--trtllm-config", str(cfg))
    assert res.exit_code == 2
    assert "kv_cache_config.dtype nvfp4: kvplan has no NVFP4 cache" in res.output


def test_auto_leaves_the_plan_unchanged(tmp_path: Path) -> None:
    """Llama-3.1-8B: 32 layers x 8 KV heads x 128 x 2 (K, V) x 2 B = 131,072 B a token, with the
    file's auto as without any dtype key (the flags' 16-bit default)."""
    auto = tmp_path / "auto.yaml"
    auto.write_text("max_seq_len: 8192\nkv_cache_config:\n  dtype: auto\n")
    none = tmp_path / "none.yaml"
    none.write_text("max_seq_len: 8192\n")
    res = _size("llama-3.1-8b", "--engine", "trtllm", "--trtllm-config", str(auto))
    assert "kv_cache_config.dtype auto: TensorRT-LLM keeps the checkpoint's KV " \
           "quantization" in " ".join(res.output.split())
    [with_auto] = ok_results(_size("llama-3.1-8b", "--engine", "trtllm", "--trtllm-config",
                              str(auto), "-f", "json"))
    [without] = ok_results(_size("llama-3.1-8b", "--engine", "trtllm", "--trtllm-config", str(none),
                            "-f", "json"))
    assert with_auto["kv_bytes_per_token"] == without["kv_bytes_per_token"] == 32 * 8 * 128 * 2 * 2
    assert with_auto["kv_cache_bytes"] == without["kv_cache_bytes"]


def test_a_dtype_on_the_tensorrt_backend_is_refused(tmp_path: Path) -> None:
    """TensorRT-LLM 0.21.0 runs a TensorRT engine unless --backend pytorch: KvCacheConfig.dtype
    is the PyTorch backend's only, so kvplan refuses to apply it there."""
    cfg = tmp_path / "fp8.yaml"
    cfg.write_text("kv_cache_config:\n  dtype: fp8\n")
    res = _size("llama-3.1-8b", "--engine", "trtllm", "--engine-version", "0.21.0",
                "--trtllm-config", str(cfg))
    assert res.exit_code == 2
    assert res.output.strip().splitlines() == [
        "error: command line: engine.trtllm_config (--trtllm-config): fp8.yaml: "
        "kv_cache_config.dtype fp8: only TensorRT-LLM's PyTorch backend reads it (llm_args.py "
        "KvCacheConfig.dtype); a TensorRT engine's cache dtype is fixed when it is built (its "
        "kv_cache_quant_algo): drop the key and state --kv-dtype, or run the pytorch backend"]
    [row] = ok_results(_size("llama-3.1-8b", "--engine", "trtllm", "--engine-version", "0.21.0",
                        "--trtllm-backend", "pytorch", "--trtllm-config", str(cfg), "-f", "json"))
    assert row["kv_bytes_per_token"] == 32 * 8 * 128 * 2 * 1  # 65,536 B


def test_a_kvplan_file_that_states_the_same_layout_is_fine(tmp_path: Path) -> None:
    (tmp_path / "extra.yaml").write_text("tensor_parallel_size: 2\nkv_cache_config:\n"
                                         "  dtype: fp8\n")
    path = tmp_path / "d.yaml"
    path.write_text(yaml.safe_dump({
        "apiVersion": "kvplan/v1", "name": "trt", "model": "llama-3.1-8b",
        "hardware": {"gpu": "h100"}, "parallel": {"tensor": 2},
        "engine": {"name": "trtllm", "max_model_len": 8192, "trtllm_config": "extra.yaml",
                   "kv_cache_dtype": "auto"},  # auto leaves the cache to the file
        "traffic": {"peak_concurrent_users": 10}}))
    [row] = ok_results(CliRunner().invoke(app, ["size", str(path), "-f", "json"]))
    assert (row["tp"], row["kv_dtype"]) == (2, "fp8")
    data = yaml.safe_load(path.read_text())
    data["parallel"]["tensor"] = 4
    data["engine"]["kv_cache_dtype"] = "bf16"
    path.write_text(yaml.safe_dump(data))
    res = CliRunner().invoke(app, ["size", str(path)])
    assert res.exit_code == 2
    assert "parallel.tensor: 4 disagrees with extra.yaml's tensor_parallel_size 2; state one" \
        in res.output
    assert "engine.kv_cache_dtype: bf16 disagrees with extra.yaml's kv_cache_config.dtype fp8; " \
           "state one" in res.output
