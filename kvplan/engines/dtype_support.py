"""The compute dtype an engine runs a model in on a GPU of a given CUDA compute capability
(task h81cc): what it refuses, and what it quietly changes (read in each engine's source).

vLLM (`--dtype`, `auto` by default: the checkpoint's config.json torch_dtype)
- refuses bfloat16 below compute capability 8.0 in every release read: "Bfloat16 is only
  supported on GPUs with compute capability of at least 8.0. Your {gpu} GPU has compute
  capability {x.y}. You can use float16 instead by explicitly setting the `dtype` flag in CLI,
  for example: --dtype=half." (`_check_if_gpu_supports_dtype`, called when the worker starts;
  `CudaPlatform.check_if_supports_dtype` in 0.34.0; where, per release, in `_REFUSED_AT`);
- before 0.9.0 `auto` is the checkpoint's dtype, so a bfloat16 checkpoint is refused too (0.5.4
  config.py:1407 `_get_and_verify_dtype`; 0.8.5 config.py:2885, whose `auto` changes the dtype
  only for POWERPC, macOS and HPU). From 0.9.0 (vLLM PR #17265, "Auto fallback to float16 for
  pre-Ampere GPUs when detected bfloat16 config") `auto` falls back to the GPU's first supported dtype
  with a warning ("Your device ... doesn't support torch.bfloat16. Falling back to torch.float16
  for compatibility."; 0.9.0 config.py:3086-3100, `CudaPlatform.supported_dtypes`
  platforms/cuda.py:58: [bfloat16, float16, float32] from 8.0, [float16, float32] from 6.0). An
  explicit `--dtype bfloat16` is still refused;
- from 0.9.1 `_resolve_auto_dtype` (config.py:3185 in 0.9.1, :3357 in 0.10.0, config/model.py:2467
  in 0.34.0) skips float16 for the model types in `_FLOAT16_NOT_SUPPORTED_MODELS` ("Numerical
  instability"), whose `auto` then falls back to float32 below 8.0: twice the weights and, with
  the cache's `auto`, twice the cache (a float32 checkpoint, Gemma-2-9B's, is kept in float32
  there, where vLLM otherwise serves it in 16 bits). The list, read in every release wheel from
  0.9.1 to 0.34.0 (task h90dtype; `VLLM_NO_FP16`, where each release has it in `_NO_FP16_AT`):
  gemma2, gemma3, plamo2, glm4 (0.9.1-0.10.1.1); gemma3_text joins in 0.10.2; plamo2 leaves
  in 0.27.0 (gemma2, gemma3, gemma3_text, glm4 through 0.34.0).

SGLang runs float16 below compute capability 8.0 whatever `--dtype` says ("Compute capability
below sm80. Use float16 due to lack of bfloat16 support.") and refuses a GPU whose minor version
is then below 5 ("SGLang only supports sm75 and above."): ModelRunner.load_model,
srt/model_executor/model_runner.py:169-175 in 0.3.0, :229-236 in 0.4.0, :411-418 in 0.4.6,
:1382-1389 in 0.5.12.post1; maybe_downgrade_dtype_for_legacy_gpu,
srt/model_executor/model_runner_components/load_model_utils.py:80-91 in 0.5.23.

TensorRT-LLM (task h90dtype; kvplan.engines.dtype_trtllm has the sources): from 0.12 its LLM API
turns `auto` into float16 below 8.0 and refuses bfloat16 ("Pre SM 80 GPUs do not support
bfloat16"); before 0.12 a bfloat16 TensorRT engine is refused by its plugins ("Unsupported data
type, pre SM 80 GPUs do not support bfloat16").

transformers (the --measure profile) has no rule to apply (task h90dtype, read in transformers
5.25.0 and torch 2.13.0): `from_pretrained(torch_dtype=torch.bfloat16)` checks no compute
capability (transformers checks bfloat16 support only for training, training_args.py:1778, and a
FlashAttention implementation's, modeling_utils.py:1573), and torch makes bfloat16 tensors below
8.0 (`torch.cuda.is_bf16_supported(including_emulation=True)` answers by making one,
torch/cuda/__init__.py:191-220): the model runs in bfloat16, 2 bytes a value, as planned.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from kvplan.engines.release import read_numbers
from kvplan.units import DType

if TYPE_CHECKING:
    from kvplan.specs.schema import HardwareSpec, ModelSpec

BF16_MIN = (8, 0)  # vLLM has_device_capability(80); SGLang get_device_capability()[0] < 8
VLLM_AUTO_FALLBACK = (0, 9, 0)  # _get_and_verify_dtype falls back from `auto` (PR #17265)
# `_FLOAT16_NOT_SUPPORTED_MODELS`, whose float16 `_resolve_auto_dtype` skips, by first release
VLLM_NO_FP16 = (
    ((0, 9, 1), ("gemma2", "gemma3", "plamo2", "glm4")),
    ((0, 10, 2), ("gemma2", "gemma3", "gemma3_text", "plamo2", "glm4")),
    ((0, 27, 0), ("gemma2", "gemma3", "gemma3_text", "glm4")),
)
# where each release wheel read holds the list (task h90dtype)
_NO_FP16_AT = {
    "0.9.1": "vllm/config.py:3121", "0.9.2": "vllm/config.py:3221", "0.10.0": "vllm/config.py:3293",
    "0.10.1": "vllm/config/__init__.py:2669", "0.10.1.1": "vllm/config/__init__.py:2669",
    "0.10.2": "vllm/config/__init__.py:2615", "0.11.0": "vllm/config/model.py:1581",
    "0.11.1": "vllm/config/model.py:1819", "0.11.2": "vllm/config/model.py:1819",
    "0.12.0": "vllm/config/model.py:1937", "0.13.0": "vllm/config/model.py:1853",
    "0.14.0": "vllm/config/model.py:1755", "0.14.1": "vllm/config/model.py:1755",
    "0.15.0": "vllm/config/model.py:1771", "0.15.1": "vllm/config/model.py:1771",
    "0.16.0": "vllm/config/model.py:1759", "0.17.0": "vllm/config/model.py:1779",
    "0.17.1": "vllm/config/model.py:1779", "0.18.0": "vllm/config/model.py:1807",
    "0.18.1": "vllm/config/model.py:1807", "0.19.0": "vllm/config/model.py:1903",
    "0.19.1": "vllm/config/model.py:1903", "0.20.0": "vllm/config/model.py:1905",
    "0.20.1": "vllm/config/model.py:1905", "0.20.2": "vllm/config/model.py:1905",
    "0.21.0": "vllm/config/model.py:1922", "0.22.0": "vllm/config/model.py:1977",
    "0.22.1": "vllm/config/model.py:1977", "0.23.0": "vllm/config/model.py:1970",
    "0.24.0": "vllm/config/model.py:1950", "0.25.0": "vllm/config/model.py:2001",
    "0.25.1": "vllm/config/model.py:2001", "0.26.0": "vllm/config/model.py:2010",
    "0.27.0": "vllm/config/model.py:2105", "0.27.1": "vllm/config/model.py:2105",
    "0.28.0": "vllm/config/model.py:2187", "0.29.0": "vllm/config/model.py:2243",
    "0.30.0": "vllm/config/model.py:2252", "0.31.0": "vllm/config/model.py:2330",
    "0.32.0": "vllm/config/model.py:2380", "0.33.0": "vllm/config/model.py:2398",
    "0.34.0": "vllm/config/model.py:2442",
}
# where the refusal is raised, by the first release read with that place
_REFUSED_AT = (
    ((0, 5, 4), "vllm/worker/worker.py:352 (_check_if_gpu_supports_dtype, called from "
                "init_device :125) in 0.5.4"),
    ((0, 8, 5), "vllm/v1/worker/gpu_worker.py:332 (called :127; V0 vllm/worker/worker.py:533) "
                "in 0.8.5"),
    ((0, 9, 0), "vllm/v1/worker/gpu_worker.py:356 (called :129) in 0.9.0"),
    ((0, 9, 1), "vllm/v1/worker/gpu_worker.py:376 (called :130) in 0.9.1"),
    ((0, 9, 2), "vllm/v1/worker/gpu_worker.py:391 (called :135) in 0.9.2"),
    ((0, 10, 0), "vllm/v1/worker/gpu_worker.py:587 (called :158) in 0.10.0"),
    ((0, 34, 0), "vllm/platforms/cuda.py:679 (CudaPlatform.check_if_supports_dtype, called "
                 "from vllm/v1/worker/gpu_worker.py:500) in 0.34.0"),
)
_SGLANG_AT = ("sglang srt/model_executor/model_runner.py ModelRunner.load_model, :1382-1389 in "
              "0.5.12.post1; model_runner_components/load_model_utils.py:80-91 in 0.5.23")


@dataclass(frozen=True)
class DtypeOnGpu:
    """What the engine does with the compute dtype on the GPU: `refusal` (it does not start),
    or `dtype` (the dtype it runs in where it differs from the one planned; None: as planned),
    with a `note` saying so; `field` is the deployment's field the refusal names."""

    refusal: str | None = None
    dtype: DType | None = None
    note: str | None = None
    field: str = "engine.weight_dtype"  # what the refusal is about: the dtype, or the GPU


def auto_dtype(model: ModelSpec) -> DType | None:
    """The dtype `--dtype auto` reads from the checkpoint (its config.json torch_dtype), where
    the catalog knows it: an unquantized checkpoint's weight_dtype (float32 served in 16 bits);
    None for a quantized one, whose torch_dtype the spec does not record."""
    if model.weight_quant is not None or model.nvfp4 is not None:
        return None
    return model.weight_dtype if model.weight_dtype in (DType.bf16, DType.fp16) else None


def _gpu_name(gpu: HardwareSpec) -> str:
    return gpu.device_names[0] if gpu.device_names else gpu.label


def _refused_at(ver: tuple[int, ...] | None) -> str:
    at = _REFUSED_AT[0][1]
    for since, where in _REFUSED_AT:
        if ver is None or ver >= since:
            at = where
    return at


def vllm_no_fp16_types(ver: tuple[int, ...] | None) -> tuple[str, ...]:
    """The model types whose float16 vLLM `ver` refuses (`_FLOAT16_NOT_SUPPORTED_MODELS`; None:
    the newest release read, 0.34.0, whose list a later release is taken to keep); none before
    0.9.1."""
    types: tuple[str, ...] = ()
    for since, listed in VLLM_NO_FP16:
        if ver is None or ver >= since:
            types = listed
    return types


def no_fp16_at(version: str | None) -> str:
    """Where the release's wheel lists the model types (the newest read where it is not one)."""
    said = version if version in _NO_FP16_AT else "0.34.0"
    return f"{_NO_FP16_AT[said]} in {said}"


def _vllm(ver: tuple[int, ...] | None, stated: DType | None, model: ModelSpec,
          gpu: HardwareSpec, cc: str) -> DtypeOnGpu:
    said = f"vLLM {'.'.join(map(str, ver))}" if ver is not None else "vLLM (newest release)"
    dtype = stated if stated is not None else auto_dtype(model)
    no_fp16 = stated is None and model.model_type in vllm_no_fp16_types(ver)
    listed = no_fp16_at(".".join(map(str, ver)) if ver is not None else None)
    if no_fp16 and model.weight_dtype is DType.fp32 and model.weight_quant is None:
        return DtypeOnGpu(dtype=DType.fp32, note=(
            f"{said} on {gpu.name} (compute capability {cc}, no bfloat16): --dtype auto keeps "
            f"the checkpoint's float32 for {model.model_type}, whose float16 vLLM refuses "
            f"(\"Numerical instability\"; _FLOAT16_NOT_SUPPORTED_MODELS, {listed}): planned in "
            "float32, not served in 16 bits"))
    if dtype is not DType.bf16:
        return DtypeOnGpu()
    why = ("Bfloat16 is only supported on GPUs with compute capability of at least 8.0. "
           f"Your {_gpu_name(gpu)} GPU has compute capability {cc}.")
    if stated is not None:
        return DtypeOnGpu(refusal=f"{said} refuses --dtype bfloat16 on {gpu.name}: \"{why}\" "
                          f"({_refused_at(ver)}); give --dtype half (float16)")
    if ver is not None and ver < VLLM_AUTO_FALLBACK:
        return DtypeOnGpu(refusal=(
            f"{said} refuses {model.name} on {gpu.name}: --dtype auto is the checkpoint's "
            f"bfloat16, and \"{why}\" ({_refused_at(ver)}); give --dtype half (float16), or "
            "vLLM 0.9.0 or later, whose auto falls back to float16"))
    if no_fp16:
        return DtypeOnGpu(dtype=DType.fp32, note=(
            f"{said} on {gpu.name} (compute capability {cc}, no bfloat16): --dtype auto falls "
            f"back to float32 for {model.model_type}, whose float16 vLLM refuses (\"Numerical "
            f"instability\"; _FLOAT16_NOT_SUPPORTED_MODELS, {listed}): planned in float32, the "
            "weights and the cache twice their bfloat16 size"))
    older = "" if ver is not None else (
        "; no release is named, and a release before 0.9.0 refuses it instead (\"Bfloat16 is "
        f"only supported on GPUs with compute capability of at least 8.0\", {_REFUSED_AT[0][1]})")
    return DtypeOnGpu(note=(
        f"{said} on {gpu.name} (compute capability {cc}, no bfloat16): --dtype auto falls back "
        "from the checkpoint's bfloat16 to float16 with a warning (since 0.9.0, vLLM PR #17265; "
        f"vllm/config.py:3086 in 0.9.0): planned in float16, the same 2 bytes a value{older}"))


def _sglang(stated: DType | None, model: ModelSpec, gpu: HardwareSpec, cc: str,
            capability: tuple[int, int]) -> DtypeOnGpu:
    if capability[1] < 5:
        return DtypeOnGpu(field="hardware.gpu", refusal=(
            f"SGLang does not start on {gpu.name} (compute capability {cc}): \"SGLang only "
            f"supports sm75 and above.\" ({_SGLANG_AT}; the same from 0.3.0); choose another "
            "GPU or engine"))
    dtype = stated if stated is not None else auto_dtype(model)
    if dtype is DType.fp16:
        return DtypeOnGpu()
    planned = None if dtype is None or dtype.bits == 16 else DType.fp16
    return DtypeOnGpu(dtype=planned, note=(
        f"SGLang on {gpu.name} (compute capability {cc}): \"Compute capability below sm80. "
        f"Use float16 due to lack of bfloat16 support.\" ({_SGLANG_AT}), whatever --dtype "
        "says: planned in float16"))


def dtype_on_gpu(engine: str, version: str | None, stated: DType | None, model: ModelSpec,
                 gpu: HardwareSpec) -> DtypeOnGpu:
    """What `engine` at `version` does with compute dtype `stated` (None: `auto`) for `model`
    on `gpu`; nothing where the GPU's compute capability is not in the catalog, or it is 8.0
    or above, or the engine's rule was not read."""
    capability = gpu.capability
    if capability is None or capability >= BF16_MIN or gpu.compute_capability is None:
        return DtypeOnGpu()
    cc = gpu.compute_capability
    if engine == "vllm":
        return _vllm(read_numbers(version) if version else None, stated, model, gpu, cc)
    if engine == "sglang":
        return _sglang(stated, model, gpu, cc, capability)
    if engine == "trtllm":
        from kvplan.engines.dtype_trtllm import trtllm_dtype

        return trtllm_dtype(read_numbers(version) if version else None, stated, model, gpu, cc)
    return DtypeOnGpu()
