"""Helpers for the mutation-killing tests: the CLI as JSON, and the repository root."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from kvplan.cli import app

REPO = Path(__file__).resolve().parents[2]


def cli_json(*args: str) -> Any:
    """Run `kvplan ARGS --format json` and return the parsed document (exit 0 asserted)."""
    result = CliRunner().invoke(app, [*args, "--format", "json"])
    assert result.exit_code in (0, 1), result.output
    return json.loads(result.stdout)


@pytest.fixture
def cli():  # noqa: ANN201 - the helper itself
    """`cli("size", ...)`: the parsed JSON of one CLI run."""
    return cli_json


@pytest.fixture
def repo() -> Path:
    return REPO
