"""vLLM's --kv-cache-dtype values per release (kvplan.engines.vllm_kv_dtypes, read in task
vllmleft from every wheel on PyPI from 0.3.0 to 0.34.0 into vllm_kv_dtypes.json). The golden
lists below were read by hand in the wheels (pip download vllm==X --no-deps), independently of
the generated table; each boundary is pinned on both sides."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kvplan.cli import app
from kvplan.engines.kv_spelling import vllm_refusal
from kvplan.engines.vllm_kv_dtypes import kv_dtype_values, read_releases

FP8 = ("auto", "fp8", "fp8_e5m2", "fp8_e4m3")  # add_argument choices, 0.4.3-0.8.4
LIT = ("auto", "fp8", "fp8_e4m3", "fp8_e5m2")  # CacheDType = Literal[...], 0.8.5 on
GOLDEN = {
    # release: (values, where, as read in its wheel)
    "0.4.0": (("auto", "fp8_e5m2"), "vllm/engine/arg_utils.py:153-156"),  # 0.4.0.post1 too
    "0.4.1": (("auto", "fp8"), "vllm/engine/arg_utils.py:175-178"),
    "0.4.2": (("auto", "fp8"), "vllm/engine/arg_utils.py:186-189"),
    "0.4.3": (FP8, "vllm/engine/arg_utils.py:192-195"),
    "0.5.0": (FP8, "vllm/engine/arg_utils.py:252-255"),
    "0.6.6": (FP8, "vllm/engine/arg_utils.py:345-348"),
    "0.7.3": (FP8, "vllm/engine/arg_utils.py:358-361"),
    "0.8.4": (FP8, "vllm/engine/arg_utils.py:385-388"),
    "0.8.5": (LIT, "vllm/config.py:1291"),
    "0.9.2": (LIT, "vllm/config.py:1477"),
    "0.10.0": ((*LIT, "fp8_inc"), "vllm/config.py:1609"),
    "0.10.2": ((*LIT, "fp8_inc"), "vllm/config/cache.py:25"),
    "0.11.0": (("auto", "bfloat16", *LIT[1:], "fp8_inc"), "vllm/config/cache.py:25-26"),
    "0.11.1": (("auto", "bfloat16", *LIT[1:], "fp8_inc", "fp8_ds_mla"),
               "vllm/config/cache.py:24-32"),
    "0.14.1": (("auto", "bfloat16", *LIT[1:], "fp8_inc", "fp8_ds_mla"),
               "vllm/config/cache.py:24-32"),
    "0.17.1": (("auto", "bfloat16", *LIT[1:], "fp8_inc", "fp8_ds_mla"),
               "vllm/config/cache.py:23-31"),
    "0.18.0": (("auto", "float16", "bfloat16", *LIT[1:], "fp8_inc", "fp8_ds_mla"),
               "vllm/config/cache.py:14-23"),
}


@pytest.mark.parametrize("release", sorted(GOLDEN))
def test_each_release_names_the_values_its_wheel_declares(release: str) -> None:
    values, where = GOLDEN[release]
    named, got, at, own = kv_dtype_values(release)
    assert (named, got, own) == (release, values, True)
    assert at == f"{where} in the vllm {release} wheel"


@pytest.mark.parametrize(("value", "last_without", "first_with"), [
    ("fp8", "0.4.0.post1", "0.4.1"), ("fp8_e4m3", "0.4.2", "0.4.3"),
    ("fp8_inc", "0.9.2", "0.10.0"), ("bfloat16", "0.10.2", "0.11.0"),
    ("fp8_ds_mla", "0.11.0", "0.11.1"), ("float16", "0.17.1", "0.18.0"),
])
def test_boundaries(value: str, last_without: str, first_with: str) -> None:
    assert value not in kv_dtype_values(last_without)[1]
    assert value in kv_dtype_values(first_with)[1]


def test_fp8_e5m2_leaves_in_0_4_1_and_returns_in_0_4_3() -> None:
    assert [("fp8_e5m2" in kv_dtype_values(r)[1]) for r in ("0.4.0.post1", "0.4.1", "0.4.2",
                                                             "0.4.3")] == [True, False, False, True]


def test_every_release_from_0_3_0_to_0_34_0_was_read() -> None:
    # PyPI's vllm releases in that range (pip index versions vllm, December 2026)
    data = json.loads((Path(__file__).parents[2] / "kvplan" / "engines" /
                       "vllm_kv_dtypes.json").read_text())
    read = [r[0] for r in data["releases"]]
    # the 9 .postN releases fold into their base release (0.9.0.1 and 0.10.1.1 do not)
    assert len([r for r in read if ".post" in r]) == 9 and len(read_releases()) == 84 - 9
    assert len(read) == 84 and read[0] == "0.3.0" and read[-1] == "0.34.0"
    for release in ("0.12.0", "0.13.0", "0.14.0", "0.15.1", "0.16.0", "0.17.0", "0.19.0",
                    "0.20.2", "0.21.0", "0.26.0", "0.31.0"):
        assert release in read
    assert all(len(r[2]) == 64 for r in data["releases"])  # each wheel's sha256


def test_a_release_not_read_takes_the_newest_with_that_said() -> None:
    named, values, _, own = kv_dtype_values("0.40.0")
    assert (named, own) == ("0.34.0", False) and "octave_k3v4" in values
    # between two read releases with the same values (no such PyPI release): theirs
    named, values, at, own = kv_dtype_values("0.12.5")
    assert (named, own) == ("0.12.5", True) and values == GOLDEN["0.14.1"][0]
    assert "0.12.5 itself not read, 0.13.0 takes the same" in at


@pytest.mark.parametrize(("version", "value", "first"), [
    ("0.9.0", "bfloat16", "0.11.0"), ("0.10.2", "bfloat16", "0.11.0"),
    ("0.17.1", "float16", "0.18.0")])
def test_a_value_the_release_refuses_is_refused_with_its_values(version: str, value: str,
                                                                 first: str) -> None:
    why = vllm_refusal(version, value, False)
    assert why is not None and why.startswith(f"vLLM {version} would not start: its "
                                              "--kv-cache-dtype takes ")
    assert f"argparse: invalid choice: {value!r}); {value} first in {first}" in why
    assert vllm_refusal(first, value, False) is None


@pytest.mark.parametrize(("version", "value"), [
    ("0.3.0", "fp8"),  # kvplan's own name (kvplan size --kv-dtype): the precision, not vLLM's
    ("0.9.0", "bf16"),  # spelling (tests/engines/test_kv_spelling.py: in a manifest it is)
    ("0.9.0", "auto"), ("0.40.0", "bfloat16"), ("0.9.0", "nvfp4_x")])
def test_what_is_left_to_others(version: str, value: str) -> None:
    assert vllm_refusal(version, value, False) is None


def test_check_refuses_bfloat16_on_vllm_0_9_0(tmp_path: Path) -> None:
    script = tmp_path / "serve.sh"
    script.write_text("#!/bin/bash\ndocker run --gpus all vllm/vllm-openai:v0.9.0 --model "
                      "meta-llama/Meta-Llama-3-8B --kv-cache-dtype bfloat16\n")
    out = " ".join(CliRunner().invoke(app, ["check", str(script), "--gpu", "h100"]).output.split())
    assert ("FAIL line 2 serve.sh: vLLM 0.9.0 would not start: its --kv-cache-dtype takes auto, "
            "fp8, fp8_e4m3, fp8_e5m2 (vllm/config.py:1391 in the vllm 0.9.0 wheel; argparse: "
            "invalid choice: 'bfloat16'); bfloat16 first in 0.11.0") in out, out
    script.write_text(script.read_text().replace("v0.9.0", "v0.11.0"))
    out = CliRunner().invoke(app, ["check", str(script), "--gpu", "h100"]).output
    assert out.startswith(f"{script}\nPASS"), out
