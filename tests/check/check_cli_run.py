"""What the `kvplan check` CLI tests share (tests/check/test_check_cli.py, test_check_cli_inputs.py,
test_check_cli_formats.py): the asset folders and `run`, which checks through the CLI and, for
text output, gives each verdict line its file (no_ci's `flat`); and `results`, the JSON rows of
one file checked (test_check_ome.py, test_check_kubeai.py, test_check_mend.py); `check_words`,
its exit code and output with white space folded; `check_flat`, with each verdict line given its
file (test_check_shell.py, test_check_mend.py); `check_script`, a launch script written and checked on
an H100, and `docker_script`, the vLLM docker run such a script holds (test_optimization_level.py,
test_capture_options.py)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from kvplan.cli import app
from tests.check.no_ci import flat
from tests.conftest import ASSETS, invoke

CHECK = ASSETS / "check"
KV = CHECK / "kvplan"
INVALID = CHECK / "invalid"
K8S = CHECK / "k8s"


def run(runner: CliRunner, *args: str | Path):  # noqa: ANN201
    result = invoke(runner, "check", *map(str, args))
    machine = {"json", "junit", "github"} & {str(a) for a in args}
    return result if machine else flat(result)



def results(runner: CliRunner, path: Path, *args: str) -> list[dict]:
    """`kvplan check PATH -f json ARGS`: its result rows."""
    return json.loads(invoke(runner, "check", str(path), "-f", "json", *args).output)["results"]


def check_words(path: Path, *args: str) -> tuple[int, str]:
    """`kvplan check PATH ARGS`: its exit code and its output, white space folded to one space."""
    res = CliRunner().invoke(app, ["check", str(path), *args])
    return res.exit_code, " ".join(res.output.split())


def check_flat(runner: CliRunner, path: Path, *args: str) -> tuple[int, str]:
    """`kvplan check PATH ARGS`: its exit code and text output, each verdict line with its file."""
    result = flat(invoke(runner, "check", str(path), *args))
    return result.exit_code, result.output


def check_script(tmp_path: Path, text: str, name: str = "serve.sh") -> tuple[int, str]:
    """`text` written as tmp_path/NAME and checked with --gpu h100: exit code and output."""
    path = tmp_path / name
    path.write_text(text)
    res = CliRunner().invoke(app, ["check", str(path), "--gpu", "h100"])
    return res.exit_code, res.output


def docker_script(tag: str, options: str) -> str:
    """A script that runs vllm/vllm-openai:TAG on Llama-3.1-8B-Instruct at 8,192 tokens, OPTIONS
    after."""
    return (f"#!/bin/sh\ndocker run --gpus 1 vllm/vllm-openai:{tag} --model "
            f"meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192 {options}\n")
