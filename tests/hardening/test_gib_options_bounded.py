"""Memory sizes in GiB are bounded at 1 PiB (kvplan.inputs.limits.MAX_MEMORY_BYTES), on the
command line and in a kvplan/v1 file: `--kv-budget-gib 1e308` printed a 300-digit TiB figure
and `--reserve-gib 1e308` a 300-digit shortfall (found by task freshuser)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from kvplan.cli import app

LIMIT = "1,048,576"


@pytest.mark.parametrize("option", ["--kv-budget-gib", "--reserve-gib"])
@pytest.mark.parametrize("value", ["1e308", "1048577"])
def test_cli_gib_beyond_a_pib_is_one_line(option: str, value: str) -> None:
    result = CliRunner().invoke(app, ["size", "llama-3-8b", "--gpu", "h100", option, value],
                                env={"COLUMNS": "200"})
    assert result.exit_code == 2
    shown = f"{float(value):g}"
    assert f"{option}: {shown} GiB is beyond the limit of {LIMIT} GiB (1 PiB, docs/limits.md)" \
        in result.output
    assert "TiB" not in result.output and "Traceback" not in result.output


def test_cli_gib_at_the_limit_is_read() -> None:
    """1 PiB itself passes the option and reaches the plan, which says it does not fit."""
    result = CliRunner().invoke(app, ["size", "llama-3-8b", "--gpu", "h100", "--kv-budget-gib",
                                      "1048576"], env={"COLUMNS": "200"})
    assert result.exit_code == 2
    assert "stated KV budget 1024 TiB plus weights 14.96 GiB exceeds h100-sxm-80gb's 79.2 GiB" \
        in result.output


@pytest.mark.parametrize("key", ["kv_budget_gib", "reserve_gib"])
def test_record_gib_beyond_a_pib_is_refused(tmp_path: Path, key: str) -> None:
    path = tmp_path / "big.yaml"
    path.write_text("apiVersion: kvplan/v1\nname: big\nmodel: llama-3-8b\nhardware:\n  gpu: h100\n"
                    f"engine:\n  {key}: 2000000\ntraffic:\n  peak_concurrent_users: 10\n",
                    encoding="utf-8")
    result = CliRunner().invoke(app, ["fleet", str(path)], env={"COLUMNS": "200"})
    assert result.exit_code == 2
    assert f"line 7: engine.{key}: 2,000,000 is beyond the limit of 1,048,576.0 " \
        "(docs/limits.md)" in result.output
