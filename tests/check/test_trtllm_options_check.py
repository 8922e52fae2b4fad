"""`kvplan check` of a trtllm-serve Deployment whose ConfigMap holds a Dynamo-style options file
asking for an fp8 cache (tests/assets/check/trtllm-options/llama8b-fp8-options.yaml, task
h41trtopts): the file's cache dtype is applied, and it turns the verdict."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from kvplan.check import check_paths
from kvplan.cli import app

ASSET = (Path(__file__).resolve().parents[1] / "assets" / "check" / "trtllm-options"
         / "llama8b-fp8-options.yaml")


def test_the_files_fp8_cache_passes_where_sixteen_bits_fail(tmp_path: Path) -> None:
    """Llama-3.1-8B on one H100 80GB HBM3, TensorRT-LLM 1.2.0 PyTorch backend,
    free_gpu_memory_fraction 0.5, max_seq_len 8,192, 45 users of 8,192 tokens required.
    Free memory after weights, activations and the non-torch term: 66,383,437,824 B (kvplan
    explain, none of it depends on the cache dtype); the pool floor(x 0.5) = 33,191,718,912 B.
    fp8: 32 layers x 8 KV heads x 128 x 2 (K, V) x 1 B = 65,536 B a token;
    floor(33,191,718,912 / 65,536) = 506,465 tokens -> ceil(/ 32) = 15,828 blocks = 506,496
    tokens = 33,193,721,856 B; one 8,192-token sequence 536,870,912 B;
    floor(33,193,721,856 / 536,870,912) = 61 users >= 45: PASS.
    16-bit (the file's dtype auto): 131,072 B a token, 253,248 tokens, 30 users < 45: FAIL."""
    [o] = check_paths([str(ASSET)]).outcomes
    assert o.verdict == "PASS", o.reasons
    assert o.numbers is not None
    assert o.numbers.kv_pool_bytes == 33_193_721_856
    assert o.numbers.kv_pool_bytes // 65_536 == 506_496
    assert o.numbers.max_sequence_bytes == 8192 * 65_536
    assert (o.numbers.users_per_replica, o.numbers.users_required) == (61, 45)
    assert any("applied engine.kv_cache_dtype fp8 (kv_cache_config.dtype), parallel.tensor 1 "
               "(tensor_parallel_size), engine.trtllm_backend pytorch (backend)" in n
               for n in o.notes)
    auto = tmp_path / "auto.yaml"
    auto.write_text(ASSET.read_text().replace("dtype: fp8", "dtype: auto"))
    [o] = check_paths([str(auto)]).outcomes
    assert o.verdict == "FAIL"
    assert o.numbers is not None and o.numbers.users_per_replica == 30
    assert o.numbers.kv_pool_bytes == 253_248 * 131_072


def test_the_file_wins_over_trtllm_serves_flags(tmp_path: Path) -> None:
    """trtllm-serve applies the options file over its flags (llm_args | llm_args_dict): the
    file's tensor_parallel_size 1 overrides --tp_size 2, with a note."""
    text = ASSET.read_text().replace(
        'args: ["--extra_llm_api_options", "/config/agg.yaml"]',
        'args: ["--tp_size", "2", "--extra_llm_api_options", "/config/agg.yaml"]')
    path = tmp_path / "flags.yaml"
    path.write_text(text)
    [o] = check_paths([str(path)]).outcomes
    assert any("agg.yaml's tensor_parallel_size 1 overrides --tp_size 2 (trtllm-serve applies "
               "the options file over its flags)" in n for n in o.notes)
    assert o.numbers is not None and o.numbers.gpus_per_replica == 1


def test_a_cache_dtype_kvplan_cannot_plan_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "nvfp4.yaml"
    path.write_text(ASSET.read_text().replace("dtype: fp8", "dtype: nvfp4"))
    res = CliRunner().invoke(app, ["check", str(path)])
    assert res.exit_code != 0
    out = " ".join(res.output.split())
    assert "ERROR" in out
    assert "ConfigMap llama8b-trtllm-options agg.yaml: kv_cache_config.dtype nvfp4: kvplan has " \
           "no NVFP4 cache" in out
