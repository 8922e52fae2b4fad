"""`kvplan check` through the CLI in its machine formats (json, junit, github), --output and a
bad --format, and a CI log folded at 80 columns. The golden figures (Llama-3-8B on an H100: 222
2,000-token conversations per GPU) are derived in tests/check/test_check_cli.py's docstring."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

from typer.testing import CliRunner

from kvplan.specs import load_hardware, load_model
from tests.check.check_cli_run import INVALID, KV, run
from tests.check.no_ci import _not_in_ci  # noqa: F401 - autouse: no folding at 80 columns
from tests.conftest import invoke


def test_json_format(runner: CliRunner) -> None:
    result = run(runner, KV / "fail-capacity.yaml", KV / "pass.yaml", "--format", "json")
    assert result.exit_code == 1
    doc = json.loads(result.output)
    # every count is there, warn's too (0: until task h100review it was left out when 0)
    assert doc["summary"] == {"pass": 1, "fail": 1, "warn": 0, "error": 0, "exit_code": 1,
                              "skipped_files": [], "skipped_scripts": [], "skipped_folders": [],
                              "skipped_patches": []}
    assert list(doc["summary"]) == ["pass", "fail", "warn", "error", "exit_code",
                                    "skipped_files", "skipped_scripts", "skipped_folders",
                                    "skipped_patches"]
    fail = doc["results"][0]
    assert {
        k: fail[k]
        for k in (
            "verdict",
            "line",
            "users_held",
            "users_required",
            "would_start",
            "replicas",
            "gpus",
            "users_per_replica",
            "limited_by",
        )
    } == {
        "verdict": "FAIL",
        "line": 6,
        "users_held": 888,
        "users_required": 2400,
        "would_start": True,
        "replicas": 4,
        "gpus": 4,
        "users_per_replica": 222,
        "limited_by": "kv_cache",
    }
    # the pool from the spec's own figures: memory x 9/10 - bf16 weights - 2 GiB
    h100, llama = load_hardware("h100"), load_model("llama-3-8b")
    pool = h100.memory_bytes * 9 // 10 - llama.params_total * 2 - 2 * 1024**3
    assert fail["kv_pool_bytes_per_gpu"] == pool
    assert pool // (2000 * 131_072) == 222
    assert {
        "change": "more_gpus",
        "from": {"gpus": 4},
        "to": {"gpus": 11},
        "text": "hardware.count: 4 -> 11 (holds 2,442 users on 11 GPU(s))",
        "users_held": 2442,
        "gpus": 11,
    } in fail["fixes"]


def test_junit_format(runner: CliRunner) -> None:
    result = run(
        runner,
        KV / "pass.yaml",
        KV / "fail-capacity.yaml",
        INVALID / "unknown-gpu.yaml",
        "-f",
        "junit",
    )
    assert result.exit_code == 2
    root = ET.fromstring(result.output.split("\n", 1)[1])
    assert root.tag == "testsuites"
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("3", "1", "1")
    cases = root.findall("./testsuite/testcase")
    assert [c.get("name") for c in cases] == ["chat-pass", "chat-undersized", "unknown-gpu"]
    assert cases[1].find("failure") is not None
    assert cases[1].get("line") == "6"
    assert "hardware.count: 4 -> 11" in (cases[1].find("failure").text or "")
    assert cases[2].find("error").get("message").startswith("hardware.gpu: unknown GPU 'h1000'")


def test_github_format_annotates_the_offending_line(runner: CliRunner) -> None:
    result = run(
        runner,
        KV / "pass.yaml",
        KV / "fail-capacity.yaml",
        INVALID / "unknown-key.yaml",
        "--format",
        "github",
    )
    assert result.exit_code == 2
    lines = result.output.splitlines()
    assert lines[0].startswith("PASS  ")
    assert lines[1].startswith(
        f"::error file={KV / 'fail-capacity.yaml'},line=6,title=kvplan check FAIL%3A "
        "chat-undersized::FAIL"
    )
    assert "hardware.count: 4 -> 11 (holds 2,442 users on 11 GPU(s))" in lines[1]
    assert "%0Afix: " in lines[1]
    assert lines[2] == (
        f"::error file={INVALID / 'unknown-key.yaml'},line=8,title=kvplan check%3A invalid "
        "config::engine.max_model_length: unknown field; did you mean 'max_model_len'?"
    )


def test_output_file_and_bad_format(runner: CliRunner, tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    result = run(runner, KV / "pass.yaml", "--format", "json", "--output", out)
    assert result.exit_code == 0, result.output
    assert json.loads(out.read_text())["summary"]["pass"] == 1
    bad = run(runner, KV / "pass.yaml", "--format", "xml")
    assert bad.exit_code == 2
    assert "'xml' is not one of text, json, junit, github" in bad.output


def test_a_ci_log_of_the_whole_corpus_fits_80_columns(runner, monkeypatch) -> None:  # noqa: ANN001
    """With CI set, every line folds at 80 columns (verdicts, the summary, ignored documents);
    only a word longer than a line (a file path) may stand alone past it."""
    monkeypatch.setenv("CI", "true")
    corpus = Path(__file__).resolve().parents[1] / "assets" / "check" / "corpus"
    result = invoke(runner, "check", str(corpus))
    lines = result.stdout.splitlines()
    assert len(lines) > 100 and any(ln.startswith("ignored:") for ln in lines)
    wide = [ln for ln in lines if len(ln) > 80 and len(ln.split()) > 1]
    assert not wide, wide[:3]
