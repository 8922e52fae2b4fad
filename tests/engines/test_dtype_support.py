"""Compute capability in the GPU catalog and the engines' dtype rules that read it (task h81cc).

The capabilities are NVIDIA's (https://developer.nvidia.com/cuda-gpus and its legacy page; the
TensorRT support matrix for A100 8.0 and T4 7.5), copied here from those tables, not from the
YAML. The engine messages and file:line are the releases' own source (pip download --no-deps
vllm==0.5.4, 0.8.5, 0.9.0, 0.9.1, 0.9.2, 0.10.0, 0.34.0; sglang==0.3.0, 0.4.0, 0.4.6,
0.5.12.post1, 0.5.23)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from kvplan.engines.dtype_support import DtypeOnGpu, dtype_on_gpu
from kvplan.errors import KvplanError
from kvplan.specs import all_hardware, load_hardware, load_model
from kvplan.units import DType

NVIDIA_TABLE = {  # the row of NVIDIA's table each catalog GPU sits in
    "b200": "10.0", "gb200": "10.0", "b300": "10.3", "gb300": "10.3", "gb10": "12.1",
    "rtx-pro-6000-server": "12.0", "rtx-5090": "12.0", "jetson-thor": "11.0",
    "h100-sxm-80gb": "9.0", "h100-pcie-80gb": "9.0", "h100-nvl-94gb": "9.0", "h200-141gb": "9.0",
    "l4": "8.9", "l40": "8.9", "l40s": "8.9", "rtx-6000-ada": "8.9", "rtx-4000-ada": "8.9",
    "rtx-4090": "8.9", "a10": "8.6", "a40": "8.6", "rtx-a6000": "8.6", "rtx-3090": "8.6",
    "a100-40gb": "8.0", "a100-80gb": "8.0", "a100-pcie-40gb": "8.0", "a100-pcie-80gb": "8.0",
    "t4": "7.5", "v100-sxm2-16gb": "7.0", "v100-sxm2-32gb": "7.0",
}
# Not on NVIDIA's page: set from runtime readings (task h90dtype; torch's get_device_properties /
# sm_ warning, nvidia-smi --query-gpu=compute_cap), copied here from those readings
READINGS = {"a10g": ("8.6", "major=8, minor=6"), "h20": ("9.0", "On H20 compute_cap is 9.0"),
            "h800": ("9.0", "H800 with CUDA capability sm_90")}
UNSOURCED = {"a800-80gb", "l20"}  # no page and no reading found
V100_MSG = ("Bfloat16 is only supported on GPUs with compute capability of at least 8.0. Your "
            "Tesla V100-SXM2-32GB GPU has compute capability 7.0.")  # transformerlab-app#370


def test_catalog_capabilities_are_nvidia_s_table() -> None:
    gpus = {g.name: g for g in all_hardware()[0]}
    assert {n: g.compute_capability for n, g in gpus.items() if g.compute_capability} == \
        NVIDIA_TABLE | {n: cc for n, (cc, _) in READINGS.items()}
    unset = {n for n, g in gpus.items() if g.compute_capability is None}
    assert unset == UNSOURCED | {n for n, g in gpus.items() if g.vendor == "amd"}
    assert len(unset) == 7
    for name, (_, quoted) in READINGS.items():
        assert quoted in str(gpus[name].compute_capability_source)
    assert gpus["v100-sxm2-32gb"].capability == (7, 0)
    assert gpus["gb10"].capability == (12, 1)
    assert "cuda-legacy-gpus" in str(gpus["v100-sxm2-16gb"].compute_capability_source)
    nvidia_pages = {n for n in NVIDIA_TABLE
                    if "developer.nvidia.com/cuda-" in str(gpus[n].compute_capability_source)}
    assert set(NVIDIA_TABLE) - nvidia_pages == {"a100-40gb", "a100-80gb", "a100-pcie-40gb",
                                                "a100-pcie-80gb", "t4"}  # the TensorRT matrix
    assert all("tensorrt/support-matrix" in str(gpus[n].compute_capability_source)
               for n in set(NVIDIA_TABLE) - nvidia_pages)


def _spec(tmp_path: Path, **change: object) -> Path:
    data = yaml.safe_load(Path("hardware_specs/t4.yaml").read_text())
    data.update(change)
    data = {k: v for k, v in data.items() if v is not None}
    path = tmp_path / "t4.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


@pytest.mark.parametrize(("change", "said"), [
    ({"compute_capability_source": None}, "go together"),
    ({"compute_capability": None}, "go together"),
    ({"compute_capability": "7"}, "compute_capability"),
    ({"compute_capability": "7.5.1"}, "compute_capability"),
    ({"vendor": "amd"}, "NVIDIA's CUDA version"),
])
def test_a_capability_is_cited_well_formed_and_nvidia_s(tmp_path: Path, change: dict[str, object],
                                                        said: str) -> None:
    with pytest.raises(KvplanError, match=said):
        load_hardware(str(_spec(tmp_path, **change)))
    assert load_hardware(str(_spec(tmp_path))).capability == (7, 5)


R1 = "deepseek-r1-distill-qwen-1.5b"  # config.json torch_dtype bfloat16


def _vllm(version: str | None, stated: DType | None = None, gpu: str = "v100-sxm2-32gb",
          model: str = R1) -> DtypeOnGpu:
    return dtype_on_gpu("vllm", version, stated, load_model(model), load_hardware(gpu))


@pytest.mark.parametrize(("version", "where"), [
    ("0.5.4", "vllm/worker/worker.py:352"),
    ("0.8.5", "vllm/v1/worker/gpu_worker.py:332"),
    ("0.8.5.post1", "vllm/v1/worker/gpu_worker.py:332"),
    ("0.4.2", "vllm/worker/worker.py:352"),  # before the oldest release read: its place
])
def test_vllm_before_0_9_refuses_a_bfloat16_checkpoint_below_8_0(version: str, where: str) -> None:
    found = _vllm(version)
    assert found.refusal is not None and found.dtype is None
    assert f'"{V100_MSG}" ({where}' in str(found.refusal)
    assert found.field == "engine.weight_dtype"


@pytest.mark.parametrize("version", ["0.9.0", "0.10.0", "0.34.0", None])
def test_vllm_from_0_9_falls_back_to_float16_from_auto(version: str | None) -> None:
    found = _vllm(version)
    assert found.refusal is None and found.dtype is None
    assert "falls back from the checkpoint's bfloat16 to float16" in str(found.note)
    assert ("no release is named" in str(found.note)) is (version is None)


@pytest.mark.parametrize(("version", "where"), [
    ("0.5.4", "vllm/worker/worker.py:352"), ("0.9.0", "gpu_worker.py:356"),
    ("0.10.0", "gpu_worker.py:587"), ("0.34.0", "vllm/platforms/cuda.py:679"),
    (None, "vllm/platforms/cuda.py:679")])
def test_vllm_refuses_a_stated_bfloat16_in_every_release(version: str | None, where: str) -> None:
    found = _vllm(version, DType.bf16)
    assert found.refusal is not None and where in str(found.refusal)
    assert "refuses --dtype bfloat16 on v100-sxm2-32gb" in str(found.refusal)


def test_vllm_leaves_float16_and_capable_gpus_alone() -> None:
    for found in (_vllm("0.5.4", DType.fp16), _vllm("0.5.4", gpu="a100-80gb"),
                  _vllm("0.5.4", DType.bf16, gpu="a10"), _vllm("0.5.4", gpu="a10g"),
                  _vllm("0.5.4", gpu="mi300x")):
        assert (found.refusal, found.dtype, found.note) == (None, None, None)
    assert _vllm("0.5.4", gpu="t4").refusal is not None  # 7.5 is below 8.0 too


@pytest.mark.parametrize(("version", "want"), [("0.9.0", None), ("0.9.1", DType.fp32),
                                               ("0.10.0", DType.fp32), (None, DType.fp32)])
def test_vllm_gemma2_falls_back_to_float32_from_0_9_1(version: str | None,
                                                      want: DType | None) -> None:
    found = _vllm(version, gpu="t4", model="gemma-2-2b")
    assert found.refusal is None and found.dtype is want
    assert ("float32" in str(found.note)) is (want is DType.fp32)


def _sglang(gpu: str, stated: DType | None = None) -> DtypeOnGpu:
    return dtype_on_gpu("sglang", "0.4.6", stated, load_model(R1), load_hardware(gpu))


def test_sglang_refuses_sm70_and_runs_float16_on_sm75() -> None:
    v100 = _sglang("v100-sxm2-16gb")
    assert v100.field == "hardware.gpu"
    assert '"SGLang only supports sm75 and above."' in str(v100.refusal)
    t4 = _sglang("t4")
    assert t4.refusal is None and t4.dtype is None
    assert "Use float16 due to lack of bfloat16 support" in str(t4.note)
    assert _sglang("t4", DType.fp32).dtype is DType.fp16
    assert _sglang("t4", DType.fp16).note is None
    assert _sglang("a100-80gb").note is None


def test_transformers_runs_bfloat16_below_8_0_as_planned() -> None:
    """transformers 5.25.0 loads torch_dtype=bfloat16 without a compute-capability check and
    torch 2.13.0 makes bfloat16 tensors below 8.0 (task h90dtype): nothing to refuse or change."""
    for stated in (DType.bf16, None):
        found = dtype_on_gpu("transformers", None, stated, load_model(R1),
                             load_hardware("v100-sxm2-32gb"))
        assert (found.refusal, found.dtype, found.note) == (None, None, None)


def _trt(version: str | None, stated: DType | None = None, gpu: str = "v100-sxm2-32gb",
         model: str = R1) -> DtypeOnGpu:
    return dtype_on_gpu("trtllm", version, stated, load_model(model), load_hardware(gpu))


LLM_API_MSG = '"Pre SM 80 GPUs do not support bfloat16"'  # LlmArgs, tensorrt_llm 0.12 on
PLUGIN_MSG = '"Unsupported data type, pre SM 80 GPUs do not support bfloat16"'  # gptAttention


@pytest.mark.parametrize(("version", "where"), [
    ("0.12.0", "tensorrt_llm/hlapi/llm_utils.py:295"),
    ("0.14.0", "tensorrt_llm/hlapi/llm_utils.py:372"),
    ("0.15.0", "tensorrt_llm/llmapi/llm_utils.py:408"),
    ("0.16.0", "tensorrt_llm/llmapi/llm_utils.py:493"),
    ("1.2.0", "BaseLlmArgs.validate_dtype, tensorrt_llm/llmapi/llm_args.py"),
    (None, "BaseLlmArgs.validate_dtype, tensorrt_llm/llmapi/llm_args.py")])
def test_trtllm_llm_api_refuses_bfloat16_below_8_0(version: str | None, where: str) -> None:
    """From 0.12 the LLM API (trtllm-serve) raises RuntimeError("Pre SM 80 GPUs do not support
    bfloat16") for dtype bfloat16 when the GPU's major is below 8 (LlmArgs.__post_init__, then
    BaseLlmArgs.validate_dtype), and turns auto into float16."""
    found = _trt(version, DType.bf16)
    assert found.field == "engine.weight_dtype" and found.dtype is None
    assert f"RuntimeError({LLM_API_MSG}) ({where}" in str(found.refusal)
    assert "refuses dtype bfloat16 on v100-sxm2-32gb (compute capability 7.0)" in str(found.refusal)
    auto = _trt(version, gpu="t4")
    assert auto.refusal is None and auto.dtype is None
    assert "turns dtype auto into float16" in str(auto.note) and where in str(auto.note)


@pytest.mark.parametrize(("version", "where"), [
    ("0.5.0", "gptAttentionCommon.cpp:273 in 0.5.0"), ("0.7.1", "gptAttentionCommon.cpp:369"),
    ("0.8.0", "gptAttentionCommon.cpp:445"), ("0.11.0", "gptAttentionCommon.cpp:488")])
def test_trtllm_before_0_12_refuses_a_bfloat16_engine(version: str, where: str) -> None:
    """Before the LLM API's check a TensorRT engine runs in the dtype it was built in, and the
    GPT attention plugin refuses a bfloat16 one below SM 80 (TLLM_CHECK_WITH_INFO in its
    constructor; NVIDIA/TensorRT-LLM#1069 logs the assertion on a V100); `auto` is the
    converter's choice, so only a note."""
    found = _trt(version, DType.bf16, gpu="t4")
    assert f"{PLUGIN_MSG} (" in str(found.refusal) and where in str(found.refusal)
    assert "does not run a bfloat16 engine on t4 (compute capability 7.5)" in str(found.refusal)
    auto = _trt(version)
    assert auto.refusal is None and auto.dtype is None
    assert "a TensorRT engine runs in the dtype it was built in" in str(auto.note)


def test_trtllm_leaves_float16_and_capable_gpus_alone() -> None:
    for found in (_trt("1.2.0", DType.fp16), _trt("0.8.0", DType.fp16), _trt("1.2.0", DType.fp32),
                  _trt("1.2.0", DType.bf16, gpu="a100-80gb"), _trt("1.2.0", gpu="a10"),
                  _trt("0.8.0", model="gemma-2-9b")):  # a float32 checkpoint: auto, no bfloat16
        assert (found.refusal, found.dtype, found.note) == (None, None, None)


@pytest.mark.parametrize(("version", "types"), [
    ("0.9.0", ()),
    ("0.9.1", ("gemma2", "gemma3", "plamo2", "glm4")),
    ("0.10.1.1", ("gemma2", "gemma3", "plamo2", "glm4")),
    ("0.10.2", ("gemma2", "gemma3", "gemma3_text", "plamo2", "glm4")),
    ("0.26.0", ("gemma2", "gemma3", "gemma3_text", "plamo2", "glm4")),
    ("0.27.0", ("gemma2", "gemma3", "gemma3_text", "glm4")),
    ("0.34.0", ("gemma2", "gemma3", "gemma3_text", "glm4")),
    (None, ("gemma2", "gemma3", "gemma3_text", "glm4"))])
def test_vllm_float16_unsafe_models_by_release(version: str | None,
                                               types: tuple[str, ...]) -> None:
    """`_FLOAT16_NOT_SUPPORTED_MODELS` as each release wheel has it (task h90dtype, read in all
    42 releases 0.9.1-0.34.0): gemma3_text joins in 0.10.2 (vllm/config/__init__.py:2615),
    plamo2 leaves in 0.27.0 (vllm/config/model.py:2105)."""
    from kvplan.engines.dtype_support import vllm_no_fp16_types
    from kvplan.engines.release import read_numbers

    assert vllm_no_fp16_types(read_numbers(version) if version else None) == types


@pytest.mark.parametrize(("version", "want", "where"), [
    ("0.10.1", None, None), ("0.10.2", DType.fp32, "vllm/config/__init__.py:2615 in 0.10.2"),
    ("0.27.0", DType.fp32, "vllm/config/model.py:2105 in 0.27.0"),
    (None, DType.fp32, "vllm/config/model.py:2442 in 0.34.0")])
def test_vllm_gemma3_text_falls_back_to_float32_from_0_10_2(version: str | None,
                                                           want: DType | None,
                                                           where: str | None) -> None:
    """Gemma-3-1B is gemma3_text, a bfloat16 checkpoint: on a T4 vLLM 0.10.1's auto falls back
    to float16, 0.10.2's skips float16 for it and falls back to float32."""
    assert load_model("gemma-3-1b").model_type == "gemma3_text"
    found = _vllm(version, gpu="t4", model="gemma-3-1b")
    assert found.refusal is None and found.dtype is want
    if where is None:
        assert "falls back from the checkpoint's bfloat16 to float16" in str(found.note)
    else:
        assert f"_FLOAT16_NOT_SUPPORTED_MODELS, {where})" in str(found.note)


def test_vllm_keeps_a_float32_gemma2_checkpoint_in_float32_below_8_0() -> None:
    """Gemma-2-9B is published in float32; `_resolve_auto_dtype` turns a float32 config into the
    GPU's first dtype gemma2 may use, float32 on a T4 (float16 refused), from 0.9.1."""
    assert load_model("gemma-2-9b").weight_dtype is DType.fp32
    keep = _vllm("0.10.0", gpu="t4", model="gemma-2-9b")
    assert keep.dtype is DType.fp32 and "keeps the checkpoint's float32" in str(keep.note)
    for found in (_vllm("0.9.0", gpu="t4", model="gemma-2-9b"),
                  _vllm("0.10.0", gpu="a100-80gb", model="gemma-2-9b"),
                  _vllm("0.10.0", DType.fp16, gpu="t4", model="gemma-2-9b")):
        assert (found.refusal, found.dtype, found.note) == (None, None, None)
