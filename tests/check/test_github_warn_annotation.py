"""`kvplan check --format github` on a WARN (task srefirst): a WARN exits 0, so it is a
`::warning` annotation titled WARN. Until then it was an `::error` titled "kvplan check FAIL" on
a job that passed, the pull request showing a red error for a deployment that passes the gate."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from tests.check.no_ci import _not_in_ci  # noqa: F401 - autouse: no folding at 80 columns
from tests.conftest import invoke

# a Deployment that names no GPU: judged over the catalog, a WARN
NO_GPU = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: qwen-nogpu
spec:
  replicas: 1
  template:
    spec:
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.10.1
        command: ["vllm", "serve", "Qwen/Qwen2.5-7B-Instruct", "--max-model-len", "8192"]
        resources:
          limits:
            nvidia.com/gpu: 1
"""


def test_a_warn_is_a_warning_annotation(runner: CliRunner, tmp_path: Path) -> None:
    path = tmp_path / "nogpu.yaml"
    path.write_text(NO_GPU)
    result = invoke(runner, "check", str(path), "--format", "github")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].startswith(
        f"::warning file={path},line=1,title=kvplan check WARN%3A qwen-nogpu::WARN  ")
    assert "no GPU named; starts on: " in lines[0]
    assert not any(line.startswith("::error") for line in lines)
    assert lines[-1] == "1 checked in 1 file(s): 0 PASS, 0 FAIL, 1 WARN, 0 ERROR"


def test_a_fail_beside_it_stays_an_error(runner: CliRunner, tmp_path: Path) -> None:
    path = tmp_path / "nogpu.yaml"
    path.write_text(NO_GPU)
    fail = Path(__file__).resolve().parents[1] / "assets" / "check" / "kvplan" / "fail-capacity.yaml"
    result = invoke(runner, "check", str(path), str(fail), "--format", "github")
    assert result.exit_code == 1, result.output
    levels = [line.split(" ", 1)[0] for line in result.stdout.splitlines()
              if line.startswith("::")]
    assert sorted(levels) == ["::error", "::warning"]
    assert f"::error file={fail},line=6,title=kvplan check FAIL%3A chat-undersized::FAIL" in \
        result.stdout
