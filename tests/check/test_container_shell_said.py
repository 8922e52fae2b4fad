"""The pin note names the container's shell as the file writes it (task h80shell): a `bash -c`
or `/bin/bash -lc` script's `pip install vllm==0.8.5` was said as "the container's sh -c
script installs vllm==0.8.5". Golden pool: Llama-3-8B at 8,192 tokens on an H100 with vLLM
0.8.5 is 420,528 tokens (tests/check/test_container_pip_pins.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.conftest import invoke

SERVE = "vllm serve meta-llama/Meta-Llama-3-8B-Instruct --max-model-len 8192"
DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata: {{name: vllm}}
spec:
  selector: {{matchLabels: {{app: vllm}}}}
  template:
    metadata: {{labels: {{app: vllm}}}}
    spec:
      containers:
        - name: vllm
          image: python:3.11
          command: [{shell!r}, {flag!r}, {script!r}]
          resources: {{limits: {{nvidia.com/gpu: 1}}}}
"""


def _out(runner: CliRunner, path: Path) -> str:
    result = invoke(runner, "check", str(path), "--gpu", "h100")
    assert result.exit_code == 0, result.output
    out = " ".join(result.output.split())
    assert "(420,528 tokens in the pool)" in out
    return out


@pytest.mark.parametrize(("shell", "flag"), [("bash", "-c"), ("/bin/bash", "-lc"),
                                             ("sh", "-ec"), ("sh", "-c")])
def test_a_manifests_shell_is_named_as_written(tmp_path: Path, runner: CliRunner, shell: str,
                                              flag: str) -> None:
    path = tmp_path / "deploy.yaml"
    path.write_text(DEPLOYMENT.format(shell=shell, flag=flag,
                                      script=f"pip install vllm==0.8.5 && {SERVE}"))
    out = _out(runner, path)
    assert f"note: the container's {shell} {flag} script installs vllm==0.8.5: vllm 0.8.5" in out
    if shell != "sh":
        assert "sh -c script" not in out.replace(f"{shell} {flag} script", "")


def test_a_docker_runs_bash_is_named_bash(tmp_path: Path, runner: CliRunner) -> None:
    path = tmp_path / "serve.sh"
    path.write_text(f'#!/bin/bash\ndocker run --gpus 1 python:3.11 bash -c "pip install '
                    f'vllm==0.8.5 && {SERVE}"\n')
    out = _out(runner, path)
    assert "note: the container's bash -c script installs vllm==0.8.5: vllm 0.8.5" in out
    assert "sh -c script" not in out.replace("bash -c script", "")
