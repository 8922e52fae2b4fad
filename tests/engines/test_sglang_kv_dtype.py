"""SGLang has no integer KV cache (kvplan.engines.sglang_kv_dtype): the rule is held to the
option table generated from the wheels, and a stated int8/int4 cache is refused end to end."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kvplan.cli import app
from kvplan.engines.sglang_kv_dtype import NEWEST_READ, NEWEST_VALUES, int_cache_refusal
from kvplan.units import DType

TABLE = Path(__file__).parents[2] / "kvplan" / "check" / "engine_flags" / "sglang_releases.json"


def test_no_release_read_offers_an_integer_cache() -> None:
    data = json.loads(TABLE.read_text())
    choices = data["choices"]["--kv-cache-dtype"]
    assert min(choices) == "0.3.0" and list(data["wheels"])[-1] == NEWEST_READ
    for release, values in choices.items():
        assert not [v for v in values if v.startswith("int")], release
    # the message names the newest read release's values, as the table holds them
    newest = max(choices, key=lambda r: tuple(int(x) for x in r.split(".")[:3]))
    assert tuple(choices[newest]) == NEWEST_VALUES


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
