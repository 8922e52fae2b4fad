"""Mutation tests of kvplan/engines/dtype_trtllm.py (task h100mut): TensorRT-LLM's compute dtype
below compute capability 8.0, its four user-visible lines word for word, and the source line each
release cites (`_at`) at every boundary of its two tables.

The words quoted are the engines' own, as the module reads them: the LLM API's
RuntimeError("Pre SM 80 GPUs do not support bfloat16") (tensorrt_llm/hlapi/llm_utils.py:295,
LlmArgs.__post_init__, main be9cd719, 0.12.0.dev2024080600; :304 in 0.13, :372 in 0.14,
llmapi/llm_utils.py:408 in 0.15, :493 in 0.16, :495 in 0.17; BaseLlmArgs.validate_dtype in
llmapi/llm_args.py after) and the GPT attention plugin's TLLM_CHECK_WITH_INFO "Unsupported data
type, pre SM 80 GPUs do not support bfloat16" (cpp/tensorrt_llm/plugins/gptAttentionCommon/
gptAttentionCommon.cpp:273 in release/0.5.0, :368 in 0.6, :369 in release/v0.7.1, :445 in 0.8,
:460 in 0.9, :463 in 0.10, :488 in 0.11; logged on a V100 in NVIDIA/TensorRT-LLM#1069). The GPUs'
compute capabilities are the catalog's (hardware_specs/t4.yaml 7.5, v100-sxm2-32gb.yaml 7.0, each
with its NVIDIA source); the checkpoint is DeepSeek-R1-Distill-Qwen-1.5B, torch_dtype bfloat16
(tests/assets/hf_configs).
"""

from __future__ import annotations

import pytest

from kvplan.engines.dtype_support import DtypeOnGpu, dtype_on_gpu
from kvplan.specs import load_hardware, load_model
from kvplan.units import DType

R1 = "deepseek-r1-distill-qwen-1.5b"  # config.json torch_dtype bfloat16
PLUGIN = '"Unsupported data type, pre SM 80 GPUs do not support bfloat16"'
LLM_API = 'RuntimeError("Pre SM 80 GPUs do not support bfloat16")'
NEWEST = ("BaseLlmArgs.validate_dtype, tensorrt_llm/llmapi/llm_args.py, in the pydantic LlmArgs, "
          "word for word LlmArgs.__post_init__'s of 0.17, llm_utils.py:495; the release that moved "
          "it was not placed")
CPP = "cpp/tensorrt_llm/plugins/gptAttentionCommon"
AT_011 = "gptAttentionCommon.cpp:488 in 0.11 (main 9691e12b, 0.11.0.dev2024062500)"
AT_012 = ("tensorrt_llm/hlapi/llm_utils.py:295 (LlmArgs.__post_init__) in 0.12 (main be9cd719, "
          "0.12.0.dev2024080600)")


def _trt(version: str | None, stated: DType | None = None, gpu: str = "t4",
         model: str = R1) -> DtypeOnGpu:
    return dtype_on_gpu("trtllm", version, stated, load_model(model), load_hardware(gpu))


def test_a_bfloat16_engine_before_0_12_word_for_word() -> None:
    assert _trt("0.11.0", DType.bf16) == DtypeOnGpu(refusal=(
        "TensorRT-LLM 0.11.0 does not run a bfloat16 engine on t4 (compute capability 7.5): "
        f"{PLUGIN} ({AT_011}, the GPT attention plugin's constructor, at engine build and load); "
        "build the engine in float16"))


def test_auto_before_0_12_word_for_word() -> None:
    assert _trt("0.11.0") == DtypeOnGpu(note=(
        "TensorRT-LLM 0.11.0 on t4 (compute capability 7.5): a TensorRT engine runs in the dtype "
        f"it was built in, and a bfloat16 one is refused ({PLUGIN}, {AT_011}); the checkpoint is "
        "bfloat16 and some converters fall back to float16 (LLaMA's from 0.11, "
        "models/llama/config.py:150): planned in 16 bits, state the engine's dtype to check it"))


def test_the_llm_api_from_0_12_word_for_word() -> None:
    # "0.12" reads as (0, 12): the first release with the check, not the last without it
    assert _trt("0.12", DType.bf16, gpu="v100-sxm2-32gb") == DtypeOnGpu(refusal=(
        "TensorRT-LLM 0.12 refuses dtype bfloat16 on v100-sxm2-32gb (compute capability 7.0): "
        f"{LLM_API} ({AT_012}); give float16, or auto, which TensorRT-LLM turns into float16 "
        "below compute capability 8.0"))
    assert _trt("0.12", gpu="v100-sxm2-32gb") == DtypeOnGpu(note=(
        "TensorRT-LLM 0.12 on v100-sxm2-32gb (compute capability 7.0, no bfloat16): its LLM API "
        f"turns dtype auto into float16 ({AT_012}), not the checkpoint's bfloat16: planned in "
        "float16, the same 2 bytes a value"))


def test_the_newest_release_is_named_so_and_cites_the_pydantic_check() -> None:
    assert _trt(None, DType.bf16).refusal == (
        "TensorRT-LLM (newest release) refuses dtype bfloat16 on t4 (compute capability 7.5): "
        f"{LLM_API} ({NEWEST}); give float16, or auto, which TensorRT-LLM turns into float16 "
        "below compute capability 8.0")
    assert str(_trt(None).note).startswith(
        f"TensorRT-LLM (newest release) on t4 (compute capability 7.5, no bfloat16): its LLM API "
        f"turns dtype auto into float16 ({NEWEST}), not")


@pytest.mark.parametrize(("version", "where"), [
    ("0.12", "tensorrt_llm/hlapi/llm_utils.py:295 (LlmArgs.__post_init__) in 0.12"),
    ("0.12.9", "tensorrt_llm/hlapi/llm_utils.py:295 (LlmArgs.__post_init__) in 0.12"),
    ("0.13", "tensorrt_llm/hlapi/llm_utils.py:304 in 0.13 (main 78f5c293"),
    ("0.14", "tensorrt_llm/hlapi/llm_utils.py:372 in 0.14 (main 8681b3a4"),
    ("0.15", "tensorrt_llm/llmapi/llm_utils.py:408 in 0.15 (main c629546c"),
    ("0.16", "tensorrt_llm/llmapi/llm_utils.py:493 in 0.16 (main aaacc9bd"),
    ("0.17", "tensorrt_llm/llmapi/llm_utils.py:495 in 0.17 (main be178810"),
    ("0.17.9", "tensorrt_llm/llmapi/llm_utils.py:495 in 0.17 (main be178810"),
    ("0.18", "BaseLlmArgs.validate_dtype"), ("1.2.0", "BaseLlmArgs.validate_dtype")])
def test_the_llm_api_line_by_series(version: str, where: str) -> None:
    refusal = str(_trt(version, DType.bf16).refusal)
    assert f"{LLM_API} ({where}" in refusal


@pytest.mark.parametrize(("version", "where"), [
    # no TensorRT-LLM before 0.5.0 was published: an earlier one cites the oldest line read
    ("0.4", f"{CPP}/gptAttentionCommon.cpp:273 in 0.5.0 (release/0.5.0)"),
    ("0.5", f"{CPP}/gptAttentionCommon.cpp:273 in 0.5.0 (release/0.5.0)"),
    ("0.6", "gptAttentionCommon.cpp:368 in 0.6 (main f7eca561, 0.6.1)"),
    ("0.7", "gptAttentionCommon.cpp:369 in 0.7.1 (release/v0.7.1)"),
    ("0.8", "gptAttentionCommon.cpp:445 in 0.8 (main e06f537e"),
    ("0.9", "gptAttentionCommon.cpp:460 in 0.9 (main 035b99e0"),
    ("0.10", "gptAttentionCommon.cpp:463 in 0.10 (main 89ba1b1a"),
    ("0.11", "gptAttentionCommon.cpp:488 in 0.11 (main 9691e12b"),
    ("0.11.9", "gptAttentionCommon.cpp:488 in 0.11 (main 9691e12b")])
def test_the_plugin_line_by_series(version: str, where: str) -> None:
    assert f"{PLUGIN} ({where}" in str(_trt(version, DType.bf16).refusal)
    assert f"({PLUGIN}, {where}" in str(_trt(version).note)


def test_only_bfloat16_is_refused_and_only_a_bfloat16_checkpoint_noted() -> None:
    # float16 stated: the engine runs; a float32 checkpoint (Gemma-2-9B's config.json
    # torch_dtype float32) under auto: served in 16 bits, nothing for TensorRT-LLM to change
    for version in ("0.11.0", "0.12", None):
        assert _trt(version, DType.fp16) == DtypeOnGpu()
        assert _trt(version, model="gemma-2-9b") == DtypeOnGpu()
