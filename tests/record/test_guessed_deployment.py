"""A deployment written by guess (task freshuser): `model: llama-3-8b`, `gpu: h100`,
`peak_users: 100` at the top level, no apiVersion and none of the deployment's sections. It
was validated as a model spec and refused with one line of 20 "required field is missing"
(name, hf_id, source, model_type, ...); now the refusal says what a kvplan/v1 file holds and
how to get one. A spec file with a stray `model` key stays a spec
(tests/record/test_missing_api_version.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.conftest import invoke

RUNNER = CliRunner()


@pytest.mark.parametrize("command", ["size", "fleet", "explain"])
def test_a_guessed_deployment_is_told_its_shape(tmp_path: Path, command: str) -> None:
    path = tmp_path / "chat.yaml"
    path.write_text("# our chatbot\nmodel: llama-3-8b\ngpu: h100\npeak_users: 100\n")
    result = invoke(RUNNER, command, str(path))
    assert result.exit_code == 2, result.output
    assert result.stderr == (
        f"error: {path}: line 2: apiVersion: missing: this file (gpu, model, peak_users) is no "
        "model spec, which has no `model` key; a kvplan/v1 deployment starts with `apiVersion: "
        "kvplan/v1` and `name:`, and puts the GPU under hardware.gpu and the users under "
        "traffic.peak_concurrent_users (docs/record.md); `kvplan fleet MODEL --peak-users N "
        "--save FILE` writes one to start from\n")


def test_what_the_refusal_says_to_do_works(tmp_path: Path) -> None:
    """--save writes the file; that file plans with the users and GPU the guess meant."""
    path = tmp_path / "chat.yaml"
    saved = invoke(RUNNER, "fleet", "llama-3-8b", "--peak-users", "100", "--gpu", "h100",
                   "--save", str(path))
    assert saved.exit_code == 0, saved.output
    result = invoke(RUNNER, "fleet", str(path), "-f", "csv")
    assert result.exit_code == 0, result.output
    header, row = result.stdout.splitlines()[:2]
    fields = dict(zip(header.split(","), row.split(","), strict=True))
    assert (fields["model"], fields["gpu"], fields["peak_users"]) == ("llama-3-8b", "h100-sxm-80gb",
                                                                      "100")


def test_check_names_it_too(tmp_path: Path) -> None:
    path = tmp_path / "chat.yaml"
    path.write_text("model: llama-3-8b\ngpu: h100\npeak_users: 100\n")
    result = invoke(RUNNER, "check", str(path))
    assert result.exit_code == 2, result.output
    assert result.stdout.splitlines()[1] == (
        "ERROR line 1: no apiVersion: this file (gpu, model, peak_users) is no model spec, which "
        "has no `model` key; a kvplan/v1 deployment starts with `apiVersion: kvplan/v1` and "
        "`name:`, and puts the GPU under hardware.gpu and the users under "
        "traffic.peak_concurrent_users (docs/record.md); `kvplan fleet MODEL --peak-users N "
        "--save FILE` writes one to start from")
