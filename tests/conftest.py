"""Shared fixtures: one CliRunner, a pinned terminal width, and spec helpers."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings
from typer.testing import CliRunner

from kvplan.cli import app
from kvplan.specs import load_hardware, load_model

# Hypothesis profiles, chosen by HYPOTHESIS_PROFILE: `ci` (the default) replays the same
# examples on every run; `nightly` draws fresh ones, ten times as many in tests/fuzz.
settings.register_profile("ci", derandomize=True, database=None)
settings.register_profile("nightly", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

ASSETS = Path(__file__).parent / "assets"
GOLDEN = Path(__file__).parent / "golden"


@pytest.fixture(autouse=True)
def _stable_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """Rich output depends on the width and on colour; pin both."""
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.delenv("KVPLAN_DEBUG", raising=False)


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


def invoke(runner: CliRunner, *args: str):  # noqa: ANN201 - typer's Result type
    return runner.invoke(app, list(args))


@pytest.fixture
def llama3():
    return load_model("llama-3-8b")


@pytest.fixture
def h100():
    return load_hardware("h100")
