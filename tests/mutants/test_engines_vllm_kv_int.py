"""Mutation tests of kvplan/engines/vllm_kv_int.py (task mutnew): vLLM's int8/int4_per_token_head
bytes and every answer of `int_cache_check`, word for word.

Hand values: vLLM stores per token, layer and KV head the K and V values (int8: head_size bytes
each; int4: head_size // 2) and one float32 scale each (vllm/v1/kv_cache_interface.py
page_size_bytes :137-150 in 0.20.0, :172-193 in 0.25.0). Llama-3-8B (config.json: 8 KV heads of
128): int4 8 x (64 + 64 + 2 x 4) = 1,088 B, int8 8 x (128 + 128 + 8) = 2,112 B; kvplan's int4 at
--kv-group-size 64 is 8 x 2 x (64 + 2 fp16 scales x 2 B) = 1,088 B, at 32 8 x 2 x (64 + 4 x 2) =
1,152 B; its int8 8 x 256 = 2,048 B. The releases' values are vllm_kv_dtypes' (0.19.1
vllm/config/cache.py:14-23, 0.24.0 :19-35; int8_per_token_head first in 0.20.0 :31,
int4_per_token_head first in 0.25.0 :32)."""

from __future__ import annotations

import pytest

from kvplan.capacity import SizeRequest
from kvplan.engines.vllm_kv_int import SCALE_BYTES, VALUES, int_cache_check, vllm_bytes_per_token
from kvplan.specs import load_hardware, load_model
from kvplan.specs.schema import ModelSpec
from kvplan.units import DType

LLAMA = load_model("llama-3-8b")
V019 = ("auto, float16, bfloat16, fp8, fp8_e4m3, fp8_e5m2, fp8_inc, fp8_ds_mla "
        "(vllm/config/cache.py:14-23 in the vllm 0.19.1 wheel)")
V024 = ("auto, float16, bfloat16, fp8, fp8_e4m3, fp8_e5m2, fp8_inc, fp8_ds_mla, turboquant_k8v4, "
        "turboquant_4bit_nc, turboquant_k3v4_nc, turboquant_3bit_nc, int8_per_token_head, "
        "fp8_per_token_head, nvfp4 (vllm/config/cache.py:19-35 in the vllm 0.24.0 wheel)")
INT4_WORDS = ("head_size / 2 bytes and one float32 scale per token and KV head for K and for V, "
              "vllm/v1/kv_cache_interface.py:172-193 in 0.25.0")


def _req(dtype: DType, model: ModelSpec = LLAMA, tp: int = 1, group: int = 64) -> SizeRequest:
    return SizeRequest(model=model, gpu=load_hardware("h100"), context_tokens=8192, tp=tp,
                       kv_dtype=dtype, kv_group_size=group)


def _mha(name: str, **attention: int | None) -> ModelSpec:
    """A catalog model's attention shapes with fields replaced (a branch no shipped non-MLA
    spec reaches: K and V heads of different widths, an odd head size)."""
    m = load_model(name)
    return m.model_copy({"attention": m.attention.model_copy(attention)})


def test_the_values_and_their_first_releases() -> None:
    assert SCALE_BYTES == 4  # get_dtype_size(torch.float32)
    expected = {
        DType.int8: ("int8_per_token_head", (0, 20, 0),
                     "vllm/config/cache.py:31 in the 0.20.0 wheel"),
        DType.int4: ("int4_per_token_head", (0, 25, 0),
                     "vllm/config/cache.py:32 in the 0.25.0 wheel")}
    assert dict(VALUES) == expected


@pytest.mark.parametrize(("dtype", "tp", "expected"), [
    (DType.int4, 1, 8 * (64 + 64 + 8)), (DType.int8, 1, 8 * (128 + 128 + 8)),
    (DType.int4, 2, 4 * (64 + 64 + 8)), (DType.int8, 4, 2 * (128 + 128 + 8)),
    (DType.int4, 16, 1 * (64 + 64 + 8))])  # 8 KV heads over 16 ranks: one a rank
def test_vllm_bytes_per_token(dtype: DType, tp: int, expected: int) -> None:
    assert vllm_bytes_per_token(_req(dtype, tp=tp)) == expected


def test_vllm_int4_halves_k_and_v_of_their_own_widths() -> None:
    # DeepSeek-V2-Lite's heads without MLA: 16 KV heads, K 192, V 128 -> 16 x (96 + 64 + 8)
    lite = _mha("deepseek-v2-lite", mla=None)  # type: ignore[arg-type]
    assert vllm_bytes_per_token(_req(DType.int4, lite)) == 16 * (96 + 64 + 8) == 2_688
    assert vllm_bytes_per_token(_req(DType.int8, lite)) == 16 * (192 + 128 + 8)


@pytest.mark.parametrize("dtype", [d for d in DType if d not in (DType.int8, DType.int4)])
def test_a_float_cache_is_neither_refused_nor_noted(dtype: DType) -> None:
    assert int_cache_check(_req(dtype), "0.10.0") == (None, None)
    assert int_cache_check(_req(dtype), None) == (None, None)


def test_int8_before_0_20_is_refused_with_the_release_values() -> None:
    assert int_cache_check(_req(DType.int8), "0.19.1") == (
        f"vLLM 0.19.1 has no int8 KV cache: its --kv-cache-dtype takes {V019}; "
        "int8_per_token_head first appears in 0.20.0 (vllm/config/cache.py:31 in the 0.20.0 "
        "wheel): state --engine-version 0.20.0 or later, or plan --kv-dtype fp8", None)


def test_int8_in_a_release_whose_values_were_not_read() -> None:
    # before 0.3.0, the first release whose values kvplan read
    assert int_cache_check(_req(DType.int8), "0.2.0") == (
        "vLLM 0.2.0 has no int8 KV cache: its --kv-cache-dtype values were not read (the newest "
        "read, 0.34.0, lists int8_per_token_head); int8_per_token_head first appears in 0.20.0 "
        "(vllm/config/cache.py:31 in the 0.20.0 wheel): state --engine-version 0.20.0 or later, "
        "or plan --kv-dtype fp8", None)


def test_int4_before_0_25_is_refused_with_the_release_values() -> None:
    assert int_cache_check(_req(DType.int4), "0.24.0") == (
        f"vLLM 0.24.0 has no int4 KV cache: its --kv-cache-dtype takes {V024}; "
        "int4_per_token_head first appears in 0.25.0 (vllm/config/cache.py:32 in the 0.25.0 "
        "wheel): state --engine-version 0.25.0 or later, or plan --kv-dtype fp8", None)


INT8_REFUSED = (
    "kvplan does not model vLLM's int8_per_token_head: it stores one float32 scale per token and "
    "KV head beside each K and V vector (2,112 B per token per layer on a GPU here, "
    "vllm/v1/kv_cache_interface.py:137-150 in 0.20.0), and kvplan's int8 cache has no scale "
    "(2,048 B); plan --kv-dtype fp8 (vLLM's fp8 keeps per-tensor scales) or --engine ideal for "
    "the plain arithmetic")


@pytest.mark.parametrize("version", [None, "0.20.0", "0.20", "0.34.0"])
def test_int8_from_0_20_is_refused_for_its_scales(version: str | None) -> None:
    # "0.20" is 0.20.0 (two numbers padded with a zero), not a release before it
    assert int_cache_check(_req(DType.int8), version) == (INT8_REFUSED, None)


@pytest.mark.parametrize("version", [None, "0.25", "0.25.0", "0.34.0"])
def test_int4_at_group_64_is_planned_with_a_note(version: str | None) -> None:
    assert int_cache_check(_req(DType.int4), version) == (
        None, "int4 planned as vLLM's int4_per_token_head (0.25.0 on): head_size / 2 bytes and one "
        "float32 scale (its zero point in the low bits) per token and KV head for K and for V, "
        "1,088 B per token per layer on a GPU, the bytes of kvplan's int4 at --kv-group-size 64; "
        "vLLM serves it with the Triton attention backend only")


def test_int4_at_another_group_is_refused_naming_the_one_that_matches() -> None:
    assert int_cache_check(_req(DType.int4, group=32), None) == (
        "kvplan's int4 cache at --kv-group-size 32 (1,152 B per token per layer on a GPU) is not "
        f"vLLM's int4_per_token_head (1,088 B: {INT4_WORDS}); --kv-group-size 64 matches it", None)


def test_int4_with_k_and_v_of_other_widths_is_refused_even_at_equal_bytes() -> None:
    # K 192, V 128: vLLM 16 x (96 + 64 + 8) = 2,688 B; kvplan at group 96 the same, 16 x (96 +
    # 2 scales x 2 B + 64 + 2 x 2 B) (ceil(128 / 96) = 2 groups), yet no group size matches K
    # and V alike: refused, and no group size named
    lite = _mha("deepseek-v2-lite", mla=None)  # type: ignore[arg-type]
    assert int_cache_check(_req(DType.int4, lite, group=96), None) == (
        "kvplan's int4 cache at --kv-group-size 96 (2,688 B per token per layer on a GPU) is not "
        f"vLLM's int4_per_token_head (2,688 B: {INT4_WORDS})", None)


def test_int4_with_an_odd_head_size_names_no_group() -> None:
    # head size 129: vLLM 8 x (64 + 64 + 8) = 1,088 B (head_size // 2); kvplan at group 64
    # 8 x 2 x (129 x 4 + ceil(129 / 64) = 3 scales x 16) bits = 9,024 bits = 1,128 B; no group
    # size matches an odd head
    odd = _mha("llama-3-8b", head_dim=129)
    assert int_cache_check(_req(DType.int4, odd), None) == (
        "kvplan's int4 cache at --kv-group-size 64 (1,128 B per token per layer on a GPU) is not "
        f"vLLM's int4_per_token_head (1,088 B: {INT4_WORDS})", None)


@pytest.mark.parametrize("version", [None, "0.25.0"])
def test_int4_is_refused_for_an_mla_cache(version: str | None) -> None:
    assert int_cache_check(_req(DType.int4, load_model("deepseek-v2-lite")), version) == (
        "vLLM's int4_per_token_head is not offered for deepseek-v2-lite's MLA cache: only the "
        "Triton attention backend takes it (triton_attn.py:333-335 in 0.34.0); plan --kv-dtype "
        "fp8", None)
