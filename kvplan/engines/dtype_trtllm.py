"""TensorRT-LLM's compute dtype on a GPU below compute capability 8.0 (task h90dtype), read in
its source: the release wheels (pypi.nvidia.com) cannot be downloaded here and pypi.org holds
only placeholder sdists, so the releases are read in copies of its git history: the release
branches release/0.5.0 (98e78cc) and release/v0.7.1 (80bc075) of octoml/TensorRT-LLM-release,
and main's last snapshot of each series 0.8 to 0.17 (tensorrt_llm/version.py
`0.X.0.devYYYYMMDD`, the snapshot its release branch was cut from) in aikitoria/TensorRT-LLM, a
copy of NVIDIA/TensorRT-LLM's main through 0.17.0.dev2024121700.

- The LLM API (trtllm-serve and `LLM(...)`, every backend) from 0.12: below compute capability
  8.0 `dtype="auto"` (its default) becomes float16, silently, and `dtype="bfloat16"` raises
  RuntimeError("Pre SM 80 GPUs do not support bfloat16") (`LlmArgs.__post_init__`: `_LLM_API_AT`;
  first in tensorrt_llm/hlapi/llm_utils.py at main 93293aa4, 0.12.0.dev2024072302, absent at
  bca9a33b, 0.12.0.dev2024072300). The pydantic LlmArgs that replaced the dataclass keeps the
  check word for word as `BaseLlmArgs.validate_dtype` (tensorrt_llm/llmapi/llm_args.py, as the
  code index stores NVIDIA/TensorRT-LLM's versions through its newest, after 1.3), which kvplan
  applies to every release from 0.12 on, 1.x included (those releases' tags were not read).
- A TensorRT engine before 0.12 (trtllm-build or the examples' build.py, then the C++ runtime):
  its dtype is the one it was built in, and a bfloat16 engine's plugins refuse the GPU:
  TLLM_CHECK_WITH_INFO((mSM >= 80) || (mType != kBF16), "Unsupported data type, pre SM 80 GPUs
  do not support bfloat16") in the GPT attention plugin's constructor (`_PLUGIN_AT`), run when
  the engine is built and when it is loaded (seen in public: NVIDIA/TensorRT-LLM issue #1069, a
  Llama-2-13B engine built on a V100, 2024-02: "[TensorRT-LLM][ERROR] Assertion failed:
  Unsupported data type, pre SM 80 GPUs do not support bfloat16"). What `auto` builds is the
  checkpoint converter's choice: some converters fall back to float16 with a warning ("Pre SM 80
  GPUs do not support bfloat16, fallback to float16": LLaMA's from 0.11,
  tensorrt_llm/models/llama/config.py:150 at main b777bd64, 0.11.0.dev2024060400), so `auto` is
  only noted there.

fp8 below 8.9 is not applied: no compute-capability refusal of an fp8 KV cache or of fp8 weights
is in the Python of the sources read (0.17.0.dev2024121700 greps to none); the C++ plugins refuse
two fp8 features only, an fp8 MoE ("MoE FP8 is not supported for architectures less than SM89",
cpp/tensorrt_llm/plugins/mixtureOfExperts/mixtureOfExpertsPlugin.cpp:222 there) and fp8 context
FMHA ("FP8 FMHA cannot be enabled except on Ada or Hopper Arch.", gptAttentionCommon.cpp:518),
neither a setting kvplan reads.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kvplan.units import DType

if TYPE_CHECKING:
    from kvplan.engines.dtype_support import DtypeOnGpu
    from kvplan.specs.schema import HardwareSpec, ModelSpec

LLM_API_FROM = (0, 12)
LLM_API_SAID = "Pre SM 80 GPUs do not support bfloat16"
PLUGIN_SAID = "Unsupported data type, pre SM 80 GPUs do not support bfloat16"
# where the LLM API raises it, by series (main's last snapshot of the series; hlapi until 0.14)
_LLM_API_AT = (
    ((0, 12), "tensorrt_llm/hlapi/llm_utils.py:295 (LlmArgs.__post_init__) in 0.12 (main "
              "be9cd719, 0.12.0.dev2024080600)"),
    ((0, 13), "tensorrt_llm/hlapi/llm_utils.py:304 in 0.13 (main 78f5c293, 0.13.0.dev2024090300)"),
    ((0, 14), "tensorrt_llm/hlapi/llm_utils.py:372 in 0.14 (main 8681b3a4, 0.14.0.dev2024100800)"),
    ((0, 15), "tensorrt_llm/llmapi/llm_utils.py:408 in 0.15 (main c629546c, 0.15.0.dev2024111200)"),
    ((0, 16), "tensorrt_llm/llmapi/llm_utils.py:493 in 0.16 (main aaacc9bd, 0.16.0.dev2024121000)"),
    ((0, 17), "tensorrt_llm/llmapi/llm_utils.py:495 in 0.17 (main be178810, "
              "0.17.0.dev2024121700)"),
    ((0, 18), "BaseLlmArgs.validate_dtype, tensorrt_llm/llmapi/llm_args.py, in the pydantic "
              "LlmArgs, word for word LlmArgs.__post_init__'s of 0.17, llm_utils.py:495; the "
              "release that moved it was not placed"),
)
# the GPT attention plugin's check, by series (release branches 0.5.0 and 0.7.1; main after)
_PLUGIN_AT = (
    ((0, 5), "cpp/tensorrt_llm/plugins/gptAttentionCommon/gptAttentionCommon.cpp:273 in 0.5.0 "
             "(release/0.5.0)"),
    ((0, 6), "gptAttentionCommon.cpp:368 in 0.6 (main f7eca561, 0.6.1)"),
    ((0, 7), "gptAttentionCommon.cpp:369 in 0.7.1 (release/v0.7.1)"),
    ((0, 8), "gptAttentionCommon.cpp:445 in 0.8 (main e06f537e, 0.8.0.dev2024013000)"),
    ((0, 9), "gptAttentionCommon.cpp:460 in 0.9 (main 035b99e0, 0.9.0.dev2024040900)"),
    ((0, 10), "gptAttentionCommon.cpp:463 in 0.10 (main 89ba1b1a, 0.10.0.dev2024050700)"),
    ((0, 11), "gptAttentionCommon.cpp:488 in 0.11 (main 9691e12b, 0.11.0.dev2024062500)"),
)


def _at(table: tuple[tuple[tuple[int, ...], str], ...], ver: tuple[int, ...]) -> str:
    found = table[0][1]
    for since, where in table:
        if ver >= since:
            found = where
    return found


def trtllm_dtype(ver: tuple[int, ...] | None, stated: DType | None, model: ModelSpec,
                 gpu: HardwareSpec, cc: str) -> DtypeOnGpu:
    """What TensorRT-LLM `ver` (None: kvplan's default, the newest) does with compute dtype
    `stated` (None: auto) for `model` on `gpu`, below compute capability 8.0."""
    from kvplan.engines.dtype_support import DtypeOnGpu, auto_dtype

    said = f"TensorRT-LLM {'.'.join(map(str, ver))}" if ver is not None else \
        "TensorRT-LLM (newest release)"
    if ver is not None and ver < LLM_API_FROM:
        if stated is DType.bf16:
            return DtypeOnGpu(refusal=(
                f"{said} does not run a bfloat16 engine on {gpu.name} (compute capability {cc}): "
                f"\"{PLUGIN_SAID}\" ({_at(_PLUGIN_AT, ver)}, the GPT attention plugin's "
                "constructor, at engine build and load); build the engine in float16"))
        if stated is None and auto_dtype(model) is DType.bf16:
            return DtypeOnGpu(note=(
                f"{said} on {gpu.name} (compute capability {cc}): a TensorRT engine runs in the "
                f"dtype it was built in, and a bfloat16 one is refused (\"{PLUGIN_SAID}\", "
                f"{_at(_PLUGIN_AT, ver)}); the checkpoint is bfloat16 and some converters fall "
                "back to float16 (LLaMA's from 0.11, models/llama/config.py:150): planned in "
                "16 bits, state the engine's dtype to check it"))
        return DtypeOnGpu()
    where = _at(_LLM_API_AT, ver if ver is not None else (99,))
    if stated is DType.bf16:
        return DtypeOnGpu(refusal=(
            f"{said} refuses dtype bfloat16 on {gpu.name} (compute capability {cc}): "
            f"RuntimeError(\"{LLM_API_SAID}\") ({where}); give float16, or auto, which "
            "TensorRT-LLM turns into float16 below compute capability 8.0"))
    if stated is None and auto_dtype(model) is DType.bf16:
        return DtypeOnGpu(note=(
            f"{said} on {gpu.name} (compute capability {cc}, no bfloat16): its LLM API turns "
            f"dtype auto into float16 ({where}), not the checkpoint's bfloat16: planned in "
            "float16, the same 2 bytes a value"))
    return DtypeOnGpu()
