"""`kvplan check` on a GPU whose compute capability the engine's dtype rule reads (task h81cc):
outcome 85 (transformerlab/transformerlab-app#370: vLLM 0.5.4, DeepSeek-R1-Distill-Qwen-1.5B,
dtype auto = bfloat16, Tesla V100-SXM2-32GB) and the same script with the release its log names,
and SGLang on a V100 (outcome 71's script, held out in round 8)."""

from __future__ import annotations

from pathlib import Path

from kvplan.check.outcome import Outcome
from tests.check.test_check_outcomes import one, pool_tokens

OUTCOMES = Path("tests/assets/check/outcomes")
S85 = "85-vllm-r1-distill-qwen15b-v100-32gb-bf16-failed"
LOG_MSG = ('"Bfloat16 is only supported on GPUs with compute capability of at least 8.0. Your '
           'Tesla V100-SXM2-32GB GPU has compute capability 7.0."')  # the log, verbatim


def _85(tmp: Path, before: str = "", after: str = "", name: str = S85) -> Outcome:
    """Outcome 85's script with `before` added above its launch line and `after` appended to it,
    beside its side file."""
    text = (OUTCOMES / f"{S85}.sh").read_text()
    launch = "python -m vllm.entrypoints.openai.api_server"
    head, tail = text.split(launch)
    (tmp / f"{name}.sh").write_text(head + before + launch + tail.rstrip("\n") + after + "\n")
    (tmp / f"{name}.kvplan.yaml").write_text((OUTCOMES / f"{S85}.kvplan.yaml").read_text())
    return one(tmp / f"{name}.sh")


def test_outcome_85_names_no_release_so_the_newest_falls_back_and_says_so() -> None:
    got = one(OUTCOMES / f"{S85}.sh")
    assert got.verdict == "PASS" and pool_tokens(got) == 964_800  # unchanged: float16 is 2 bytes
    [said] = [n for n in got.notes if "compute capability 7.0" in n]
    assert "--dtype auto falls back from the checkpoint's bfloat16 to float16" in said
    assert "no release is named, and a release before 0.9.0 refuses it instead" in said


def test_outcome_85_on_the_release_its_log_names_fails_as_the_log_does(tmp_path: Path) -> None:
    got = _85(tmp_path, before="pip install vllm==0.5.4\n")
    assert got.verdict == "FAIL" and got.engine_version == "0.5.4"
    [why] = got.reasons
    assert LOG_MSG in why and "vllm/worker/worker.py:352" in why
    assert why.startswith("vLLM 0.5.4 refuses deepseek-r1-distill-qwen-1.5b on v100-sxm2-32gb")
    half = _85(tmp_path, before="pip install vllm==0.5.4\n", after=" --dtype half", name="half")
    assert half.verdict == "PASS" and half.engine_version == "0.5.4"  # the log's own advice
    assert pool_tokens(half)  # 0.5.4's profile: its pool, no longer refused
    assert not [n for n in half.notes if "compute capability" in n]


def test_a_stated_bfloat16_fails_on_the_newest_release_too(tmp_path: Path) -> None:
    got = _85(tmp_path, after=" --dtype bfloat16")
    assert got.verdict == "FAIL"
    assert "refuses --dtype bfloat16 on v100-sxm2-32gb" in got.reasons[0]
    assert "vllm/platforms/cuda.py:679" in got.reasons[0]


def test_gemma2_below_8_0_is_planned_in_float32_from_vllm_0_9_1(tmp_path: Path) -> None:
    """vLLM 0.9.1+ `_resolve_auto_dtype` skips float16 for gemma2 ("Numerical instability"), so
    auto on a T4 is float32: the plan is the one `--dtype float32` gives."""
    def run(name: str, flags: str) -> Outcome:
        (tmp_path / f"{name}.sh").write_text(
            "pip install vllm==0.10.0\n"
            f"vllm serve google/gemma-2-2b --max-model-len 4096{flags}\n")
        (tmp_path / f"{name}.kvplan.yaml").write_text("gpu: t4\n")
        return one(tmp_path / f"{name}.sh")

    auto, fp32, fp16 = run("auto", ""), run("fp32", " --dtype float32"), run("fp16", " --dtype half")
    assert auto.verdict == fp32.verdict and auto.summary == fp32.summary
    assert auto.summary != fp16.summary
    assert any("falls back to float32 for gemma2" in n for n in auto.notes)


def test_sglang_on_a_v100_is_refused_by_its_own_rule() -> None:
    """Outcome 71 (sglang#7006: an OOM while loading Qwen3-32B-FP8 on two 15.77 GiB cards): the
    side file's v100-sxm2-16gb is an inference, and SGLang refuses sm70 before loading."""
    got = one(OUTCOMES / "71-sglang-qwen3-32b-fp8-tp2-16gb-oom.sh")
    assert got.verdict == "FAIL"
    assert got.reasons == [
        'SGLang does not start on v100-sxm2-16gb (compute capability 7.0): "SGLang only supports '
        'sm75 and above." (sglang srt/model_executor/model_runner.py ModelRunner.load_model, '
        ":1382-1389 in 0.5.12.post1; model_runner_components/load_model_utils.py:80-91 in "
        "0.5.23; the same from 0.3.0); choose another GPU or engine"]


def test_a_v100_is_not_a_gpu_an_sglang_server_starts_on(tmp_path: Path) -> None:
    """The "no GPU named" WARN lists the GPUs the server starts on: a V100 (compute capability
    7.0) is not one for SGLang, which refuses it ("SGLang only supports sm75 and above."), as
    `--gpu v100` FAILs it (task h82docs saw it listed); an A100 and an H100 are."""
    script = tmp_path / "serve.sh"
    script.write_text("#!/bin/sh\npython -m sglang.launch_server --model-path Qwen/Qwen3-8B "
                      "--context-length 4096\n")
    got = one(script)
    assert got.verdict == "WARN"
    starts, no = got.summary.split("; would not start on: ")
    assert "v100-sxm2-32gb" in no and "v100-sxm2-16gb" in no
    assert "v100" not in starts and "a100-80gb" in starts and "h100-sxm-80gb" in starts


def _trtllm(tmp: Path, gpu: str, options: str, image: str = "release:1.2.0") -> Outcome:
    """A trtllm-serve line whose options YAML states `options`, on `gpu` (its side file)."""
    (tmp / "opts.yaml").write_text(options)
    (tmp / "serve.sh").write_text(
        f"docker run --gpus all -v /srv/w:/w nvcr.io/nvidia/tensorrt-llm/{image} trtllm-serve "
        "deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B --extra_llm_api_options opts.yaml\n")
    (tmp / "serve.kvplan.yaml").write_text(f"gpu: {gpu}\n")
    return one(tmp / "serve.sh")


def test_trtllm_serve_refuses_a_stated_bfloat16_on_a_v100(tmp_path: Path) -> None:
    """TensorRT-LLM's LLM API (0.12 on) raises RuntimeError("Pre SM 80 GPUs do not support
    bfloat16") for dtype bfloat16 below compute capability 8.0 (task h90dtype); the options
    YAML's `dtype` is its compute dtype. On an A100 the same file starts; float16 and auto start
    on the V100, auto with the note that it is float16 there."""
    got = _trtllm(tmp_path, "v100-sxm2-32gb", "dtype: bfloat16\n")
    assert got.verdict == "FAIL" and got.engine_version == "1.2.0"
    [why] = got.reasons
    assert why.startswith("TensorRT-LLM 1.2.0 refuses dtype bfloat16 on v100-sxm2-32gb "
                          "(compute capability 7.0): RuntimeError(\"Pre SM 80 GPUs do not "
                          "support bfloat16\") (BaseLlmArgs.validate_dtype")
    assert _trtllm(tmp_path, "a100-80gb", "dtype: bfloat16\n").verdict == "PASS"
    half = _trtllm(tmp_path, "v100-sxm2-32gb", "dtype: float16\n")
    auto = _trtllm(tmp_path, "v100-sxm2-32gb", "dtype: auto\n")
    assert half.verdict == auto.verdict == "PASS"
    assert pool_tokens(half) == pool_tokens(auto)  # float16 either way: 2 bytes a value
    assert [n for n in auto.notes if "turns dtype auto into float16" in n]
