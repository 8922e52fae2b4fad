"""`size`, `explain` and `fleet` apply the engine's compute-dtype rule on the GPU the record names,
`--gpu` included (task h82docs saw `kvplan size ... --gpu v100` plan vLLM 0.8.5's bfloat16 start
with no word, where check FAILs it; kvplan.plan.gpu_dtype). The rules and their sources are
kvplan.engines.dtype_support's (vLLM _check_if_gpu_supports_dtype, 0.8.5
vllm/v1/worker/gpu_worker.py:332; SGLang's sm75 floor)."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from kvplan.cli import app

V100_MSG = ('"Bfloat16 is only supported on GPUs with compute capability of at least 8.0. Your '
            'Tesla V100-SXM2-32GB GPU has compute capability 7.0."')


def _size(*args: str) -> tuple[int, str]:
    res = CliRunner().invoke(app, ["size", *args])
    return res.exit_code, " ".join(res.output.split())


def test_vllm_085_on_a_v100_is_said_and_planned_as_if_it_started() -> None:
    code, out = _size("llama-3-8b", "--gpu", "v100", "--engine", "vllm",
                      "--engine-version", "0.8.5", "--context", "4096")
    assert code == 0, out
    assert f"vLLM 0.8.5 refuses llama-3-8b on v100-sxm2-32gb: --dtype auto is the checkpoint's " \
           f"bfloat16, and {V100_MSG}" in out
    assert "planned as if it started (`kvplan check` FAILs such a deployment)" in out


def test_dtype_half_is_not_refused_on_a_v100() -> None:
    code, out = _size("llama-3-8b", "--gpu", "v100", "--engine", "vllm",
                      "--engine-version", "0.8.5", "--context", "4096", "--weight-dtype", "fp16")
    assert code == 0, out
    assert "refuses" not in out and "compute capability" not in out


def test_newest_vllm_falls_back_to_float16_with_a_note() -> None:
    code, out = _size("llama-3-8b", "--gpu", "v100", "--engine", "vllm", "--context", "4096")
    assert code == 0, out
    assert "--dtype auto falls back from the checkpoint's bfloat16 to float16" in out


def test_sglang_on_a_v100_is_said() -> None:
    code, out = _size("qwen3-8b", "--gpu", "v100", "--engine", "sglang", "--context", "4096")
    assert code == 0, out
    assert ('SGLang does not start on v100-sxm2-32gb (compute capability 7.0): "SGLang only '
            'supports sm75 and above."') in out


def test_an_ampere_gpu_gets_no_dtype_note() -> None:
    code, out = _size("llama-3-8b", "--gpu", "a100-80gb", "--engine", "vllm",
                      "--engine-version", "0.8.5", "--context", "4096")
    assert code == 0, out
    assert "compute capability" not in out


def test_gemma2_falls_back_to_float32_weights_and_cache() -> None:
    """vLLM 0.9.1+ skips float16 for gemma2 (`_FLOAT16_NOT_SUPPORTED_MODELS`): `auto` on a V100
    falls back to float32, and the cache's auto is that dtype: 2 x 26 x 4 x 256 x 4 = 212,992 B a
    token for Gemma-2-2B, twice the 106,496 B it takes on an A100 (kvplan.engines.dtype_support).
    A --kv-dtype the user gives is kept."""
    def row(*args: str) -> dict:
        res = CliRunner().invoke(app, ["size", "gemma-2-2b", "--engine", "vllm", "--context",
                                       "4096", "--format", "json", *args])
        assert res.exit_code == 0, res.output
        return json.loads(res.stdout)["results"][0]

    a100, v100 = row("--gpu", "a100-80gb"), row("--gpu", "v100")
    assert (a100["weight_dtype"], a100["kv_bytes_per_token"]) == ("bf16", 106_496)
    assert (v100["weight_dtype"], v100["kv_dtype"], v100["kv_bytes_per_token"]) == \
        ("fp32", "fp32", 212_992)
    kept = row("--gpu", "v100", "--kv-dtype", "fp16")
    assert (kept["weight_dtype"], kept["kv_bytes_per_token"]) == ("fp32", 106_496)


def test_trtllm_bfloat16_on_a_t4_is_said_and_float16_plans_the_same_pool() -> None:
    """TensorRT-LLM's LLM API refuses bfloat16 below 8.0 (RuntimeError("Pre SM 80 GPUs do not
    support bfloat16"), task h90dtype): size says so and plans as if it started; float16 is
    the same 2 bytes a value, so the planned pool does not move."""
    args = ("deepseek-r1-distill-qwen-1.5b", "--gpu", "t4", "--engine", "trtllm",
            "--context", "4096")
    code, bf16 = _size(*args, "--weight-dtype", "bf16")
    assert code == 0, bf16
    assert 'RuntimeError("Pre SM 80 GPUs do not support bfloat16")' in bf16
    assert "planned as if it started (`kvplan check` FAILs such a deployment)" in bf16
    code, fp16 = _size(*args, "--weight-dtype", "fp16")
    assert code == 0, fp16
    assert "Pre SM 80" not in fp16
    pool = bf16[bf16.index("KV pool per GPU"):bf16.index("Users per GPU")]
    assert pool.startswith("KV pool per GPU ") and pool in fp16
