"""A file given by name whose only engine workload carries `kvplan.io/skip: "true"`: the gate
checked nothing, so it does not pass (exit 2), and the line says the annotation left it out,
with the annotation's line, instead of "nothing that runs vLLM, SGLang or TensorRT-LLM"."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from kvplan.cli import app

DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: vllm
  annotations:
    kvplan.io/skip: "{skip}"
spec:
  template:
    spec:
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.8.5
        args: ["--model", "meta-llama/Llama-3.1-8B-Instruct", "--max-model-len", "8192"]
        resources:
          limits:
            nvidia.com/gpu: 1
"""


def _check(tmp_path: Path, skip: str) -> tuple[int, str]:
    path = tmp_path / "vllm.yaml"
    path.write_text(DEPLOYMENT.format(skip=skip), encoding="utf-8")
    result = CliRunner().invoke(app, ["check", str(path), "--gpu", "h100"], env={"COLUMNS": "200"})
    return result.exit_code, result.output


def test_skip_only_file_says_the_annotation_left_it_out(tmp_path: Path) -> None:
    code, out = _check(tmp_path, "true")
    assert code == 2
    assert ('ERROR line 6: a workload here carries the annotation `kvplan.io/skip: "true"`, so '
            "kvplan left it out as asked, and nothing else in this file runs vLLM, SGLang or "
            "TensorRT-LLM: nothing was checked; remove the annotation to have it checked") in out
    assert "0 PASS, 0 FAIL, 1 ERROR" in out


def test_without_the_annotation_the_same_file_is_checked(tmp_path: Path) -> None:
    code, out = _check(tmp_path, "false")
    assert "kvplan.io/skip" not in out
    assert out.split("\n")[1].startswith("PASS"), out
    assert "(llama-3.1-8b, vllm 0.8.5)" in out
    assert "1 checked in 1 file(s): 1 PASS, 0 FAIL, 0 ERROR" in out
    assert code == 0
