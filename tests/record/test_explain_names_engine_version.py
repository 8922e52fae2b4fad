"""`explain`'s record names the engine release it planned, and where it came from, also when
no --engine-version was given.

Found by task h90review reading the record as a user: `kvplan explain llama-3.1-70b --engine vllm
...` printed "vllm 0.34.0" in the arithmetic's title but no engine.version row, though the
release is a field of the record (kvplan/v1 engine.version) that moves every figure and the
record is documented to name each field's source (docs/record.md): with --engine-version the
row appeared, without it the release kvplan chose was left out of the table."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from kvplan.cli import app


def _record(*args: str) -> dict[str, tuple[object, str]]:
    res = CliRunner().invoke(app, ["explain", "llama-3-8b", "--context", "8192", *args,
                                   "-f", "json"])
    assert res.exit_code == 0, res.output
    [row] = json.loads(res.stdout)["results"]
    return {f["field"]: (f["value"], f["from"]) for f in row["record"]}


@pytest.mark.parametrize("engine, newest", [("vllm", "0.34.0"), ("sglang", "0.5.23"),
                                            ("trtllm", "1.3.0")])
def test_default_release_is_a_row(engine: str, newest: str):
    value, origin = _record("--engine", engine)["engine.version"]
    assert value == newest  # docs/engines.md: vLLM 0.34.0, SGLang 0.5.23, TensorRT-LLM 1.3.0
    assert origin == "default: the newest release kvplan models (docs/engines.md)"


def test_stated_release_keeps_its_flag():
    assert _record("--engine", "vllm", "--engine-version", "0.10.2")["engine.version"] == (
        "0.10.2", "--engine-version")


def test_ideal_has_no_release():
    assert "engine.version" not in _record()
