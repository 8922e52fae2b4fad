"""SGLang has no integer KV cache (kvplan.engines.sglang_kv_dtype): the rule is held to the
option table generated from the wheels, and a stated int8/int4 cache is refused end to end."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kvplan.cli import app
from kvplan.engines.sglang_kv_dtype import int_cache_refusal, newest_read
from kvplan.units import DType

TABLE = Path(__file__).parents[2] / "kvplan" / "check" / "engine_flags" / "sglang_releases.json"


def test_no_release_read_offers_an_integer_cache() -> None:
    data = json.loads(TABLE.read_text())
    choices = data["choices"]["--kv-cache-dtype"]
    assert min(choices) == "0.3.0"
    for release, values in choices.items():
        assert not [v for v in values if v.startswith("int")], release


# Read in the wheels (pip download sglang==X --no-deps), independently of the generated table:
# 0.3.0 (sglang-0.3.0-py3-none-any.whl, sha256 1f7ee60f...58df8d) sglang/srt/server_args.py:204;
# 0.5.23 (sglang-0.5.23-cp311-cp311-manylinux_2_34_x86_64.whl, sha256 00b3cd5b...9d859937)
# sglang/srt/arg_groups/fields/model.py:209-218 (kv_cache_dtype's Arg choices).
WHEELS = {
    "0.3.0": ("auto", "fp8_e5m2"),
    "0.5.23": ("auto", "fp8_e5m2", "fp8_e4m3", "mxfp8", "bf16", "bfloat16", "nvfp4",
               "fp4_mx_block16"),
}


def test_the_refusal_names_the_newest_release_values_as_its_wheel_declares_them() -> None:
    newest, values, oldest = newest_read()
    assert (newest, oldest) == ("0.5.23", "0.3.0")
    assert values == WHEELS["0.5.23"]
    line = int_cache_refusal(DType.int8)
    assert line is not None
    assert f"takes {', '.join(WHEELS['0.5.23'])} in 0.5.23 " in line
    assert "any release read, 0.3.0-0.5.23)" in line


@pytest.mark.parametrize("release", sorted(WHEELS))
def test_the_table_holds_the_wheel_lists(release: str) -> None:
    from kvplan.check.manifests.release_options import history

    read = history("sglang")
    assert read is not None
    assert read.choices(release, "--kv-cache-dtype") == WHEELS[release]


@pytest.mark.parametrize("dtype", [DType.int8, DType.int4])
def test_integer_caches_are_refused(dtype: DType) -> None:
    why = int_cache_refusal(dtype)
    assert why is not None and why.startswith(f"SGLang has no {dtype.value} KV cache: ")


@pytest.mark.parametrize("dtype", [DType.fp8, DType.bf16, DType.fp16, DType.fp32])
def test_float_caches_are_planned(dtype: DType) -> None:
    assert int_cache_refusal(dtype) is None


def test_size_refuses_an_int4_sglang_cache_in_one_line() -> None:
    result = CliRunner().invoke(app, ["size", "llama-3-8b", "--gpu", "h100", "--engine",
                                      "sglang", "--kv-dtype", "int4"])
    assert result.exit_code == 2
    assert "SGLang has no int4 KV cache: its --kv-cache-dtype takes auto, fp8_e5m2" in result.output
    assert "Traceback" not in result.output
    ok = CliRunner().invoke(app, ["size", "llama-3-8b", "--gpu", "h100", "--engine", "sglang",
                                  "--kv-dtype", "fp8"])
    assert ok.exit_code == 0, ok.output
