"""Shared fixtures: one CliRunner, a pinned terminal width, and spec helpers."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

# Tests find their files from the repository root, whatever directory pytest starts in: the
# root goes first on sys.path (so `kvplan` and `tests.conftest` are this checkout's), and every
# test runs with the root as its working directory (relative paths such as examples/...).
ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from typer.testing import CliRunner  # noqa: E402

from kvplan.cli import app  # noqa: E402
from kvplan.specs import load_hardware, load_model  # noqa: E402

ASSETS = ROOT / "tests" / "assets"
GOLDEN = ROOT / "tests" / "golden"

# Hypothesis: `ci` (the default) draws the same examples every run; `nightly` draws new ones,
# ten times as many. Select with HYPOTHESIS_PROFILE=nightly.
settings.register_profile("ci", derandomize=True, database=None, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("nightly", derandomize=False, max_examples=1000, deadline=None,
                          print_blob=True, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


# Tests that take more than a few seconds on a 2-core machine (pytest --durations), marked
# `slow` here so that their files stay as their areas wrote them: `-m "not slow"` for a quick run.
SLOW = (
    "tests/measure/test_measure_gpu_script.py::",  # builds and decodes a torch model
    "tests/measure/test_measure_cli.py::",
    "tests/fuzz/test_fuzz.py::test_every_command_survives_generated_files",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        measured_doc = item.nodeid.startswith("tests/test_docs.py::") and "--measure" in item.nodeid
        if item.nodeid.startswith(SLOW) or measured_doc:
            item.add_marker(pytest.mark.slow)


@pytest.fixture(autouse=True)
def _repository_root(monkeypatch: pytest.MonkeyPatch) -> None:
    """Relative paths in tests (examples/..., tests/assets/...) resolve from the root."""
    monkeypatch.chdir(ROOT)


@pytest.fixture(autouse=True)
def _stable_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """Rich output depends on the width and on colour; pin both."""
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.delenv("KVPLAN_DEBUG", raising=False)
    monkeypatch.delenv("CI", raising=False)  # check folds its lines at 80 columns under CI


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


def cli_json(*args: str) -> Any:
    """Run `kvplan ARGS --format json` and return its one record, or the list of records when a
    sweep gives several (the document is `{"results": [...]}`; exit 0 or 1 asserted)."""
    result = CliRunner().invoke(app, [*args, "--format", "json"])
    assert result.exit_code in (0, 1), result.output
    doc = json.loads(result.stdout)
    if isinstance(doc, dict) and isinstance(doc.get("results"), list) and len(doc) == 1:
        return doc["results"][0] if len(doc["results"]) == 1 else doc["results"]
    return doc


@pytest.fixture
def cli():  # noqa: ANN201 - the helper itself
    """`cli("size", ...)`: the parsed JSON of one CLI run (tests/mutants)."""
    return cli_json


def rotary_words(what: str) -> str:
    """The words vLLM's weights step adds for the rotary cos/sin cache (kvplan.engines.vllm_rotary,
    task h39rope), e.g. rotary_words("131,072 positions x 128 x 2 B")."""
    return (f" + the rotary cos/sin cache {what} (vLLM get_rope's buffer over the config's "
            "positions, built while loading; one per rank)")
