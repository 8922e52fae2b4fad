"""Shared fixtures: one CliRunner, a pinned terminal width, and spec helpers."""

from __future__ import annotations

import functools
import gc
import json
import os
import sys
import weakref
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

# Tests find their files from the repository root, whatever directory pytest starts in: the
# root goes first on sys.path (so `kvplan` and `tests.conftest` are this checkout's), and every
# test runs with the root as its working directory (relative paths such as examples/...).
ROOT = Path(__file__).resolve().parents[1]

# torch on one thread in every test, in-process or in a subprocess (set before torch is first
# imported): with pytest -n auto on a 2-core machine a second worker is always busy, and
# torch's OpenMP threads spin-wait against it. The docs example `size tiny-test-model --measure
# --device cpu --context 64 ...` took 110 s with torch's default threads and 38 s with one, both
# beside the same load (tests/measure/conftest.py did this only for its own tests).
os.environ.setdefault("OMP_NUM_THREADS", "1")
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import typer.testing  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

from kvplan.cli import app  # noqa: E402
from kvplan.specs import load_hardware, load_model  # noqa: E402

# typer's CliRunner.invoke turns the Typer app into a click command on every call
# (typer.main.get_command: every option of every command through get_params_from_function,
# 0.1-0.2 s a call, most of a CLI test's time). The app is built once at import
# (kvplan.cli.build_app) and never changes, so a test session converts each app object once and
# invokes the same click command, as a program run does; an app built inside a test gets its own.
_COMMANDS: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()
_typer_get_command = typer.testing._get_command


def _get_command_once(typer_app: Any) -> Any:
    command = _COMMANDS.get(typer_app)
    if command is None:
        command = _COMMANDS[typer_app] = _typer_get_command(typer_app)
    return command


typer.testing._get_command = _get_command_once

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


def _measures(item: pytest.Item) -> bool:
    """A test that runs `--measure` in this process (tests/measure, the docs' --measure examples)."""
    return item.nodeid.startswith("tests/measure/") or (
        item.nodeid.startswith("tests/test_docs.py::") and "--measure" in item.nodeid)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        measured_doc = item.nodeid.startswith("tests/test_docs.py::") and "--measure" in item.nodeid
        if item.nodeid.startswith(SLOW) or measured_doc:
            item.add_marker(pytest.mark.slow)


# --measure frees each trial's tensors with a full gc.collect() (kvplan.measure.tensors release,
# seven or more a run). In a program that walks kvplan, torch and transformers; in this process
# it walks every object the session made before (thousands of tests' worth): 92 full
# collections took 16.7 CPU s of tests/measure/test_measure_cli.py run alone. So a measuring
# test starts with what exists frozen (gc.freeze, as kvplan.cli.startup does for a program run):
# its collections walk only its own objects, which they still free, and the objects go back to
# the collector (gc.unfreeze) when the test ends.
def pytest_runtest_setup(item: pytest.Item) -> None:
    if _measures(item):
        gc.freeze()


def pytest_runtest_teardown(item: pytest.Item) -> None:
    if _measures(item):
        gc.unfreeze()


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


def config_file(tmp_path: Path, cfg: dict[str, Any]) -> str:
    """`cfg` written as tmp_path/config.json; its path."""
    path = tmp_path / "config.json"
    path.write_text(json.dumps(cfg))
    return str(path)


# A GraniteMoeHybrid (Granite 4.0) config.json for tests (tests/catalog/test_granite_hybrid.py,
# tests/hardening/test_config_dotted_paths.py): no Granite 4.0 config ships under tests/assets.
GRANITE_ATTENTION_AT = (5, 15, 25, 35)  # a test layout: the official order is not sourced

# granite-4.0-h-small's fields as sourced (docs/catalog.md): a public analysis quoting the
# official config (code index id 57624389648), IBM's Ollama GGUF (128 SSM heads, inner 8,192,
# one group), vLLM 0.11.1's start-up log (131,072 positions, bf16). mamba_conv_bias,
# mamba_proj_bias and attention_bias are the config class defaults here (they move no state byte).
GRANITE_H_SMALL: dict[str, Any] = {
    "architectures": ["GraniteMoeHybridForCausalLM"], "model_type": "granitemoehybrid",
    "hidden_size": 4096, "num_hidden_layers": 40, "num_attention_heads": 32,
    "num_key_value_heads": 8, "num_local_experts": 72, "num_experts_per_tok": 10,
    "shared_intermediate_size": 1536, "intermediate_size": 768, "mamba_d_state": 128,
    "mamba_d_conv": 4, "mamba_expand": 2, "mamba_n_heads": 128, "mamba_d_head": 64,
    "mamba_n_groups": 1, "tie_word_embeddings": True, "vocab_size": 100352,
    "torch_dtype": "bfloat16", "max_position_embeddings": 131072,
    "position_embedding_type": "nope",
    "layer_types": ["attention" if i in GRANITE_ATTENTION_AT else "mamba" for i in range(40)],
}


@pytest.fixture
def llama3():
    return load_model("llama-3-8b")


@pytest.fixture
def h100():
    return load_hardware("h100")


@functools.cache
def checked_corpus() -> Any:
    """`check_paths` over the public-manifest corpus (tests/assets/check/corpus), once a session:
    tests/check/test_check_corpus.py and tests/test_docs_generated_counts.py read the same
    report (it is read, never changed)."""
    from kvplan.check import check_paths

    return check_paths([str(ASSETS / "check" / "corpus")])


@functools.cache
def calibrated_logs() -> tuple[Any, ...]:
    """`calibrate_files` over tests/assets/logs (every *.log, in name order), once a session:
    the calibration tests and the prose checks of docs/engines*.md and README read the same
    reports (read, never changed)."""
    from kvplan.calibrate.compare import calibrate_files

    return tuple(calibrate_files([ASSETS / "logs"]))


def results(text: str):  # noqa: ANN201 - one record, or a list of several
    """size/fleet/explain JSON is always {"results": [...]}; one record unwrapped for brevity."""
    rows = json.loads(text)["results"]
    assert isinstance(rows, list)
    return rows[0] if len(rows) == 1 else rows


def ok_results(res: Any) -> Any:
    """The result rows of a CLI run's JSON, the run asserted to exit 0."""
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)["results"]


def cli_json(*args: str) -> Any:
    """Run `kvplan ARGS --format json` and return its one record, or the list of records when a
    sweep gives several (the document is `{"results": [...]}`; exit 0 or 1 asserted)."""
    result = CliRunner().invoke(app, [*args, "--format", "json"])
    assert result.exit_code in (0, 1), result.output
    doc = json.loads(result.stdout)
    if isinstance(doc, dict) and isinstance(doc.get("results"), list) and len(doc) == 1:
        return doc["results"][0] if len(doc["results"]) == 1 else doc["results"]
    return doc


def json_record(*args: str) -> dict[str, Any]:
    """`kvplan ARGS` (a JSON format among them)'s one record (exit 0 and one record asserted)."""
    res = invoke(CliRunner(), *args)
    assert res.exit_code == 0, res.output
    [row] = json.loads(res.stdout)["results"]
    return row


def size_record(*args: str) -> dict[str, Any]:
    """`kvplan size ARGS -f json`'s one record (exit 0 asserted)."""
    return json_record("size", *args, "-f", "json")


def explain_record(*args: str) -> dict[str, Any]:
    """`kvplan explain ARGS -f json`'s one record (exit 0 asserted)."""
    return json_record("explain", *args, "-f", "json")


def explain_steps(*args: str) -> list[dict[str, Any]]:
    """The steps of `kvplan explain ARGS`, in order."""
    return explain_record(*args)["steps"]


def explain_by_label(*args: str) -> dict[str, dict[str, Any]]:
    """The steps of `kvplan explain ARGS` by label."""
    return {s["label"]: s for s in explain_steps(*args)}


def step_values(record: dict[str, Any]) -> dict[str, Any]:
    """A JSON record's step values by label."""
    return {s["label"]: s["value"] for s in record["steps"]}


def step_value(record: dict[str, Any], label: str) -> Any:
    """The value of a record's first step with this label."""
    return next(s["value"] for s in record["steps"] if s["label"] == label)


@pytest.fixture
def cli():  # noqa: ANN201 - the helper itself
    """`cli("size", ...)`: the parsed JSON of one CLI run (tests/mutants)."""
    return cli_json


def rotary_words(what: str) -> str:
    """The words vLLM's weights step adds for the rotary cos/sin cache (kvplan.engines.vllm_rotary,
    task h39rope), e.g. rotary_words("131,072 positions x 128 x 2 B")."""
    return (f" + the rotary cos/sin cache {what} (vLLM get_rope's buffer over the config's "
            "positions, built while loading; one per rank)")


def blocks_words(booked: int, layout: str) -> str:
    """The words vLLM's weights step adds for torch's whole blocks from 0.21
    (kvplan.engines.vllm_load_blocks, task h51blocks), e.g. blocks_words(2_621_440, "16-bit MoE")."""
    return (f" + {booked:,} B of torch blocks: the {layout} layout's tensors of 20 MiB or more "
            "rounded up to 2 MiB (vLLM loads under max_split_size_mb 20)")
