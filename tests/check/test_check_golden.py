"""Whole-output goldens for every `kvplan check` format (KVPLAN_UPDATE_GOLDEN=1 rewrites them)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import ASSETS, invoke
from no_ci import _not_in_ci  # noqa: F401 - autouse: no folding at 80 columns
from typer.testing import CliRunner

ROOT = Path(__file__).parents[2]
GOLDEN = ASSETS / "check" / "golden"
# Inputs whose output does not move when the GPU catalog grows: H200s (no NVIDIA GPU with more
# memory passes where they fail) and an input error.
FILES = [
    "tests/assets/check/kvplan/pass-h200.yaml",
    "tests/assets/check/kvplan/fail-weights-h200.yaml",
    "tests/assets/check/k8s/sglang-pass.yaml",
    "tests/assets/check/invalid/unknown-key.yaml",
]


@pytest.mark.parametrize(
    ("fmt", "suffix"), [("text", "txt"), ("json", "json"), ("junit", "xml"), ("github", "txt")]
)
def test_whole_output(
    runner: CliRunner, monkeypatch: pytest.MonkeyPatch, fmt: str, suffix: str
) -> None:
    monkeypatch.chdir(ROOT)
    result = invoke(runner, "check", *FILES, "--format", fmt)
    assert result.exit_code == 2, result.output
    golden = GOLDEN / f"check-{fmt}.{suffix}"
    if os.environ.get("KVPLAN_UPDATE_GOLDEN"):
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(result.output)
    assert result.output == golden.read_text()
