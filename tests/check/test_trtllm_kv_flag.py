"""trtllm-serve's own --kv_cache_dtype (1.3.0rc7 on, task h42trt) read by `kvplan check` from a
manifest's and a script's trtllm-serve command line, with the options file's conflict rules.

The numbers are those of tests/check/test_trtllm_options_check.py (the same Llama-3.1-8B
Deployment on one H100 80GB HBM3, TensorRT-LLM 1.x PyTorch backend, free_gpu_memory_fraction
0.5, max_seq_len 8,192, 45 users of 8,192 tokens): the pool is floor(66,383,437,824 B free x 0.5)
= 33,191,718,912 B for either dtype;
fp8: 32 layers x 8 KV heads x 128 x 2 (K, V) x 1 B = 65,536 B a token, floor(33,191,718,912 /
65,536) = 506,465 tokens -> 15,828 blocks of 32 = 506,496 tokens; one sequence 8,192 x 65,536 =
536,870,912 B; 61 users (PASS);
16-bit (auto, no checkpoint KV quantization): 131,072 B a token, 253,248 tokens, 30 users (FAIL).
"""

from __future__ import annotations

from pathlib import Path

from kvplan.check import check_paths
from tests.check.check_cli_run import check_words

ASSET = (Path(__file__).resolve().parents[1] / "assets" / "check" / "trtllm-options"
         / "llama8b-fp8-options.yaml")
ARGS = 'args: ["--extra_llm_api_options", "/config/agg.yaml"]'


def _manifest(tmp_path: Path, flags: str, image: str = "1.3.0rc7", dtype: str | None = None,
              backend: str = "pytorch") -> Path:
    """The asset with the options file's dtype line replaced (None: removed), the image tag and
    trtllm-serve flags set."""
    text = ASSET.read_text().replace("release:1.2.0", f"release:{image}")
    text = text.replace("      dtype: fp8\n", f"      dtype: {dtype}\n" if dtype else "")
    text = text.replace("backend: pytorch", f"backend: {backend}")
    text = text.replace(ARGS, f'args: [{flags}"--extra_llm_api_options", "/config/agg.yaml"]')
    path = tmp_path / "deploy.yaml"
    path.write_text(text)
    return path


def test_the_flag_sets_an_fp8_cache(tmp_path: Path) -> None:
    """--kv_cache_dtype fp8 on a 1.3.0rc7 image, the file silent on the dtype: 61 users >= 45
    (PASS, exit 0); without the flag the cache is 16-bit: 30 users < 45 (FAIL, exit 1)."""
    code, out = check_words(_manifest(tmp_path, '"--kv_cache_dtype", "fp8", '))
    assert code == 0, out
    assert "PASS" in out and "holds 61 users >= 45 required" in out
    [o] = check_paths([str(tmp_path / "deploy.yaml")]).outcomes
    assert o.numbers is not None and o.numbers.kv_pool_bytes == 506_496 * 65_536
    code, out = check_words(_manifest(tmp_path, ""))
    assert code == 1 and "holds 30 users < 45 required" in out


def test_a_release_before_the_flag_refuses_it(tmp_path: Path) -> None:
    """1.3.0rc6 is tagged before PR #11487 (and 1.2.0 is older still): click stops on an option
    it does not have, a FAIL naming the first release; the value is not planned."""
    for image in ("1.3.0rc6", "1.2.0"):
        code, out = check_words(_manifest(tmp_path, '"--kv_cache_dtype", "fp8", ', image=image))
        assert code == 1, out
        assert (f"the engine refuses it: trtllm-serve {image} has no option --kv_cache_dtype "
                "(first in 1.3.0rc7: tensorrt_llm/commands/serve.py, NVIDIA/TensorRT-LLM PR "
                "#11487") in out


def test_the_flag_and_the_file_disagree(tmp_path: Path) -> None:
    """The file's kv_cache_config.dtype auto against --kv_cache_dtype fp8: an ERROR (exit 2)
    that says to state one; the same value in both is applied once (61 users)."""
    code, out = check_words(_manifest(tmp_path, '"--kv_cache_dtype", "fp8", ', dtype="auto"))
    assert code == 2, out
    assert ("--kv_cache_dtype fp8 and ConfigMap llama8b-trtllm-options agg.yaml's "
            "kv_cache_config.dtype auto disagree") in out and "state one" in out
    code, out = check_words(_manifest(tmp_path, '"--kv_cache_dtype", "fp8", ', dtype="fp8"))
    assert code == 0 and "holds 61 users" in out


def test_values_the_engine_or_kvplan_refuses(tmp_path: Path) -> None:
    """click.Choice(("auto", "fp8", "nvfp4")) stops on fp16 (FAIL, exit 1); nvfp4 has no kvplan
    cache (ERROR, exit 2); fp8 where the TensorRT backend runs is never read (ERROR)."""
    code, out = check_words(_manifest(tmp_path, '"--kv_cache_dtype", "fp16", '))
    assert code == 1 and "--kv_cache_dtype 'fp16' is not one of auto, fp8, nvfp4" in out
    code, out = check_words(_manifest(tmp_path, '"--kv_cache_dtype", "nvfp4", '))
    assert code == 2 and "--kv_cache_dtype nvfp4: kvplan has no NVFP4 cache" in out
    code, out = check_words(_manifest(tmp_path, '"--kv_cache_dtype", "fp8", ', backend="tensorrt"))
    assert code == 2 and "--kv_cache_dtype fp8: only TensorRT-LLM's PyTorch backend reads it" in out


def test_auto_is_noted_with_what_to_state(tmp_path: Path) -> None:
    """--kv_cache_dtype auto is the default: the checkpoint's KV quantization, which the catalog's
    llama-3.1-8b (meta-llama's bf16 checkpoint) does not have: 16-bit, 30 users, and a note."""
    code, out = check_words(_manifest(tmp_path, '"--kv_cache_dtype", "auto", '))
    assert code == 1 and "holds 30 users < 45 required" in out
    assert "--kv_cache_dtype auto: TensorRT-LLM keeps the checkpoint's KV quantization" in out


def test_a_scripts_trtllm_serve_line(tmp_path: Path) -> None:
    """A `docker run` of the 1.3.0rc7 image with trtllm-serve's flags (no options file) and a
    side file for the GPU and the traffic: the flag's fp8 cache holds 61 users (same pool)."""
    script = tmp_path / "serve.sh"
    script.write_text(
        "#!/bin/bash\n"
        "docker run --gpus 1 nvcr.io/nvidia/tensorrt-llm/release:1.3.0rc7 \\\n"
        "  trtllm-serve meta-llama/Llama-3.1-8B-Instruct --kv_cache_dtype fp8 \\\n"
        "  --free_gpu_memory_fraction 0.5 --max_seq_len 8192 --max_num_tokens 8192 "
        "--max_batch_size 256\n")
    (tmp_path / "serve.kvplan.yaml").write_text(
        "gpu: h100-sxm-80gb\ntraffic:\n  peak_concurrent_users: 45\n  context_tokens:\n"
        "    mean: 8192\n")
    code, out = check_words(script)
    assert code == 0, out
    assert "holds 61 users >= 45 required" in out and "trtllm 1.3.0rc7 profile" in out
    script.write_text(script.read_text().replace("1.3.0rc7", "1.2.0"))
    code, out = check_words(script)
    assert code == 1 and "trtllm-serve 1.2.0 has no option --kv_cache_dtype" in out
