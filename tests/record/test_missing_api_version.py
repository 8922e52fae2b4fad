"""A kvplan/v1 deployment whose `apiVersion: kvplan/v1` line was left out is named as such, in one
line with the file and line, by the planning commands and by `kvplan check`; it is not read as a
model spec (whose twelve required fields the user never meant to write)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from kvplan.cli import app

runner = CliRunner()
BODY = "model: llama-3.1-8b\nhardware: {gpu: h100}\nparallel: {tensor: 2}\n"


@pytest.mark.parametrize("command", ["size", "fleet", "explain"])
def test_plan_commands_ask_for_the_api_version(tmp_path: Path, command: str):
    path = tmp_path / "noapi.yaml"
    path.write_text(BODY)
    res = runner.invoke(app, [command, str(path)])
    assert res.exit_code == 2
    lines = [x for x in res.stderr.splitlines() if x.strip()]
    assert len(" ".join(lines).split("error:")) == 2  # one error
    text = " ".join(" ".join(lines).split())
    assert "line 1: apiVersion: missing" in text and "hardware, parallel" in text
    assert "hf_id" not in text  # not read as a model spec


def test_check_names_the_missing_line(tmp_path: Path):
    path = tmp_path / "noapi.yaml"
    path.write_text(BODY)
    res = runner.invoke(app, ["check", str(path)])
    assert res.exit_code == 2
    assert "ERROR line 1: no apiVersion" in res.stdout
    assert "add `apiVersion: kvplan/v1`" in " ".join(res.stdout.split())


def test_with_the_line_it_plans(tmp_path: Path):
    """The same file with its first line plans: Llama-3.1-8B at TP 2 on H100s."""
    path = tmp_path / "ok.yaml"
    path.write_text("apiVersion: kvplan/v1\nname: ok\n" + BODY + "traffic: {}\n")
    res = runner.invoke(app, ["size", str(path)])
    assert res.exit_code == 0, res.output
    assert "TP 2" in res.stdout


def test_a_model_spec_is_still_a_model_spec(tmp_path: Path):
    """A spec file (num_layers) is not taken for a deployment even with a `model` key."""
    path = tmp_path / "spec.yaml"
    path.write_text("model: x\nnum_layers: 2\nhardware: {}\n")
    res = runner.invoke(app, ["size", str(path)])
    assert res.exit_code == 2
    assert "apiVersion: missing" not in res.stderr
