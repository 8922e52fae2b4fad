"""Mutation tests of kvplan/engines/vllm_kv_dtypes.py (task mut2): how a stated release is
matched with the releases read (its first four numbers, zeros for the missing ones), and the
refusal whole. The values and lines are the wheels' as tests/engines/test_vllm_kv_dtypes.py
reads them by hand: 0.9.0 and 0.9.0.1 (a PyPI release of its own) vllm/config.py:1391, 0.17.1
vllm/config/cache.py:23-31 (no float16), float16 first in 0.18.0."""

from __future__ import annotations

import pytest

from kvplan.engines.kv_spelling import vllm_refusal
from kvplan.engines.vllm_kv_dtypes import kv_dtype_values

LIT = ("auto", "fp8", "fp8_e4m3", "fp8_e5m2")  # CacheDType, 0.8.5-0.9.2


def test_a_two_number_release_is_its_first_release() -> None:
    # "0.9" is 0.9.0 (zeros for the missing numbers), not 0.9.0.1
    assert kv_dtype_values("0.9") == ("0.9", LIT, "vllm/config.py:1391 in the vllm 0.9.0 wheel",
                                      True)
    assert kv_dtype_values("0.9.0.1") == (
        "0.9.0.1", LIT, "vllm/config.py:1391 in the vllm 0.9.0.1 wheel", True)


def test_a_release_reads_its_first_four_numbers() -> None:
    # no vLLM release on PyPI has more than four (0.9.0.1, 0.10.1.1): a fifth is not compared
    assert kv_dtype_values("0.9.0.1.2") == (
        "0.9.0.1.2", LIT, "vllm/config.py:1391 in the vllm 0.9.0.1 wheel", True)


def test_the_refusal_whole() -> None:
    # the refusal moved to kvplan.engines.kv_spelling (task kvspell), which adds kvplan's 8-bit
    # offer to the fix; the values and lines are 0.17.1's own (module docstring)
    assert vllm_refusal("0.17.1", "float16", True) == (
        "vLLM 0.17.1 would not start: its --kv-cache-dtype takes auto, bfloat16, fp8, fp8_e4m3, "
        "fp8_e5m2, fp8_inc, fp8_ds_mla (vllm/config/cache.py:23-31 in the vllm 0.17.1 wheel; "
        "argparse: invalid choice: 'float16'); float16 first in 0.18.0: give auto (the model's "
        "own dtype) or fp8 (an 8-bit cache) or serve vLLM 0.18.0 or newer")


# 0.34.0's CacheDType (vllm/config/cache.py:44-67 in the wheel; tests/hardening/test_h90hostile.py
# holds the same list as read there)
V034 = ("auto", "float16", "bfloat16", "fp8", "fp8_e4m3", "fp8_e5m2", "fp8_inc", "fp8_ds_mla",
        "nvfp4_ds_mla", "turboquant_k8v4", "turboquant_4bit_nc", "turboquant_k3v4_nc",
        "turboquant_3bit_nc", "octave_k3v4", "octave_k3v3", "octave_k3v3_compact",
        "ultraquant_4bit", "int4_per_token_head", "int8_per_token_head", "fp8_per_token_head",
        "nvfp4", "nvfp4_4over6")
AT_034 = "vllm/config/cache.py:44-67 in the vllm 0.34.0 wheel"
DS_MLA = ("auto", "bfloat16", "fp8", "fp8_e4m3", "fp8_e5m2", "fp8_inc", "fp8_ds_mla")  # 0.11.1-0.17.1


def test_no_release_is_the_newest_read_as_its_own() -> None:
    assert kv_dtype_values(None) == ("0.34.0", V034, AT_034, True)
    # a text with no number ("latest"): the newest read's values, not the release's own
    assert kv_dtype_values("latest") == ("0.34.0", V034, AT_034, False)
    # past the newest read, or before the oldest (0.3.0): the newest read's, said not its own
    assert kv_dtype_values("0.40.0") == ("0.34.0", V034, AT_034, False)
    assert kv_dtype_values("0.2.7") == ("0.34.0", V034, AT_034, False)


def test_between_two_read_releases_with_the_same_values() -> None:
    # 0.11.1.5 lies between 0.11.1 (the first with fp8_ds_mla; 0.11.0 has none) and 0.11.2,
    # which take the same: 0.11.1's, not 0.11.0's
    assert kv_dtype_values("0.11.1.5") == (
        "0.11.1.5", DS_MLA, "vllm/config/cache.py:24-32 in the vllm 0.11.1 wheel; 0.11.1.5 itself "
        "not read, 0.11.2 takes the same", True)
    # 0.17.0.5: between 0.17.0 and 0.17.1 (the same values); 0.18.0, after them, adds float16
    named, values, at, own = kv_dtype_values("0.17.0.5")
    assert (named, values, own) == ("0.17.0.5", DS_MLA, True)
    assert at.endswith(" in the vllm 0.17.0 wheel; 0.17.0.5 itself not read, 0.17.1 takes the "
                       "same")


@pytest.mark.parametrize(("version", "value", "first"), [
    # task kvspell: the fp8 family is checked as written too (it was left alone when this file was
    # written): fp8_e5m2 is gone in 0.4.1-0.4.2 (arg_utils.py:175-178 in 0.4.1: auto, fp8) and
    # taken again from 0.4.3; fp8_e4m3 first in 0.4.3; fp8_ds_mla first in 0.11.1
    ("0.4.1", "fp8_e5m2", "taken again from 0.4.3"), ("0.4.2", "fp8_e4m3", "first in 0.4.3"),
    ("0.3.0", "fp8_e4m3", "first in 0.4.3"), ("0.10.2", "fp8_ds_mla", "first in 0.11.1")])
def test_the_fp8_family_is_checked_as_written(version: str, value: str, first: str) -> None:
    why = vllm_refusal(version, value, True)
    assert why is not None and why.startswith(f"vLLM {version} would not start: ")
    assert f"invalid choice: {value!r}); {value} {first}: give " in why


def test_a_taken_fp8_spelling_is_planned() -> None:
    assert vllm_refusal("0.4.3", "fp8_e4m3", True) is None
