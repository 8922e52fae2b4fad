"""`kvplan check` through the CLI on what it cannot plan: invalid files (one ERROR line with file,
line and field), YAML tags never executed, missing paths and empty globs, folders and globs, and a
file that holds no deployment; exit code 2 when any input is an ERROR."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.check.check_cli_run import INVALID, K8S, KV, run
from tests.check.no_ci import _not_in_ci  # noqa: F401 - autouse: no folding at 80 columns

INVALID_CASES = [
    ("malformed.yaml", 3, "malformed YAML: did not find expected ',' or ']'"),
    (
        "python-tag.yaml",
        2,
        "malformed YAML: could not determine a constructor for the tag "
        "'tag:yaml.org,2002:python/object/apply:os.system' (only plain YAML is accepted",
    ),
    (
        "unknown-key.yaml",
        8,
        "engine.max_model_length: unknown field; did you mean 'max_model_len'?",
    ),
    ("unknown-model.yaml", 3, "model: unknown model 'llama-3-8bb' (did you mean: llama-3-8b"),
    ("unknown-gpu.yaml", 5, "hardware.gpu: unknown GPU 'h1000' (did you mean: h100"),
    (
        "wrong-type.yaml",
        6,
        "hardware.count: Input should be a valid integer, unable to parse "
        "string as an integer (got 'eight')",
    ),
    ("missing-field.yaml", 1, "traffic: required field is missing"),
    ("api-version.yaml", 1, "apiVersion: 'kvplan/v2' is not supported; use kvplan/v1"),
    (
        "tp-too-large.yaml",
        6,
        "hardware.count: 2 GPU(s) cannot hold one replica: tensor 4 x pipeline 1 needs 4 GPUs",
    ),
    ("no-count.yaml", 4, "hardware.count: required by `kvplan check`"),
    (
        "engine-unknown.yaml",
        8,
        "engine.name: Input should be 'ideal', 'vllm', 'sglang', 'trtllm' or 'transformers' "
        "(got 'tgi')",
    ),
]


@pytest.mark.parametrize(("name", "line", "message"), INVALID_CASES)
def test_invalid_input_is_one_line_with_file_line_and_field(
    runner: CliRunner, name: str, line: int, message: str
) -> None:
    result = run(runner, INVALID / name)
    assert result.exit_code == 2, result.output
    lines = result.output.splitlines()
    assert len(lines) == 2, result.output  # the ERROR line and the summary
    assert lines[0].startswith(f"ERROR {INVALID / name}:{line}: {message}"), lines[0]
    assert "Traceback" not in result.output


def test_python_tag_is_never_executed(runner: CliRunner, tmp_path: Path) -> None:
    marker = tmp_path / "owned"
    evil = tmp_path / "evil.yaml"
    evil.write_text(
        f'apiVersion: kvplan/v1\nname: !!python/object/apply:os.system ["touch {marker}"]\n'
    )
    assert run(runner, evil).exit_code == 2
    assert not marker.exists()


def test_invalid_file_does_not_stop_the_others(runner: CliRunner) -> None:
    result = run(runner, INVALID / "unknown-gpu.yaml", KV / "pass.yaml", KV / "fail-capacity.yaml")
    assert result.exit_code == 2, result.output
    verdicts = [line.split()[0] for line in result.output.splitlines()[:-1] if line[:1] != " "]
    assert verdicts == ["ERROR", "PASS", "FAIL"]
    assert result.output.splitlines()[-1] == "3 checked in 3 file(s): 1 PASS, 1 FAIL, 1 ERROR"


def test_folders_and_globs(runner: CliRunner) -> None:
    result = run(runner, KV)
    assert result.exit_code == 1, result.output
    assert result.output.splitlines()[-1] == "10 checked in 10 file(s): 2 PASS, 8 FAIL, 0 ERROR"
    globbed = run(runner, str(KV / "fail-*.yaml"))
    assert globbed.exit_code == 1
    assert globbed.output.splitlines()[-1] == "7 checked in 7 file(s): 0 PASS, 7 FAIL, 0 ERROR"


def test_missing_path_and_empty_glob(runner: CliRunner, tmp_path: Path) -> None:
    result = run(runner, tmp_path / "nope.yaml", str(tmp_path / "*.yaml"))
    assert result.exit_code == 2
    assert f"ERROR {tmp_path / 'nope.yaml'}: no such file or folder" in result.output
    assert f"ERROR {tmp_path / '*.yaml'}: no file matches" in result.output


def test_explicit_file_without_a_deployment_is_an_error(runner: CliRunner) -> None:
    result = run(runner, K8S / "not-an-llm.yaml")
    assert result.exit_code == 2
    assert "no kvplan/v1 deployment and nothing that runs vLLM, SGLang or TensorRT-LLM" in result.output
