"""Mutation tests of kvplan/engines/sglang_kv_dtype.py (task mut2): the integer-cache refusal
whole, for both integer dtypes. Its values are SGLang 0.5.23's --kv-cache-dtype choices as read in
the wheel (sglang-0.5.23 sha256 00b3cd5b..., sglang/srt/arg_groups/fields/model.py:209-218;
tests/engines/test_sglang_kv_dtype.py holds the option table to them) and the range the table
reads, 0.3.0 (server_args.py:204) to 0.5.23."""

from __future__ import annotations

import pytest

from kvplan.engines.sglang_kv_dtype import int_cache_refusal
from kvplan.units import DType


@pytest.mark.parametrize("dtype", [DType.int8, DType.int4])
def test_the_integer_cache_refusal_word_for_word(dtype: DType) -> None:
    assert int_cache_refusal(dtype) == (
        f"SGLang has no {dtype.value} KV cache: its --kv-cache-dtype takes auto, fp8_e5m2, "
        "fp8_e4m3, mxfp8, bf16, bfloat16, nvfp4, fp4_mx_block16 in 0.5.23 (server_args.py's "
        "choices; no integer cache in any release read, 0.3.0-0.5.23); plan --kv-dtype fp8 or a "
        "16-bit cache, or --engine ideal for the plain arithmetic")
