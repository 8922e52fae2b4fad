"""Every command on generated files of every kind: exit 0, 1 or 2, never 3, never a traceback,
each run under 5 CPU seconds and (conftest) 500 MB more address space.

HYPOTHESIS_PROFILE picks the size: `ci` (the default; derandomized, about a minute on two
cores) or `nightly` (random, ten times the examples). The terminal summary prints how many
inputs were tried.
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from typer.testing import CliRunner

from kvplan.cli import app
from tests.fuzz.strategies import KINDS, TRIED, file_bytes

PROFILE_EXAMPLES = {"ci": 25, "nightly": 250}
CPU_BOUND_S = 5.0

# the commands that read each kind; FILE stands for the generated file
COMMANDS: dict[str, list[tuple[str, ...]]] = {
    "model": [("size", "FILE", "--gpu", "h100", "--format", "json"),
              ("explain", "FILE", "--gpu", "h100"),
              ("fleet", "FILE", "--gpu", "h100", "-n", "50", "--format", "json"),
              ("plot", "memory", "FILE", "--gpu", "h100")],
    "gpu": [("size", "llama-3-8b", "--gpu", "FILE", "--format", "json")],
    "deployment": [("fleet", "FILE", "--format", "json"), ("check", "FILE")],
    "manifest": [("check", "FILE")],
    "prices": [("fleet", "llama-3-8b", "--gpu", "h100", "-n", "50", "--prices", "FILE")],
    "sample-csv": [("fleet", "llama-3-8b", "--gpu", "h100", "-n", "50", "--context-sample", "FILE")],
    "sample-jsonl": [("fleet", "llama-3-8b", "--gpu", "h100", "-n", "50",
                      "--context-sample", "FILE")],
    "log": [("calibrate", "FILE")],
    "config": [("import", "FILE")],
}


def _examples() -> int:
    if os.environ.get("KVPLAN_FUZZ_EXAMPLES"):  # a one-off deeper run
        return int(os.environ["KVPLAN_FUZZ_EXAMPLES"])
    return PROFILE_EXAMPLES.get(os.environ.get("HYPOTHESIS_PROFILE", "ci"), PROFILE_EXAMPLES["ci"])


def _run_all(kind: str, data: bytes) -> None:
    runner = CliRunner()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / KINDS[kind].filename
        path.write_bytes(data)
        for command in COMMANDS[kind]:
            argv = [str(path) if a == "FILE" else a for a in command]
            start = time.process_time()
            result = runner.invoke(app, argv)
            spent = time.process_time() - start
            TRIED[kind] += 1
            shown = f"{' '.join(command)} on {data[:200]!r}: exit {result.exit_code}\n{result.output}"
            assert result.exit_code in (0, 1, 2), shown
            assert result.exception is None or isinstance(result.exception, SystemExit), shown
            assert "Traceback" not in result.output, shown
            assert spent < CPU_BOUND_S, f"{spent:.1f} CPU s: {shown}"


def _fuzz(kind: str):  # noqa: ANN202 - a hypothesis test function
    @settings(max_examples=_examples(), deadline=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(data=file_bytes(KINDS[kind]))
    def run(data: bytes) -> None:
        _run_all(kind, data)

    return run


@pytest.mark.parametrize("kind", list(COMMANDS))
def test_every_command_survives_generated_files(kind: str) -> None:
    _fuzz(kind)()
